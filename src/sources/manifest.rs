//! Manifest tools: tool definitions read from JSON, each optionally backed by
//! a command that runs once per call.
//!
//! A command gets the call's arguments as JSON on its stdin (then end of
//! file) and prints the result as JSON on its stdout. Exit status 0 is
//! success; anything else is a `TOOL_ERROR` carrying the end of its stderr.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio_util::sync::CancellationToken;

use crate::contract::call::{ErrorCode, ToolError, ToolOutput};
use crate::gate::{self, Refusal};
use crate::json::json_type;
use crate::limits;
use crate::tool::context::ToolContext;
use crate::tool::definition::{ToolDefinition, is_valid_tool_name};
use crate::tool::handler::Tool;
use crate::tool::wire::{Problem, Strictness, ToolEntry, read_tool};

/// A command's stdout beyond this is a `TOOL_ERROR` (and the command is killed).
const MAX_STDOUT_BYTES: usize = limits::ANSWER.max_bytes;
/// At most this much of the end of stderr goes into an error message.
const STDERR_TAIL_BYTES: usize = 4 * 1024;
/// At most this many of the last stderr lines go into an error message.
const STDERR_TAIL_LINES: usize = 20;

/// Why a manifest could not be loaded. Messages name the file (or
/// `manifest` for text given to [`parse_manifest`]) and, for a bad entry, its
/// position counted from 1 and its name when it has one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The manifest's path.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The text is not JSON.
    #[error("{origin}: not valid JSON: {source}")]
    Json {
        /// The manifest's path, or `manifest`.
        origin: String,
        /// The parse error, with line and column.
        source: serde_json::Error,
    },
    /// The document is neither an array of tools nor an object with a `tools` array.
    #[error("{origin}: {message}")]
    Shape {
        /// The manifest's path, or `manifest`.
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// One entry is wrong.
    #[error("{origin}: entry {index}{}: {message}", entry_name(.name.as_deref()))]
    Entry {
        /// The manifest's path, or `manifest`.
        origin: String,
        /// The entry's position, counted from 1.
        index: usize,
        /// The entry's `name`, when it has a string one.
        name: Option<String>,
        /// What is wrong.
        message: String,
    },
}

fn entry_name(name: Option<&str>) -> String {
    name.map(|n| format!(" ({n:?})")).unwrap_or_default()
}

/// Loads the tools of a manifest file; see [`parse_manifest`] for the format.
/// Relative command paths resolve against the file's directory.
///
/// # Errors
/// The file cannot be read, or [`parse_manifest`] refuses its text.
pub fn load_manifest(path: &Path) -> Result<Vec<Tool>, ManifestError> {
    let text = fs::read_to_string(path).map_err(|source| ManifestError::Read {
        path: path.to_owned(),
        source,
    })?;
    let base = path.parent().unwrap_or(Path::new(""));
    parse(&text, base, path.display().to_string())
}

/// Parses a manifest: a JSON array of tool entries, or an object whose
/// `tools` member is one (so an MCP `tools/list` result works as is).
///
/// Each entry is a [`ToolDefinition`] in ptc's spelling or MCP's
/// (`inputSchema`, `outputSchema`, `annotations.readOnlyHint`; unknown
/// members are ignored), plus optionally:
///
/// - `command`: `["program", "arg", ...]`. The program is looked up in `PATH`
///   unless it contains a `/`; a relative one that does is taken relative to
///   `base_dir`. Each call runs it once, writes the arguments as JSON to its
///   stdin, closes stdin and reads its stdout. Exit status 0: stdout, parsed
///   as JSON, is the value. Otherwise the call fails with `TOOL_ERROR`
///   carrying the exit status and the last lines of stderr. The command's
///   stdout is capped at 16 MiB. When the call is cancelled or its
///   `timeoutMs` expires, the command (and, on Unix, its whole process group)
///   is killed and reaped.
/// - `cwd`: the command's working directory, relative to `base_dir`. By
///   default, the host's own.
/// - `env`: an object of extra environment variables (strings). The command
///   inherits the host's environment, plus `PTC_TOOL_NAME` and `PTC_CALL_ID`.
///
/// An entry without `command` is definition only: the model sees it, and
/// calling it is a `TOOL_ERROR` (a host may register its own handler for
/// the same definition instead).
///
/// ```
/// # fn main() -> Result<(), ptc::ManifestError> {
/// let tools = ptc::parse_manifest(
///     r#"{ "tools": [
///         { "name": "today", "command": ["date", "+%F"], "annotations": { "readOnlyHint": true } },
///         { "name": "notes", "inputSchema": { "type": "object" } }
///     ] }"#,
///     std::path::Path::new("."),
/// )?;
/// assert_eq!(tools.len(), 2);
/// assert!(tools[0].definition().read_only);
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// The text is not JSON, has neither accepted shape, or an entry is not a
/// valid definition, has a bad name, repeats a name, or has a malformed
/// `command`, `cwd` or `env`. Schemas are checked later, when the tools are
/// registered.
pub fn parse_manifest(text: &str, base_dir: &Path) -> Result<Vec<Tool>, ManifestError> {
    parse(text, base_dir, "manifest".to_owned())
}

