//! The Python SDK: goldens of the stubs over the TypeScript SDK's tool
//! lists, `ptc sdk --language python`, and `mypy --strict` over the stubs
//! with a correct program and wrong ones (contracts §5).

use std::path::Path;
use std::process::Command;

use ptc::{Language, Limits, ToolDefinition, render_python};

use crate::sdk::{check_golden, fixture, golden_sources, load_tools, presented_description_in};

fn stubs_of(tools: &[ToolDefinition]) -> String {
    let refs: Vec<&ToolDefinition> = tools.iter().collect();
    render_python(&refs)
}

#[test]
fn stubs_match_goldens() {
    for (name, path) in golden_sources() {
        check_golden(&format!("{name}.pyi"), &stubs_of(&load_tools(&path)));
    }
}

#[test]
fn stubs_are_deterministic() {
    let tools = load_tools(&fixture("workloads/tools1000.json"));
    assert!(stubs_of(&tools) == stubs_of(&tools));
}

/// `ptc sdk --language python --format py` prints the stubs, `--format
/// text` run_code's description in Python (the stubs inside it), `--format
/// json` the presentation; a TypeScript format with Python is a usage error.
#[test]
fn ptc_sdk_prints_the_python_presentation() {
    let manifest = fixture("mcp-tools/server-memory.json");
    let run = |args: &[&str]| {
        crate::common::output(
            Command::new(env!("CARGO_BIN_EXE_ptc"))
                .arg("sdk")
                .arg("--tools")
                .arg(&manifest)
                .args(args),
        )
    };
    let stubs = stubs_of(&load_tools(&manifest));
    let printed = |args: &[&str]| {
        let out = run(args);
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).expect("UTF-8")
    };
    assert_eq!(printed(&["--language", "python", "--format", "py"]), stubs);
    let text = printed(&["--language", "python"]);
    assert!(
        text.starts_with("Run a Python program that calls your tools"),
        "{text}"
    );
    assert!(text.contains(&format!("```python\n{stubs}```")), "{text}");
    let json = printed(&["--language", "python", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(json["sdk"], stubs.as_str());
    let code = &json["tools"][0]["parameters"]["properties"]["code"]["description"];
    assert!(code.as_str().unwrap().starts_with("Python: "), "{code}");
    for (args, message) in [
        (
            &["--language", "python", "--format", "ts"][..],
            "with --language python, use --format py",
        ),
        (
            &["--format", "py"][..],
            "--format py needs --language python",
        ),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty());
    }
}

/// run_code's description in Python, in its three forms (contracts §4):
/// the goldens, the budget, and what the index and namespace forms say
/// about reaching the rest.
fn python_description_forms() -> Vec<(&'static str, String)> {
    let default = Limits::default().description_budget_bytes;
    let tools50 = load_tools(&fixture("workloads/tools50.json"));
    let tools1000 = load_tools(&fixture("workloads/tools1000.json"));
    let python = |tools, budget| presented_description_in(Language::Python, tools, budget);
    vec![
        ("tools50.python.run_code.md", python(tools50, 128 << 10)),
        (
            "mcp-union.python.run_code.md",
            python(crate::common::fixture_union(), default),
        ),
        ("tools1000.python.run_code.md", python(tools1000, default)),
    ]
}

#[test]
fn python_description_forms_match_goldens() {
    let default = Limits::default().description_budget_bytes;
    for (file, text) in python_description_forms() {
        check_golden(file, &text);
        assert!(text.starts_with("Run a Python program"), "{file}");
        if file != "tools50.python.run_code.md" {
            assert!(text.len() <= default, "{file}: {} bytes", text.len());
            assert!(text.contains("describe_tools([\""), "{file}");
        } else {
            assert!(text.contains("Every tool is declared below."), "{file}");
        }
    }
}

/// The ```python block of a description.
fn python_block(description: &str) -> String {
    let start = description.find("```python\n").expect("a python block") + 10;
    let end = description[start..].find("```").expect("its end") + start;
    description[start..end].to_owned()
}

