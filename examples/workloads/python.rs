//! The Python rows of the workloads: W1, W2, W3, W6 and W7's Python
//! programs (`fixtures/workloads/programs-python.json`), each measured the
//! same way on two engines:
//!
//! - `ptc (Python)`: `Engine::run_code` with `Language::Python` (Monty in a
//!   worker of Monty's pool, behind ptc's pipeline, scheduler and events);
//! - `Monty (monty-pool, direct)`: the same worker binary and pool driven
//!   by [`crate::monty_peer`], without ptc.
//!
//! One code path measures both ([`Runner`]): the same warm-ups, the same
//! counts, the same checks. A run is a whole run on both sides: a worker
//! checked out of the warm pool, a fresh session with the 50 tools of
//! tools50.json bound, the program, and the worker back in the pool.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ptc::{Engine, Language, RunEvent, RunOptions, RunRequest};
use serde_json::{Value, json};

use crate::monty_peer::Peer;
use crate::{
    Handlers, Stats, print_table, record, repeat, round, summary, timer_latency_ms, w7_record,
};

/// The Python workloads, in order.
const WORKLOADS: [&str; 5] = ["W1", "W2", "W3", "W6", "W7"];

/// The engines' names in the records.
const PTC: &str = "ptc (Python)";
const MONTY: &str = "Monty (monty-pool, direct)";

fn programs() -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(crate::peers("programs-python.json"))
            .expect("programs-python.json"),
    )
    .expect("parse programs-python.json")
}

/// What a run gave: its result as text, its tool calls, and (ptc) the
/// events its sink counted.
pub(crate) struct Ran {
    pub(crate) text: String,
    pub(crate) sub_calls: u32,
    pub(crate) events: Option<usize>,
}

/// One of the two engines.
#[derive(Clone)]
enum Runner {
    Ptc(Engine),
    Monty(Box<Peer>),
}

impl Runner {
    fn name(&self) -> &'static str {
        match self {
            Self::Ptc(_) => PTC,
            Self::Monty(_) => MONTY,
        }
    }

    /// Runs `code` to its end; a failed run panics (no figure from it).
    /// `events`: ptc's runs count their events in a sink, as a host
    /// forwarding them would (Monty has no events).
    async fn run(&self, code: &str, events: bool) -> Ran {
        match self {
            Self::Ptc(engine) => {
                let seen = Arc::new(AtomicUsize::new(0));
                let mut options = RunOptions::default();
                if events {
                    let sink = Arc::clone(&seen);
                    options = options.events(move |_: RunEvent| {
                        sink.fetch_add(1, Ordering::Relaxed);
                    });
                }
                let outcome = engine
                    .run_code(RunRequest::new(code).language(Language::Python), options)
                    .await
                    .expect("valid request");
                assert!(!outcome.is_error, "run failed: {}", outcome.text());
                Ran {
                    text: outcome.text().to_owned(),
                    sub_calls: outcome.sub_calls,
                    events: events.then(|| seen.load(Ordering::Relaxed)),
                }
            }
            Self::Monty(peer) => peer.run(code).await,
        }
    }
}

/// The record of `engine`.
fn named(mut r: Value, engine: &str) -> Value {
    r["engine"] = json!(engine);
    r
}

async fn w1(r: &Runner, p: &Value) -> Value {
    let code = p["W1"].as_str().unwrap();
    for _ in 0..20 {
        r.run(code, false).await;
    }
    let mut xs = Vec::new();
    for _ in 0..200 {
        let t = Instant::now();
        let ran = r.run(code, false).await;
        xs.push(t.elapsed().as_secs_f64() * 1e6);
        assert_eq!(ran.text, "1");
    }
    record("W1", "us_per_run", &summary(xs), 1, json!({}))
}