fn parse(text: &str, base_dir: &Path, origin: String) -> Result<Vec<Tool>, ManifestError> {
    let base = std::path::absolute(base_dir).unwrap_or_else(|_| base_dir.to_owned());
    let document: Value = serde_json::from_str(text).map_err(|source| ManifestError::Json {
        origin: origin.clone(),
        source,
    })?;
    let shape = |message: String| ManifestError::Shape {
        origin: origin.clone(),
        message,
    };
    let entries = match document {
        Value::Array(entries) => entries,
        Value::Object(mut object) => match object.remove("tools") {
            Some(Value::Array(entries)) => entries,
            Some(other) => {
                return Err(shape(format!(
                    "`tools` must be an array, got {}",
                    json_type(&other)
                )));
            }
            None => {
                return Err(shape(
                    "expected an array of tools or an object with a `tools` array".to_owned(),
                ));
            }
        },
        other => {
            return Err(shape(format!(
                "expected an array of tools or an object with a `tools` array, got {}",
                json_type(&other)
            )));
        }
    };

    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut tools = Vec::with_capacity(entries.len());
    for (position, entry) in entries.into_iter().enumerate() {
        let index = position + 1;
        let fail = |name: Option<&str>, message: String| ManifestError::Entry {
            origin: origin.clone(),
            index,
            name: name.map(str::to_owned),
            message,
        };
        let ToolEntry { definition, rest } = read_tool(position, entry, Strictness::Decoding)
            .map_err(|error| fail(error.name.as_deref(), entry_message(&error.problem)))?;
        let name = definition.name.clone();
        let tool = entry_tool(definition, rest, &base).map_err(|m| fail(Some(&name), m))?;
        if let Some(first) = seen.insert(name.clone(), index) {
            return Err(fail(
                Some(&name),
                format!("duplicate name, already used by entry {first}"),
            ));
        }
        tools.push(tool);
    }
    Ok(tools)
}

/// A refused entry in a manifest's words, which are serde's.
fn entry_message(problem: &Problem) -> String {
    match problem {
        Problem::NotAnObject { got } => format!("expected an object, got {got}"),
        Problem::NoName => "missing field `name`".to_owned(),
        Problem::Mistyped { member, got } => member.serde_refusal(got),
        Problem::Undecodable(message) => message.clone(),
    }
}

/// The tool of an entry read: its name checked early, so the message can
/// name the entry, then its command, if any.
fn entry_tool(
    definition: ToolDefinition,
    mut rest: Map<String, Value>,
    base: &Path,
) -> Result<Tool, String> {
    if !is_valid_tool_name(&definition.name) {
        return Err("name must be 1-128 characters of A-Z a-z 0-9 _ . -".to_owned());
    }
    let command = rest.remove("command");
    let cwd = rest.remove("cwd");
    let env = rest.remove("env");
    let Some(command) = command else {
        if cwd.is_some() || env.is_some() {
            return Err("`cwd` and `env` need a `command`".to_owned());
        }
        let message = format!(
            "tool `{}` has no command in the manifest (definition only)",
            definition.name
        );
        return Ok(Tool::new(
            definition,
            move |_arguments: Value, _cx: ToolContext| {
                let message = message.clone();
                async move { Err::<ToolOutput, _>(ToolError::tool(message)) }
            },
        ));
    };
    let spec = CommandSpec::parse(&command, cwd.as_ref(), env.as_ref(), base)?;
    Ok(command_tool(definition, spec))
}

