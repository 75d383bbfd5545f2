//! `ptc mcp`'s safe defaults (docs/mcp.md): the file tools only with
//! `--workspace`, no start without a tool source, and no upstream server
//! that is this same `ptc mcp` again.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::mcp_server::drive;

/// `ptc ARGS` with stdin closed: its exit status and stderr.
fn ptc_exit(dir: &Path, args: &[&str]) -> (i32, String) {
    let output = crate::common::output(
        Command::new(env!("CARGO_BIN_EXE_ptc"))
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null()),
    );
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_bare_ptc_mcp_serves_nothing_and_says_what_to_pass() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["mcp"][..],
        &["mcp", "--mode", "native"],
        &["mcp", "--http", "127.0.0.1:0"],
    ] {
        let (code, stderr) = ptc_exit(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(
            stderr,
            "ptc: no tools to serve: pass --workspace DIR (file tools confined to DIR), --tools MANIFEST or --mcp-config FILE\n",
            "{args:?}"
        );
    }
}

/// Issue 41: an operator cannot give the model a deadline the client
/// would cut without saying the client waits that long.
#[test]
fn a_deadline_past_what_the_client_waits_is_refused_at_launch() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().to_str().unwrap();
    let (code, stderr) = ptc_exit(
        dir.path(),
        &["mcp", "--workspace", workspace, "--timeout-ms", "90000"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        stderr,
        "ptc: --timeout-ms 90000 is longer than the client waits for an answer \
         (--client-timeout-ms 60000, so at most 55000): pass --client-timeout-ms \
         when the client waits longer or resets its timeout on progress\n"
    );
    let (code, stderr) = ptc_exit(
        dir.path(),
        &[
            "mcp",
            "--workspace",
            workspace,
            "--client-timeout-ms",
            "999",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--client-timeout-ms"), "{stderr}");
}

/// The tools a Python client sees from `ptc mcp --mode native` with `args`.
fn native_names(dir: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["mcp", "--mode", "native"];
    all.extend_from_slice(args);
    let listed = drive(json!({ "scenario": "list", "stdio": {
        "command": env!("CARGO_BIN_EXE_ptc"), "args": all, "cwd": dir } }));
    listed["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn ptc_mcp_gives_file_tools_only_with_an_explicit_workspace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    let manifest = dir.path().join("manifest.json");
    std::fs::write(
        &manifest,
        json!([{ "name": "echo", "command": ["cat"] }]).to_string(),
    )
    .unwrap();
    let manifest = manifest.to_str().unwrap();
    assert_eq!(
        native_names(dir.path(), &["--tools", manifest]),
        ["echo"],
        "started in a directory, no --workspace: no file tools"
    );
    let workspace = dir.path().to_str().unwrap();
    assert_eq!(
        native_names(dir.path(), &["--tools", manifest, "--workspace", workspace]),
        [
            "read_file",
            "write_file",
            "list_dir",
            "search_files",
            "echo"
        ]
    );
    // `ptc run` keeps the current directory as its default workspace.
    let output = crate::common::output(
        Command::new(env!("CARGO_BIN_EXE_ptc"))
            .args([
                "run",
                "-e",
                "return await tools.read_file({ path: 'notes.txt' })",
            ])
            .current_dir(dir.path()),
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout), "hello\n");
}

/// Entries that would start this same `ptc mcp` again, by path and by name
/// through `PATH`, are skipped with a warning; an entry running the same
/// executable as another subcommand, or another program, is not.
#[test]
fn a_config_entry_that_starts_this_ptc_mcp_again_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().to_str().unwrap();
    let ptc = Path::new(env!("CARGO_BIN_EXE_ptc"));
    let bin_dir = ptc.parent().unwrap().to_str().unwrap();
    let nested = |command: &str, env: Value| {
        json!({ "command": command, "env": env,
                "args": ["mcp", "--mode", "native", "--workspace", workspace] })
    };
    let config = json!({ "mcpServers": {
        "direct": nested(ptc.to_str().unwrap(), json!({})),
        "named": nested("ptc", json!({ "PATH": bin_dir })),
        "dotted": nested(&format!("{bin_dir}/../debug/ptc"), json!({})),
    } });
    let config_path = dir.path().join("mcp.json");
    std::fs::write(&config_path, config.to_string()).unwrap();
    let config_path = config_path.to_str().unwrap();

    let names = native_names(
        dir.path(),
        &["--mcp-config", config_path, "--workspace", workspace],
    );
    assert_eq!(
        names,
        ["read_file", "write_file", "list_dir", "search_files"],
        "no tool of a nested ptc mcp"
    );
    let (_, stderr) = ptc_exit(dir.path(), &["mcp", "--mcp-config", config_path]);
    for name in ["direct", "named", "dotted"] {
        let warning = format!(
            "ptc: warning: mcp config: server `{name}`: skipped: it would start this same `ptc mcp` ({}) again",
            ptc.canonicalize().unwrap().display()
        );
        assert!(stderr.contains(&warning), "{name}: {stderr}");
    }

    // `ptc sdk` (like `ptc run`) may use `ptc mcp` as a tool source: it
    // is not itself.
    let output = crate::common::output(
        Command::new(env!("CARGO_BIN_EXE_ptc"))
            .args(["sdk", "--format", "ts", "--mcp-config", config_path])
            .current_dir(dir.path()),
    );
    let sdk = String::from_utf8_lossy(&output.stdout);
    assert!(sdk.contains(r#""direct.read_file"("#), "{sdk}");
}
