//! Built-in host tools: the confined workspace tools and manifest tools.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ptc::{
    Call, CallOptions, ErrorCode, Registry, ToolResult, load_manifest, parse_manifest,
    workspace_tools,
};
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

/// A registry holding the workspace tools of a fresh temporary directory.
fn workspace() -> (TempDir, Registry) {
    let dir = tempfile::tempdir().unwrap();
    let registry = Registry::new();
    registry
        .add_all(workspace_tools(dir.path()).unwrap())
        .unwrap();
    (dir, registry)
}

async fn call(registry: &Registry, name: &str, arguments: Value) -> ToolResult {
    registry
        .scope()
        .call(Call::new("c1", name, arguments), CallOptions::default())
        .await
}

async fn ok(registry: &Registry, name: &str, arguments: Value) -> Value {
    match call(registry, name, arguments.clone()).await {
        Ok(output) => output.value,
        Err(e) => panic!("{name}({arguments}) failed: {e}"),
    }
}

async fn fails(registry: &Registry, name: &str, arguments: Value) -> (ErrorCode, String) {
    match call(registry, name, arguments.clone()).await {
        Ok(output) => panic!("{name}({arguments}) succeeded: {}", output.value),
        Err(e) => (e.code, e.message),
    }
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

mod workspace_tools {
    use super::*;

    #[tokio::test]
    async fn definitions_are_precise() {
        let (_dir, registry) = workspace();
        let defs = registry.definitions();
        let names: Vec<_> = defs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            ["read_file", "write_file", "list_dir", "search_files"]
        );
        let read_only: Vec<_> = defs.iter().map(|d| d.read_only).collect();
        assert_eq!(read_only, [true, false, true, true]);
        for def in &defs {
            assert_eq!(def.parameters["additionalProperties"], json!(false));
            for (key, property) in def.parameters["properties"].as_object().unwrap() {
                assert!(
                    property["description"].is_string(),
                    "{}.{key} has no description",
                    def.name
                );
            }
            assert!(def.output.is_some(), "{}", def.name);
        }
    }

    #[tokio::test]
    async fn write_takes_the_longest_names_and_refuses_directory_paths() {
        let (dir, registry) = workspace();
        let longest = "n".repeat(255);
        let written = ok(
            &registry,
            "write_file",
            json!({ "path": longest, "content": "x" }),
        )
        .await;
        assert_eq!(written, json!({ "bytesWritten": 1 }));
        assert_eq!(fs::read_to_string(dir.path().join(&longest)).unwrap(), "x");
        let (code, message) = fails(
            &registry,
            "write_file",
            json!({ "path": "dir/", "content": "x" }),
        )
        .await;
        assert_eq!(code, ErrorCode::ToolError);
        assert_eq!(
            message,
            "dir/ names a directory; write_file needs a file path"
        );
        assert!(!dir.path().join("dir").exists());
        // Nothing but the file is left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[tokio::test]
    async fn write_then_read_round_trips_and_creates_parents() {
        let (dir, registry) = workspace();
        let written = ok(
            &registry,
            "write_file",
            json!({ "path": "a/b/c.txt", "content": "héllo\nworld\n" }),
        )
        .await;
        assert_eq!(written, json!({ "bytesWritten": 13 }));
        assert_eq!(
            fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(),
            "héllo\nworld\n"
        );
        let text = ok(&registry, "read_file", json!({ "path": "a/b/c.txt" })).await;
        assert_eq!(text, json!("héllo\nworld\n"));
        let second = ok(
            &registry,
            "read_file",
            json!({ "path": "./a/../a/b/c.txt", "offset": 2, "limit": 1 }),
        )
        .await;
        assert_eq!(second, json!("world\n"));
        // Absolute paths inside the workspace are fine.
        let absolute = dir.path().join("a/b/c.txt");
        let again = ok(
            &registry,
            "read_file",
            json!({ "path": absolute.to_str().unwrap(), "limit": 1 }),
        )
        .await;
        assert_eq!(again, json!("héllo\n"));
        // Overwriting replaces the content.
        ok(
            &registry,
            "write_file",
            json!({ "path": "a/b/c.txt", "content": "new" }),
        )
        .await;
        assert_eq!(
            fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(),
            "new"
        );
    }

    #[tokio::test]
    async fn read_errors_are_tool_errors() {
        let (dir, registry) = workspace();
        assert_eq!(
            fails(&registry, "read_file", json!({ "path": "missing.txt" })).await,
            (ErrorCode::ToolError, "no such file: missing.txt".to_owned())
        );
        fs::write(
            dir.path().join("blob.bin"),
            [0x89, b'P', b'N', b'G', 0, 1, 2],
        )
        .unwrap();
        let (code, message) = fails(&registry, "read_file", json!({ "path": "blob.bin" })).await;
        assert_eq!(code, ErrorCode::ToolError);
        assert!(message.contains("binary"), "{message}");
        fs::write(dir.path().join("latin1.txt"), b"caf\xe9\n").unwrap();
        let (_, message) = fails(&registry, "read_file", json!({ "path": "latin1.txt" })).await;
        assert!(message.contains("binary"), "{message}");
        fs::create_dir(dir.path().join("sub")).unwrap();
        let (_, message) = fails(&registry, "read_file", json!({ "path": "sub" })).await;
        assert_eq!(message, "sub is a directory; use list_dir");
        // The schema rejects unknown properties and bad offsets before the handler.
        let (code, _) = fails(&registry, "read_file", json!({ "path": "x", "offset": 0 })).await;
        assert_eq!(code, ErrorCode::InvalidArguments);
        let (code, _) = fails(&registry, "read_file", json!({ "path": "x", "extra": 1 })).await;
        assert_eq!(code, ErrorCode::InvalidArguments);
    }

    /// contracts §8: `read_file` refuses a file with a NUL anywhere in its
    /// first 8 KiB, the last byte of them included.
    #[tokio::test]
    async fn a_nul_in_the_first_8_kib_is_binary() {
        let (dir, registry) = workspace();
        let mut bytes = vec![b'a'; 8 * 1024];
        bytes[8 * 1024 - 1] = 0;
        bytes.extend_from_slice(b"\nmore text\n");
        fs::write(dir.path().join("late.bin"), &bytes).unwrap();
        let (code, message) = fails(&registry, "read_file", json!({ "path": "late.bin" })).await;
        assert_eq!(code, ErrorCode::ToolError);
        assert!(message.contains("binary"), "{message}");
    }

    /// contracts §8: `read_file` caps its text at 256 KiB: a file of
    /// exactly that is read whole, one byte more (at a line's end) gets
    /// the note and no more than the cap of the file.
    #[tokio::test]
    async fn read_file_caps_at_256_kib_exactly() {
        let (dir, registry) = workspace();
        let line = format!("{}\n", "x".repeat(63));
        let whole = line.repeat(4096);
        assert_eq!(whole.len(), 256 * 1024);
        fs::write(dir.path().join("fits.txt"), &whole).unwrap();
        let text = ok(&registry, "read_file", json!({ "path": "fits.txt" })).await;
        assert!(text == json!(whole), "read whole, no note");
        let over = format!("{}{}\n", line.repeat(4095), "y".repeat(64));
        assert_eq!(over.len(), 256 * 1024 + 1);
        fs::write(dir.path().join("over.txt"), &over).unwrap();
        let text = ok(&registry, "read_file", json!({ "path": "over.txt" })).await;
        let text = text.as_str().unwrap();
        let (kept, note) = text.split_once("… [truncated").expect("a note");
        assert!(kept.len() <= 256 * 1024 + 1, "{}", kept.len());
        assert!(note.starts_with(": file has 1 more bytes"), "{note}");
    }

    /// contracts §8: `search_files` skips files over 1 MiB, so a file of
    /// exactly 1 MiB is searched.
    #[tokio::test]
    async fn search_reads_a_file_of_exactly_1_mib() {
        let (dir, registry) = workspace();
        let mut text = "needle\n".to_owned();
        text.push_str(&"x".repeat((1 << 20) - text.len() - 1));
        text.push('\n');
        assert_eq!(text.len(), 1 << 20);
        fs::write(dir.path().join("mib.txt"), &text).unwrap();
        let found = ok(&registry, "search_files", json!({ "pattern": "needle" })).await;
        assert_eq!(
            found,
            json!([{ "path": "mib.txt", "line": 1, "text": "needle" }])
        );
    }

    /// contracts §8: `write_file` renames a new file over the target with
    /// the target's permissions kept, so a private file stays private.
    #[tokio::test]
    #[cfg(unix)]
    async fn writing_keeps_the_files_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, registry) = workspace();
        let path = dir.path().join("secret.txt");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        ok(
            &registry,
            "write_file",
            json!({ "path": "secret.txt", "content": "new" }),
        )
        .await;
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{mode:o}");
    }

    #[tokio::test]
    async fn large_files_are_cut_with_a_note() {
        let (dir, registry) = workspace();
        let line = format!("{}\n", "y".repeat(99));
        write(&dir.path().join("big.txt"), &line.repeat(5000));
        let text = ok(&registry, "read_file", json!({ "path": "big.txt" })).await;
        let text = text.as_str().unwrap();
        let left = 5000 * 100 - 256 * 1024;
        assert!(
            text.ends_with(&format!(
                "\n… [truncated: file has {left} more bytes; use offset/limit]"
            )),
            "{}",
            &text[text.len() - 200..]
        );
        // Paging past the cut works.
        let tail = ok(
            &registry,
            "read_file",
            json!({ "path": "big.txt", "offset": 4999 }),
        )
        .await;
        assert_eq!(tail, json!(line.repeat(2)));
    }

    #[tokio::test]
    async fn list_dir_reports_names_types_and_sizes_sorted() {
        let (dir, registry) = workspace();
        write(&dir.path().join("b.txt"), "12345");
        write(&dir.path().join("a/inner.txt"), "x");
        #[cfg(unix)]
        std::os::unix::fs::symlink("b.txt", dir.path().join("c-link")).unwrap();
        let listing = ok(&registry, "list_dir", json!({})).await;
        let mut expected = vec![
            json!({ "name": "a", "type": "dir", "size": null }),
            json!({ "name": "b.txt", "type": "file", "size": 5 }),
        ];
        if cfg!(unix) {
            expected.push(json!({ "name": "c-link", "type": "symlink", "size": null }));
        }
        assert_eq!(listing, Value::Array(expected));
        assert_eq!(
            ok(&registry, "list_dir", json!({ "path": "a" })).await,
            json!([{ "name": "inner.txt", "type": "file", "size": 1 }])
        );
        assert_eq!(
            fails(&registry, "list_dir", json!({ "path": "nope" })).await,
            (ErrorCode::ToolError, "no such directory: nope".to_owned())
        );
        assert_eq!(
            fails(&registry, "list_dir", json!({ "path": "b.txt" }))
                .await
                .1,
            "b.txt is not a directory"
        );
    }

    #[tokio::test]
    async fn search_is_gitignore_aware_sorted_and_relative() {
        let (dir, registry) = workspace();
        let root = dir.path();
        write(&root.join(".gitignore"), "ignored/\n*.log\n");
        write(&root.join("src/main.rs"), "fn main() {}\nfn helper() {}\n");
        write(&root.join("src/a/lib.rs"), "// nothing\nfn lib() {}\n");
        write(&root.join("README.md"), "no functions here\n");
        write(&root.join("ignored/x.rs"), "fn ignored() {}\n");
        write(&root.join("src/ignored/y.rs"), "fn ignored_too() {}\n");
        write(&root.join("debug.log"), "fn logged() {}\n");
        write(&root.join(".hidden.rs"), "fn hidden() {}\n");
        fs::write(root.join("bin.dat"), b"fn bin() {}\n\0\x01").unwrap();
        let big = "fn big() {}\n".repeat(100_000);
        write(&root.join("big.rs"), &big);

        let found = ok(&registry, "search_files", json!({ "pattern": r"fn \w+\(" })).await;
        assert_eq!(
            found,
            json!([
                { "path": "src/a/lib.rs", "line": 2, "text": "fn lib() {}" },
                { "path": "src/main.rs", "line": 1, "text": "fn main() {}" },
                { "path": "src/main.rs", "line": 2, "text": "fn helper() {}" },
            ])
        );
        // A sub-path still honours the root's .gitignore (`ignored/` anywhere).
        let sub = ok(
            &registry,
            "search_files",
            json!({ "pattern": "ignored|main", "path": "src" }),
        )
        .await;
        assert_eq!(
            sub,
            json!([{ "path": "src/main.rs", "line": 1, "text": "fn main() {}" }])
        );
        // A single file.
        let one = ok(
            &registry,
            "search_files",
            json!({ "pattern": "helper", "path": "src/main.rs" }),
        )
        .await;
        assert_eq!(one.as_array().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn search_bounds_matches_and_line_length() {
        let (dir, registry) = workspace();
        let long = "z".repeat(2000);
        write(&dir.path().join("long.txt"), &format!("{long}\n"));
        let found = ok(&registry, "search_files", json!({ "pattern": "z" })).await;
        let text = found[0]["text"].as_str().unwrap();
        assert_eq!(text.chars().count(), 501);
        assert!(text.ends_with('…'));

        for i in 0..3 {
            write(
                &dir.path().join(format!("many{i}.txt")),
                &"hit\n".repeat(600),
            );
        }
        let found = ok(&registry, "search_files", json!({ "pattern": "^hit$" })).await;
        let found = found.as_array().unwrap();
        assert_eq!(found.len(), 1000);
        assert_eq!(
            found[0],
            json!({ "path": "many0.txt", "line": 1, "text": "hit" })
        );
        assert_eq!(found[999]["path"], "many1.txt");
        assert_eq!(found[999]["line"], 400);
    }

    #[tokio::test]
    async fn an_invalid_regex_is_invalid_arguments() {
        let (_dir, registry) = workspace();
        let (code, message) = fails(&registry, "search_files", json!({ "pattern": "(" })).await;
        assert_eq!(code, ErrorCode::InvalidArguments);
        assert!(message.starts_with("invalid regex \"(\": "), "{message}");
    }

    #[tokio::test]
    async fn a_cancelled_search_is_aborted() {
        let (dir, registry) = workspace();
        write(&dir.path().join("f.txt"), "x\n");
        let cancel = CancellationToken::new();
        cancel.cancel();
        let result = registry
            .scope()
            .call(
                Call::new("c", "search_files", json!({ "pattern": "x" })),
                CallOptions::default().with_cancel(cancel),
            )
            .await;
        assert_eq!(result.unwrap_err().code, ErrorCode::AbortedBeforeDispatch);
    }

    /// Paths that leave the workspace by their text alone, for every tool.
    #[tokio::test]
    async fn escaping_paths_are_denied_from_their_text() {
        let (dir, registry) = workspace();
        let outside = dir.path().parent().unwrap().join("outside.txt");
        let outside = outside.to_str().unwrap();
        let cases = [
            ("../x", "leaves the workspace"),
            ("a/../../x", "leaves the workspace"),
            ("/etc/passwd", "is outside the workspace"),
            (outside, "is outside the workspace"),
        ];
        for (path, why) in cases {
            let expected = (ErrorCode::Denied, format!("path {path:?} {why}"));
            assert_eq!(
                fails(&registry, "read_file", json!({ "path": path })).await,
                expected
            );
            assert_eq!(
                fails(&registry, "list_dir", json!({ "path": path })).await,
                expected
            );
            assert_eq!(
                fails(
                    &registry,
                    "search_files",
                    json!({ "pattern": "x", "path": path })
                )
                .await,
                expected
            );
            assert_eq!(
                fails(
                    &registry,
                    "write_file",
                    json!({ "path": path, "content": "pwned" })
                )
                .await,
                expected
            );
        }
        assert!(!Path::new(outside).exists());
    }

    #[cfg(unix)]
    mod symlinks {
        use super::*;
        use std::os::unix::fs::symlink;

        /// A workspace holding `link-dir -> <outside dir>` and
        /// `link-file -> <outside dir>/secret.txt`.
        fn with_links() -> (TempDir, PathBuf, Registry) {
            let dir = tempfile::tempdir().unwrap();
            let outside = dir.path().join("outside");
            write(&outside.join("secret.txt"), "secret\n");
            let root = dir.path().join("ws");
            fs::create_dir(&root).unwrap();
            write(&root.join("ok.txt"), "fine\n");
            symlink(&outside, root.join("link-dir")).unwrap();
            symlink(outside.join("secret.txt"), root.join("link-file")).unwrap();
            symlink("ok.txt", root.join("inner-link")).unwrap();
            let registry = Registry::new();
            registry.add_all(workspace_tools(&root).unwrap()).unwrap();
            (dir, outside, registry)
        }

        const THROUGH: &str = "leads outside the workspace through a symlink";

        #[tokio::test]
        async fn reading_through_a_symlink_is_denied() {
            let (_dir, _outside, registry) = with_links();
            for path in ["link-file", "link-dir/secret.txt", "link-dir/missing.txt"] {
                assert_eq!(
                    fails(&registry, "read_file", json!({ "path": path })).await,
                    (ErrorCode::Denied, format!("path {path:?} {THROUGH}"))
                );
            }
            // A symlink that stays inside is followed.
            assert_eq!(
                ok(&registry, "read_file", json!({ "path": "inner-link" })).await,
                json!("fine\n")
            );
        }

        #[tokio::test]
        async fn listing_through_a_symlink_is_denied() {
            let (_dir, _outside, registry) = with_links();
            assert_eq!(
                fails(&registry, "list_dir", json!({ "path": "link-dir" })).await,
                (ErrorCode::Denied, format!("path \"link-dir\" {THROUGH}"))
            );
        }

        #[tokio::test]
        async fn searching_skips_symlinks_and_denies_starting_at_one() {
            let (_dir, _outside, registry) = with_links();
            let found = ok(&registry, "search_files", json!({ "pattern": "." })).await;
            assert_eq!(
                found,
                json!([{ "path": "ok.txt", "line": 1, "text": "fine" }])
            );
            assert_eq!(
                fails(
                    &registry,
                    "search_files",
                    json!({ "pattern": ".", "path": "link-dir" })
                )
                .await
                .0,
                ErrorCode::Denied
            );
        }

        #[tokio::test]
        async fn writing_through_a_symlink_is_denied() {
            let (_dir, outside, registry) = with_links();
            for path in [
                "link-file",
                "link-dir/secret.txt",
                "link-dir/new.txt",
                "link-dir/deeper/new.txt",
            ] {
                assert_eq!(
                    fails(
                        &registry,
                        "write_file",
                        json!({ "path": path, "content": "pwned" })
                    )
                    .await,
                    (ErrorCode::Denied, format!("path {path:?} {THROUGH}"))
                );
            }
            assert_eq!(
                fs::read_to_string(outside.join("secret.txt")).unwrap(),
                "secret\n"
            );
            let names: Vec<_> = fs::read_dir(&outside)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            assert_eq!(names, ["secret.txt"]);
        }

        #[tokio::test]
        async fn writing_through_an_inner_symlink_updates_its_target() {
            let (dir, _outside, registry) = with_links();
            ok(
                &registry,
                "write_file",
                json!({ "path": "inner-link", "content": "changed\n" }),
            )
            .await;
            let root = dir.path().join("ws");
            assert!(
                fs::symlink_metadata(root.join("inner-link"))
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            assert_eq!(
                fs::read_to_string(root.join("ok.txt")).unwrap(),
                "changed\n"
            );
        }

        #[tokio::test]
        async fn broken_symlinks_are_denied() {
            let (dir, _outside, registry) = with_links();
            let root = dir.path().join("ws");
            symlink("/nonexistent-ptc-target", root.join("dangling")).unwrap();
            let (code, message) = fails(
                &registry,
                "write_file",
                json!({ "path": "dangling", "content": "x" }),
            )
            .await;
            assert_eq!(code, ErrorCode::Denied);
            assert!(message.contains("broken symlink"), "{message}");
            assert!(!Path::new("/nonexistent-ptc-target").exists());
        }
    }
}

mod manifest_tools {
    use super::*;
    use crate::common::eventually;

    /// Writes an executable shell script into `dir`.
    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        let path = dir.join(name);
        write(&path, &format!("#!/bin/sh\n{body}\n"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
        path
    }

    /// A temporary directory with scripts, and a registry loaded from a
    /// manifest written next to them.
    fn manifest(scripts: &[(&str, &str)], manifest: Value) -> (TempDir, Registry) {
        let dir = tempfile::tempdir().unwrap();
        for (name, body) in scripts {
            script(dir.path(), name, body);
        }
        let path = dir.path().join("tools.json");
        fs::write(&path, crate::common::tag_manifest(manifest).to_string()).unwrap();
        let registry = Registry::new();
        registry.add_all(load_manifest(&path).unwrap()).unwrap();
        (dir, registry)
    }

    #[cfg(target_os = "linux")]
    fn running(pid: u32) -> bool {
        // A zombie (state Z) is dead; only its parent can remove it.
        fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|stat| {
                stat.rsplit_once(") ")
                    .is_some_and(|(_, rest)| !rest.starts_with('Z'))
            })
            .unwrap_or(false)
    }

    /// Waits (up to 10 s) for `check` to hold.
    async fn read_pid(path: &Path) -> u32 {
        eventually("the pid file", || {
            fs::read_to_string(path).is_ok_and(|s| s.ends_with('\n'))
        })
        .await;
        fs::read_to_string(path).unwrap().trim().parse().unwrap()
    }

    #[tokio::test]
    async fn a_command_gets_the_arguments_and_returns_its_json() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        let (_dir, registry) = manifest(
            &[("echo.sh", "cat")],
            json!({ "tools": [{
                "name": "echo",
                "description": "Echoes its arguments",
                "inputSchema": { "type": "object", "properties": { "x": { "type": "integer" } } },
                "annotations": { "readOnlyHint": true },
                "command": ["./echo.sh"]
            }] }),
        );
        let def = registry.definition("echo").unwrap();
        assert!(def.read_only);
        assert_eq!(def.parameters["properties"]["x"]["type"], "integer");
        let value = ok(&registry, "echo", json!({ "x": 42, "s": "é\n" })).await;
        assert_eq!(value, json!({ "x": 42, "s": "é\n" }));
        // The schema still applies.
        assert_eq!(
            fails(&registry, "echo", json!({ "x": "no" })).await.0,
            ErrorCode::InvalidArguments
        );
    }

    #[tokio::test]
    async fn arguments_cwd_env_and_call_id_reach_the_command() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        let (dir, registry) = manifest(
            &[(
                "bin/info.sh",
                r#"printf '{"arg":"%s","cwd":"%s","greeting":"%s","tool":"%s","call":"%s"}' "$1" "$(pwd -P)" "$GREETING" "$PTC_TOOL_NAME" "$PTC_CALL_ID""#,
            )],
            json!([{
                "name": "info",
                "command": ["bin/info.sh", "first"],
                "cwd": "bin",
                "env": { "GREETING": "hi" }
            }]),
        );
        let value = ok(&registry, "info", json!({})).await;
        let cwd = fs::canonicalize(dir.path().join("bin")).unwrap();
        assert_eq!(
            value,
            json!({
                "arg": "first",
                "cwd": cwd.to_str().unwrap(),
                "greeting": "hi",
                "tool": "info",
                "call": "c1"
            })
        );
    }

    #[tokio::test]
    async fn a_failing_command_reports_status_and_stderr() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        let (_dir, registry) = manifest(
            &[(
                "fail.sh",
                "cat >/dev/null; for i in $(seq 1 30); do echo \"problem $i\" >&2; done; exit 3",
            )],
            json!([{ "name": "fail", "command": ["./fail.sh"] }]),
        );
        let (code, message) = fails(&registry, "fail", json!({})).await;
        assert_eq!(code, ErrorCode::ToolError);
        assert!(
            message.starts_with(
                "fail: command failed (exit status: 3); end of its stderr:\n…\nproblem 11\n"
            ),
            "{message}"
        );
        assert!(message.ends_with("problem 30"), "{message}");
    }

    #[tokio::test]
    async fn invalid_json_output_is_a_tool_error() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        let (_dir, registry) = manifest(
            &[("bad.sh", "echo 'not json'"), ("quiet.sh", "true")],
            json!([
                { "name": "bad", "command": ["./bad.sh"] },
                { "name": "quiet", "command": ["./quiet.sh"] }
            ]),
        );
        let (code, message) = fails(&registry, "bad", json!({})).await;
        assert_eq!(code, ErrorCode::ToolError);
        assert!(
            message.starts_with("bad: command printed invalid JSON: expected"),
            "{message}"
        );
        assert_eq!(
            fails(&registry, "quiet", json!({})).await.1,
            "quiet: command printed invalid JSON: no output (expected one JSON value on stdout)"
        );
    }

    #[tokio::test]
    async fn a_missing_program_is_a_tool_error() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        let (_dir, registry) = manifest(&[], json!([{ "name": "gone", "command": ["./gone.sh"] }]));
        let (code, message) = fails(&registry, "gone", json!({})).await;
        assert_eq!(code, ErrorCode::ToolError);
        assert!(
            message.starts_with("gone: cannot start command "),
            "{message}"
        );
        assert!(message.contains("gone.sh"), "{message}");
        assert!(!message.contains("looked up on PATH"), "{message}");
    }

    /// Issue 41: a program named without a `/` is looked up on `PATH`;
    /// when that fails and the name is a file beside the manifest, the
    /// error says how to name it.
    #[tokio::test]
    async fn a_program_beside_the_manifest_named_bare_gets_a_hint() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        let (dir, registry) = manifest(
            &[("stats-ptc-test.sh", "echo 1")],
            json!([{ "name": "stats", "command": ["stats-ptc-test.sh"] }]),
        );
        let (code, message) = fails(&registry, "stats", json!({})).await;
        assert_eq!(code, ErrorCode::ToolError);
        let beside = dir.path().join("stats-ptc-test.sh");
        assert!(
            message.ends_with(&format!(
                " (a name without a `/` is looked up on PATH; for {}, write \"./stats-ptc-test.sh\")",
                beside.display()
            )),
            "{message}"
        );
    }

    #[tokio::test]
    async fn definition_only_tools_say_so() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        let registry = Registry::new();
        registry
            .add_all(parse_manifest(r#"[{ "name": "x" }]"#, Path::new(".")).unwrap())
            .unwrap();
        assert_eq!(
            fails(&registry, "x", json!({})).await,
            (
                ErrorCode::ToolError,
                "tool `x` has no command in the manifest (definition only)".to_owned()
            )
        );
    }

    #[tokio::test]
    async fn path_programs_and_absolute_programs_run() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        let dir = tempfile::tempdir().unwrap();
        let absolute = script(dir.path(), "abs.sh", "echo '\"abs\"'");
        let text = json!([
            { "name": "viaPath", "command": ["sh", "-c", "echo '\"path\"'"] },
            { "name": "absolute", "command": [absolute.to_str().unwrap()] }
        ])
        .to_string();
        let registry = Registry::new();
        // The base directory does not matter for these two.
        registry
            .add_all(parse_manifest(&text, Path::new("/nonexistent")).unwrap())
            .unwrap();
        assert_eq!(ok(&registry, "viaPath", json!({})).await, json!("path"));
        assert_eq!(ok(&registry, "absolute", json!({})).await, json!("abs"));
    }

    #[tokio::test]
    async fn parallel_calls_each_get_their_own_process() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        // Each call waits until the other one has started: they must overlap.
        let (_dir, registry) = manifest(
            &[(
                "meet.sh",
                r#"touch "started-$PTC_CALL_ID"; other=$((3 - PTC_CALL_ID)); i=0
while [ ! -e "started-$other" ]; do i=$((i + 1)); [ $i -gt 1000 ] && exit 7; sleep 0.01; done
cat"#,
            )],
            json!([{ "name": "meet", "readOnly": true, "command": ["./meet.sh"], "cwd": "." }]),
        );
        let results = registry
            .scope()
            .call_batch(
                vec![
                    Call::new("1", "meet", json!({ "n": 1 })),
                    Call::new("2", "meet", json!({ "n": 2 })),
                ],
                CallOptions::default(),
            )
            .await;
        let values: Vec<Value> = results.into_iter().map(|r| r.unwrap().value).collect();
        assert_eq!(values, [json!({ "n": 1 }), json!({ "n": 2 })]);
    }

    #[tokio::test]
    async fn big_arguments_do_not_deadlock_a_command_that_ignores_them() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        let (_dir, registry) = manifest(
            &[("ignore.sh", "echo '{\"ok\":true}'")],
            json!([{ "name": "ignore", "command": ["./ignore.sh"] }]),
        );
        let big = "x".repeat(4 * 1024 * 1024);
        let value = ok(&registry, "ignore", json!({ "big": big })).await;
        assert_eq!(value, json!({ "ok": true }));
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn cancelling_kills_and_reaps_the_command() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        let (dir, registry) = manifest(
            &[("slow.sh", "echo $$ > \"$1\"; exec sleep 30")],
            json!([{ "name": "slow", "command": ["./slow.sh", "pid"], "cwd": "." }]),
        );
        let cancel = CancellationToken::new();
        let call = registry.scope().call(
            Call::new("c", "slow", json!({})),
            CallOptions::default().with_cancel(cancel.clone()),
        );
        let call = tokio::spawn(call);
        let pid = read_pid(&dir.path().join("pid")).await;
        assert!(running(pid));
        let start = Instant::now();
        cancel.cancel();
        let result = call.await.unwrap();
        // Liveness only: well short of the command's own 30 s.
        assert!(start.elapsed() < Duration::from_secs(15));
        assert_eq!(result.unwrap_err().code, ErrorCode::Aborted);
        // Killed and reaped: not even a zombie is left.
        eventually("the command to be reaped", || {
            !Path::new(&format!("/proc/{pid}")).exists()
        })
        .await;
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn cancelling_kills_what_the_command_started() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        let (dir, registry) = manifest(
            &[("spawner.sh", "sleep 30 & echo $! > \"$1\"; wait")],
            json!([{ "name": "spawner", "command": ["./spawner.sh", "pid"], "cwd": "." }]),
        );
        let cancel = CancellationToken::new();
        let call = tokio::spawn(registry.scope().call(
            Call::new("c", "spawner", json!({})),
            CallOptions::default().with_cancel(cancel.clone()),
        ));
        let grandchild = read_pid(&dir.path().join("pid")).await;
        assert!(running(grandchild));
        cancel.cancel();
        assert_eq!(call.await.unwrap().unwrap_err().code, ErrorCode::Aborted);
        eventually("the grandchild to die", || !running(grandchild)).await;
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn the_tool_timeout_kills_the_command() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        let (dir, registry) = manifest(
            &[("slow.sh", "echo $$ > \"$1\"; exec sleep 30")],
            json!([{ "name": "slow", "timeoutMs": 1000, "command": ["./slow.sh", "pid"], "cwd": "." }]),
        );
        let result = registry
            .scope()
            .call(Call::new("c", "slow", json!({})), CallOptions::default())
            .await;
        assert_eq!(result.unwrap_err().code, ErrorCode::ToolTimeout);
        // On a slow machine the timeout may come before the script wrote its
        // pid; when it did, the command must be gone.
        if let Some(pid) = std::fs::read_to_string(dir.path().join("pid"))
            .ok()
            .and_then(|text| text.trim().parse::<u32>().ok())
        {
            eventually("the command to be reaped", || {
                !Path::new(&format!("/proc/{pid}")).exists()
            })
            .await;
        }
    }

    #[tokio::test]
    async fn load_errors_name_the_file_and_entry() {
        let _no_leaks = crate::common::NoLeaks::for_this_test();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tools.json");
        let shown = path.display().to_string();
        fs::write(
            &path,
            r#"{ "tools": [{ "name": "a" }, { "name": "b c" }] }"#,
        )
        .unwrap();
        assert_eq!(
            load_manifest(&path).unwrap_err().to_string(),
            format!(
                "{shown}: entry 2 (\"b c\"): name must be 1-128 characters of A-Z a-z 0-9 _ . -"
            )
        );
        fs::write(&path, "not json").unwrap();
        assert!(
            load_manifest(&path)
                .unwrap_err()
                .to_string()
                .starts_with(&format!("{shown}: not valid JSON: "))
        );
        let missing = dir.path().join("missing.json");
        assert!(
            load_manifest(&missing)
                .unwrap_err()
                .to_string()
                .starts_with(&format!("cannot read {}: ", missing.display()))
        );
    }
}