/// What to run for each call of a manifest tool.
#[derive(Debug)]
struct CommandSpec {
    program: PathBuf,
    /// The manifest's folder, where a program named without a `/` is not
    /// looked for (only on `PATH`), but may well be.
    base: PathBuf,
    args: Vec<String>,
    cwd: Option<PathBuf>,
    env: Vec<(String, String)>,
}

impl CommandSpec {
    fn parse(
        command: &Value,
        cwd: Option<&Value>,
        env: Option<&Value>,
        base: &Path,
    ) -> Result<Self, String> {
        const BAD_COMMAND: &str = "command must be a non-empty array of strings";
        let argv = command
            .as_array()
            .filter(|argv| !argv.is_empty())
            .ok_or(BAD_COMMAND)?
            .iter()
            .map(|part| part.as_str().map(str::to_owned).ok_or(BAD_COMMAND))
            .collect::<Result<Vec<String>, _>>()?;
        let (program, args) = argv.split_first().ok_or(BAD_COMMAND)?;
        if program.is_empty() {
            return Err("command's program must not be empty".to_owned());
        }
        let program = if program.contains('/') {
            base.join(program)
        } else {
            PathBuf::from(program)
        };
        let cwd = match cwd {
            None => None,
            Some(Value::String(dir)) => Some(base.join(dir)),
            Some(other) => return Err(format!("cwd must be a string, got {}", json_type(other))),
        };
        let env = match env {
            None => Vec::new(),
            Some(Value::Object(vars)) => env_pairs(vars)?,
            Some(other) => {
                return Err(format!(
                    "env must be an object of strings, got {}",
                    json_type(other)
                ));
            }
        };
        Ok(Self {
            program,
            base: base.to_owned(),
            args: args.to_vec(),
            cwd,
            env,
        })
    }
}

impl CommandSpec {
    /// For a program named without a `/` and not found on `PATH` that is a
    /// file beside the manifest: how to name that one.
    fn beside_hint(&self, error: &io::Error) -> String {
        let bare = !self.program.as_os_str().as_encoded_bytes().contains(&b'/');
        let beside = self.base.join(&self.program);
        if error.kind() != io::ErrorKind::NotFound || !bare || !beside.is_file() {
            return String::new();
        }
        format!(
            " (a name without a `/` is looked up on PATH; for {}, write \"./{}\")",
            beside.display(),
            self.program.display()
        )
    }
}

fn env_pairs(vars: &Map<String, Value>) -> Result<Vec<(String, String)>, String> {
    vars.iter()
        .map(|(key, value)| {
            if key.is_empty() || key.contains('=') || key.contains('\0') {
                return Err(format!("env: {key:?} is not a valid variable name"));
            }
            match value {
                Value::String(value) if !value.contains('\0') => Ok((key.clone(), value.clone())),
                _ => Err(format!("env.{key} must be a string")),
            }
        })
        .collect()
}

fn command_tool(definition: ToolDefinition, spec: CommandSpec) -> Tool {
    let spec = Arc::new(spec);
    let name: Arc<str> = definition.name.as_str().into();
    Tool::new(definition, move |arguments: Value, cx: ToolContext| {
        let spec = Arc::clone(&spec);
        let name = Arc::clone(&name);
        async move { run_command(name, spec, arguments, cx).await }
    })
}

