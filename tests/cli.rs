//! The `ptc` binary: `run` and `sdk`, exit codes and flags.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// `ptc` with these arguments, in `dir`, stdin empty, no controlling terminal.
pub(crate) fn ptc(dir: &Path, args: &[&str]) -> Output {
    ptc_with_input(dir, args, "")
}

fn ptc_with_input(dir: &Path, args: &[&str], input: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ptc"));
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    without_terminal(&mut command);
    let mut child = crate::common::spawn(&mut command);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// Detaches the child from the controlling terminal (a new session), so
/// `/dev/tty` cannot be opened even when the tests run in a terminal.
fn without_terminal(command: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: setsid is async-signal-safe and touches no memory.
        unsafe {
            command.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("ptc exits, not killed")
}

/// A usage error: exit 2 and one line `ptc: …` on stderr.
fn assert_usage_error(output: &Output, needle: &str) {
    let err = stderr(output);
    assert_eq!(code(output), 2, "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err:?}");
    assert!(err.starts_with("ptc: "), "{err:?}");
    assert!(err.contains(needle), "{err:?} should mention {needle:?}");
    assert_eq!(stdout(output), "");
}

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// Issue 41: `ptc --help` names the languages this build runs.
#[test]
fn help_names_the_languages_this_build_runs() {
    let dir = tempdir();
    let help = stdout(&ptc(dir.path(), &["--help"]));
    assert!(help.contains("model-written TypeScript"), "{help}");
    assert_eq!(
        help.contains("or Python"),
        cfg!(feature = "python"),
        "{help}"
    );
    assert!(
        help.contains("the SDK (TypeScript declarations or Python stubs)"),
        "{help}"
    );
}

#[test]
fn eval_prints_the_rendered_outcome() {
    let dir = tempdir();
    let out = ptc(
        dir.path(),
        &["run", "-e", "console.log('hi', { a: 1 }); return 6 * 7"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "hi { a: 1 }\n42\n");
    assert_eq!(stderr(&out), "");
}

/// A `.py` file is Python; a ptc built without the `python` feature says
/// so as the run's failure (with it, `python_run` runs such files).
#[test]
fn a_py_file_is_python() {
    let dir = tempdir();
    std::fs::write(dir.path().join("prog.py"), "6 * 7\n").unwrap();
    let out = ptc(dir.path(), &["run", "prog.py"]);
    let python = cfg!(feature = "python");
    assert_eq!(code(&out), if python { 0 } else { 1 }, "{}", stderr(&out));
    if python {
        assert_eq!(stdout(&out), "42\n");
    } else {
        assert!(
            stdout(&out).contains("built without Python programs (cargo feature `python`)"),
            "{}",
            stdout(&out)
        );
    }
    // `--language typescript` reads the same file as TypeScript.
    let out = ptc(dir.path(), &["run", "--language", "typescript", "prog.py"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "(run_code completed with no output)\n");
}

#[test]
fn a_file_and_stdin_are_programs_too() {
    let dir = tempdir();
    std::fs::write(
        dir.path().join("prog.ts"),
        "const n: number = 2;\nreturn `n=${n}`",
    )
    .unwrap();
    let out = ptc(dir.path(), &["run", "prog.ts"]);
    assert_eq!((code(&out), stdout(&out)), (0, "n=2\n".to_owned()));

    let out = ptc_with_input(dir.path(), &["run", "-"], "return 'from stdin'");
    assert_eq!((code(&out), stdout(&out)), (0, "from stdin\n".to_owned()));
}

#[test]
fn every_failure_kind_exits_1_with_the_model_text() {
    let dir = tempdir();
    for (args, kind) in [
        (vec!["run", "-e", "null.x"], "runtime"),
        (vec!["run", "-e", "return (1 +"], "syntax"),
        (
            vec!["run", "--timeout-ms", "200", "-e", "while(true){}"],
            "timeout",
        ),
        (
            vec![
                "run",
                "--memory-limit",
                "8MiB",
                "-e",
                "const a: string[] = []; while (true) a.push('x'.repeat(1 << 20) + a.length)",
            ],
            "memory",
        ),
    ] {
        let out = ptc(dir.path(), &args);
        assert_eq!(code(&out), 1, "{kind}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(
            text.starts_with(&format!("Error: code run failed ({kind}): ")),
            "{text}"
        );
    }
}

#[test]
fn json_prints_the_whole_outcome() {
    let dir = tempdir();
    let out = ptc(
        dir.path(),
        &["run", "--json", "-e", "throw new Error('no')"],
    );
    assert_eq!(code(&out), 1);
    let outcome: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(outcome["isError"], true);
    assert_eq!(outcome["kind"], "runtime");
    assert_eq!(outcome["subCalls"], 0);
    assert!(outcome["runId"].is_string());
    assert!(outcome["elapsedMs"].is_number());
    assert!(outcome["cpuMs"].as_f64().is_some_and(|ms| ms >= 0.0));
    let text = outcome["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("Error: no"), "{text}");

    let out = ptc(dir.path(), &["run", "--json", "-e", "return 1"]);
    assert_eq!(code(&out), 0);
    let outcome: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(outcome["isError"], false);
    assert_eq!(
        outcome["content"],
        serde_json::json!([{ "type": "text", "text": "1" }])
    );
}

#[test]
fn usage_and_configuration_errors_exit_2_with_one_line() {
    let dir = tempdir();
    std::fs::write(dir.path().join("bad.json"), "{ \"tools\": 3 }").unwrap();
    std::fs::write(
        dir.path().join("schema.json"),
        r#"[{ "name": "t", "parameters": { "type": "string" } }]"#,
    )
    .unwrap();
    assert_usage_error(&ptc(dir.path(), &["run", "missing.ts"]), "missing.ts");
    assert_usage_error(
        &ptc(dir.path(), &["run", "--tools", "bad.json", "-e", "1"]),
        "bad.json",
    );
    assert_usage_error(
        &ptc(dir.path(), &["run", "--tools", "nope.json", "-e", "1"]),
        "nope.json",
    );
    assert_usage_error(
        &ptc(dir.path(), &["run", "--tools", "schema.json", "-e", "1"]),
        "parameters must be an object schema",
    );
    assert_usage_error(
        &ptc(dir.path(), &["run", "--timeout-ms", "abc", "-e", "1"]),
        "--timeout-ms",
    );
    assert_usage_error(
        &ptc(dir.path(), &["run", "--timeout-ms", "0", "-e", "1"]),
        "--timeout-ms",
    );
    assert_usage_error(
        &ptc(dir.path(), &["run", "--memory-limit", "12XB", "-e", "1"]),
        "unknown unit",
    );
    assert_usage_error(
        &ptc(dir.path(), &["run", "--memory-limit", "1KiB", "-e", "1"]),
        "invalid limit: --memory-limit must be at least 1 MiB, got 1 KiB",
    );
    assert_usage_error(
        &ptc(dir.path(), &["run", "--output-cap", "10", "-e", "1"]),
        "--output-cap",
    );
    assert_usage_error(
        &ptc(
            dir.path(),
            &["run", "--workspace", "no-such-dir", "-e", "1"],
        ),
        "no-such-dir",
    );
    assert_usage_error(&ptc(dir.path(), &["run"]), "required");
    assert_usage_error(&ptc(dir.path(), &["run", "--bogus", "-e", "1"]), "--bogus");
    assert_usage_error(
        &ptc(dir.path(), &["sdk", "--check", "absent.d.ts"]),
        "absent.d.ts",
    );
    // Accepted forms of the same flags.
    let out = ptc(
        dir.path(),
        &[
            "run",
            "--memory-limit",
            "16MiB",
            "--output-cap",
            "4k",
            "--max-parallel",
            "1",
            "-e",
            "return 'ok'",
        ],
    );
    assert_eq!((code(&out), stdout(&out)), (0, "ok\n".to_owned()));
}

#[test]
fn output_cap_applies() {
    let dir = tempdir();
    let out = ptc(
        dir.path(),
        &[
            "run",
            "--output-cap",
            "100",
            "-e",
            "return 'x'.repeat(1000)",
        ],
    );
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).len() <= 101, "{}", stdout(&out));
}

#[cfg(unix)]
#[test]
fn workspace_tools_are_confined_through_the_cli() {
    let dir = tempdir();
    let workspace = dir.path().join("ws");
    std::fs::create_dir(&workspace).unwrap();
    std::fs::create_dir(dir.path().join("outside")).unwrap();
    std::fs::write(dir.path().join("outside/secret.txt"), "top secret").unwrap();
    std::fs::write(workspace.join("inside.txt"), "hello").unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("outside/secret.txt"),
        workspace.join("link"),
    )
    .unwrap();
    let program = r#"
        const attempt = async (path: string) => {
            try { return await tools.read_file({ path }) } catch (e: any) { return `${e.code}` }
        };
        return [await attempt('inside.txt'), await attempt('../outside/secret.txt'), await attempt('link')].join(' ')
    "#;
    let out = ptc(dir.path(), &["run", "--workspace", "ws", "-e", program]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "hello DENIED DENIED\n");

    // Without --workspace, the current directory is the workspace.
    let out = ptc(
        &workspace,
        &[
            "run",
            "-e",
            "return await tools.read_file({ path: 'inside.txt' })",
        ],
    );
    assert_eq!(stdout(&out), "hello\n");
}

#[cfg(unix)]
fn executable(path: &Path, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(unix)]
#[test]
fn manifest_command_tools_run_in_parallel() {
    let dir = tempdir();
    // Each call waits until the other one has started: they must overlap.
    executable(
        &dir.path().join("meet.sh"),
        r#"n=${PTC_CALL_ID##*:}; touch "started-$n"; other=$((3 - n)); i=0
while [ ! -e "started-$other" ]; do i=$((i + 1)); [ $i -gt 1000 ] && exit 7; sleep 0.01; done
cat"#,
    );
    std::fs::write(
        dir.path().join("tools.json"),
        r#"{ "tools": [{
            "name": "meet", "readOnly": true, "command": ["./meet.sh"], "cwd": ".",
            "inputSchema": { "type": "object", "properties": { "n": { "type": "integer" } } }
        }] }"#,
    )
    .unwrap();
    let program = "const [a, b] = await Promise.all([tools.meet({ n: 1 }), tools.meet({ n: 2 })]);\n\
                   return [a, b]";
    let out = ptc(dir.path(), &["run", "--tools", "tools.json", "-e", program]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "[{\"n\":1},{\"n\":2}]\n");
    // Only the manifest's tools: no workspace tools.
    let out = ptc(
        dir.path(),
        &[
            "run",
            "--tools",
            "tools.json",
            "-e",
            "try { await tools.list_dir({}) } catch (e: any) { return e.code }",
        ],
    );
    assert_eq!(stdout(&out), "UNKNOWN_TOOL\n");
}