/// contracts §8: more than 16 MiB of a manifest command's stdout is a
/// `TOOL_ERROR` (16 MiB exactly is read).
#[tokio::test]
#[cfg(unix)]
async fn manifest_stdout_past_16_mib_is_a_tool_error() {
    let _no_leaks = crate::common::NoLeaks::for_this_test();
    let dir = tempfile::tempdir().unwrap();
    // A JSON string of `n` bytes: a quote, n - 2 spaces, a quote.
    let script =
        "#!/bin/sh\nprintf '\"'; head -c $(($1 - 2)) /dev/zero | tr '\\0' ' '; printf '\"'\n";
    let path = dir.path().join("big.sh");
    std::fs::write(&path, script).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let manifest = json!([
        { "name": "fits", "command": ["./big.sh", (16 << 20).to_string()] },
        { "name": "over", "command": ["./big.sh", ((16 << 20) + 1).to_string()] }
    ]);
    let manifest_path = dir.path().join("tools.json");
    let manifest = crate::common::tag_manifest(manifest);
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    let registry = Registry::new();
    registry
        .add_all(load_manifest(&manifest_path).unwrap())
        .unwrap();
    let scope = registry.scope();
    let call = |name: &str| scope.call(Call::new("c", name, json!({})), CallOptions::default());
    let fits = call("fits").await.expect("16 MiB is read");
    assert_eq!(fits.value.as_str().unwrap().len(), (16 << 20) - 2);
    let over = call("over").await.expect_err("past 16 MiB");
    assert_eq!(over.code, ErrorCode::ToolError, "{}", over.message);
}
