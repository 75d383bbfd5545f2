//! The README's example programs, run through the binary as a newcomer runs
//! them: each must succeed and say what the README says it says.

use std::path::Path;

use crate::cli::ptc;

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn explore_summarises_this_repository_with_the_workspace_tools() {
    let output = ptc(repository(), &["run", "examples/explore.ts"]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains(" Rust files in src/, "), "{text}");
    assert!(lines[1].starts_with("largest: "), "{text}");
    assert!(lines[2].contains(" unit tests in src/, "), "{text}");
    assert_eq!(lines[3..5], ["README.md begins:", "# ptc"], "{text}");
}

#[test]
fn the_sample_manifest_runs_its_commands() {
    let output = ptc(
        repository(),
        &[
            "run",
            "--tools",
            "examples/manifest.json",
            "examples/manifest.ts",
        ],
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{text}{err}");
    assert!(
        text.contains("6 words on 3 lines, longest: three"),
        "{text}"
    );
    assert!(
        text.contains(r#""greeting":"hello from the manifest""#),
        "{text}"
    );
    assert!(text.contains(r#""missing":"TOOL_ERROR""#), "{text}");
    assert!(text.contains(r#""today":10"#), "{text}");
}
