//! The rules every store keeps, checked on each store alike.

use std::sync::Arc;
use std::time::Duration;

use super::*;

// One helper for these tests and the integration tests.
#[path = "../../tests/common/redis.rs"]
#[allow(dead_code)]
mod redis_server;
use redis_server::RedisServer;

/// What keeps a store's backing alive while it is used.
enum Backing {
    Nothing,
    File(#[allow(dead_code)] tempfile::TempDir),
    Server(#[allow(dead_code)] RedisServer),
}

/// One store of each kind: memory, SQLite in a fresh file, Redis on a
/// server of the test's own.
async fn stores(quotas: Quotas) -> Vec<(Arc<dyn Store>, Backing)> {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("state.db").display());
    let redis = RedisServer::start();
    vec![
        (open("memory", quotas).await.unwrap(), Backing::Nothing),
        (open(&url, quotas).await.unwrap(), Backing::File(dir)),
        (
            open(&redis.url, quotas).await.unwrap(),
            Backing::Server(redis),
        ),
    ]
}

fn small() -> Quotas {
    Quotas {
        max_value_bytes: 16,
        max_session_bytes: 40,
        max_keys: 3,
        ..Quotas::default()
    }
}

#[tokio::test]
async fn values_are_kept_per_session_and_keys_come_sorted() {
    for (store, _backing) in stores(Quotas::default()).await {
        let (a, b) = (store.open().await.unwrap(), store.open().await.unwrap());
        store.set(&a, "zeta", "1".into()).await.unwrap();
        store.set(&a, "alpha", "\"x\"".into()).await.unwrap();
        store.set(&a, "alpha", "[2]".into()).await.unwrap();
        assert_eq!(
            store.get(&a, "alpha").await.unwrap().as_deref(),
            Some("[2]")
        );
        assert_eq!(store.keys(&a).await.unwrap(), ["alpha", "zeta"]);
        // One session never sees another's values.
        assert_eq!(store.get(&b, "alpha").await.unwrap(), None);
        assert!(store.keys(&b).await.unwrap().is_empty());
        assert!(store.delete(&a, "zeta").await.unwrap());
        assert!(!store.delete(&a, "zeta").await.unwrap());
        assert_eq!(store.keys(&a).await.unwrap(), ["alpha"]);
        // Keys are text, `__proto__` as any other.
        store.set(&b, "__proto__", "{}".into()).await.unwrap();
        assert_eq!(store.keys(&b).await.unwrap(), ["__proto__"]);
    }
}

#[tokio::test]
async fn quotas_refuse_a_write_whole() {
    for (store, _backing) in stores(small()).await {
        let s = store.open().await.unwrap();
        let error = store.set(&s, "k", "x".repeat(17)).await.unwrap_err();
        assert!(
            error
                .to_string()
                .contains("over the 16-byte quota of a value"),
            "{error}"
        );
        assert_eq!(
            store.keys(&s).await.unwrap(),
            Vec::<String>::new(),
            "nothing written"
        );
        store.set(&s, "a", "x".repeat(15)).await.unwrap(); // 16 bytes with its key
        store.set(&s, "b", "x".repeat(15)).await.unwrap(); // 32
        let error = store.set(&s, "c", "x".repeat(15)).await.unwrap_err();
        assert!(
            error
                .to_string()
                .contains("48 bytes, over its 40-byte quota"),
            "{error}"
        );
        // Replacing a value counts its new size in place of the old.
        store.set(&s, "b", "x".repeat(7)).await.unwrap(); // 24
        store.set(&s, "c", "1".into()).await.unwrap(); // 26, 3 keys
        let error = store.set(&s, "d", "1".into()).await.unwrap_err();
        assert!(error.to_string().contains("3 keys"), "{error}");
        // What a delete frees can be written again.
        store.delete(&s, "a").await.unwrap();
        store.set(&s, "d", "x".repeat(14)).await.unwrap();
        let got = store.get(&s, "b").await.unwrap();
        assert_eq!(got.as_deref(), Some("xxxxxxx"), "the earlier values stand");
    }
}

#[tokio::test]
async fn bad_keys_are_refused() {
    for (store, _backing) in stores(Quotas::default()).await {
        let s = store.open().await.unwrap();
        for (key, says) in [
            ("", "must not be empty"),
            (&*"k".repeat(257), "at most 256 bytes"),
            ("a\u{0}b", "no control characters"),
            ("line\nbreak", "no control characters"),
        ] {
            let error = store.set(&s, key, "1".into()).await.unwrap_err();
            assert!(error.to_string().contains(says), "{key:?}: {error}");
            let error = store.get(&s, key).await.unwrap_err();
            assert!(matches!(error, StateError::Key(_)), "{error}");
        }
        store.set(&s, &"k".repeat(256), "1".into()).await.unwrap();
    }
}

#[tokio::test]
async fn a_handle_not_minted_here_is_unknown_and_a_gone_one_expired() {
    let quotas = Quotas {
        idle_expiry: Duration::from_millis(200),
        ..Quotas::default()
    };
    for (store, _backing) in stores(quotas).await {
        let other = open("memory", quotas).await.unwrap().open().await.unwrap();
        for handle in [other.as_str(), "ptc_00", "made-up", ""] {
            let error = store.check(handle).await.unwrap_err();
            assert!(
                matches!(error, StateError::Unknown { .. }),
                "{handle}: {error}"
            );
            assert!(error.to_string().contains("leave `session` out"), "{error}");
        }
        let s = store.open().await.unwrap();
        store.set(&s, "k", "1".into()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        store.check(&s).await.unwrap(); // used: its idle time starts again
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert_eq!(store.get(&s, "k").await.unwrap().as_deref(), Some("1"));
        tokio::time::sleep(Duration::from_millis(300)).await;
        let error = store.get(&s, "k").await.unwrap_err();
        assert!(matches!(error, StateError::Expired { .. }), "{error}");
        assert!(
            error.to_string().contains("keeps a session 200 ms after"),
            "{error}"
        );
    }
}

#[tokio::test]
async fn past_the_session_bound_the_least_recently_used_goes() {
    let quotas = Quotas {
        max_sessions: 2,
        ..Quotas::default()
    };
    for (store, _backing) in stores(quotas).await {
        let first = store.open().await.unwrap();
        let second = store.open().await.unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
        store.check(&first).await.unwrap(); // `second` is now the least recent
        tokio::time::sleep(Duration::from_millis(5)).await;
        let third = store.open().await.unwrap();
        store.check(&first).await.unwrap();
        store.check(&third).await.unwrap();
        let error = store.check(&second).await.unwrap_err();
        assert!(matches!(error, StateError::Expired { .. }), "{error}");
    }
}

#[tokio::test]
async fn a_shared_store_is_shared_and_outlives_its_process() {
    let dir = tempfile::tempdir().unwrap();
    let file = format!("sqlite:{}", dir.path().join("state.db").display());
    let redis = RedisServer::start();
    for url in [file, redis.url.clone()] {
        let one = open(&url, Quotas::default()).await.unwrap();
        let two = open(&url, Quotas::default()).await.unwrap();
        let s = one.open().await.unwrap();
        one.set(&s, "k", "\"v\"".into()).await.unwrap();
        assert_eq!(two.get(&s, "k").await.unwrap().as_deref(), Some("\"v\""));
        drop((one, two));
        let again = open(&url, Quotas::default()).await.unwrap();
        assert_eq!(again.keys(&s).await.unwrap(), ["k"], "{url}");
    }
}

#[tokio::test]
async fn a_store_that_cannot_be_opened_is_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.db");
    std::fs::write(
        &path,
        "this is not SQLite, it is a text file of some length ".repeat(100),
    )
    .unwrap();
    let Err(error) = open(&format!("sqlite:{}", path.display()), Quotas::default()).await else {
        panic!("a text file opened as a store");
    };
    assert!(
        error
            .to_string()
            .starts_with("the state store is unavailable: `sqlite:"),
        "{error}"
    );
    // A database made by someone else, keeping its text as UTF-16.
    let utf16 = dir.path().join("utf16.db");
    let made = rusqlite::Connection::open(&utf16).unwrap();
    made.execute_batch("PRAGMA encoding = 'UTF-16'; CREATE TABLE t (x TEXT);")
        .unwrap();
    drop(made);
    let Err(error) = open(&format!("sqlite:{}", utf16.display()), Quotas::default()).await else {
        panic!("a UTF-16 database opened as a store");
    };
    assert!(
        error.to_string().contains("keeps its text as UTF-16le"),
        "{error}"
    );
    let Err(error) = open("postgres://x", Quotas::default()).await else {
        panic!("an unknown scheme opened");
    };
    let text = error.to_string();
    assert!(
        text.contains("use `memory`, `sqlite:PATH`, `redis://HOST:PORT/DB` or `rediss://"),
        "{text}"
    );
    // Nobody listens on the port a listener just let go of.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let url = format!("redis://user:hunter2@127.0.0.1:{port}/0");
    let Err(error) = open(&url, Quotas::default()).await else {
        panic!("a Redis nobody runs opened");
    };
    let text = error.to_string();
    let start = "the state store is unavailable: `redis://…@127.0.0.1:";
    assert!(text.starts_with(start), "{text}");
    assert!(
        !text.contains("hunter2"),
        "the password is not shown: {text}"
    );
}

/// Two writers at once near a quota: the check and the write are one step,
/// so exactly one of them gets in, whichever process it is (two stores on
/// one file or one server are two processes' views).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_writers_cannot_both_pass_a_quota() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("state.db").display());
    let quotas = Quotas {
        max_value_bytes: 32,
        ..small()
    };
    let memory = open("memory", quotas).await.unwrap();
    let redis = RedisServer::start();
    let pairs = [
        (Arc::clone(&memory), memory),
        (
            open(&url, quotas).await.unwrap(),
            open(&url, quotas).await.unwrap(),
        ),
        (
            open(&redis.url, quotas).await.unwrap(),
            open(&redis.url, quotas).await.unwrap(),
        ),
    ];
    for (one, two) in pairs {
        for _ in 0..20 {
            let s = one.open().await.unwrap();
            // Each is 26 bytes with its key: one fits the 40-byte session.
            let (a, b) = tokio::join!(
                one.set(&s, "a", "x".repeat(15) + "123456789a"),
                two.set(&s, "b", "y".repeat(15) + "123456789b"),
            );
            let refused = [&a, &b].into_iter().filter_map(|r| r.as_ref().err());
            let refused: Vec<&StateError> = refused.collect();
            assert!(
                matches!(refused[..], [StateError::Quota(_)]),
                "exactly one refused, by the quota: {a:?} and {b:?}"
            );
            assert_eq!(one.keys(&s).await.unwrap().len(), 1);
        }
    }
}

