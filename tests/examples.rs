//! The README's example programs, and those of the docs it sends a newcomer
//! to (`docs/cli.md`, `docs/figures.md`), run through the binary as a
//! newcomer runs them: each must succeed and say what the text says.

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

/// The README's shell commands: each `ptc` line is run here as written;
/// the rest are run where this list says, and a command of a new kind
/// fails this test until it says where it is run.
const RUN_ELSEWHERE: [(&str, &str); 7] = [
    (
        "cargo run --release -- run examples/explore.ts",
        "`explore_summarises_…` runs the same program",
    ),
    (
        "npm ci && pip install -r tests/requirements.txt && cargo test --features python --ignore-rust-version",
        ".ci/run",
    ),
    (
        "cargo install --path . --locked",
        ".ci/run builds the same release binary; `cargo package --locked` built it from the package",
    ),
    (
        "benches/peers/run-all target/peers",
        "by hand on a quiet machine: .ci/run checks that it parses",
    ),
    (
        "cargo run --release --features python --ignore-rust-version --example workloads -- --python",
        "by hand on a quiet machine: .ci/run's clippy --all-targets --features python builds it",
    ),
    (
        "cargo run --release --example workloads -- --only W8",
        "by hand on a quiet machine: .ci/run's clippy --all-targets builds it",
    ),
    (
        "python3 benches/plot_ratios.py",
        "`the_readme_plot_is_drawn_…` runs it on the committed records",
    ),
];

/// The commands of the README's `sh` blocks, one per line.
fn readme_commands(readme: &str) -> Vec<&str> {
    let mut commands = Vec::new();
    let mut in_shell = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_shell = line == "```sh";
        } else if in_shell && !line.trim().is_empty() {
            commands.push(line.trim());
        }
    }
    commands
}

/// The README's MCP config that its `--mcp-config mcp.json` commands use:
/// the last `json` block naming `mcpServers` before them.
fn readme_mcp_config(readme: &str) -> &str {
    let before = &readme[..readme
        .find("--mcp-config mcp.json")
        .expect("a command using it")];
    let start = before
        .rfind("```json\n{\n  \"mcpServers\"")
        .expect("an MCP config")
        + 8;
    let end = start + readme[start..].find("```").unwrap();
    &readme[start..end]
}

/// The README and the docs its commands moved to, one after another.
fn readme_and_its_docs() -> String {
    ["README.md", "docs/cli.md", "docs/figures.md"]
        .map(|name| std::fs::read_to_string(repository().join(name)).unwrap())
        .join("\n")
}

