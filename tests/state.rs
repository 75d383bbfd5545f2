//! State across runs through the engine (contracts §9): a program's
//! `state` in both languages, the session its outcome names, the handles a
//! run may name, and the store's failures as the program and the caller
//! see them. The stores' own rules are the library's unit tests
//! (`state/tests.rs`).

use std::time::Duration;

#[cfg(feature = "python")]
use ptc::Language;
use ptc::{Engine, Limits, Outcome, RunError, RunOptions, RunRequest, StateStore};
use serde_json::{Value, json};

use crate::common::{RedisServer, test_registry};

fn engine() -> Engine {
    Engine::new(test_registry(), Limits::default()).unwrap()
}

async fn run(engine: &Engine, request: RunRequest) -> Outcome {
    engine
        .run_code(request, RunOptions::default())
        .await
        .expect("run_code's arguments are valid")
}

/// The program's returned JSON (the text's first line).
fn value(outcome: &Outcome) -> Value {
    assert!(!outcome.is_error, "{}", outcome.text());
    let first = outcome.text().lines().next().unwrap_or_default();
    serde_json::from_str(first).unwrap_or_else(|_| panic!("not JSON: {}", outcome.text()))
}

#[tokio::test]
async fn a_session_outlives_its_run_and_its_handle_is_told_once() {
    let engine = engine();
    let first = run(
        &engine,
        RunRequest::new("await state.set('b', [1, {x: 'y'}]); await state.set('a', 2); return await state.get('b')"),
    )
    .await;
    let session = first
        .session
        .clone()
        .expect("a first write opens a session");
    assert!(
        session.starts_with("ptc_") && session.len() == 4 + 48,
        "{session}"
    );
    assert_eq!(
        first.text(),
        format!(
            "[1,{{\"x\":\"y\"}}]\nvalues kept in session `{session}`: pass session \"{session}\" to use them"
        )
    );
    let code = "const was = await state.delete('a'); return [await state.keys(), was, await state.delete('a'), await state.get('a')]";
    let second = run(&engine, RunRequest::new(code).session(&session)).await;
    // The session is named, not told again: the model passed it.
    assert_eq!(second.session.as_deref(), Some(session.as_str()));
    assert_eq!(
        second.text(),
        "[ [ 'b' ], true, false, undefined ]\n[run_code: shown as console.log shows it, since JSON cannot carry undefined (at [3])]"
    );
    // A run that only reads opens nothing.
    let reader = run(
        &engine,
        RunRequest::new(
            "return [await state.get('b'), await state.keys(), await state.delete('b')]",
        ),
    )
    .await;
    assert_eq!(reader.session, None);
    assert!(!reader.text().contains("session"), "{}", reader.text());
}

#[cfg(feature = "python")]
#[tokio::test]
async fn both_languages_read_and_write_one_session_alike() {
    let engine = engine();
    let wrote = run(
        &engine,
        RunRequest::new("await state.set('rows', {'n': [1, 2.5, None, True, 'é']})\n'ok'")
            .language(Language::Python),
    )
    .await;
    let session = wrote
        .session
        .clone()
        .expect("opened by Python's first write");
    let read = run(
        &engine,
        RunRequest::new("const rows = await state.get('rows'); await state.set('from_ts', rows.n.length); return rows")
            .session(&session),
    )
    .await;
    assert_eq!(value(&read), json!({"n": [1, 2.5, null, true, "é"]}));
    let back = run(
        &engine,
        RunRequest::new("[await state.get('from_ts'), await state.keys(), await state.get('none'), await state.delete('rows')]")
            .language(Language::Python)
            .session(&session),
    )
    .await;
    assert_eq!(value(&back), json!([5, ["from_ts", "rows"], null, true]));
}

