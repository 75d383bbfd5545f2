//! `src/lib.rs`'s `# Layout` is the map a newcomer reads first: every
//! directory and file of `src/` is named in it, so a room added without a
//! word there fails here.

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

/// Every directory and file under `dir`, recursively.
fn rooms(dir: &Path, into: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        into.push(path.clone());
        if path.is_dir() {
            rooms(&path, into);
        }
    }
}

/// Whether the layout names a room: `name`, `name.rs` (or `.js`, `.txt`),
/// or a path from it (`name/`, `bin/ptc/`).
fn named(layout: &str, name: &str) -> bool {
    [
        format!("`{name}`"),
        format!("`{name}/"),
        format!("`{name}."),
    ]
    .iter()
    .any(|spelled| layout.contains(spelled.as_str()))
}

#[test]
fn the_layout_names_every_room_of_src() {
    let layout = layout();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    rooms(&src, &mut all);
    // A module's unit tests are its own; the crate root is the layout.
    let rooms = all.iter().filter(|room| {
        let stem = room.file_stem().unwrap();
        stem != "tests" && !room.ends_with("lib.rs")
    });
    let unnamed: Vec<String> = rooms
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

/// The rooms of `src/` in layers: a room uses only rooms of the layers
/// before its own (the `# Layout`'s order), never one beside it or after.
const LAYERS: &[&[&str]] = &[
    &["json", "deadline"],
    &["schema", "limits"],
    &["contract", "gate"],
    &["tool", "transport", "state"],
    &["sdk", "sources"],
    &["engine"],
    &["frontends"],
    &["fuzz"],
];

/// A module of the library, by path (`["engine", "typescript", "run"]`),
/// with the text of its file outside its tests.
struct Module {
    path: Vec<String>,
    text: String,
}

/// Every module of the library, the binary and test files left out (a test
/// may reach anywhere).
fn modules() -> Vec<Module> {
    fn walk(dir: &Path, src: &Path, into: &mut Vec<Module>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, src, into);
                continue;
            }
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let parts: Vec<String> = relative
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if path.extension().is_none_or(|e| e != "rs")
                || parts == ["lib"]
                || parts[0] == "bin"
                || parts.last().is_some_and(|p| p == "tests")
            {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let text = match text.find("#[cfg(test)]\nmod tests") {
                Some(at) => text[..at].to_owned(),
                None => text,
            };
            into.push(Module { path: parts, text });
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = Vec::new();
    walk(&src, &src, &mut modules);
    modules
}

/// The modules `module` names in code (`crate::…`, `super::…`), each as
/// the longest known module path the name starts with; comments left out.
fn uses(module: &Module, known: &[Vec<String>]) -> Vec<Vec<String>> {
    let mut used = Vec::new();
    for line in module.text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (at, _) in code
            .match_indices("crate::")
            .chain(code.match_indices("super::"))
        {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let name: String = code[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let mut segments = name.split("::").filter(|s| !s.is_empty());
            let mut target: Vec<String> = Vec::new();
            match segments.next() {
                Some("crate") => {}
                _ => {
                    target = module.path.clone();
                    target.pop();
                }
            }
            for segment in segments {
                if segment == "super" {
                    target.pop();
                } else {
                    target.push(segment.to_owned());
                }
            }
            while !target.is_empty() && !known.contains(&target) {
                target.pop();
            }
            if !target.is_empty() && !module.path.starts_with(&target) {
                used.push(target);
            }
        }
    }
    used
}

fn layer_of(room: &str) -> usize {
    LAYERS
        .iter()
        .position(|layer| layer.contains(&room))
        .unwrap_or_else(|| {
            panic!("room `{room}` is in no layer of LAYERS: add it where it belongs")
        })
}

#[test]
fn rooms_use_only_the_layers_before_theirs() {
    let modules = modules();
    let known: Vec<Vec<String>> = modules.iter().map(|m| m.path.clone()).collect();
    let mut climbs = Vec::new();
    for module in &modules {
        let room = &module.path[0];
        for used in uses(module, &known) {
            if &used[0] != room && layer_of(&used[0]) >= layer_of(room) {
                climbs.push(format!("{} uses {}", module.path.join("/"), used.join("/")));
            }
        }
    }
    climbs.sort();
    climbs.dedup();
    assert!(climbs.is_empty(), "reached back or sideways: {climbs:#?}");
}

#[test]
fn no_two_rooms_reach_each_other_round_a_circle() {
    let modules = modules();
    let known: Vec<Vec<String>> = modules.iter().map(|m| m.path.clone()).collect();
    // Each use, as one between the two siblings under the modules'
    // nearest common parent (engine/typescript/run → engine/events is
    // engine/typescript → engine/events).
    let mut edges: std::collections::BTreeMap<
        Vec<String>,
        std::collections::BTreeSet<Vec<String>>,
    > = Default::default();
    for module in &modules {
        for used in uses(module, &known) {
            let common = module
                .path
                .iter()
                .zip(&used)
                .take_while(|(a, b)| a == b)
                .count();
            if common < module.path.len() && common < used.len() {
                let from = module.path[..=common].to_vec();
                let to = used[..=common].to_vec();
                edges.entry(from).or_default().insert(to);
            }
        }
    }
    // Depth-first: a node met again while on the path closes a circle.
    fn visit(
        node: &Vec<String>,
        edges: &std::collections::BTreeMap<Vec<String>, std::collections::BTreeSet<Vec<String>>>,
        path: &mut Vec<Vec<String>>,
        done: &mut std::collections::BTreeSet<Vec<String>>,
        circles: &mut Vec<String>,
    ) {
        if let Some(at) = path.iter().position(|n| n == node) {
            let circle: Vec<String> = path[at..].iter().map(|n| n.join("/")).collect();
            circles.push(format!("{} → {}", circle.join(" → "), node.join("/")));
            return;
        }
        if !done.insert(node.clone()) {
            return;
        }
        path.push(node.clone());
        for next in edges.get(node).into_iter().flatten() {
            visit(next, edges, path, done, circles);
        }
        path.pop();
    }
    let mut circles = Vec::new();
    let mut done = std::collections::BTreeSet::new();
    for node in edges.keys() {
        visit(node, &edges, &mut Vec::new(), &mut done, &mut circles);
    }
    assert!(circles.is_empty(), "import circles: {circles:#?}");
}
