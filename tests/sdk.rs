//! The TypeScript SDK: goldens over real tool lists, size and content checks,
//! and `tsc --strict` over the rendered declarations (contracts §5).

use std::path::{Path, PathBuf};
use std::process::Command;

use ptc::{
    Engine, Language, Limits, Registry, SdkOptions, Tool, ToolContext, ToolDefinition, ToolError,
    render_declarations, run_code_description, run_code_parameters,
};
use serde_json::Value;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's `fixtures/`: real MCP tool lists and the workloads' tool sets.
pub(crate) fn fixture(rel: &str) -> PathBuf {
    manifest_dir().join("fixtures").join(rel)
}

/// A tool list: either `{ "tools": [...] }` (an MCP `tools/list` answer) or a bare array.
pub(crate) fn load_tools(path: &Path) -> Vec<ToolDefinition> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let value: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    let list = match value {
        Value::Object(mut m) => m.remove("tools").expect("a `tools` array"),
        other => other,
    };
    serde_json::from_value(list)
        .unwrap_or_else(|e| panic!("{} holds bad tool definitions: {e}", path.display()))
}

fn declarations_of(tools: &[ToolDefinition]) -> String {
    let refs: Vec<&ToolDefinition> = tools.iter().collect();
    render_declarations(&refs)
}

/// The tool lists with goldens: every MCP fixture, plus tools50.
pub(crate) fn golden_sources() -> Vec<(String, PathBuf)> {
    let dir = fixture("mcp-tools");
    let mut sources: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let stem = p.file_stem().expect("a file name").to_string_lossy();
            (stem.into_owned(), p)
        })
        .collect();
    sources.sort();
    assert!(
        sources.len() >= 5,
        "expected the MCP fixtures in {}",
        dir.display()
    );
    sources.push(("tools50".into(), fixture("workloads/tools50.json")));
    sources
}

/// Whether this run rewrites the goldens: `UPDATE_EXPECT=1` exactly (any
/// other value compares, so a stray `UPDATE_EXPECT=0` cannot bless). CI
/// unsets it and fails on any change to `tests/golden` after the tests.
fn blessing() -> bool {
    std::env::var_os("UPDATE_EXPECT").is_some_and(|v| v == "1")
}

/// Compares `actual` with `tests/golden/sdk/<file>`; `UPDATE_EXPECT=1` rewrites it.
pub(crate) fn check_golden(file: &str, actual: &str) {
    let path = manifest_dir().join("tests/golden/sdk").join(file);
    if blessing() {
        std::fs::write(&path, actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; bless it with UPDATE_EXPECT=1 cargo test",
            path.display()
        )
    });
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from the rendering at line {}:\n  golden: {:?}\n  actual: {:?}\n\
             (re-bless with UPDATE_EXPECT=1 cargo test if the change is intended)",
            path.display(),
            line + 1,
            expected.lines().nth(line),
            actual.lines().nth(line),
        );
    }
}

#[test]
fn declarations_match_goldens() {
    for (name, path) in golden_sources() {
        check_golden(
            &format!("{name}.d.ts"),
            &declarations_of(&load_tools(&path)),
        );
    }
}

/// The public `run_code_description` is the full form an engine presents.
#[test]
fn run_code_description_is_the_full_form() {
    let tools = load_tools(&fixture("workloads/tools50.json"));
    let text = run_code_description(&declarations_of(&tools), &SdkOptions::default());
    assert!(text == presented_description(tools, 1 << 20));
}

/// `run_code`'s description of `tools` as an engine presents it, under
/// `budget` bytes.
fn presented_description(tools: Vec<ToolDefinition>, budget: usize) -> String {
    presented_description_in(Language::TypeScript, tools, budget)
}

/// [`presented_description`] with `run_code` speaking `language`.
pub(crate) fn presented_description_in(
    language: Language,
    tools: Vec<ToolDefinition>,
    budget: usize,
) -> String {
    let registry = Registry::new();
    registry.set_language(language);
    let handler = |args: Value, _cx: ToolContext| async move { Ok::<_, ToolError>(args) };
    registry
        .add_all(tools.into_iter().map(|d| Tool::new(d, handler)))
        .expect("the tools register");
    let limits = Limits {
        description_budget_bytes: budget,
        ..Limits::default()
    };
    let engine = Engine::new(registry, limits).expect("valid limits");
    let presentation = engine.presentation(&engine.registry().scope(), None);
    presentation.tools[0]
        .description
        .clone()
        .expect("run_code has a description")
}