#[tokio::test]
async fn a_session_the_store_did_not_mint_or_dropped_is_refused_before_the_run() {
    let engine = Engine::new(
        test_registry(),
        Limits {
            state_expiry_ms: 1000,
            ..Limits::default()
        },
    )
    .unwrap();
    let never = format!("ptc_{}", "0".repeat(64));
    for handle in [never.as_str(), "ptc_", "anything"] {
        let refused = engine
            .run_code(
                RunRequest::new("return 1").session(handle),
                RunOptions::default(),
            )
            .await;
        let Err(RunError::InvalidArguments(why)) = refused else {
            panic!("{handle}: {refused:?}");
        };
        assert!(
            why.contains("was not opened by this ptc's state store"),
            "{why}"
        );
    }
    let session = engine.open_session().await.unwrap();
    run(
        &engine,
        RunRequest::new("await state.set('k', 1)").session(&session),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let refused = engine
        .run_code(
            RunRequest::new("return 1").session(&session),
            RunOptions::default(),
        )
        .await;
    let Err(RunError::InvalidArguments(why)) = refused else {
        panic!("{refused:?}");
    };
    assert!(why.contains("has expired or was dropped"), "{why}");
    assert!(
        why.contains("keeps a session 1 s after its last use"),
        "{why}"
    );
    // A handle of another store is unknown here, never an empty session.
    let other = engine.open_session().await.unwrap();
    let elsewhere = Engine::new(test_registry(), Limits::default()).unwrap();
    let refused = elsewhere
        .run_code(
            RunRequest::new("return 1").session(&other),
            RunOptions::default(),
        )
        .await;
    assert!(
        matches!(refused, Err(RunError::InvalidArguments(_))),
        "{refused:?}"
    );
}

/// Every bad key and value is a catchable `StateError` with its code, and
/// nothing of it is stored.
#[tokio::test]
async fn hostile_keys_and_values_are_catchable_and_store_nothing() {
    let engine = engine();
    let session = engine.open_session().await.unwrap();
    let code = r#"
      const tries = [
        ['', 1], ['k'.repeat(257), 1], ['a\u0000b', 1], ['\uD800', 1], ['\uDC00x', 1], [42, 1], [null, 1],
        ['v', 1n], ['v', undefined], ['v', () => 1], ['v', new Map()], ['v', NaN], ['v', [undefined]],
        ['v', 'x'.repeat(1 << 20)],
      ];
      const cyclic = {}; cyclic.me = cyclic;
      tries.push(['v', cyclic]);
      let deep = []; for (let i = 0; i < 200; i++) deep = [deep];
      tries.push(['v', deep]);
      const codes = [];
      for (const [key, value] of tries) {
        try { await state.set(key, value); codes.push('stored'); }
        catch (e) { codes.push(e instanceof StateError ? e.code : String(e)); }
      }
      await state.set('__proto__', {polluted: true});
      return { codes, keys: await state.keys(), proto: await state.get('__proto__'), clean: ({}).polluted === undefined };
    "#;
    let outcome = run(&engine, RunRequest::new(code).session(&session)).await;
    let got = value(&outcome);
    let mut want = vec!["INVALID_KEY"; 7];
    want.extend(["INVALID_VALUE"; 6]);
    want.push("QUOTA");
    want.extend(["INVALID_VALUE"; 2]);
    assert_eq!(got["codes"], json!(want));
    assert_eq!(got["keys"], json!(["__proto__"]));
    assert_eq!(got["proto"], json!({"polluted": true}));
    assert_eq!(got["clean"], json!(true));
}

/// A failed run keeps what it wrote before it failed; a write it never
/// made is not there.
#[tokio::test]
async fn a_failed_or_timed_out_run_keeps_its_earlier_writes() {
    let engine = engine();
    let session = engine.open_session().await.unwrap();
    let threw = run(
        &engine,
        RunRequest::new(
            "await state.set('before', 1); throw new Error('boom'); await state.set('after', 1)",
        )
        .session(&session),
    )
    .await;
    assert!(
        threw.is_error && threw.text().contains("boom"),
        "{}",
        threw.text()
    );
    assert_eq!(threw.session.as_deref(), Some(session.as_str()));
    let timed_out = run(
        &engine,
        RunRequest::new("await state.set('slow', 1); while (true) {}")
            .session(&session)
            .timeout_ms(300),
    )
    .await;
    assert!(
        timed_out.text().contains("deadline"),
        "{}",
        timed_out.text()
    );
    let keys = run(
        &engine,
        RunRequest::new("return await state.keys()").session(&session),
    )
    .await;
    assert_eq!(value(&keys), json!(["before", "slow"]));
}

/// A failed run that opened a session still tells its handle: its writes stay.
#[tokio::test]
async fn a_failed_run_that_opened_a_session_names_it() {
    let engine = engine();
    let outcome = run(
        &engine,
        RunRequest::new("await state.set('k', 1); throw new Error('late')"),
    )
    .await;
    let session = outcome.session.clone().expect("the write opened one");
    assert!(outcome.is_error);
    assert!(
        outcome
            .text()
            .ends_with(&format!("pass session \"{session}\" to use them")),
        "{}",
        outcome.text()
    );
}

/// Two runs of one session at once, each writing the same key many times:
/// every write succeeds, each run reads its own writes, and what stays is
/// one of the last two.
#[tokio::test]
async fn concurrent_runs_of_one_session_each_win_their_own_writes() {
    let engine = engine();
    let session = engine.open_session().await.unwrap();
    let writer = |tag: &'static str| {
        let code = format!(
            "for (let i = 0; i < 200; i++) {{ await state.set('k', '{tag}' + i); await state.set('{tag}', i); if (await state.get('{tag}') !== i) throw new Error('lost'); }} return 'done'"
        );
        let engine = engine.clone();
        let session = session.clone();
        tokio::spawn(async move { run(&engine, RunRequest::new(code).session(session)).await })
    };
    let (a, b) = (writer("a"), writer("b"));
    for outcome in [a.await.unwrap(), b.await.unwrap()] {
        assert_eq!(outcome.text(), "done");
    }
    let last = run(
        &engine,
        RunRequest::new(
            "return [await state.get('k'), await state.get('a'), await state.get('b')]",
        )
        .session(&session),
    )
    .await;
    let last = value(&last);
    assert!(last[0] == "a199" || last[0] == "b199", "{last}");
    assert_eq!((&last[1], &last[2]), (&json!(199), &json!(199)));
}