/// The writer `a_sqlite_store_keeps_every_committed_value_through_kill_9`
/// runs in a process of its own: with `PTC_STATE_WRITER` set to a store's
/// URL and a session, it writes `k0`, `k1`, … and prints each key once its
/// write is committed, until it is killed.
#[tokio::test]
#[ignore = "the writer of a_sqlite_store_keeps_every_committed_value_through_kill_9, run by it"]
async fn state_writer_child() {
    let target = std::env::var("PTC_STATE_WRITER").expect("PTC_STATE_WRITER: URL and session");
    let (url, session) = target.split_once(' ').unwrap();
    let store = open(url, Quotas::default()).await.unwrap();
    for n in 0.. {
        let key = format!("k{n}");
        store.set(session, &key, format!("{n}")).await.unwrap();
        println!("committed {key}");
    }
}

#[tokio::test]
async fn a_sqlite_store_keeps_every_committed_value_through_kill_9() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("state.db").display());
    let session = open(&url, Quotas::default())
        .await
        .unwrap()
        .open()
        .await
        .unwrap();
    let mut writer = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "state::tests::state_writer_child",
            "--ignored",
            "--nocapture",
        ])
        .env("PTC_STATE_WRITER", format!("{url} {session}"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(writer.stdout.take().unwrap()).lines();
    let mut committed = Vec::new();
    while committed.len() < 200 {
        let line = lines.next().expect("the writer writes").unwrap();
        if let Some(key) = line.strip_prefix("committed ") {
            committed.push(key.to_owned());
        }
    }
    // SIGKILL mid-write: no destructor, no flush, no goodbye.
    writer.kill().unwrap();
    writer.wait().unwrap();
    let store = open(&url, Quotas::default()).await.unwrap();
    let kept = store.keys(&session).await.unwrap();
    for key in &committed {
        assert!(kept.contains(key), "{key} was committed and is gone");
    }
    let n = committed.len() - 1;
    let last = store.get(&session, &format!("k{n}")).await.unwrap();
    assert_eq!(last, Some(n.to_string()));
}

/// The memory store counts what keys cost the process, not only their
/// bytes: at its bound, sessions holding values go, least recently used
/// first, never the one being written.
#[tokio::test]
async fn the_memory_store_stays_within_its_bound() {
    // Ten 1-byte keys with 1-byte values: 20 bytes of the quota, and
    // about 1.5 KB of the process: two do not fit in 3,000 bytes.
    let store = MemoryStore::bounded(Quotas::default(), 3_000).unwrap();
    let (old, new) = (store.open().await.unwrap(), store.open().await.unwrap());
    for key in "abcdefghij".chars() {
        store.set(&old, &key.to_string(), "1".into()).await.unwrap();
    }
    for key in "abcdefghij".chars() {
        store.set(&new, &key.to_string(), "2".into()).await.unwrap();
    }
    // The second session's writes took the first's room.
    let error = store.check(&old).await.unwrap_err();
    assert!(matches!(error, StateError::Expired { .. }), "{error}");
    assert_eq!(store.keys(&new).await.unwrap().len(), 10);
}

#[tokio::test]
async fn a_redis_that_may_evict_is_refused_at_open() {
    let redis = RedisServer::start_with(&["--maxmemory-policy", "allkeys-lru"]);
    let Err(error) = open(&redis.url, Quotas::default()).await else {
        panic!("an evicting Redis opened");
    };
    let text = error.to_string();
    assert!(text.contains("maxmemory-policy is `allkeys-lru`"), "{text}");
}

#[cfg(unix)]
#[tokio::test]
async fn a_sqlite_file_is_its_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.db");
    open(&format!("sqlite:{}", path.display()), Quotas::default())
        .await
        .unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
}

/// The limits' state quotas are the stores' defaults, one for one.
#[test]
fn the_default_limits_give_the_default_quotas() {
    assert_eq!(Quotas::of(&crate::Limits::default()), Quotas::default());
    let limits = crate::Limits {
        state_max_value_bytes: 1,
        state_max_session_bytes: 2,
        state_max_keys: 3,
        state_expiry_ms: 4000,
        state_max_sessions: 5,
        ..crate::Limits::default()
    };
    let quotas = Quotas::of(&limits);
    let got = (
        quotas.max_value_bytes,
        quotas.max_session_bytes,
        quotas.max_keys,
    );
    assert_eq!(got, (1, 2, 3));
    assert_eq!(
        (quotas.idle_expiry, quotas.max_sessions),
        (Duration::from_secs(4), 5)
    );
}