/// Runs the command in a task of its own, so the child is killed and reaped
/// even when this future is dropped (the pipeline drops it on cancellation
/// and on the tool's timeout).
async fn run_command(
    name: Arc<str>,
    spec: Arc<CommandSpec>,
    arguments: Value,
    cx: ToolContext,
) -> Result<ToolOutput, ToolError> {
    let stop = cx.cancellation().child_token();
    let _stop_when_dropped = stop.clone().drop_guard();
    let input = serde_json::to_vec(&arguments)
        .map_err(|e| ToolError::tool(format!("{name}: cannot encode the arguments: {e}")))?;
    let call_id = cx.call_id().to_owned();
    let supervisor = tokio::spawn({
        let name = Arc::clone(&name);
        async move { supervise(&name, &spec, &call_id, input, stop).await }
    });
    supervisor
        .await
        .map_err(|e| ToolError::tool(format!("{name}: the command's supervisor failed: {e}")))?
        .map(ToolOutput::new)
}

enum Failure {
    TooMuchOutput,
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Self::Io(e)
    }
}

async fn supervise(
    name: &str,
    spec: &CommandSpec,
    call_id: &str,
    input: Vec<u8>,
    stop: CancellationToken,
) -> Result<Value, ToolError> {
    let aborted = || {
        ToolError::new(
            ErrorCode::Aborted,
            format!("call to `{name}` was cancelled"),
        )
    };
    let mut command = command(name, spec, call_id);
    let mut child = tokio::select! {
        biased;
        () = stop.cancelled() => return Err(aborted()),
        spawned = spawn(&mut command) => spawned.map_err(|e| {
            ToolError::tool(format!(
                "{name}: cannot start command {}: {e}{}",
                spec.program.display(),
                spec.beside_hint(&e)
            ))
        })?,
    };
    let stdin = child.stdin.take();
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        kill(&mut child).await;
        return Err(ToolError::tool(format!("{name}: the command has no pipes")));
    };

    let finished = {
        let work = async {
            let ((), out, err) =
                tokio::try_join!(feed(stdin, input), read_capped(stdout), read_tail(stderr))?;
            let status = child.wait().await?;
            Ok::<_, Failure>((status, out, err))
        };
        tokio::select! {
            biased;
            () = stop.cancelled() => None,
            finished = work => Some(finished),
        }
    };
    let (status, stdout, stderr) = match finished {
        None => {
            kill(&mut child).await;
            return Err(aborted());
        }
        Some(Err(Failure::TooMuchOutput)) => {
            kill(&mut child).await;
            return Err(ToolError::tool(format!(
                "{name}: command printed more than {} MiB",
                MAX_STDOUT_BYTES / (1024 * 1024)
            )));
        }
        Some(Err(Failure::Io(e))) => {
            kill(&mut child).await;
            return Err(ToolError::tool(format!("{name}: command I/O failed: {e}")));
        }
        Some(Ok(done)) => done,
    };

    parse_output(name, status, &stdout, &stderr)
}

/// The command a call runs: the spec's program, arguments, environment and
/// directory, in a process group of its own, with piped standard streams.
fn command(name: &str, spec: &CommandSpec, call_id: &str) -> Command {
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .env("PTC_TOOL_NAME", name)
        .env("PTC_CALL_ID", call_id)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = &spec.cwd {
        command.current_dir(cwd);
    }
    // Its own process group, so cancellation reaches what it starts too.
    #[cfg(unix)]
    command.process_group(0);
    command
}

/// The call's value: one JSON value on the command's stdout, if it exited
/// successfully.
fn parse_output(
    name: &str,
    status: std::process::ExitStatus,
    stdout: &[u8],
    stderr: &(Vec<u8>, bool),
) -> Result<Value, ToolError> {
    if !status.success() {
        return Err(ToolError::tool(failure_message(name, status, stderr)));
    }
    if stdout.iter().all(u8::is_ascii_whitespace) {
        return Err(ToolError::tool(format!(
            "{name}: command printed invalid JSON: no output (expected one JSON value on stdout)"
        )));
    }
    // Measured first: `[0,0,…]` would cost forty times its size parsed.
    match gate::json_text(stdout.trim_ascii(), limits::ANSWER) {
        Ok(_) => {}
        Err(Refusal::Malformed(e)) => {
            return Err(ToolError::tool(format!(
                "{name}: command printed invalid JSON: {e}"
            )));
        }
        Err(refusal) => return Err(ToolError::tool(format!("{name}: {refusal}"))),
    }
    serde_json::from_slice(stdout)
        .map_err(|e| ToolError::tool(format!("{name}: command printed invalid JSON: {e}")))
}