/// A session's values are its own: another run's session never sees them.
#[tokio::test]
async fn one_session_never_reads_another() {
    let engine = engine();
    let (a, b) = (
        engine.open_session().await.unwrap(),
        engine.open_session().await.unwrap(),
    );
    run(
        &engine,
        RunRequest::new("await state.set('secret', 'a')").session(&a),
    )
    .await;
    let other = run(
        &engine,
        RunRequest::new("return [await state.get('secret'), await state.keys()]").session(&b),
    )
    .await;
    assert_eq!(
        other.text(),
        "[ undefined, [] ]\n[run_code: shown as console.log shows it, since JSON cannot carry undefined (at [0])]"
    );
}

/// A store that stops answering mid-run: its calls end with the run's
/// deadline (no hang), and a store gone is a catchable `UNAVAILABLE`.
#[tokio::test]
async fn a_store_that_hangs_or_goes_is_bounded_and_catchable() {
    let redis = RedisServer::start();
    let limits = Limits::default();
    let store = StateStore::open(&redis.url, &limits).await.unwrap();
    let engine = Engine::new(test_registry(), limits)
        .unwrap()
        .with_state(store);
    let session = engine.open_session().await.unwrap();
    run(
        &engine,
        RunRequest::new("await state.set('k', 1)").session(&session),
    )
    .await;
    let pid = redis.pid().to_string();
    let signal = |sig: &str| {
        assert!(
            std::process::Command::new("kill")
                .args([sig, &pid])
                .status()
                .unwrap()
                .success()
        );
    };
    signal("-STOP");
    // The check of a named session before the run, and a fresh run's first
    // write in it, each end with the run's deadline.
    #[allow(unused_mut)]
    let mut hanging = vec![
        RunRequest::new("return await state.get('k')").session(&session),
        RunRequest::new("await state.set('k', 2); return 'stored'"),
    ];
    #[cfg(feature = "python")]
    hanging.push(RunRequest::new("await state.set('k', 3)").language(Language::Python));
    for request in hanging {
        let started = std::time::Instant::now();
        let hung = run(&engine, request.timeout_ms(800)).await;
        assert!(hung.text().contains("800 ms deadline"), "{}", hung.text());
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
    }
    signal("-CONT");
    drop(redis);
    let gone = run(
        &engine,
        RunRequest::new("try { await state.set('k', 2); return 'stored' } catch (e) { return e.code + ': ' + e.message }"),
    )
    .await;
    assert!(
        gone.text()
            .starts_with("UNAVAILABLE: the state store is unavailable: "),
        "{}",
        gone.text()
    );
}

