//! The Python and Node host libraries name what crosses `ptc serve`'s wire
//! as ptc writes it: their `Config` types cannot drift from the limits' one
//! table (`src/limits.rs`, `SETTINGS`), nor their outcome types from the
//! serialized [`ptc::Outcome`], unnoticed.

use std::collections::BTreeSet;
use std::path::Path;

/// The member names of the block that starts at the line `opening` and
/// ends at the first line that is `closing` (`None`: the first line not
/// indented, as a Python class ends), read as `name: type` or
/// `name?: type` lines (docstrings and comments passed over).
fn members_of(file: &str, opening: &str, closing: Option<&str>) -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let ends = |line: &&str| match closing {
        Some(closing) => line.trim() == closing,
        None => !line.is_empty() && !line.starts_with(char::is_whitespace),
    };
    let block: Vec<&str> = text
        .lines()
        .skip_while(|line| line.trim() != opening)
        .skip(1)
        .take_while(|line| !ends(line))
        .collect();
    assert!(!block.is_empty(), "{file} has no `{opening}` block");
    block
        .iter()
        .filter_map(|line| {
            let (name, _) = line.trim().split_once(':')?;
            let name = name.trim_end_matches('?');
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
                .then(|| name.to_owned())
        })
        .collect()
}

#[test]
fn the_libraries_config_types_name_every_member_initialize_takes() {
    let ptc: BTreeSet<String> = ptc::__private::config_keys()
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert!(ptc.contains("maxParallelSubCalls") && ptc.contains("language"));
    let python = members_of(
        "python/src/ptc/_session.py",
        "class Config(TypedDict, total=False):",
        None,
    );
    let node = members_of(
        "npm/ptc/src/types.ts",
        "export interface Config {",
        Some("}"),
    );
    assert_eq!(python, ptc, "python/src/ptc/_session.py's Config");
    assert_eq!(node, ptc, "npm/ptc/src/types.ts's Config");
}

/// `runId` → `run_id`.
fn snake(name: &str) -> String {
    name.chars()
        .flat_map(|c| {
            let lower = c.to_ascii_lowercase();
            (c.is_ascii_uppercase().then_some('_').into_iter()).chain([lower])
        })
        .collect()
}

#[tokio::test]
async fn the_libraries_outcome_types_name_every_member_of_an_outcome() {
    let engine = ptc::Engine::new(ptc::Registry::new(), ptc::Limits::default()).unwrap();
    // Failed (`kind`) after a write (`session`): every member an outcome has.
    let request = ptc::RunRequest::new("await state.set('k', 1); throw new Error('x')");
    let outcome = engine
        .run_code(request, ptc::RunOptions::default())
        .await
        .unwrap();
    let wire = serde_json::to_value(&outcome).unwrap();
    let mut members: BTreeSet<String> = wire.as_object().unwrap().keys().cloned().collect();
    assert!(
        members.contains("kind") && members.contains("session"),
        "{wire}"
    );
    // What `ptc serve` adds to a run's answer when the host fell behind.
    members.insert("droppedEvents".to_owned());
    let node = members_of(
        "npm/ptc/src/types.ts",
        "export interface RunResult {",
        Some("}"),
    );
    assert_eq!(node, members, "npm/ptc/src/types.ts's RunResult");
    let mut python: BTreeSet<String> = members.iter().map(|m| snake(m)).collect();
    // The library's own: the events it kept, and how many it did not.
    python.extend(["events".to_owned(), "events_not_kept".to_owned()]);
    let python_outcome = members_of("python/src/ptc/_session.py", "class Outcome:", None);
    assert_eq!(
        python_outcome, python,
        "python/src/ptc/_session.py's Outcome"
    );
}