/// The three forms of the description (contracts §4), each from a real tool
/// list under the default budget: tools50 needs 60 KB, so it is shown whole
/// only under a larger budget; the MCP fixtures fit as an index; tools1000
/// only as namespaces.
fn description_forms() -> Vec<(&'static str, String, &'static str)> {
    let default = Limits::default().description_budget_bytes;
    let tools50 = load_tools(&fixture("workloads/tools50.json"));
    let tools1000 = load_tools(&fixture("workloads/tools1000.json"));
    vec![
        (
            "tools50.run_code.md",
            presented_description(tools50, 64 << 10),
            "Every tool is declared below.",
        ),
        (
            "mcp-union.run_code.md",
            presented_description(crate::common::fixture_union(), default),
            "There are 86 tools, too many to declare here (46 KB of declarations), so below is an index",
        ),
        (
            "tools1000.run_code.md",
            presented_description(tools1000, default),
            "There are 1000 tools, too many to list here, so below are their namespaces",
        ),
    ]
}

#[test]
fn description_forms_match_goldens_and_fit_the_budget() {
    let default = Limits::default().description_budget_bytes;
    for (file, text, form) in description_forms() {
        check_golden(file, &text);
        assert!(text.contains(form), "{file} is not in its form");
        if file != "tools50.run_code.md" {
            assert!(text.len() <= default, "{file}: {} bytes", text.len());
            assert!(
                text.contains("tools.$describe(["),
                "{file} says how to get the rest"
            );
        }
    }
}

