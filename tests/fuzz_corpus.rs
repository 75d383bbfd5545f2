//! The fuzz targets' regression inputs (`fuzz/regressions/<target>/`),
//! replayed on stable: every crash a fuzzer found (kept once fixed) and a
//! seed set of the working corpus run through the same entry point as
//! under `cargo fuzz` (docs/testing.md, Fuzzing).

use std::path::PathBuf;

fn replay(target: &str, check: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no corpus for {target}");
    for input in inputs {
        let data = std::fs::read(&input).unwrap();
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(outcome.is_ok(), "{target}: {} fails", input.display());
    }
}

#[test]
fn strip_corpus() {
    replay("strip", ptc::fuzz::strip);
}

#[test]
fn sdk_corpus() {
    replay("sdk", ptc::fuzz::sdk);
}

#[test]
fn serve_line_corpus() {
    replay("serve_line", ptc::fuzz::serve_line);
}

#[test]
fn manifest_corpus() {
    replay("manifest", ptc::fuzz::manifest);
}

#[test]
fn json_roundtrip_corpus() {
    replay("json_roundtrip", ptc::fuzz::json_roundtrip);
}

#[test]
fn run_corpus() {
    replay("run", ptc::fuzz::run);
}

#[cfg(feature = "python")]
#[test]
fn run_python_corpus() {
    replay("run_python", ptc::fuzz::run_python);
}
