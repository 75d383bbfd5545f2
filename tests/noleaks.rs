//! The guard that no test leaves a process behind (`common::NoLeaks`)
//! catches a leak, kills it, and fails the test it guards.

use std::time::{Duration, Instant};

use crate::common::{NoLeaks, tagged};

#[test]
fn a_deliberate_leak_is_reported_and_killed() {
    let guard = NoLeaks::new().settling_for(Duration::from_millis(300));
    let status = guard
        .command("sh")
        .args(["-c", "sleep 30 & echo started"])
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let leaked = guard.leaked();
    assert_eq!(leaked.len(), 1, "{leaked:?}");
    assert_eq!(leaked[0].command_line, "sleep 30", "{leaked:?}");
    // Killed: the next look finds nothing (the guard's own drop passes).
    let pid = leaked[0].pid;
    let gone = Instant::now();
    while !tagged(guard.tag()).is_empty() {
        assert!(
            gone.elapsed() < Duration::from_secs(5),
            "{pid} was not killed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_guard_fails_its_test_when_something_is_left() {
    let outcome = std::panic::catch_unwind(|| {
        let guard = NoLeaks::new().settling_for(Duration::from_millis(300));
        guard
            .command("sh")
            .args(["-c", "sleep 31 &"])
            .status()
            .unwrap();
    });
    let message = outcome.expect_err("the guard failed the test");
    let text = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(
        text.contains("outlived the test") && text.contains("sleep 31"),
        "{text}"
    );
}