#[test]
fn ask_policy_without_a_terminal_is_denied() {
    let dir = tempdir();
    std::fs::write(
        dir.path().join("tools.json"),
        r#"[{ "name": "risky", "policy": "ask", "command": ["sh", "-c", "echo 1"] }]"#,
    )
    .unwrap();
    let program = "try { await tools.risky({}); return 'ran' } catch (e: any) { return `${e.code}: ${e.message}` }";
    let out = ptc(dir.path(), &["run", "--tools", "tools.json", "-e", program]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "DENIED: tool `risky` needs approval and no terminal was available to ask\n"
    );
}

#[test]
fn sdk_ts_is_deterministic_and_check_compares() {
    let dir = tempdir();
    let first = ptc(dir.path(), &["sdk", "--format", "ts"]);
    let second = ptc(dir.path(), &["sdk", "--format", "ts"]);
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    assert_eq!(first.stdout, second.stdout, "same bytes from two processes");
    let sdk = stdout(&first);
    assert!(sdk.contains("declare const tools"), "{sdk}");
    assert!(
        sdk.contains("read_file(") && sdk.contains("search_files("),
        "{sdk}"
    );
    assert!(
        !sdk.contains("import ") && !sdk.contains("export "),
        "{sdk}"
    );

    std::fs::write(dir.path().join("sdk.d.ts"), &first.stdout).unwrap();
    let same = ptc(
        dir.path(),
        &["sdk", "--format", "ts", "--check", "sdk.d.ts"],
    );
    assert_eq!(code(&same), 0, "{}", stdout(&same));
    assert_eq!(stdout(&same), "");

    let changed = sdk.replace("read_file(", "read_a_file(");
    std::fs::write(dir.path().join("sdk.d.ts"), changed).unwrap();
    let differs = ptc(
        dir.path(),
        &["sdk", "--format", "ts", "--check", "sdk.d.ts"],
    );
    assert_eq!(code(&differs), 1);
    let diff = stdout(&differs);
    assert!(
        diff.contains("--- sdk.d.ts") && diff.contains("+++ ptc sdk"),
        "{diff}"
    );
    assert!(diff.contains("@@"), "{diff}");
    assert!(
        diff.lines()
            .any(|l| l.starts_with('-') && l.contains("read_a_file("))
    );
    assert!(
        diff.lines()
            .any(|l| l.starts_with('+') && l.contains("read_file("))
    );
}

