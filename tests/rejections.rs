//! Unhandled rejections (contracts §7): one handled after a step is not
//! reported, a description is cut at 1 KiB, and past the sixteenth they are
//! counted. Each failed with its rule broken on purpose (docs/testing.md,
//! "Grants").

use ptc::{Engine, Limits, Registry, RunOptions, RunRequest};

async fn run(code: &str) -> String {
    let limits = Limits {
        output_cap_bytes: 1 << 20,
        ..Limits::default()
    };
    let engine = Engine::new(Registry::new(), limits).unwrap();
    let outcome = engine
        .run_code(RunRequest::new(code), RunOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.kind, None, "{}", outcome.text());
    outcome.text().to_string()
}

#[tokio::test]
async fn a_rejection_handled_later_is_not_reported() {
    let late = run("const p = Promise.reject(new Error('late'))\nawait null\nawait new Promise(r => setTimeout(r, 5))\np.catch(() => {})\nreturn 'done'").await;
    assert_eq!(late, "done");
    // The same rejection left unhandled is reported: the test can fail.
    let never = run("const p = Promise.reject(new Error('late'))\nawait null\nreturn 'done'").await;
    assert!(
        never.contains("[warn] unhandled rejection: Error: late"),
        "{never}"
    );
}

#[tokio::test]
async fn a_rejection_is_described_in_at_most_1_kib() {
    let text = run("Promise.reject(new Error('x'.repeat(5000)))\nreturn 'done'").await;
    let line = text
        .lines()
        .find(|l| l.contains("unhandled rejection"))
        .unwrap_or_else(|| panic!("reported: {text}"));
    let described = line
        .strip_prefix("[warn] unhandled rejection: ")
        .expect(line);
    assert_eq!(described, format!("Error: {}…", "x".repeat(1024 - 7)));
    // Exactly 1 KiB is whole; an empty message leaves the name alone.
    let whole = run("Promise.reject(new Error('x'.repeat(1017)))\nreturn 'done'").await;
    let line = format!("[warn] unhandled rejection: Error: {}\n", "x".repeat(1017));
    assert!(whole.contains(&line), "{whole}");
    let bare = run("Promise.reject(new Error(''))\nreturn 'done'").await;
    assert_eq!(bare, "[warn] unhandled rejection: Error\ndone");
}

#[tokio::test]
async fn past_sixteen_rejections_are_counted() {
    let rejecting = |n: usize| {
        format!(
            "for (let i = 0; i < {n}; i++) Promise.reject(new Error('r' + i))\nawait null\nreturn 'done'"
        )
    };
    let text = run(&rejecting(18)).await;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 18, "{text}");
    assert_eq!(lines[15], "[warn] unhandled rejection: Error: r15");
    assert_eq!(lines[16], "[warn] … and 2 more unhandled rejections");
    let text = run(&rejecting(17)).await;
    assert!(
        text.ends_with("[warn] … and 1 more unhandled rejection\ndone"),
        "{text}"
    );
    let text = run(&rejecting(16)).await;
    assert!(!text.contains("more unhandled"), "{text}");
}
