//! The reference workloads W1–W7 (`fixtures/workloads/WORKLOADS.md`) on
//! ptc, and W8, state across runs on each store (`workloads/state.rs`).
//!
//! `cargo run --release --example workloads -- --json [--only W1,W3]` prints
//! one JSON line per workload in the peers' format; without `--json`, a table.
//! Every result is checked, so a broken run cannot report a fast figure.
//! Each workload runs in a process of its own, so one workload's threads and
//! heap do not colour the next one's figure.
//!
//! With the cargo feature `python`, `-- --python [--json] [--only W1,W3]`
//! measures the Python programs of W1, W2, W3, W6 and W7
//! (`fixtures/workloads/programs-python.json`) instead: on ptc
//! (`Language::Python`, engine `ptc (Python)`) and on Monty used directly
//! through its pool crate, without ptc (engine `Monty (monty-pool, direct)`,
//! `workloads/monty_peer.rs`), each pair of rows from fresh processes side
//! by side (`workloads/python.rs`).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ptc::{
    Engine, Limits, Outcome, Registry, RunEvent, RunOptions, RunRequest, Tool, ToolContext,
    ToolDefinition, ToolError,
};
use serde_json::{Value, json};

#[cfg(feature = "python")]
#[path = "workloads/monty_peer.rs"]
mod monty_peer;
#[cfg(feature = "python")]
#[path = "workloads/python.rs"]
mod python;
#[path = "../tests/common/redis.rs"]
#[allow(dead_code)]
mod redis_server;
#[path = "workloads/state.rs"]
mod state;

fn peers(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/workloads")
        .join(file)
}

fn load(file: &str) -> Vec<ToolDefinition> {
    let text = std::fs::read_to_string(peers(file)).expect("read tools file");
    serde_json::from_str(&text).expect("parse tools file")
}

fn programs() -> Value {
    serde_json::from_str(&std::fs::read_to_string(peers("programs.json")).expect("programs.json"))
        .expect("parse programs.json")
}

/// Row i of W4, exactly as WORKLOADS.md gives it.
fn rows() -> Value {
    let tag = |k: usize| format!("tag-{k:02}");
    Value::Array(
        (0..10_000usize)
            .map(|i| {
                json!({
                    "id": i,
                    "name": format!("row-{i}"),
                    "score": ((i * 7919) % 1000) as f64 / 10.0,
                    "tags": [tag((i * 31) % 50), tag((i * 17 + 3) % 50), tag((i * 13 + 7) % 50)],
                })
            })
            .collect(),
    )
}

/// W4's answer, computed in Rust the way the program does it.
fn w4_answer(rows: &Value) -> Value {
    let mut groups: indexmap::IndexMap<String, (u64, f64)> = indexmap::IndexMap::new();
    for r in rows.as_array().unwrap() {
        let tag = r["tags"][0].as_str().unwrap().to_owned();
        let g = groups.entry(tag).or_insert((0, 0.0));
        g.0 += 1;
        g.1 += r["score"].as_f64().unwrap();
    }
    let mut out: Vec<(String, u64, f64)> = groups
        .into_iter()
        .map(|(t, (n, s))| (t, n, s / n as f64))
        .collect();
    out.sort_by(|a, b| b.2.partial_cmp(&a.2).unwrap().then(a.0.cmp(&b.0)));
    Value::Array(
        out.into_iter()
            .take(10)
            .map(|(tag, n, avg)| json!({ "tag": tag, "n": n, "avg": avg }))
            .collect(),
    )
}

/// Equal as JSON, numbers compared by value (JS prints `52` where Rust has `52.0`).
fn same_rows(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_rows(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_rows(v, w)))
        }
        _ => a == b,
    }
}

/// Counts sub-calls in flight, and the peak.
struct Stats {
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    /// `sleep` on tokio's timer instead of [`PreciseTimer`].
    tokio_sleep: AtomicBool,
    timer: PreciseTimer,
}

/// Sleeps on a thread of its own. tokio's timer rounds a deadline up to its
/// next millisecond tick, so its 1 ms sleep takes about 2 ms; W3 measures
/// dispatch, and Node's own timers (the peers' handlers) sleep 1 ms in about
/// 1.1 ms, so W3's `sleep` uses this instead.
struct PreciseTimer {
    requests: std::sync::mpsc::Sender<(Instant, tokio::sync::oneshot::Sender<()>)>,
}