/// W2: 10,000 sequential `echo` calls; ptc's with events on.
async fn w2(r: &Runner, p: &Value) -> Value {
    let code = p["W2"].as_str().unwrap();
    let events = matches!(r, Runner::Ptc(_));
    let xs = repeat(5, 20, Duration::from_secs(10), || async {
        let t = Instant::now();
        let ran = r.run(code, events).await;
        let us = t.elapsed().as_secs_f64() * 1e6 / 10_000.0;
        assert_eq!(ran.text, "49995000");
        assert_eq!(ran.sub_calls, 10_000);
        if let Some(n) = ran.events {
            assert_eq!(n, 20_000, "started and settled per call");
        }
        us
    })
    .await;
    record(
        "W2",
        "us_per_subcall",
        &summary(xs),
        3,
        json!({ "events": events }),
    )
}

/// W3: 1,000 `sleep({ ms: 1 })` calls through `asyncio.gather`, 10 in flight.
async fn w3(r: &Runner, p: &Value, stats: &Stats) -> Value {
    let code = p["W3"].as_str().unwrap();
    let peaks = std::sync::Mutex::new(Vec::new());
    let xs = repeat(5, 20, Duration::from_secs(15), || {
        stats.peak.store(0, Ordering::Relaxed);
        let peaks = &peaks;
        async move {
            let t = Instant::now();
            let ran = r.run(code, false).await;
            let ms = t.elapsed().as_secs_f64() * 1e3;
            assert_eq!(ran.sub_calls, 1000);
            peaks
                .lock()
                .unwrap()
                .push(stats.peak.load(Ordering::Relaxed));
            ms
        }
    })
    .await;
    let max_inflight = peaks.lock().unwrap().iter().copied().max().unwrap_or(0);
    assert_eq!(max_inflight, 10, "the per-run cap must be reached and held");
    let timer = timer_latency_ms(stats).await;
    record(
        "W3",
        "wall_ms",
        &summary(xs),
        1,
        json!({
            "max_inflight": max_inflight,
            "timer_1ms_latency_ms": round(timer, 3),
            "floor_ms": round(timer * 100.0, 1),
        }),
    )
}

/// This process and every process under it (the workers).
fn tree() -> Vec<u32> {
    let me = std::process::id();
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // After the command's closing parenthesis: state, then the parent.
        let ppid = stat
            .rfind(')')
            .and_then(|at| stat[at + 1..].split_whitespace().nth(1))
            .and_then(|s| s.parse::<u32>().ok());
        if let Some(ppid) = ppid {
            parents.push((pid, ppid));
        }
    }
    let mut tree = vec![me];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parents
                .iter()
                .filter(|(_, ppid)| *ppid == parent)
                .map(|(pid, _)| *pid),
        );
        i += 1;
    }
    tree
}

/// Resident bytes of this process and its workers: a Python run's memory
/// is mostly its worker's. Each process's RSS, so pages they share (the
/// worker binary's) count once per process, as W6 counts RSS.
fn tree_rss_bytes() -> usize {
    tree()
        .iter()
        .map(|pid| {
            let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).unwrap_or_default();
            statm
                .split_whitespace()
                .nth(1)
                .and_then(|s| s.parse::<usize>().ok())
                .unwrap_or(0)
                * 4096
        })
        .sum()
}

/// The proportional set size of this process and its workers: shared
/// pages divided among the processes sharing them.
fn tree_pss_bytes() -> usize {
    tree()
        .iter()
        .map(|pid| {
            let rollup =
                std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
            rollup
                .lines()
                .find_map(|l| l.strip_prefix("Pss:"))
                .and_then(|kb| {
                    kb.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<usize>()
                        .ok()
                })
                .unwrap_or(0)
                * 1024
        })
        .sum()
}