#[test]
fn sdk_formats_and_modes() {
    let dir = tempdir();
    let text = stdout(&ptc(dir.path(), &["sdk"]));
    let json: Value =
        serde_json::from_str(&stdout(&ptc(dir.path(), &["sdk", "--format", "json"]))).unwrap();
    assert_eq!(json["tools"][0]["name"], "run_code");
    assert_eq!(text, json["tools"][0]["description"].as_str().unwrap());
    assert!(text.contains(json["sdk"].as_str().unwrap()));

    let native = stdout(&ptc(dir.path(), &["sdk", "--mode", "native"]));
    assert!(native.starts_with("## read_file\n\n"), "{native}");
    assert!(native.contains("\n\n## search_files\n\n"), "{native}");
    assert!(!native.contains("## run_code"), "{native}");
    let both: Value = serde_json::from_str(&stdout(&ptc(
        dir.path(),
        &["sdk", "--mode", "both", "--format", "json"],
    )))
    .unwrap();
    let names: Vec<&str> = both["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "read_file",
            "write_file",
            "list_dir",
            "search_files",
            "run_code"
        ]
    );
    assert_usage_error(&ptc(dir.path(), &["sdk", "--mode", "mcp"]), "--mode");
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    let dir = tempdir();
    let mut child = crate::common::spawn(
        Command::new(env!("CARGO_BIN_EXE_ptc"))
            .args(["run", "-e", "return 'x'.repeat(30000)"])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    );
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