/// Spawns, retrying briefly while the program file is still open for
/// writing somewhere (`ETXTBSY`, common right after a script was written).
async fn spawn(command: &mut Command) -> io::Result<Child> {
    let mut attempt = 0u64;
    loop {
        match command.spawn() {
            #[cfg(unix)]
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && attempt < 5 => {
                attempt += 1;
                tokio::time::sleep(std::time::Duration::from_millis(10 * attempt)).await;
            }
            other => return other,
        }
    }
}

/// Kills the command's process group (Unix) and the command, then reaps it.
async fn kill(child: &mut Child) {
    #[cfg(unix)]
    if let Some(pid) = child.id().and_then(|pid| i32::try_from(pid).ok()) {
        // SAFETY: kill(2) takes plain integers and touches no memory of ours.
        // The child is not reaped yet, so its pid (the group's id) cannot have
        // been reused.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    // Kills the child if still needed, then waits for it: no zombie is left.
    let _ = child.kill().await;
}

/// Writes the arguments and closes stdin. A command that exits without
/// reading them is not an error.
async fn feed(stdin: Option<ChildStdin>, input: Vec<u8>) -> Result<(), Failure> {
    if let Some(mut stdin) = stdin
        && stdin.write_all(&input).await.is_ok()
    {
        let _ = stdin.shutdown().await;
    }
    Ok(())
}

/// All of stdout, or [`Failure::TooMuchOutput`] past the cap.
async fn read_capped(stdout: impl AsyncRead + Unpin) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    stdout
        .take(MAX_STDOUT_BYTES as u64 + 1)
        .read_to_end(&mut out)
        .await?;
    if out.len() > MAX_STDOUT_BYTES {
        return Err(Failure::TooMuchOutput);
    }
    Ok(out)
}

/// The end of stderr (read to the end, so the command never blocks on it),
/// and whether anything before it was dropped.
async fn read_tail(mut stderr: impl AsyncRead + Unpin) -> Result<(Vec<u8>, bool), Failure> {
    let mut tail = Vec::new();
    let mut dropped = false;
    let mut chunk = [0u8; 8192];
    loop {
        let n = stderr.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        tail.extend_from_slice(&chunk[..n]);
        if tail.len() > 2 * STDERR_TAIL_BYTES {
            tail.drain(..tail.len() - STDERR_TAIL_BYTES);
            dropped = true;
        }
    }
    if tail.len() > STDERR_TAIL_BYTES {
        tail.drain(..tail.len() - STDERR_TAIL_BYTES);
        dropped = true;
    }
    Ok((tail, dropped))
}