/// Each form's stubs pass `mypy --strict` with a program that uses them:
/// tools50's own for the full form, discovery for the others.
#[test]
fn every_python_description_form_typechecks_with_mypy() {
    let mypy = mypy();
    let discovery = r#"        found = search_tools("create an issue", limit=5)
        text: str = describe_tools([f["name"] for f in found])
        return [found[0]["name"] + found[0]["summary"], found[0]["score"] + 1.0, text]"#;
    for (file, text) in python_description_forms() {
        let stubs = python_block(&text);
        let body = match file {
            "tools50.python.run_code.md" => programs_for("tools50").0,
            _ => discovery,
        };
        let (ok, diagnostics) = typecheck(&mypy, &stubs, &[("main.py".into(), program(body))]);
        assert!(ok, "{file}: mypy rejected its stubs:\n{diagnostics}");
        let wrong = wrong_programs(&["    describe_tools(5)"]);
        let (ok, diagnostics) = typecheck(&mypy, &stubs, &wrong);
        assert!(
            !ok && diagnostics.contains("wrong0.py:"),
            "{file}: {diagnostics}"
        );
    }
}

/// How to run mypy: `PTC_MYPY` (a command, e.g. `python3 -m mypy`), else
/// `python3 -m mypy`; a type check that cannot run fails, never passes.
fn mypy() -> Vec<String> {
    if let Some(cmd) = std::env::var_os("PTC_MYPY") {
        let cmd = cmd.to_string_lossy().into_owned();
        return cmd.split_whitespace().map(str::to_owned).collect();
    }
    let found = crate::common::output(Command::new("python3").args(["-m", "mypy", "--version"]))
        .status
        .success();
    assert!(
        found,
        "mypy not found: pip install -r tests/requirements.txt, or set PTC_MYPY"
    );
    vec!["python3".into(), "-m".into(), "mypy".into()]
}