/// 100 runs of W6's program at once: the peak of in-flight calls, of the
/// process tree's RSS (sampled every 10 ms) and its PSS once all 100 calls
/// are in flight (0 if they never are), and the wall time.
async fn w6_round(r: &Runner, code: &str, stats: &Arc<Stats>) -> (usize, usize, usize, f64) {
    stats.peak.store(0, Ordering::Relaxed);
    let peak = Arc::new(AtomicUsize::new(tree_rss_bytes()));
    let pss = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let (peak, pss, done, stats) = (
            Arc::clone(&peak),
            Arc::clone(&pss),
            Arc::clone(&done),
            Arc::clone(stats),
        );
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(tree_rss_bytes(), Ordering::Relaxed);
                if pss.load(Ordering::Relaxed) == 0
                    && stats.in_flight.load(Ordering::Relaxed) == 100
                {
                    pss.store(tree_pss_bytes(), Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    let t = Instant::now();
    let runs: Vec<_> = (0..100)
        .map(|_| {
            let (r, code) = (r.clone(), code.to_owned());
            tokio::spawn(async move { r.run(&code, false).await })
        })
        .collect();
    for run in runs {
        assert_eq!(run.await.unwrap().text, "1");
    }
    let wall = t.elapsed().as_secs_f64() * 1e3;
    done.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let peak = peak.load(Ordering::Relaxed);
    let pss = pss.load(Ordering::Relaxed);
    (peak, pss, stats.peak.load(Ordering::Relaxed), wall)
}

/// W6 in this process. A live Python run holds a worker process, which the
/// pool starts on demand; starting 100 of them on two cores can take longer
/// than the runs' 200 ms sleep, so a first round of 100 runs starts the 100
/// workers and the measured round finds them idle in the pool: all 100 runs
/// are alive at once. The baseline is before the first round (one worker,
/// warm); the figure per live run is the measured round's peak over it, so
/// it counts the worker process and the session (RSS, and PSS once all 100
/// calls are in flight); `session_mib` is the peak over the 100 idle
/// workers, the session alone.
async fn w6_child(r: &Runner, p: &Value, stats: &Arc<Stats>) {
    for _ in 0..5 {
        r.run(p["W1"].as_str().unwrap(), false).await;
    }
    let code = p["W6"].as_str().unwrap();
    r.run(code, false).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (base, base_pss) = (tree_rss_bytes(), tree_pss_bytes());
    w6_round(r, code, stats).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let idle = tree_rss_bytes();
    let (peak, pss, max_inflight, wall) = w6_round(r, code, stats).await;
    assert!(pss > 0, "the PSS is taken with all 100 calls in flight");
    let mib = |b: usize| b as f64 / 1_048_576.0;
    println!(
        "{}",
        json!({ "baseline_mib": mib(base), "idle_workers_mib": mib(idle), "peak_mib": mib(peak),
                "per_run_mib": mib(peak.saturating_sub(base)) / 100.0,
                "session_mib": mib(peak.saturating_sub(idle)) / 100.0,
                "pss_per_run_mib": mib(pss.saturating_sub(base_pss)) / 100.0,
                "max_inflight": max_inflight, "wall_ms": wall })
    );
}

/// W6's record from 5 fresh processes.
fn w6(engine: &str) -> Value {
    let mut reps = Vec::new();
    for _ in 0..5 {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--python-engine", engine, "--w6-child"])
            .output()
            .expect("spawn W6 child");
        assert!(
            out.status.success(),
            "W6 child failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let line = String::from_utf8_lossy(&out.stdout)
            .lines()
            .last()
            .unwrap_or("")
            .to_owned();
        reps.push(serde_json::from_str::<Value>(&line).expect("W6 child output"));
    }
    let get = |k: &str| {
        reps.iter()
            .map(|r| r[k].as_f64().unwrap())
            .collect::<Vec<_>>()
    };
    let per_run = summary(get("per_run_mib"));
    let session = summary(get("session_mib"));
    let pss = summary(get("pss_per_run_mib"));
    let max_live = reps
        .iter()
        .map(|r| r["max_inflight"].as_u64().unwrap())
        .min()
        .unwrap();
    assert_eq!(max_live, 100, "all 100 runs must be alive at once");
    record(
        "W6",
        "peak_rss_mib",
        &summary(get("peak_mib")),
        1,
        json!({
            "baseline_mib": round(summary(get("baseline_mib")).median, 1),
            "idle_workers_mib": round(summary(get("idle_workers_mib")).median, 1),
            "mib_per_live_run": { "median": round(per_run.median, 3), "min": round(per_run.min, 3), "max": round(per_run.max, 3), "n": per_run.n },
            "session_mib": { "median": round(session.median, 3), "min": round(session.min, 3), "max": round(session.max, 3), "n": session.n },
            "pss_mib_per_live_run": { "median": round(pss.median, 3), "min": round(pss.min, 3), "max": round(pss.max, 3), "n": pss.n },
            "max_live_tool_calls": max_live,
            "wall_ms": round(summary(get("wall_ms")).median, 1),
            "rss": "this process and its workers, each process's RSS summed; PSS once all 100 calls are in flight",
        }),
    )
}

/// W7: 1,000 runs of `1` with 1, 4 and 32 at once; the best.
async fn w7(r: &Runner, p: &Value) -> Value {
    let code = p["W7"].as_str().unwrap().to_owned();
    let mut levels = Vec::new();
    for concurrency in [1usize, 4, 32] {
        let mut xs = Vec::new();
        for _ in 0..3 {
            let next = Arc::new(AtomicUsize::new(0));
            let t = Instant::now();
            let workers: Vec<_> = (0..concurrency)
                .map(|_| {
                    let (r, code, next) = (r.clone(), code.clone(), Arc::clone(&next));
                    tokio::spawn(async move {
                        while next.fetch_add(1, Ordering::Relaxed) < 1000 {
                            assert_eq!(r.run(&code, false).await.text, "1");
                        }
                    })
                })
                .collect();
            for w in workers {
                w.await.unwrap();
            }
            xs.push(1000.0 / t.elapsed().as_secs_f64());
        }
        levels.push((concurrency, summary(xs)));
    }
    w7_record(levels)
}

/// One workload on one engine, from a fresh process.
fn in_child(id: &str, engine: &str) -> Value {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--json", "--python-engine", engine, "--only", id])
        .stderr(std::process::Stdio::inherit())
        .output()
        .expect("spawn a workload process");
    assert!(out.status.success(), "{id} on {engine} failed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.lines().last().unwrap_or("")).expect("a JSON record")
}

/// `--python`: every selected workload on both engines, ptc first, each in
/// a process of its own. `--python-engine ptc|monty --only W`: one
/// workload on one engine in this process (what the former spawns).
pub(crate) async fn main(args: &[String], engine: Engine, handlers: Handlers) {
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let json_out = args.iter().any(|a| a == "--json");
    let only: Option<Vec<String>> =
        flag("--only").map(|s| s.split(',').map(str::to_owned).collect());
    let ids: Vec<&str> = WORKLOADS
        .into_iter()
        .filter(|id| only.as_ref().is_none_or(|o| o.iter().any(|x| x == id)))
        .collect();
    let Some(which) = flag("--python-engine") else {
        let mut records = Vec::new();
        for id in ids {
            for which in ["ptc", "monty"] {
                let r = in_child(id, which);
                if json_out {
                    println!("{r}");
                }
                records.push(r);
            }
        }
        if !json_out {
            print_table(&records);
        }
        return;
    };
    let stats = Arc::clone(&handlers.stats);
    let runner = match which.as_str() {
        "ptc" => Runner::Ptc(engine),
        "monty" => Runner::Monty(Box::new(Peer::new(handlers).await)),
        other => panic!("--python-engine is ptc or monty, not {other}"),
    };
    let p = programs();
    if args.iter().any(|a| a == "--w6-child") {
        w6_child(&runner, &p, &stats).await;
        return;
    }
    let [id] = ids[..] else {
        panic!("--python-engine runs one workload: --only W1, W2, W3, W6 or W7");
    };
    let r = match id {
        "W1" => w1(&runner, &p).await,
        "W2" => w2(&runner, &p).await,
        "W3" => w3(&runner, &p, &stats).await,
        "W6" => w6(&which),
        _ => w7(&runner, &p).await,
    };
    let r = named(r, runner.name());
    if json_out {
        println!("{r}");
    } else {
        print_table(std::slice::from_ref(&r));
    }
}