/// `<tool>: command failed (<status>)`, then the last lines of stderr.
fn failure_message(name: &str, status: ExitStatus, stderr: &(Vec<u8>, bool)) -> String {
    let (tail, dropped) = stderr;
    let mut dropped = *dropped;
    let text = String::from_utf8_lossy(tail);
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let keep = lines.len().min(STDERR_TAIL_LINES);
    dropped |= keep < lines.len();
    let shown = lines[lines.len() - keep..].join("\n");
    if shown.trim().is_empty() {
        format!("{name}: command failed ({status}) and wrote nothing to stderr")
    } else if dropped {
        format!("{name}: command failed ({status}); end of its stderr:\n…\n{shown}")
    } else {
        format!("{name}: command failed ({status}); its stderr:\n{shown}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error(text: &str) -> String {
        parse_manifest(text, Path::new("/base"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn both_document_shapes_are_accepted() {
        let bare = parse_manifest(r#"[{ "name": "a" }, { "name": "b" }]"#, Path::new(".")).unwrap();
        let wrapped = parse_manifest(
            r#"{ "tools": [{ "name": "a" }], "nextCursor": null }"#,
            Path::new("."),
        )
        .unwrap();
        assert_eq!(bare.len(), 2);
        assert_eq!(wrapped[0].definition().name, "a");
    }

    #[test]
    fn malformed_documents_say_what_is_wrong() {
        assert!(error("{ nope").starts_with("manifest: not valid JSON: "));
        assert_eq!(
            error("42"),
            "manifest: expected an array of tools or an object with a `tools` array, got a number"
        );
        assert_eq!(
            error(r#"{ "tools": {} }"#),
            "manifest: `tools` must be an array, got an object"
        );
        assert_eq!(
            error(r#"{ "tool": [] }"#),
            "manifest: expected an array of tools or an object with a `tools` array"
        );
    }

    #[test]
    fn bad_entries_are_named_by_position_and_name() {
        assert_eq!(
            error(r#"[{ "name": "a" }, { "name": "b" }, { "name": "x", "command": [] }]"#),
            "manifest: entry 3 (\"x\"): command must be a non-empty array of strings"
        );
        assert_eq!(
            error(r#"[{ "name": "x", "command": ["a", 1] }]"#),
            "manifest: entry 1 (\"x\"): command must be a non-empty array of strings"
        );
        assert_eq!(
            error(r#"[{ "name": "has space" }]"#),
            "manifest: entry 1 (\"has space\"): name must be 1-128 characters of A-Z a-z 0-9 _ . -"
        );
        assert_eq!(
            error(r#"[{ "description": "no name" }]"#),
            "manifest: entry 1: missing field `name`"
        );
        assert_eq!(
            error(r#"["x"]"#),
            "manifest: entry 1: expected an object, got a string"
        );
        assert_eq!(
            error(r#"[{ "name": "a" }, { "name": "a" }]"#),
            "manifest: entry 2 (\"a\"): duplicate name, already used by entry 1"
        );
        assert_eq!(
            error(r#"[{ "name": "a", "cwd": "." }]"#),
            "manifest: entry 1 (\"a\"): `cwd` and `env` need a `command`"
        );
        assert_eq!(
            error(r#"[{ "name": "a", "command": ["x"], "env": { "K": 1 } }]"#),
            "manifest: entry 1 (\"a\"): env.K must be a string"
        );
        assert!(
            error(r#"[{ "name": "a", "readOnly": "yes" }]"#)
                .starts_with("manifest: entry 1 (\"a\"): invalid type: string \"yes\"")
        );
    }

    #[test]
    fn programs_with_a_slash_resolve_against_the_base() {
        let base = Path::new("/base");
        let spec = |argv: Value| CommandSpec::parse(&argv, None, None, base).unwrap().program;
        assert_eq!(spec(json!(["./bin/x"])), PathBuf::from("/base/./bin/x"));
        assert_eq!(spec(json!(["sub/x"])), PathBuf::from("/base/sub/x"));
        assert_eq!(spec(json!(["/usr/bin/x"])), PathBuf::from("/usr/bin/x"));
        assert_eq!(spec(json!(["python3"])), PathBuf::from("python3"));
        let with_cwd =
            CommandSpec::parse(&json!(["x", "a"]), Some(&json!("work")), None, base).unwrap();
        assert_eq!(with_cwd.cwd, Some(PathBuf::from("/base/work")));
        assert_eq!(with_cwd.args, ["a"]);
    }

    #[cfg(unix)]
    #[test]
    fn failure_messages_keep_the_last_stderr_lines() {
        use std::os::unix::process::ExitStatusExt;
        let status = ExitStatus::from_raw(3 << 8);
        let many: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let message = failure_message("t", status, &(many.into_bytes(), false));
        assert!(
            message.starts_with(
                "t: command failed (exit status: 3); end of its stderr:\n…\nline 11\n"
            )
        );
        assert!(message.ends_with("line 30"));
        let quiet = failure_message("t", status, &(Vec::new(), false));
        assert_eq!(
            quiet,
            "t: command failed (exit status: 3) and wrote nothing to stderr"
        );
    }
}