/// The same programs against each store: the answers that come later
/// (SQLite, Redis) reach the program as the memory store's do at once,
/// in parallel too.
#[tokio::test]
async fn every_store_answers_programs_alike() {
    let redis = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let sqlite = format!("sqlite:{}", dir.path().join("s.db").display());
    let code = "await Promise.all(Array.from({length: 50}, (_, i) => state.set('k' + String(i).padStart(2, '0'), {i, text: 'x'.repeat(i)})));\
        const got = await Promise.all((await state.keys()).map((k) => state.get(k)));\
        const gone = await Promise.all([state.delete('k00'), state.delete('k00'), state.delete('nope')]);\
        let refused; try { await state.set('big', 'x'.repeat(2 << 20)) } catch (e) { refused = e.code }\
        return [got.length, got[49].text.length, gone.filter(Boolean).length, (await state.keys()).length, refused]";
    for url in ["memory", sqlite.as_str(), redis.url.as_str()] {
        let limits = Limits::default();
        let store = StateStore::open(url, &limits).await.unwrap();
        let engine = Engine::new(test_registry(), limits)
            .unwrap()
            .with_state(store);
        let outcome = run(&engine, RunRequest::new(code)).await;
        assert_eq!(value(&outcome), json!([50, 49, 1, 49, "QUOTA"]), "{url}");
        let session = outcome.session.unwrap();
        #[cfg(feature = "python")]
        {
            let python = "import asyncio\nvals = await asyncio.gather(state.get('k49'), state.get('k00'))\n[vals[0]['i'], vals[1], len(await state.keys())]";
            let request = RunRequest::new(python)
                .language(Language::Python)
                .session(&session);
            assert_eq!(
                value(&run(&engine, request).await),
                json!([49, null, 49]),
                "{url}"
            );
        }
        let _ = session;
    }
}

/// Python values are measured before they are built: a list shared with
/// itself is refused at its cost, the host never builds it.
#[cfg(feature = "python")]
#[tokio::test]
async fn python_values_are_measured_before_they_are_kept() {
    let engine = engine();
    let code = "\
x = [0]
for _ in range(40):
    x = [x, x]
out = []
for v in [x, [[0] * 1000] * 10000, b'bytes', {1: 2}, {'a'}, float('nan')]:
    try:
        await state.set('v', v)
        out.append('stored')
    except StateError as e:
        out.append(str(e).split('(code ')[1])
for k in [1, None, '', 'k' * 257, 'a\\x00b']:
    try:
        await state.get(k)
        out.append('read')
    except StateError as e:
        out.append(str(e).split('(code ')[1])
[out, await state.keys()]";
    let outcome = run(&engine, RunRequest::new(code).language(Language::Python)).await;
    let got = value(&outcome);
    let mut want = vec!["INVALID_VALUE)"; 6];
    want.extend(["INVALID_KEY)"; 5]);
    assert_eq!(got, json!([want, []]));
}

/// host-protocol.md: `session/open`, `run_code`'s `session`, and
/// `initialize`'s `state`; a store that cannot open leaves the session as
/// it was.
#[tokio::test]
async fn a_host_opens_sessions_in_the_store_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("host.db").display());
    let mut host = crate::serve::Host::start();
    host.call("initialize", json!({ "config": { "state": url } }))
        .await;
    let session = host.call("session/open", json!({})).await["session"].clone();
    let code =
        "await state.set('n', ((await state.get('n')) ?? 0) + 1); return await state.get('n')";
    let result = host
        .call("run_code", json!({ "code": code, "session": session }))
        .await;
    assert_eq!(result["session"], session);
    assert_eq!(
        result["content"][0]["text"], "1",
        "a named session is not told again"
    );
    let unknown = json!({ "code": "return 1", "session": format!("ptc_{}", "0".repeat(48)) });
    let error = host.call_error("run_code", unknown).await;
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("was not opened by this ptc's state store"),
        "{error}"
    );
    let error = host.call_error("session/open", json!({ "x": 1 })).await;
    assert_eq!(error["code"], -32602, "{error}");
    let bad = json!({ "config": { "state": "redis://127.0.0.1:1/0" } });
    let error = host.call_error("initialize", bad).await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("config.state: the state store is unavailable"),
        "{error}"
    );
    // Still the same store, and the same file from another process.
    let result = host
        .call("run_code", json!({ "code": code, "session": session }))
        .await;
    assert_eq!(result["content"][0]["text"], "2");
    let mut other = crate::serve::Host::start();
    other
        .call("initialize", json!({ "config": { "state": url } }))
        .await;
    let result = other
        .call("run_code", json!({ "code": code, "session": session }))
        .await;
    assert_eq!(result["content"][0]["text"], "3");
}