impl PreciseTimer {
    fn new() -> Self {
        let (requests, inbox) =
            std::sync::mpsc::channel::<(Instant, tokio::sync::oneshot::Sender<()>)>();
        std::thread::spawn(move || {
            use std::cmp::Reverse;
            use std::sync::mpsc::RecvTimeoutError;
            // SAFETY: prctl with PR_SET_TIMERSLACK only sets this thread's
            // timer slack (1 ns instead of the default 50 us).
            unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1, 0, 0, 0) };
            let mut due = std::collections::BinaryHeap::new();
            let mut waiting = std::collections::HashMap::new();
            let mut next_id = 0u64;
            loop {
                let now = Instant::now();
                while let Some(&Reverse((at, id))) = due.peek() {
                    if at > now {
                        break;
                    }
                    due.pop();
                    if let Some(wake) = waiting.remove(&id) {
                        let _ = tokio::sync::oneshot::Sender::send(wake, ());
                    }
                }
                let request = match due.peek() {
                    Some(&Reverse((at, _))) => inbox.recv_timeout(at - now),
                    None => inbox.recv().map_err(|_| RecvTimeoutError::Disconnected),
                };
                match request {
                    Ok((at, wake)) => {
                        next_id += 1;
                        due.push(Reverse((at, next_id)));
                        waiting.insert(next_id, wake);
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
        });
        Self { requests }
    }

    async fn sleep(&self, duration: Duration) {
        let (wake, woken) = tokio::sync::oneshot::channel();
        if self
            .requests
            .send((Instant::now() + duration, wake))
            .is_ok()
        {
            let _ = woken.await;
        }
    }
}

/// The tools' handlers (WORKLOADS.md): `echo` returns its arguments,
/// `sleep` waits `ms` on a timer, `get_rows` returns W4's rows; the rest
/// return their arguments. Shared by ptc's registry and the Python peer, so
/// both answer with the same work.
#[derive(Clone)]
struct Handlers {
    stats: Arc<Stats>,
    rows: Arc<Value>,
}

impl Handlers {
    fn new(stats: Arc<Stats>) -> Self {
        Self {
            stats,
            rows: Arc::new(rows()),
        }
    }

