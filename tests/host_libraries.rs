//! The Python and Node host libraries name `initialize`'s config as ptc
//! reads it: their `Config` types cannot drift from the limits' one table
//! (`src/limits.rs`, `SETTINGS`) unnoticed.

use std::collections::BTreeSet;
use std::path::Path;

/// The member names of the block that starts at the line `opening` and
/// ends at the first line that is `closing` (`None`: the first line not
/// indented, as a Python class ends), read as `name: type` or
/// `name?: type` lines (docstrings and comments passed over).
fn members(file: &str, opening: &str, closing: Option<&str>) -> BTreeSet<String> {
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
                .all(|c| c.is_ascii_alphanumeric())
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
    let python = members(
        "python/src/ptc/_session.py",
        "class Config(TypedDict, total=False):",
        None,
    );
    let node = members(
        "npm/ptc/src/types.ts",
        "export interface Config {",
        Some("}"),
    );
    assert_eq!(python, ptc, "python/src/ptc/_session.py's Config");
    assert_eq!(node, ptc, "npm/ptc/src/types.ts's Config");
}
