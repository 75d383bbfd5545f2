//! `src/lib.rs`'s `# Layout` is the map a newcomer reads first: every
//! directory of `src/` and every top-level file is named in it, so a room
//! added without a word there fails here.

use std::path::Path;

/// The `# Layout` section of the crate's documentation.
fn layout() -> String {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("src/lib.rs");
    let docs: String = lib
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .map(|line| format!("{line}\n"))
        .collect();
    let start = docs.find("# Layout").expect("a # Layout section");
    let end = docs[start..]
        .find("\n# ")
        .map_or(docs.len(), |at| start + at);
    docs[start..end].to_owned()
}

/// Every directory under `dir`, recursively.
fn directories(dir: &Path, into: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            into.push(path.clone());
            directories(&path, into);
        }
    }
}

/// Whether the layout names a room: `name`, `name.rs`, or a path from it
/// (`name/`, `bin/ptc/`).
fn named(layout: &str, name: &str) -> bool {
    [
        format!("`{name}`"),
        format!("`{name}/"),
        format!("`{name}.rs`"),
    ]
    .iter()
    .any(|spelled| layout.contains(spelled.as_str()))
}

#[test]
fn the_layout_names_every_room_of_src() {
    let layout = layout();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut rooms = Vec::new();
    directories(&src, &mut rooms);
    for file in std::fs::read_dir(&src).unwrap() {
        let path = file.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("lib.rs") {
            rooms.push(path);
        }
    }
    let unnamed: Vec<String> = rooms
        .iter()
        .filter(|room| {
            let stem = room.file_stem().unwrap().to_string_lossy();
            !named(&layout, &stem)
        })
        .map(|room| room.strip_prefix(&src).unwrap().display().to_string())
        .collect();
    assert!(
        unnamed.is_empty(),
        "src/lib.rs's # Layout names no {unnamed:?}: say what each holds"
    );
}