#[test]
fn every_command_in_the_readme_runs_as_written() {
    let readme = readme_and_its_docs();
    // A copy of the files the commands read, so what they write (`>
    // tools.d.ts`) stays out of the repository (a workspace refuses
    // symlinks leading out of it); npx finds the servers through links.
    let scratch = tempfile::tempdir().unwrap();
    for name in [
        "src",
        "examples",
        "fixtures",
        "docs",
        "tests/golden/sdk",
        "README.md",
    ] {
        copy(&repository().join(name), &scratch.path().join(name));
    }
    for name in ["package.json", "node_modules"] {
        std::os::unix::fs::symlink(repository().join(name), scratch.path().join(name)).unwrap();
    }
    std::fs::write(scratch.path().join("mcp.json"), readme_mcp_config(&readme)).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_ptc")).parent().unwrap();
    let path = format!(
        "{}:{}:{}",
        bin.display(),
        repository().join("node_modules/.bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut ran = 0;
    for command in readme_commands(&readme) {
        if !command.starts_with("ptc ") && !command.contains("| ptc ") {
            assert!(
                RUN_ELSEWHERE
                    .iter()
                    .any(|(known, _)| command.starts_with(known)),
                "the README's `{command}` is run by no test: run it here or say where in RUN_ELSEWHERE"
            );
            continue;
        }
        // Tagged: what a command starts (npx, its MCP servers) must end with it.
        let output = crate::common::output(
            std::process::Command::new("sh")
                .args(["-c", command])
                .current_dir(scratch.path())
                .env("PATH", &path)
                .stdin(std::process::Stdio::null()),
        );
        let (out, err) = (
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
        );
        assert!(
            output.status.success(),
            "`{command}`: {}\n{out}\n{err}",
            output.status
        );
        assert!(
            !out.trim().is_empty()
                || [" > ", " --check ", "ptc serve"]
                    .iter()
                    .any(|quiet| command.contains(quiet)),
            "`{command}` printed nothing\n{err}"
        );
        ran += 1;
    }
    assert!(
        ran >= 10,
        "only {ran} ptc commands found in the README and its docs"
    );
    assert!(
        std::fs::metadata(scratch.path().join("tools.d.ts"))
            .unwrap()
            .len()
            > 0
    );
}

/// Copies a file, or a folder with everything in it.
fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

/// Every link in the README, and in the docs it sends a newcomer to, stays
/// inside the repository: a file or folder that exists (relative to the
/// text's own folder, with an optional `#anchor`), or an anchor.
#[test]
fn every_readme_link_stays_inside_the_repository() {
    let mut checked = 0;
    for name in [
        "README.md",
        "docs/cli.md",
        "docs/how-it-works.md",
        "docs/figures.md",
    ] {
        checked += links_inside(name);
    }
    assert!(checked >= 40, "only {checked} links found");
}

/// Checks the links of `name` (see above); how many there are.
fn links_inside(name: &str) -> usize {
    let path = repository().join(name);
    let folder = path.parent().unwrap();
    let readme = std::fs::read_to_string(&path).unwrap();
    // Links in prose only: not in code blocks or `code` spans.
    let mut in_block = false;
    let prose: Vec<&str> = readme
        .lines()
        .filter(|line| {
            in_block ^= line.starts_with("```");
            !in_block && !line.starts_with("```")
        })
        .collect();
    let prose = regex::Regex::new(r"`[^`]*`")
        .unwrap()
        .replace_all(&prose.join("\n"), "")
        .into_owned();
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut checked = 0;
    for target in link.captures_iter(&prose).map(|c| c[1].to_owned()) {
        assert!(
            !target.contains("://"),
            "the README links outside the repository: {target}"
        );
        let path = target.split('#').next().unwrap_or_default();
        if !path.is_empty() {
            let linked = folder.join(path);
            assert!(linked.exists(), "{name} links to a missing {target}");
            assert!(
                linked
                    .canonicalize()
                    .unwrap()
                    .starts_with(repository().canonicalize().unwrap()),
                "{name} links outside the repository: {target}"
            );
        }
        checked += 1;
    }
    checked
}

/// The README's Rust quick start is `examples/weather.rs` as it is, so the
/// copy a reader takes is the file `cargo test` builds (and the doc tests
/// run it, the README being the crate's front page).
#[test]
fn the_readme_rust_example_is_the_example_file() {
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    let example = std::fs::read_to_string(repository().join("examples/weather.rs")).unwrap();
    assert!(
        readme.contains(&format!("```rust\n{example}```\n")),
        "the README's From Rust block differs from examples/weather.rs"
    );
}

/// The README's plot is drawn from the records committed beside it, by the
/// README's own command (`benches/plot_ratios.py`).
#[test]
fn the_readme_plot_is_drawn_from_the_committed_records() {
    let figures = repository().join("benches/figures/2026-12-02");
    let output = crate::common::output(
        std::process::Command::new("python3")
            .arg(repository().join("benches/plot_ratios.py"))
            .arg(figures.join("ptc.jsonl"))
            .arg(figures.join("peers.json")),
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let committed = std::fs::read(repository().join("benches/ratios.svg")).unwrap();
    assert!(
        output.stdout == committed,
        "benches/ratios.svg is not drawn from {}",
        figures.display()
    );
}