#[test]
fn tools_and_workspace_together_give_both_sets() {
    let dir = tempdir();
    std::fs::write(
        dir.path().join("tools.json"),
        r#"[{ "name": "answer", "readOnly": true, "command": ["sh", "-c", "echo 42"] }]"#,
    )
    .unwrap();
    let program = "const [a, text] = await Promise.all([tools.answer(), tools.read_file({ path: 'tools.json' })]);\n\
                   return `${a} ${text.length > 0}`";
    let out = ptc(
        dir.path(),
        &[
            "run",
            "--tools",
            "tools.json",
            "--workspace",
            ".",
            "-e",
            program,
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "42 true\n");
}

/// A program is read no further than a run accepts: an endless source is
/// refused, not buffered.
#[test]
#[cfg(unix)]
fn an_endless_program_file_is_refused_after_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let out = ptc(dir.path(), &["run", "/dev/zero"]);
    assert_usage_error(
        &out,
        "the program in /dev/zero is larger than the 1048576 bytes a run accepts",
    );
    let big = "//".to_owned() + &"x".repeat(1 << 20);
    let out = ptc_with_input(dir.path(), &["run", "-"], &big);
    assert_usage_error(&out, "the program in stdin is larger than");
    std::fs::write(dir.path().join("latin1.ts"), b"return '\xe9'").unwrap();
    let out = ptc(dir.path(), &["run", "latin1.ts"]);
    assert_usage_error(&out, "the program in latin1.ts is not UTF-8 text");
}

/// Under a terminal (a pseudo-terminal from util-linux's `script`), the
/// approval prompt and the progress line show the call's title (contracts
/// §2, titles). The tool takes 1.5 s, so the line (drawn after the first
/// second) is on screen while it runs.
#[test]
fn a_terminal_shows_titles_in_the_prompt_and_the_progress_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("manifest.json"),
        r#"[{ "name": "deploy", "policy": "ask", "callTitle": "Deploy {target}",
              "command": ["sh", "-c", "sleep 1.5; cat"] }]"#,
    )
    .unwrap();
    let run = format!(
        "{} run --tools manifest.json -e 'return (await tools.deploy({{ target: \"prod\" }})).target'",
        env!("CARGO_BIN_EXE_ptc")
    );
    // util-linux `script` gives the test a terminal.
    let mut child = crate::common::spawn(
        Command::new("script")
            .args(["-qec", &run, "/dev/null"])
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    );
    child.stdin.take().unwrap().write_all(b"y\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let screen = String::from_utf8_lossy(&output.stdout);
    assert_eq!(code(&output), 0, "{screen}");
    assert!(
        screen.contains("ptc: The program asks to call the tool `deploy` (needs approval).\r\n")
            && screen.contains("ptc: Its title (the model's, escaped): Deploy prod\r\n")
            && screen.contains("ptc: │   \"target\": \"prod\"\r\n"),
        "{screen:?}"
    );
    assert!(screen.contains(", 1 sub-call: Deploy prod\r"), "{screen:?}");
    assert!(screen.ends_with("prod\r\n"), "{screen:?}");
}
