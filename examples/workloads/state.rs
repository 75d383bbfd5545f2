//! W8, state across runs (contracts §9): one run reading 100 keys and
//! writing 100 values of 1 KiB in a session, as a model writes it (one
//! `await` after another), on each store: memory, SQLite in a fresh file,
//! and Redis on loopback (a `redis-server` of its own; the row is left out
//! when none is installed). A row per store; every run's answer checked.

use std::time::{Duration, Instant};

use ptc::{Engine, Limits, RunOptions, RunRequest, StateStore};
use serde_json::{Value, json};

use super::redis_server::RedisServer;
use super::{record, repeat, summary};

/// What each run does: reads every key, then writes every key anew.
const PROGRAM: &str = "\
let read = 0;
for (let i = 0; i < 100; i++) read += (await state.get('k' + i)).length;
const value = 'v'.repeat(1024);
for (let i = 0; i < 100; i++) await state.set('k' + i, value);
return read;";

/// The session's 100 keys, written once before the runs are timed.
const FILL: &str =
    "for (let i = 0; i < 100; i++) await state.set('k' + i, 'v'.repeat(1024)); return 1";

pub(super) async fn w8(registry: ptc::Registry) -> Vec<Value> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sqlite = format!("sqlite:{}", dir.path().join("w8.db").display());
    let redis = which_redis().then(RedisServer::start);
    let mut stores = vec![("memory", "memory".to_owned()), ("sqlite", sqlite)];
    if let Some(redis) = &redis {
        stores.push(("redis", redis.url.clone()));
    }
    let mut records = Vec::new();
    for (name, url) in stores {
        let limits = Limits::default();
        let store = StateStore::open(&url, &limits)
            .await
            .expect("the store opens");
        let engine = Engine::new(registry.clone(), limits)
            .unwrap()
            .with_state(store);
        records.push(timed(&engine, name).await);
    }
    records
}

/// The store's row: milliseconds per run, and per state call.
async fn timed(engine: &Engine, store: &str) -> Value {
    let session = engine.open_session().await.expect("a session");
    let request = || RunRequest::new(PROGRAM).session(&session);
    let fill = engine
        .run_code(
            RunRequest::new(FILL).session(&session),
            RunOptions::default(),
        )
        .await
        .expect("valid request");
    assert_eq!(fill.text(), "1", "W8 fill: {}", fill.text());
    let xs = repeat(10, 200, Duration::from_secs(10), || async {
        let t = Instant::now();
        let o = engine
            .run_code(request(), RunOptions::default())
            .await
            .expect("valid request");
        let ms = t.elapsed().as_secs_f64() * 1e3;
        assert_eq!(o.text(), "102400", "W8 on {store}: {}", o.text());
        ms
    })
    .await;
    let s = summary(xs);
    let per_call_us = s.median * 1e3 / 200.0;
    record(
        "W8",
        "ms_per_run",
        &s,
        2,
        json!({ "store": store, "us_per_state_call": (per_call_us * 10.0).round() / 10.0 }),
    )
}

/// Whether Debian's `redis-server` is on `PATH`.
fn which_redis() -> bool {
    std::process::Command::new("redis-server")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