    /// One call of tool `name`, counted in flight from now until it settles.
    fn call(
        &self,
        name: &str,
        args: Value,
    ) -> impl std::future::Future<Output = Value> + Send + use<> {
        let (stats, rows) = (Arc::clone(&self.stats), Arc::clone(&self.rows));
        let name = name.to_owned();
        let now = stats.in_flight.fetch_add(1, Ordering::Relaxed) + 1;
        stats.peak.fetch_max(now, Ordering::Relaxed);
        async move {
            let result = match name.as_str() {
                "sleep" => {
                    let ms = Duration::from_millis(args["ms"].as_u64().unwrap_or(0));
                    if stats.tokio_sleep.load(Ordering::Relaxed) {
                        tokio::time::sleep(ms).await;
                    } else {
                        stats.timer.sleep(ms).await;
                    }
                    json!({ "slept": ms.as_millis() as u64 })
                }
                "get_rows" => Value::clone(&rows),
                _ => args,
            };
            stats.in_flight.fetch_sub(1, Ordering::Relaxed);
            result
        }
    }
}

fn registry(handlers: &Handlers) -> Registry {
    let registry = Registry::new();
    let tools = load("tools50.json").into_iter().map(|mut def| {
        let name = def.name.clone();
        // These handlers only read: say so, so W3's calls may overlap (a
        // tool not marked read-only runs alone, contracts §6).
        if matches!(name.as_str(), "echo" | "sleep" | "get_rows") {
            def.read_only = true;
        }
        let handlers = handlers.clone();
        Tool::new(def, move |args: Value, _cx: ToolContext| {
            let call = handlers.call(&name, args);
            async move { Ok::<_, ToolError>(call.await) }
        })
    });
    registry.add_all(tools).expect("tools50 registers");
    registry
}

async fn run(engine: &Engine, code: &str) -> Outcome {
    let outcome = engine
        .run_code(RunRequest::new(code), RunOptions::default())
        .await
        .expect("valid request");
    assert!(!outcome.is_error, "run failed: {}", outcome.text());
    outcome
}

struct Summary {
    median: f64,
    min: f64,
    max: f64,
    n: usize,
}

fn summary(mut xs: Vec<f64>) -> Summary {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = xs.len();
    let median = if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    };
    Summary {
        median,
        min: xs[0],
        max: xs[n - 1],
        n,
    }
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

fn record(workload: &str, figure: &str, s: &Summary, digits: i32, extra: Value) -> Value {
    let mut v = json!({
        "engine": "ptc", "workload": workload, "figure": figure,
        "median": round(s.median, digits), "min": round(s.min, digits), "max": round(s.max, digits), "n": s.n,
    });
    if let (Some(obj), Value::Object(more)) = (v.as_object_mut(), extra) {
        obj.extend(more);
    }
    v
}

/// Repeats `f` at least `min` times and while `budget` lasts, up to `max`.
async fn repeat<F, Fut>(min: usize, max: usize, budget: Duration, mut f: F) -> Vec<f64>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = f64>,
{
    f().await; // warm-up
    let start = Instant::now();
    let mut xs = Vec::new();
    while xs.len() < min || (xs.len() < max && start.elapsed() < budget) {
        xs.push(f().await);
    }
    xs
}

async fn w1(engine: &Engine, p: &Value) -> Value {
    let code = p["W1"].as_str().unwrap();
    let globals = check_globals(engine).await;
    for _ in 0..20 {
        run(engine, code).await;
    }
    let mut xs = Vec::new();
    for _ in 0..200 {
        let t = Instant::now();
        let o = run(engine, code).await;
        xs.push(t.elapsed().as_secs_f64() * 1e6);
        assert_eq!(o.text(), "1");
    }
    record(
        "W1",
        "us_per_run",
        &summary(xs),
        1,
        json!({ "globals": globals }),
    )
}

/// A run that looks at its global object sees exactly a plain QuickJS full
/// context's globals, in order, then the contract's own (contracts §6),
/// whatever context the runs of `return 1` get. Returns how many.
async fn check_globals(engine: &Engine) -> usize {
    let runtime = rquickjs::Runtime::new().unwrap();
    let context = rquickjs::Context::full(&runtime).unwrap();
    let mut want: Vec<String> = context
        .with(|ctx| ctx.eval("Object.getOwnPropertyNames(globalThis)"))
        .unwrap();
    want.extend(
        [
            "tools",
            "ToolCallError",
            "state",
            "StateError",
            "console",
            "setTimeout",
            "clearTimeout",
        ]
        .map(String::from),
    );
    let seen = run(
        engine,
        "return Object.getOwnPropertyNames(globalThis).join(' ')",
    )
    .await;
    assert_eq!(seen.text(), want.join(" "), "a run's globals");
    want.len()
}

/// W2 with events on: a sink that counts them, as a host's would forward them.
async fn w2(engine: &Engine, p: &Value) -> Value {
    let code = p["W2"].as_str().unwrap();
    let events = Arc::new(AtomicUsize::new(0));
    let xs = repeat(5, 20, Duration::from_secs(10), || async {
        events.store(0, Ordering::Relaxed);
        let sink = Arc::clone(&events);
        let options = RunOptions::default().events(move |_: RunEvent| {
            sink.fetch_add(1, Ordering::Relaxed);
        });
        let t = Instant::now();
        let o = engine
            .run_code(RunRequest::new(code), options)
            .await
            .expect("valid request");
        let us = t.elapsed().as_secs_f64() * 1e6 / 10_000.0;
        assert_eq!(o.text(), "49995000");
        assert_eq!(o.sub_calls, 10_000);
        assert_eq!(
            events.load(Ordering::Relaxed),
            20_000,
            "started and settled per call"
        );
        us
    })
    .await;
    record(
        "W2",
        "us_per_subcall",
        &summary(xs),
        3,
        json!({ "events": true }),
    )
}

/// How long `sleep({ ms: 1 })`'s timer takes, one at a time.
async fn timer_latency_ms(stats: &Stats) -> f64 {
    let mut xs = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        if stats.tokio_sleep.load(Ordering::Relaxed) {
            tokio::time::sleep(Duration::from_millis(1)).await;
        } else {
            stats.timer.sleep(Duration::from_millis(1)).await;
        }
        xs.push(t.elapsed().as_secs_f64() * 1e3);
    }
    summary(xs).median
}