/// `mypy --strict` over `ptc_tools.pyi` plus the given programs, in a fresh
/// directory. Returns whether it passed and its diagnostics.
fn typecheck(mypy: &[String], stubs: &str, programs: &[(String, String)]) -> (bool, String) {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::write(dir.path().join("ptc_tools.pyi"), stubs).expect("write the stubs");
    let mut cmd = Command::new(&mypy[0]);
    cmd.args(&mypy[1..])
        .args(["--strict", "--no-incremental", "--no-color-output"])
        .arg("--cache-dir")
        .arg(dir.path().join(".mypy_cache"))
        .arg("ptc_tools.pyi")
        .current_dir(dir.path())
        .env("MYPYPATH", dir.path());
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

const IMPORTS: &str = "import asyncio\n\nfrom ptc_tools import ToolCallError, describe_tools, search_tools, tools\n\n";

/// A correct program: `body` inside a `try` whose handler reads the
/// error's text (its code and tool are in it: the stubs declare no
/// attributes the sandbox cannot give).
fn program(body: &str) -> String {
    format!(
        "{IMPORTS}\nasync def main() -> object:\n    try:\n{body}\n    except ToolCallError as e:\n        why: str = str(e)\n        if \"(code DENIED\" in why or e.args:\n            return why\n        return None\n\n\nprint(asyncio.run(main()))\n"
    )
}

/// Each wrong program in its own file.
fn wrong_programs(bodies: &[&str]) -> Vec<(String, String)> {
    bodies
        .iter()
        .enumerate()
        .map(|(i, body)| {
            (
                format!("wrong{i}.py"),
                format!("{IMPORTS}\nasync def main() -> object:\n{body}\n    return None\n"),
            )
        })
        .collect()
}

/// A correct program per tool list (body lines indented for the `try`),
/// and programs mypy must reject.
fn programs_for(name: &str) -> (&'static str, &'static [&'static str]) {
    match name {
        "tools50" | "tools1000" => (
            r#"        echoed = await tools.echo(value=[1, "two", {"three": None}])
        slept: int = (await tools.sleep(ms=1))["slept"]
        rows = await tools.get_rows()
        tags: list[str] = rows[0]["tags"]
        issue = await tools.github.create_issue(
            owner="o", repo="r", title="t", milestone=3, assignees=[{"login": "me", "role": "owner"}]
        )
        a, b = await asyncio.gather(tools.echo(value=1), tools.sleep(ms=2, i=1))
        await tools.slack.chat_post_message(channel="c", text="hi", unfurl="links", thread={"ts": "1"})
        await tools["slack.chat.post-message"](channel="c", text="hi")
        return [echoed["value"], slept, tags, issue["url"], issue["number"] + 1, a["value"], b["slept"]]"#,
            &[
                r#"    await tools.sleep(ms="soon")"#,
                r#"    await tools.github.create_issue(owner="o", repo="r", title="t", assignees=[{"login": "me", "role": "admin"}])"#,
                r#"    await tools.echo()"#,
                r#"    rows = await tools.get_rows(limit=5)
    n: str = rows[0]["score"]"#,
                r#"    try:
        await tools.echo(value=1)
    except ToolCallError as e:
        if e.code == "DENIED":
            return None"#,
                r#"    await tools.sleep(ms=1, not_an_argument=2)"#,
            ],
        ),
        "github" => (
            r#"        issue = await tools.get_issue(owner="o", repo="r", issue_number=1)
        await tools.create_issue(owner="o", repo="r", title="t", labels=["bug"])
        results = await asyncio.gather(*[tools.get_issue(owner="o", repo="r", issue_number=n) for n in [1, 2]])
        found = search_tools("create issue", limit=3)
        best: str = found[0]["name"] + found[0]["summary"] + f"{found[0]['score']:.2f}"
        text: str = describe_tools([best, "get_issue"]) + describe_tools("x")
        return [issue, len(results), text]"#,
            &[
                r#"    await tools.get_issue(owner="o", repo="r", issue_number="1")"#,
                r#"    search_tools(5)"#,
                r#"    search_tools("x", limit="3")"#,
                r#"    n: int = describe_tools(["x"])"#,
            ],
        ),
        "notion" => (
            r#"        user = await tools.API_get_user(user_id="u")
        await tools.API_patch_block_children(
            block_id="b",
            children=[{"type": "paragraph", "paragraph": {"rich_text": [{"text": {"content": "hi", "link": None}}]}}],
        )
        await tools.API_get_block_children(block_id="b", page_size=10)
        await tools["API-get-user"](user_id="u")
        return user"#,
            &[r#"    await tools.API_get_block_children(block_id="b", page_size="10")"#],
        ),
        "server-everything" => (
            r#"        await tools.echo(message="hi")
        total = await tools.get_sum(a=1, b=2.5)
        await tools.get_env()
        return total"#,
            &[r#"    await tools.get_sum(a=1, b="2")"#],
        ),
        "server-filesystem" => (
            r#"        file = await tools.read_text_file(path="/a", head=3)
        text: str = file["content"]
        await tools.list_allowed_directories()
        await tools.edit_file(path="/a", edits=[{"oldText": "x", "newText": "y"}], dryRun=True)
        return len(text)"#,
            &[r#"    await tools.edit_file(path="/a", edits=[{"oldText": "x"}])"#],
        ),
        "server-memory" => (
            r#"        await tools.create_entities(entities=[{"name": "n", "entityType": "t", "observations": []}])
        graph = await tools.read_graph()
        return graph"#,
            &[
                r#"    await tools.create_entities(entities=[{"name": "n", "entityType": "t", "observations": "none"}])"#,
            ],
        ),
        other => panic!("no program for {other}: add one to programs_for"),
    }
}

/// The stubs plus a correct program pass `mypy --strict`; each wrong
/// program fails, in its own file, without any error in the stubs.
fn check_with_mypy(mypy: &[String], name: &str, path: &Path) {
    let stubs = stubs_of(&load_tools(path));
    let (good, wrong) = programs_for(name);
    let (ok, diagnostics) = typecheck(mypy, &stubs, &[("main.py".into(), program(good))]);
    assert!(
        ok,
        "{name}: mypy rejected the stubs or a correct program:\n{diagnostics}"
    );

    let wrong = wrong_programs(wrong);
    let (ok, diagnostics) = typecheck(mypy, &stubs, &wrong);
    assert!(!ok, "{name}: mypy accepted wrong programs");
    assert!(
        !diagnostics.contains("ptc_tools.pyi:"),
        "{name}: errors inside the stubs:\n{diagnostics}"
    );
    for (file, _) in &wrong {
        assert!(
            diagnostics.contains(&format!("{file}:")),
            "{name}: {file} type-checked but must not:\n{diagnostics}"
        );
    }
}

#[test]
fn stubs_typecheck_with_mypy() {
    let mypy = mypy();
    for (name, path) in golden_sources() {
        check_with_mypy(&mypy, &name, &path);
    }
}

#[test]
fn tools1000_stubs_typecheck_with_mypy() {
    let mypy = mypy();
    check_with_mypy(&mypy, "tools1000", &fixture("workloads/tools1000.json"));
}

/// Hostile names and texts: namespaces, keywords, clashing mangled names,
/// quotes and control characters in docs, reference cycles and deep
/// nesting all still give stubs mypy accepts, and calls through the
/// mangled names type-check.
#[test]
fn hostile_tool_lists_typecheck_with_mypy() {
    let mypy = mypy();
    let tools: Vec<ToolDefinition> = serde_json::from_value(serde_json::json!([
        { "name": "gh.create-issue", "description": "Quotes \"\"\" and \\ and \u{0} end \"",
          "inputSchema": { "type": "object", "properties": {
            "class": { "type": "string", "description": "line\n\"\"\"\r\n\u{1b}" },
            "my-key": { "type": "integer" }, "my_key": { "type": "integer" }, "self": { "type": "boolean" },
            "list": { "type": "object", "properties": { "from": { "type": "string" }, "Any": { "type": "integer" },
              "str": { "type": "string" } }, "required": ["from"] },
            "tree": { "$ref": "#/$defs/node" }, "loop": { "$ref": "#/$defs/a" } },
            "required": ["class"],
            "$defs": {
              "node": { "type": "object", "properties": { "kids": { "type": "array", "items": { "$ref": "#/$defs/node" } } } },
              "a": { "anyOf": [{ "$ref": "#/$defs/b" }, { "type": "integer" }] },
              "b": { "anyOf": [{ "$ref": "#/$defs/a" }, { "type": "array", "items": { "$ref": "#/$defs/a" } }] } } } },
        { "name": "gh", "inputSchema": { "type": "object" } },
        { "name": "list", "inputSchema": { "anyOf": [{ "type": "string" }, { "type": "integer" }] } },
        { "name": "__init__", "inputSchema": true },
        { "name": "Any", "inputSchema": { "type": "object" }, "outputSchema": { "type": "object", "properties": { "a": {} } } },
        { "name": "2fa", "inputSchema": { "type": "object", "additionalProperties": { "type": "string" } } }
    ]))
    .expect("tool definitions");
    let stubs = stubs_of(&tools);
    let good = r#"        await tools.gh.create_issue(class_="c", my_key=1, my_key_=2, self_=True, list_={"from": "x"})
        await tools.gh_()
        await tools.list_("x")
        await tools.__init___()
        out = await tools.Any_()
        await tools._2fa(a="b")
        await tools["gh.create-issue"](**{"class": "c"})
        return out["a"]"#;
    let (ok, diagnostics) = typecheck(&mypy, &stubs, &[("main.py".into(), program(good))]);
    assert!(
        ok,
        "mypy rejected hostile stubs or their program:\n{diagnostics}\n{stubs}"
    );
    let wrong = wrong_programs(&[
        r#"    await tools.gh.create_issue(class_=1)"#,
        r#"    await tools._2fa(a=1)"#,
        r#"    await tools.list_(1.5)"#,
    ]);
    let (ok, diagnostics) = typecheck(&mypy, &stubs, &wrong);
    assert!(
        !ok && !diagnostics.contains("ptc_tools.pyi:"),
        "{diagnostics}"
    );
    for (file, _) in &wrong {
        assert!(
            diagnostics.contains(&format!("{file}:")),
            "{file}:\n{diagnostics}"
        );
    }
}