/// The ```ts blocks of a description, as one declaration file.
fn typescript_blocks(description: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in description.lines() {
        let fence = line.starts_with("```");
        if fence && !inside && line.trim_start_matches('`') == "ts" {
            inside = true;
        } else if fence && inside {
            inside = false;
        } else if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Every form's declarations pass `tsc --strict` with a program that uses
/// them: tools50's own program for the full form, discovery for the others.
#[test]
fn every_description_form_typechecks_with_tsc() {
    let tsc = tsc();
    let discovery = r#"    const found = tools.$search("create an issue", { limit: 5 });
    const text: string = tools.$describe(found.map((f) => f.name));
    return { best: found[0].name + found[0].summary + found[0].score.toFixed(2), text };"#;
    for (file, text, _) in description_forms() {
        let sdk = typescript_blocks(&text);
        assert!(sdk.contains("declare const tools"), "{file}: {sdk}");
        let body = match file {
            "tools50.run_code.md" => programs_for("tools50").0,
            _ => discovery,
        };
        let (ok, diagnostics) = typecheck(&tsc, &sdk, &[("main.ts", program(body))]);
        assert!(ok, "{file}: tsc rejected its declarations:\n{diagnostics}");
        let wrong = [("wrong.ts", "void tools.$describe(5);\n".to_owned())];
        let (ok, diagnostics) = typecheck(&tsc, &sdk, &wrong);
        assert!(
            !ok && diagnostics.contains("wrong.ts("),
            "{file}: {diagnostics}"
        );
    }
}

/// `ptc sdk` in a directory (the default workspace, `.`) names that
/// directory in `run_code`'s description, canonical; the golden shows it as
/// `<workspace>`, so it holds on every machine. Without a workspace (only
/// `--tools`) there is no such line.
#[test]
fn ptc_sdk_names_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let canonical = std::fs::canonicalize(dir.path()).unwrap();
    let canonical = canonical.to_str().expect("a UTF-8 temporary directory");
    let sdk = |args: &[&str]| {
        let out = crate::common::output(
            Command::new(env!("CARGO_BIN_EXE_ptc"))
                .arg("sdk")
                .args(args)
                .current_dir(dir.path()),
        );
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let text = sdk(&[]);
    let line = format!("- The tools work in `{canonical}`: relative paths start there.\n");
    assert!(text.contains(&line), "{text}");
    check_golden(
        "workspace.run_code.md",
        &text.replace(canonical, "<workspace>"),
    );
    std::fs::write(
        dir.path().join("tools.json"),
        r#"[{ "name": "t", "command": ["true"] }]"#,
    )
    .unwrap();
    let text = sdk(&["--tools", "tools.json"]);
    assert!(!text.contains("The tools work in"), "{text}");
}

#[test]
fn rendering_is_deterministic() {
    // Across processes: the golden was written by another process.
    let tools = load_tools(&fixture("workloads/tools50.json"));
    let first = declarations_of(&tools);
    if !blessing() {
        let golden = std::fs::read_to_string(manifest_dir().join("tests/golden/sdk/tools50.d.ts"))
            .expect("the tools50 golden");
        assert!(first == golden, "tools50 rendering differs from its golden");
    }
    // Within one: twice the same bytes, also from a fresh copy of the input.
    let copy: Vec<ToolDefinition> = tools.to_vec();
    assert!(first == declarations_of(&tools));
    assert!(first == declarations_of(&copy));
}

/// The schema of `run_code`'s arguments is pinned once, by the golden
/// presentation (default limits): the library function gives the same.
#[test]
fn run_code_parameters_follow_the_contract() {
    let path = manifest_dir().join("tests/golden/sdk/escalation.presentation.json");
    let golden: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let p = run_code_parameters(&SdkOptions::default());
    assert_eq!(p, golden["tools"][0]["parameters"]);
    assert_eq!(
        serde_json::to_string(&p).unwrap(),
        serde_json::to_string(&golden["tools"][0]["parameters"]).unwrap(),
        "the members in the same order"
    );
}

/// Every description string, enum value and bound of a schema, counted.
#[derive(Default)]
struct Inventory {
    descriptions: Vec<String>,
    enum_values: Vec<String>,
    bounds: std::collections::BTreeMap<String, usize>,
}

fn inventory(schema: &Value, inv: &mut Inventory) {
    match schema {
        Value::Object(m) => {
            for (key, value) in m {
                match (key.as_str(), value) {
                    ("description", Value::String(d)) => inv.descriptions.push(d.clone()),
                    ("enum", Value::Array(values)) => {
                        inv.enum_values.extend(values.iter().map(|v| v.to_string()))
                    }
                    ("const", v) => inv.enum_values.push(v.to_string()),
                    (
                        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum"
                        | "multipleOf" | "minLength" | "maxLength" | "minItems" | "maxItems"
                        | "format" | "default" | "pattern",
                        _,
                    ) => *inv.bounds.entry(key.clone()).or_default() += 1,
                    (
                        "properties" | "$defs" | "definitions" | "patternProperties",
                        Value::Object(p),
                    ) => p.values().for_each(|s| inventory(s, inv)),
                    (_, v) => inventory(v, inv),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|s| inventory(s, inv)),
        _ => {}
    }
}

#[test]
fn tools1000_is_compact_and_loses_nothing() {
    let tools = load_tools(&fixture("workloads/tools1000.json"));
    let json = serde_json::to_string(&tools).expect("tools serialize");
    let ts = declarations_of(&tools);
    let ratio = ts.len() as f64 / json.len() as f64;
    println!(
        "tools1000: {} bytes of TypeScript / {} bytes of JSON = {ratio:.3}",
        ts.len(),
        json.len()
    );
    assert!(ratio <= 0.70, "declarations are {ratio:.3}x the JSON");

    let mut inv = Inventory::default();
    for tool in &tools {
        if let Some(d) = tool.advertised_description() {
            inv.descriptions.push(d.to_owned());
        }
        inventory(&tool.parameters, &mut inv);
        if let Some(output) = &tool.output {
            inventory(output, &mut inv);
        }
        let name = serde_json::to_string(&tool.name).expect("a name");
        assert!(
            ts.contains(&tool.name) || ts.contains(&name),
            "tool {name} is missing"
        );
    }
    assert!(inv.descriptions.len() > 10_000 && inv.enum_values.len() > 5_000);
    for d in &inv.descriptions {
        assert!(ts.contains(d.as_str()), "description {d:?} is missing");
    }
    for v in &inv.enum_values {
        assert!(ts.contains(v.as_str()), "enum value {v} is missing");
    }
    // Each bound becomes one JSDoc tag.
    for (keyword, count) in &inv.bounds {
        let tag = format!("@{keyword} ");
        assert_eq!(ts.matches(&tag).count(), *count, "{tag} tags");
    }
}

/// `tsc` from `PTC_TSC`, else `node_modules/.bin/tsc` in the repository.
/// Missing, the test fails: a type check that cannot run is never a pass.
fn tsc() -> PathBuf {
    if let Some(path) = std::env::var_os("PTC_TSC") {
        return path.into();
    }
    let local = manifest_dir().join("node_modules/.bin/tsc");
    assert!(
        local.exists(),
        "tsc not found: set PTC_TSC or run `npm ci` (the tsc tests fail without it)"
    );
    local
}

/// `tsc --strict --noEmit` over `sdk.d.ts` plus the given program files, in a
/// fresh directory. Returns whether it passed and its diagnostics.
fn typecheck(tsc: &Path, sdk: &str, programs: &[(&str, String)]) -> (bool, String) {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(dir.path().join("sdk.d.ts"), sdk).expect("write sdk.d.ts");
    let mut cmd = Command::new(tsc);
    cmd.args([
        "--strict", "--noEmit", "--target", "es2022", "--pretty", "false",
    ])
    .arg("sdk.d.ts")
    .current_dir(dir.path());
    for (file, text) in programs {
        std::fs::write(dir.path().join(file), text).expect("write a program");
        cmd.arg(file);
    }
    let out = crate::common::output(&mut cmd);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// A program body wrapped as the async function the engine would run, with a
/// `ToolCallError` handler that reads its fields.
fn program(body: &str) -> String {
    format!(
        r#"async function main(): Promise<unknown> {{
  try {{
{body}
  }} catch (e) {{
    if (e instanceof ToolCallError) {{
      const code: ToolCallError["code"] = e.code;
      if (code === "DENIED" || code === "TOOL_TIMEOUT") return `${{e.toolName}}: ${{e.message}}`;
      console.log(e.toolName, code, e.message);
      return null;
    }}
    throw e;
  }}
}}
"#
    )
}

/// Each wrong program in its own file, as an IIFE so that they share no names.
fn wrong_programs(bodies: &[&str]) -> Vec<(String, String)> {
    bodies
        .iter()
        .enumerate()
        .map(|(i, body)| {
            (
                format!("wrong{i}.ts"),
                format!("void (async () => {{\n{body}\n}})();\n"),
            )
        })
        .collect()
}

/// A correct program per tool list, and programs that must not compile.
fn programs_for(name: &str) -> (&'static str, &'static [&'static str]) {
    match name {
        "tools50" | "tools1000" => (
            r#"    const echoed = await tools.echo({ value: [1, "two", { three: null }] });
    const slept: number = (await tools.sleep({ ms: 1 })).slept;
    const rows = await tools.get_rows();
    const tags: string[] = rows[0].tags;
    const issue = await tools["github.create-issue"]({
      owner: "o", repo: "r", title: "t", milestone: 3, assignees: [{ login: "me", role: "owner" }],
    });
    const [a, b] = await Promise.all([tools.echo({ value: 1 }), tools.sleep({ ms: 2, i: 1 })]);
    await tools["slack.chat.post-message"]({ channel: "c", text: "hi", unfurl: "links", thread: { ts: "1" } });
    return { echoed: echoed.value, slept, tags, url: issue.url, n: issue.number + 1, a: a.value, b: b.slept };"#,
            &[
                r#"await tools.sleep({ ms: "soon" });"#,
                r#"await tools["github.create-issue"]({ owner: "o", repo: "r", title: "t", assignees: [{ login: "me", role: "admin" }] });"#,
                r#"await tools.echo();"#,
                r#"const rows = await tools.get_rows({ limit: 5 }); const n: string = rows[0].score;"#,
                r#"try { await tools.echo({ value: 1 }); } catch (e) { if (e instanceof ToolCallError && e.code === "NOT_A_CODE") return; }"#,
            ],
        ),
        "github" => (
            r#"    const issue = await tools.get_issue({ owner: "o", repo: "r", issue_number: 1 });
    await tools.create_issue({ owner: "o", repo: "r", title: "t", labels: ["bug"] });
    const results = await Promise.all([1, 2].map((n) => tools.get_issue({ owner: "o", repo: "r", issue_number: n })));
    const found = await tools.$search("create issue", { limit: 3 });
    const best: string = found[0].name + found[0].summary + found[0].score.toFixed(2);
    const text: string = tools.$describe([best, "get_issue"]) + (await tools.$describe("x"));
    return [issue, results.length, text];"#,
            &[
                r#"await tools.get_issue({ owner: "o", repo: "r", issue_number: "1" });"#,
                r#"tools.$search(5);"#,
                r#"tools.$search("x", { limit: "3" });"#,
                r#"const n: number = tools.$describe(["x"]);"#,
            ],
        ),
        "notion" => (
            r#"    const user = await tools["API-get-user"]({ user_id: "u" });
    await tools["API-patch-block-children"]({
      block_id: "b",
      children: [{ type: "paragraph", paragraph: { rich_text: [{ text: { content: "hi", link: null } }] } }],
    });
    await tools["API-get-block-children"]({ block_id: "b", page_size: 10 });
    return user;"#,
            &[r#"await tools["API-get-block-children"]({ block_id: "b", page_size: "10" });"#],
        ),
        "server-everything" => (
            r#"    await tools.echo({ message: "hi" });
    const sum = await tools["get-sum"]({ a: 1, b: 2 });
    await tools["get-env"]();
    return sum;"#,
            &[r#"await tools["get-sum"]({ a: 1, b: "2" });"#],
        ),
        "server-filesystem" => (
            r#"    const file = await tools.read_text_file({ path: "/a", head: 3 });
    const text: string = file.content;
    await tools.list_allowed_directories();
    await tools.edit_file({ path: "/a", edits: [{ oldText: "x", newText: "y" }], dryRun: true });
    return text.length;"#,
            &[r#"await tools.edit_file({ path: "/a", edits: [{ oldText: "x" }] });"#],
        ),
        "server-memory" => (
            r#"    await tools.create_entities({ entities: [{ name: "n", entityType: "t", observations: [] }] });
    const graph = await tools.read_graph();
    return graph.entities.map((e) => e.name);"#,
            &[
                r#"await tools.create_entities({ entities: [{ name: "n", entityType: "t", observations: "none" }] });"#,
            ],
        ),
        other => panic!("no program for {other}: add one to programs_for"),
    }
}

/// The rendered SDK plus a correct program passes `tsc --strict`; each wrong
/// program fails, in its own file, without any error in the SDK itself.
fn check_with_tsc(tsc: &Path, name: &str, path: &Path) {
    let sdk = declarations_of(&load_tools(path));
    let (good, wrong) = programs_for(name);
    let (ok, diagnostics) = typecheck(tsc, &sdk, &[("main.ts", program(good))]);
    assert!(
        ok,
        "{name}: tsc rejected the SDK or a correct program:\n{diagnostics}"
    );

    let wrong = wrong_programs(wrong);
    let files: Vec<(&str, String)> = wrong.iter().map(|(f, t)| (f.as_str(), t.clone())).collect();
    let (ok, diagnostics) = typecheck(tsc, &sdk, &files);
    assert!(!ok, "{name}: tsc accepted wrong programs");
    assert!(
        !diagnostics.contains("sdk.d.ts("),
        "{name}: errors inside the SDK:\n{diagnostics}"
    );
    for (file, _) in &wrong {
        assert!(
            diagnostics.contains(&format!("{file}(")),
            "{name}: {file} compiled but must not:\n{diagnostics}"
        );
    }
}

#[test]
fn sdks_typecheck_with_tsc() {
    let tsc = tsc();
    for (name, path) in golden_sources() {
        check_with_tsc(&tsc, &name, &path);
    }
}

#[test]
fn tools1000_sdk_typechecks_with_tsc() {
    let tsc = tsc();
    check_with_tsc(&tsc, "tools1000", &fixture("workloads/tools1000.json"));
}

/// A tiny deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const WEIRD_TEXT: &[&str] = &[
    "plain",
    "ends */ early",
    "/* opens",
    "line\nbreak\r\nand more",
    "tab\tquote\" backslash\\",
    "line\u{2028}separator",
    "```fenced```",
    "ümlaut 🙂 文字",
    "@param x not a tag",
    "",
    "   padded   ",
    "*/",
    "ends with star *",
];

const NAMES: &[&str] = &[
    "a",
    "b",
    "new",
    "constructor",
    "__proto__",
    "x-request-id",
    "1st",
    "",
    "ümlaut",
    "🙂",
    "default",
    "say \"hi\"",
    "back\\slash",
    "$ok",
    "_",
    "line\nbreak",
    "toString",
];

fn random_literal(rng: &mut Rng, depth: u32) -> Value {
    use serde_json::json;
    match rng.below(if depth > 2 { 5 } else { 7 }) {
        0 => json!(rng.pick(WEIRD_TEXT)),
        1 => json!(rng.below(1000) as i64 - 500),
        2 => json!(rng.below(1000) as f64 / 7.0),
        3 => json!(rng.below(2) == 0),
        4 => Value::Null,
        5 => Value::Array(
            (0..rng.below(3))
                .map(|_| random_literal(rng, depth + 1))
                .collect(),
        ),
        _ => {
            let mut m = serde_json::Map::new();
            for _ in 0..rng.below(3) {
                m.insert(rng.pick(NAMES).into(), random_literal(rng, depth + 1));
            }
            Value::Object(m)
        }
    }
}

fn random_schema(rng: &mut Rng, depth: u32) -> Value {
    use serde_json::json;
    const TYPES: &[&str] = &[
        "string", "integer", "number", "boolean", "null", "object", "array", "bogus",
    ];
    let kinds = if depth > 5 { 2 } else { 15 };
    let mut schema = match rng.below(kinds) {
        0 => json!({ "type": rng.pick(TYPES) }),
        1 => json!(rng.below(2) == 0),
        2 => json!({ "type": [rng.pick(TYPES), rng.pick(TYPES)] }),
        3 | 4 => {
            let mut props = serde_json::Map::new();
            for _ in 0..rng.below(4) {
                props.insert(rng.pick(NAMES).into(), random_schema(rng, depth + 1));
            }
            let required: Vec<&str> = (0..rng.below(3)).map(|_| rng.pick(NAMES)).collect();
            let mut m = json!({ "type": "object", "properties": props, "required": required });
            match rng.below(5) {
                0 => m["additionalProperties"] = json!(false),
                1 => m["additionalProperties"] = json!(true),
                2 => m["additionalProperties"] = random_schema(rng, depth + 1),
                3 => m["patternProperties"] = json!({ "^x-": random_schema(rng, depth + 1) }),
                _ => {}
            }
            m
        }
        5 => {
            json!({ "type": "array", "items": random_schema(rng, depth + 1), "maxItems": rng.below(4) })
        }
        6 => json!({
            "type": "array",
            "prefixItems": [random_schema(rng, depth + 1), random_schema(rng, depth + 1)],
            "items": if rng.below(2) == 0 { json!(false) } else { random_schema(rng, depth + 1) },
            "minItems": rng.below(4)
        }),
        7 => {
            json!({ "items": [random_schema(rng, depth + 1)], "additionalItems": random_schema(rng, depth + 1) })
        }
        8 => {
            json!({ "enum": (0..rng.below(4)).map(|_| random_literal(rng, 0)).collect::<Vec<_>>() })
        }
        9 => json!({ "const": random_literal(rng, 0) }),
        10 => {
            json!({ rng.pick(&["anyOf", "oneOf", "allOf"]): (0..rng.below(4)).map(|_| random_schema(rng, depth + 1)).collect::<Vec<_>>() })
        }
        11 => {
            json!({ "$ref": rng.pick(&["#", "#/$defs/a", "#/$defs/b", "#/definitions/c", "#/$defs/missing", "#/$defs/%C3%BCmlaut", "other.json#/x", "#anchor"]) })
        }
        12 => json!({ "not": random_schema(rng, depth + 1), "if": {}, "then": {} }),
        13 => json!({ "type": rng.pick(TYPES), "nullable": true }),
        _ => random_literal(rng, 0),
    };
    if let Value::Object(m) = &mut schema {
        if rng.below(2) == 0 {
            m.insert(
                "description".into(),
                Value::String(rng.pick(WEIRD_TEXT).into()),
            );
        }
        for key in [
            "default",
            "minimum",
            "pattern",
            "format",
            "deprecated",
            "title",
            "examples",
        ] {
            if rng.below(6) == 0 {
                m.insert(key.into(), random_literal(rng, 0));
            }
        }
    }
    schema
}

/// Random tools with random (often nonsensical) schemas: rendering must not
/// panic, and the SDK must still be valid TypeScript.
fn random_tools(seed: u64, count: usize) -> Vec<ToolDefinition> {
    let mut rng = Rng(seed);
    const TOOL_NAMES: &[&str] = &[
        "t",
        "new",
        "constructor",
        "a.b-c",
        "9lives",
        "",
        "ümlaut",
        "get",
        "delete",
    ];
    (0..count)
        .map(|i| {
            let mut params = random_schema(&mut rng, 0);
            if let Value::Object(m) = &mut params {
                m.insert(
                    "$defs".into(),
                    serde_json::json!({
                        "a": random_schema(&mut rng, 1),
                        "b": random_schema(&mut rng, 1),
                        "ümlaut": random_schema(&mut rng, 1),
                    }),
                );
                m.insert(
                    "definitions".into(),
                    serde_json::json!({ "c": random_schema(&mut rng, 1) }),
                );
            }
            let name = format!(
                "{}{}",
                rng.pick(TOOL_NAMES),
                if rng.below(3) == 0 {
                    String::new()
                } else {
                    i.to_string()
                }
            );
            let mut tool = ToolDefinition::new(name)
                .parameters(params)
                .description(rng.pick(WEIRD_TEXT))
                .read_only(rng.below(2) == 0);
            if rng.below(2) == 0 {
                tool = tool.output(random_schema(&mut rng, 0));
            }
            tool
        })
        .collect()
}

#[test]
fn random_schemas_never_panic() {
    for seed in 1..=20u64 {
        let mut tools = random_tools(seed, 50);
        tools.push(deep_tool());
        let sdk = declarations_of(&tools);
        assert!(sdk.contains("declare const tools: {"));
        assert_eq!(
            sdk,
            declarations_of(&tools),
            "seed {seed} is not deterministic"
        );
        for tool in &tools {
            let text = ptc::schema_to_typescript(&tool.parameters);
            assert!(!text.is_empty());
        }
    }
}

/// Nesting far past the renderer's depth cap, through objects, arrays and refs.
fn deep_tool() -> ToolDefinition {
    let mut schema = serde_json::json!({ "type": "string" });
    for i in 0..120 {
        schema = match i % 3 {
            0 => {
                serde_json::json!({ "type": "object", "properties": { "x": schema }, "required": ["x"] })
            }
            1 => serde_json::json!({ "type": "array", "items": schema, "description": "level */" }),
            _ => serde_json::json!({ "anyOf": [schema, { "$ref": "#/$defs/d" }] }),
        };
    }
    let params = serde_json::json!({
        "type": "object",
        "$defs": { "d": schema.clone() },
        "properties": { "deep": schema }
    });
    ToolDefinition::new("deep").parameters(params)
}

/// `SEED=<n>` tries another set of random tools.
#[test]
fn random_schemas_typecheck_with_tsc() {
    let tsc = tsc();
    let seed: u64 = std::env::var("SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    let mut tools = random_tools(seed, 300);
    tools.push(deep_tool());
    let sdk = declarations_of(&tools);
    let main = "async function main() { return [tools, ToolCallError]; }\n".to_owned();
    let (ok, diagnostics) = typecheck(&tsc, &sdk, &[("main.ts", main)]);
    if !ok {
        let dir = std::env::temp_dir().join("ptc-random-sdk.d.ts");
        let _ = std::fs::write(&dir, &sdk);
        panic!(
            "tsc rejected random SDK (written to {}):\n{diagnostics}",
            dir.display()
        );
    }
}

/// Contracts §5: the instruction text says each thing the model must know,
/// whatever the golden holds.
#[test]
fn the_instructions_tell_the_model_what_the_contract_lists() {
    let tools = load_tools(&fixture("workloads/tools50.json"));
    let text = run_code_description(&declarations_of(&tools), &SdkOptions::default());
    for (rule, needle) in [
        (
            "the code is the body of an async function",
            "body of an async function",
        ),
        ("erasable syntax only", "Only erasable TypeScript"),
        ("no enum", "no `enum`"),
        ("no namespace", "no `namespace`"),
        ("no parameter properties", "parameter properties"),
        ("how to call a tool", "await tools.name(args)"),
        (
            "failures reject with ToolCallError",
            "rejects with a `ToolCallError`",
        ),
        ("catch to continue", "`try`/`catch` to carry on"),
        ("read-only calls may overlap", "Promise.all"),
        (
            "mutating calls run alone, in order",
            "one at a time, in the order",
        ),
        (
            "only return and console.log reach the model",
            "Only the `return` value and `console.log` output reach you",
        ),
        (
            "the deadline's default and maximum",
            "120000 ms by default, at most 600000 ms",
        ),
    ] {
        assert!(
            text.contains(needle),
            "the instructions do not say {rule}: {text}"
        );
    }
    // When the description cannot declare every tool: find, read, call.
    for (file, text, _) in description_forms().into_iter().skip(1) {
        for needle in [
            "return tools.$search(",
            "return tools.$describe([",
            "then call it in your next program",
            "are not tool calls",
        ] {
            assert!(text.contains(needle), "{file} does not say {needle:?}");
        }
    }
}