/// W3 on the current `sleep` timer: (wall ms per run, peak in flight).
async fn w3_runs(engine: &Engine, code: &str, stats: &Stats, reps: usize) -> (Vec<f64>, usize) {
    let peaks = std::sync::Mutex::new(Vec::new());
    let xs = repeat(5, reps, Duration::from_secs(15), || {
        stats.peak.store(0, Ordering::Relaxed);
        let peaks = &peaks;
        async move {
            let t = Instant::now();
            let o = run(engine, code).await;
            let ms = t.elapsed().as_secs_f64() * 1e3;
            assert_eq!(o.sub_calls, 1000);
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
    (xs, max_inflight)
}

async fn w3(engine: &Engine, p: &Value, stats: &Stats) -> Value {
    let code = p["W3"].as_str().unwrap();
    let (xs, max_inflight) = w3_runs(engine, code, stats, 20).await;
    let timer = timer_latency_ms(stats).await;
    // The same on tokio's timer, for hosts whose handlers sleep on it.
    stats.tokio_sleep.store(true, Ordering::Relaxed);
    let (tokio_xs, _) = w3_runs(engine, code, stats, 10).await;
    let tokio_timer = timer_latency_ms(stats).await;
    stats.tokio_sleep.store(false, Ordering::Relaxed);
    record(
        "W3",
        "wall_ms",
        &summary(xs),
        1,
        json!({
            "max_inflight": max_inflight,
            "timer_1ms_latency_ms": round(timer, 3),
            "floor_ms": round(timer * 100.0, 1),
            "tokio_timer": {
                "wall_ms": round(summary(tokio_xs).median, 1),
                "timer_1ms_latency_ms": round(tokio_timer, 3),
                "floor_ms": round(tokio_timer * 100.0, 1),
            },
        }),
    )
}

async fn w4(engine: &Engine, p: &Value) -> Value {
    let code = p["W4"].as_str().unwrap();
    let want = w4_answer(&rows());
    let xs = repeat(10, 30, Duration::from_secs(15), || async {
        let t = Instant::now();
        let o = run(engine, code).await;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let got: Value = serde_json::from_str(o.text()).expect("W4 returns JSON");
        assert!(same_rows(&got, &want), "W4 answer: {got} != {want}");
        ms
    })
    .await;
    record("W4", "ms_per_run", &summary(xs), 2, json!({}))
}

async fn w5() -> Value {
    let defs = load("tools1000.json");
    let refs: Vec<&ToolDefinition> = defs.iter().collect();
    let compact = serde_json::to_string(&defs).unwrap().len();
    let mut out = String::new();
    let xs = repeat(5, 50, Duration::from_secs(5), || {
        let t = Instant::now();
        out = ptc::render_declarations(&refs);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        async move { ms }
    })
    .await;
    for def in &defs {
        assert!(out.contains(&def.name), "{} missing from the SDK", def.name);
    }
    record(
        "W5",
        "ms_per_render",
        &summary(xs),
        3,
        json!({ "output_bytes": out.len(), "ratio_to_compact_json": round(out.len() as f64 / compact as f64, 3) }),
    )
}

fn rss_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// W6 in this process: 100 live runs each awaiting a 200 ms sleep.
async fn w6_child(engine: &Engine, p: &Value, stats: &Stats) {
    for _ in 0..5 {
        run(engine, p["W1"].as_str().unwrap()).await;
    }
    let code = p["W6"].as_str().unwrap();
    run(engine, code).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let base = rss_bytes();
    stats.peak.store(0, Ordering::Relaxed);
    let peak = Arc::new(AtomicUsize::new(base));
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let (peak, done) = (Arc::clone(&peak), Arc::clone(&done));
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(rss_bytes(), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    let t = Instant::now();
    let runs: Vec<_> = (0..100)
        .map(|_| {
            let engine = engine.clone();
            let code = code.to_owned();
            tokio::spawn(async move { run(&engine, &code).await })
        })
        .collect();
    for r in runs {
        assert_eq!(r.await.unwrap().text(), "1");
    }
    let wall = t.elapsed().as_secs_f64() * 1e3;
    done.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let peak = peak.load(Ordering::Relaxed).max(rss_bytes());
    let mib = |b: usize| b as f64 / 1_048_576.0;
    println!(
        "{}",
        json!({ "baseline_mib": mib(base), "peak_mib": mib(peak), "per_run_mib": mib(peak - base) / 100.0,
                "max_inflight": stats.peak.load(Ordering::Relaxed), "wall_ms": wall })
    );
}

fn w6() -> Value {
    let mut reps = Vec::new();
    for _ in 0..5 {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .arg("--w6-child")
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
            "mib_per_live_run": { "median": round(per_run.median, 3), "min": round(per_run.min, 3), "max": round(per_run.max, 3), "n": per_run.n },
            "max_live_tool_calls": max_live,
            "wall_ms": round(summary(get("wall_ms")).median, 1),
        }),
    )
}

/// W7's record: the best concurrency's runs/s, and each level's median.
fn w7_record(levels: Vec<(usize, Summary)>) -> Value {
    let by: serde_json::Map<String, Value> = levels
        .iter()
        .map(|(c, s)| (c.to_string(), json!(round(s.median, 1))))
        .collect();
    let (best_c, best) = levels
        .into_iter()
        .max_by(|a, b| a.1.median.partial_cmp(&b.1.median).unwrap())
        .unwrap();
    record(
        "W7",
        "runs_per_sec",
        &best,
        1,
        json!({ "best_concurrency": best_c, "by_concurrency": by }),
    )
}

async fn w7(engine: &Engine, p: &Value) -> Value {
    let code = p["W7"].as_str().unwrap().to_owned();
    let mut levels = Vec::new();
    for concurrency in [1usize, 4, 32] {
        let mut xs = Vec::new();
        for _ in 0..3 {
            let next = Arc::new(AtomicUsize::new(0));
            let t = Instant::now();
            let workers: Vec<_> = (0..concurrency)
                .map(|_| {
                    let (engine, code, next) = (engine.clone(), code.clone(), Arc::clone(&next));
                    tokio::spawn(async move {
                        while next.fetch_add(1, Ordering::Relaxed) < 1000 {
                            assert_eq!(run(&engine, &code).await.text(), "1");
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

/// One workload's record, from a fresh process running just that workload.
fn in_child(id: &str) -> Vec<Value> {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--json", "--only", id])
        .stderr(std::process::Stdio::inherit())
        .output()
        .expect("spawn a workload process");
    assert!(out.status.success(), "{id} failed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let records: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert!(!records.is_empty(), "{id} printed no record");
    records
}

fn print_table(records: &[Value]) {
    // The engine's column only when some record is not ptc's (the Python rows).
    let engines = records.iter().any(|r| r["engine"] != "ptc");
    let engine = |r: &Value| {
        if engines {
            format!("{:<28} ", r["engine"].as_str().unwrap_or(""))
        } else {
            String::new()
        }
    };
    println!(
        "{}{:<4} {:<16} {:>12} {:>12} {:>12}  extra",
        engine(&json!({ "engine": "engine" })),
        "id",
        "figure",
        "median",
        "min",
        "max"
    );
    for r in records {
        let mut extra = r.clone();
        for k in ["engine", "workload", "figure", "median", "min", "max", "n"] {
            extra.as_object_mut().unwrap().remove(k);
        }
        println!(
            "{}{:<4} {:<16} {:>12} {:>12} {:>12}  {}",
            engine(r),
            r["workload"].as_str().unwrap_or(""),
            r["figure"].as_str().unwrap_or(""),
            r["median"].to_string(),
            r["min"].to_string(),
            r["max"].to_string(),
            extra
        );
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let stats = Arc::new(Stats {
        in_flight: AtomicUsize::new(0),
        peak: AtomicUsize::new(0),
        tokio_sleep: AtomicBool::new(false),
        timer: PreciseTimer::new(),
    });
    let handlers = Handlers::new(Arc::clone(&stats));
    let engine = Engine::new(registry(&handlers), Limits::default()).unwrap();
    if args
        .iter()
        .any(|a| a == "--python" || a == "--python-engine")
    {
        #[cfg(feature = "python")]
        {
            python::main(&args, engine, handlers).await;
            return;
        }
        #[cfg(not(feature = "python"))]
        {
            eprintln!(
                "the Python rows need the cargo feature `python`: cargo run --release --features python --ignore-rust-version --example workloads -- --python"
            );
            std::process::exit(2);
        }
    }
    let p = programs();
    if args.iter().any(|a| a == "--w6-child") {
        w6_child(&engine, &p, &stats).await;
        return;
    }
    let json_out = args.iter().any(|a| a == "--json");
    let only: Option<Vec<String>> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|s| s.split(',').map(str::to_owned).collect());
    let want = |w: &str| only.as_ref().is_none_or(|o| o.iter().any(|x| x == w));
    let ids: Vec<&str> = ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8"]
        .into_iter()
        .filter(|id| want(id))
        .collect();
    let mut records = Vec::new();
    for id in ids.iter().copied() {
        let rows = if ids.len() > 1 {
            in_child(id)
        } else {
            match id {
                "W1" => vec![w1(&engine, &p).await],
                "W2" => vec![w2(&engine, &p).await],
                "W3" => vec![w3(&engine, &p, &stats).await],
                "W4" => vec![w4(&engine, &p).await],
                "W5" => vec![w5().await],
                "W6" => vec![w6()],
                "W7" => vec![w7(&engine, &p).await],
                _ => state::w8(engine.registry().clone()).await,
            }
        };
        for r in rows {
            if json_out {
                println!("{r}");
            }
            records.push(r);
        }
    }
    if !json_out {
        print_table(&records);
    }
}