/// `ptc run --state URL --session HANDLE` continues a session; a store
/// that cannot open is a configuration error (exit 2) before anything runs.
#[test]
fn the_command_line_continues_a_session_and_refuses_a_bad_store() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("cli.db").display());
    let ptc = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_ptc"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
        (
            output.status.code(),
            text(&output.stdout),
            text(&output.stderr),
        )
    };
    let (code, out, _) = ptc(&[
        "run",
        "--state",
        &url,
        "--json",
        "-e",
        "await state.set('k', 41); return 1",
    ]);
    assert_eq!(code, Some(0), "{out}");
    let outcome: Value = serde_json::from_str(&out).unwrap();
    let session = outcome["session"].as_str().unwrap().to_owned();
    let step = "const k = await state.get('k'); await state.set('k', k + 1); return k + 1";
    let (code, out, _) = ptc(&["run", "--state", &url, "--session", &session, "-e", step]);
    assert_eq!((code, out.as_str()), (Some(0), "42\n"));
    for (args, says) in [
        (
            vec!["run", "--state", "nowhere:x", "-e", "1"],
            "--state: the state store is unavailable: `nowhere:x` names no state store",
        ),
        (
            vec!["run", "--session", &session, "-e", "1"],
            "--session needs a --state that outlives a process",
        ),
        (
            vec!["run", "--state", &url, "--session", "ptc_0", "-e", "1"],
            "was not opened by this ptc's state store",
        ),
        (
            vec!["serve", "--state", "sqlite:/nonexistent/dir/x.db"],
            "--state: the state store is unavailable",
        ),
        (
            vec!["mcp", "--state", "redis://127.0.0.1:1/0"],
            "--state: the state store is unavailable",
        ),
    ] {
        let (code, _, err) = ptc(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// `rediss://`: the server's certificate is checked, against the system's
/// roots or `SSL_CERT_FILE`; one signed by an unknown CA is refused at start.
#[test]
fn a_redis_over_tls_is_used_once_its_certificate_is_trusted() {
    let redis = RedisServer::start_tls();
    let ptc = |trust: Option<&std::path::Path>| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_ptc"));
        command.args([
            "run",
            "--state",
            &redis.url,
            "-e",
            "await state.set('k', 1); return 'kept'",
        ]);
        command
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR");
        if let Some(ca) = trust {
            command.env("SSL_CERT_FILE", ca);
        }
        let output = command.output().unwrap();
        let text = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap();
        (
            output.status.code(),
            text(&output.stdout),
            text(&output.stderr),
        )
    };
    let (code, out, err) = ptc(Some(&redis.ca()));
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.starts_with("kept\nvalues kept in session `ptc_"),
        "{out}"
    );
    let (code, _, err) = ptc(None);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--state: the state store is unavailable"),
        "{err}"
    );
}

/// Calls fired without awaiting them wait their turn (at most 16 go at
/// once, each charged to the run): thousands on SQLite all land, in order
/// of the program's writes; on a small heap the run ends as `memory`
/// instead of holding the host.
#[tokio::test]
async fn calls_fired_without_awaiting_wait_their_turn_within_the_heap() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("burst.db").display());
    let engine = |memory_limit_bytes| {
        let limits = Limits {
            memory_limit_bytes,
            ..Limits::default()
        };
        let url = url.clone();
        async move {
            let store = StateStore::open(&url, &limits).await.unwrap();
            Engine::new(test_registry(), limits)
                .unwrap()
                .with_state(store)
        }
    };
    let burst = engine(64 << 20).await;
    let code = "const writes = []; for (let i = 0; i < 2000; i++) writes.push(state.set('k' + (i % 100), i));\
        await Promise.all(writes); const keys = await state.keys(); return [keys.length, await state.get('k99')]";
    let outcome = run(&burst, RunRequest::new(code)).await;
    assert_eq!(value(&outcome), json!([100, 1999]));
    let small = engine(1 << 20).await;
    let flood =
        "await state.set('k', 1); for (let i = 0; i < 1e6; i++) state.get('k'); return 'fired'";
    let outcome = run(&small, RunRequest::new(flood).timeout_ms(30_000)).await;
    assert_eq!(
        outcome.kind,
        Some(ptc::FailureKind::Memory),
        "{}",
        outcome.text()
    );
}
