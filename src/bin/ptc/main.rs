//! The `ptc` command line: `run` a program against tools, print what the
//! model sees (`sdk`), `serve` the host protocol on stdin/stdout, or serve
//! the tools to MCP clients (`mcp`).
//!
//! Exit codes: 0 success, 1 the program (or the `--check`) failed, 2 a usage
//! or configuration error, reported as one line `ptc: <message>` on stderr.
//! A broken pipe on stdout exits 0.

use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};
use ptc::{
    Engine, Language, Limits, McpConfigError, McpServers, Mode, Registry, RunOptions, RunRequest,
    SandboxPermissions,
};

mod limits;
mod mcp;
mod present;
mod state;
mod terminal;
mod tools;
mod warnings;

use limits::LimitArgs;
use present::{SdkFormat, content_text, format_presentation};
use state::StateArgs;
use terminal::{Progress, TerminalApprover};
use tools::{mcp_servers, tools_registry, warn_about};

/// What `ptc --help` says ptc is: the languages this build runs.
const ABOUT: &str = if cfg!(feature = "python") {
    "Programmatic tool calling: run model-written TypeScript (in QuickJS) or Python (in Monty's workers) against your tools in a sandbox"
} else {
    "Programmatic tool calling: run model-written TypeScript against your tools in a QuickJS sandbox"
};

#[derive(Parser)]
#[command(name = "ptc", version, about = ABOUT)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one program and print what the model would get back.
    ///
    /// Exit status: 0 the program succeeded, 1 it failed (syntax, runtime,
    /// timeout, memory), 2 a usage or configuration error.
    Run(RunArgs),
    /// Print what the model sees: run_code's description, the SDK
    /// (TypeScript declarations or Python stubs), or the whole presentation
    /// as JSON.
    Sdk(SdkArgs),
    /// Serve the host protocol (JSON-RPC 2.0, one object per line) on
    /// stdin/stdout; see host-protocol.md.
    Serve(ServeArgs),
    /// Serve the tools to MCP clients: over stdio (the default) or
    /// streamable HTTP at /mcp (--http); see docs/mcp.md.
    Mcp(mcp::McpArgs),
}

/// Which tools the program (or the model) gets.
#[derive(Args)]
pub(crate) struct ToolArgs {
    /// Tools from a manifest (a JSON array of tools, or an MCP `tools/list`
    /// result) instead of the built-in workspace tools.
    #[arg(long, value_name = "MANIFEST")]
    tools: Option<PathBuf>,
    /// Root of the built-in workspace tools (read_file, write_file, list_dir,
    /// search_files) [default: for ptc run and ptc sdk, the current
    /// directory unless --tools or --mcp-config is given (with them, both
    /// sets); for ptc mcp, none: the file tools only with --workspace]
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// MCP servers whose tools are added as `<server>.<tool>`: a JSON file
    /// in the desktop clients' format, { "mcpServers": { … } } (see
    /// docs/mcp.md). The workspace tools are then added only with --workspace.
    #[arg(long = "mcp-config", value_name = "FILE")]
    mcp_config: Option<PathBuf>,
}

#[derive(Args)]
#[command(group(ArgGroup::new("program").required(true).args(["file", "eval"])))]
struct RunArgs {
    /// The program's file (TypeScript, the body of an async function; or
    /// Python, a module whose last expression is the result); `-` reads it
    /// from stdin.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
    /// The program's code itself.
    #[arg(short = 'e', long = "eval", value_name = "CODE")]
    eval: Option<String>,
    /// The program's language [default: python for a FILE ending in .py,
    /// else typescript]. Python needs a ptc built with the `python` feature.
    #[arg(long, value_enum)]
    language: Option<LanguageArg>,
    #[command(flatten)]
    tools: ToolArgs,
    /// Print the whole outcome as JSON (as the host protocol's run_code result).
    #[arg(long)]
    json: bool,
    /// Run escalated (sandboxPermissions "require_escalated"), saying why:
    /// asks on the terminal before the program starts; approved, the run
    /// may call escalation-only tools and gets the escalated limits.
    #[arg(long, value_name = "JUSTIFICATION")]
    escalate: Option<String>,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    state: StateArgs,
    /// Continue this session (a handle an earlier run printed): the
    /// program's `state` reads and writes its values. Needs a --state
    /// that outlives the process.
    #[arg(long, value_name = "HANDLE")]
    session: Option<String>,
}

#[derive(Args)]
struct ServeArgs {
    #[command(flatten)]
    state: StateArgs,
}

#[derive(Args)]
struct SdkArgs {
    #[command(flatten)]
    tools: ToolArgs,
    /// Which tools the model sees: only run_code (ptc), the tools themselves
    /// (native), or both.
    #[arg(long, value_enum, default_value_t = ModeArg::Ptc)]
    mode: ModeArg,
    /// text: run_code's description in ptc mode, else one section per
    /// tool; ts: the TypeScript declarations (.d.ts); py: the Python stubs
    /// (.pyi, with --language python); json: the presentation.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// The language run_code speaks: its description, and the SDK as
    /// TypeScript declarations or Python stubs (as `ptc mcp --language`).
    #[arg(long, value_enum, default_value_t = LanguageArg::Typescript)]
    language: LanguageArg,
    /// Compare with this snapshot instead of printing: exit 0 when equal,
    /// else print a unified diff and exit 1.
    #[arg(long, value_name = "FILE")]
    check: Option<PathBuf>,
    /// The limits of `ptc run` and `ptc mcp`, so the description shows what
    /// they would serve under the same flags (the defaults are `ptc run`'s;
    /// `ptc mcp`'s deadline is 55000 ms).
    #[command(flatten)]
    limits: LimitArgs,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum ModeArg {
    Ptc,
    Native,
    Both,
}

impl From<ModeArg> for Mode {
    fn from(mode: ModeArg) -> Self {
        match mode {
            ModeArg::Ptc => Mode::Ptc,
            ModeArg::Native => Mode::Native,
            ModeArg::Both => Mode::Both,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Text,
    Ts,
    Py,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LanguageArg {
    Typescript,
    Python,
}

impl From<LanguageArg> for Language {
    fn from(language: LanguageArg) -> Self {
        match language {
            LanguageArg::Typescript => Language::TypeScript,
            LanguageArg::Python => Language::Python,
        }
    }
}

/// A usage or configuration error: exit status 2, each problem one line.
pub(crate) struct Usage(Vec<String>);

impl Usage {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self(vec![message.into()])
    }
}

impl<E: std::fmt::Display> From<E> for Usage {
    fn from(error: E) -> Self {
        Self::new(error.to_string())
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return clap_error(&error),
    };
    // Warnings from the engine (a sandbox thread retired past its deadline)
    // go to stderr, which is for people, in every subcommand.
    // rmcp's own log lines (a refused connection, logged as it happens) are
    // left out: the MCP servers' problems are reported once, as warnings.
    {
        use tracing_subscriber::prelude::*;
        let layer = tracing_subscriber::fmt::layer()
            .with_writer(io::stderr)
            .event_format(warnings::Line)
            .with_filter(tracing_subscriber::filter::filter_fn(|meta| {
                *meta.level() <= tracing::Level::WARN && !meta.target().starts_with("rmcp")
            }));
        tracing_subscriber::registry().with(layer).init();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => return usage(&format!("cannot start the async runtime: {e}")),
    };
    let result = runtime.block_on(async move {
        let command = async move {
            match cli.command {
                Command::Run(args) => run(args).await,
                Command::Sdk(args) => sdk(args).await,
                Command::Serve(args) => serve(args).await,
                Command::Mcp(args) => mcp::mcp(args).await,
            }
        };
        tokio::select! {
            // A signal wins over a command it made fail.
            biased;
            signal = terminating() => Err(signal),
            result = command => Ok(result),
        }
    });
    // Don't wait for blocking reads (stdin, an abandoned approval prompt).
    runtime.shutdown_background();
    // The MCP servers run in process groups of their own, which a
    // terminal's Ctrl-C does not reach, and a clean shutdown that ran out
    // of time may have left one: end them all before going.
    ptc::end_mcp_server_processes();
    let result = match result {
        Ok(result) => result,
        Err(signal) => return ExitCode::from(128 + signal),
    };
    result.unwrap_or_else(|Usage(problems)| {
        let (last, before) = problems.split_last().expect("a usage error says something");
        for problem in before {
            eprintln!("ptc: {}", one_line(problem));
        }
        usage(last)
    })
}

/// Resolves with the number of the first SIGINT, SIGTERM or SIGHUP; never,
/// if the handlers cannot be installed (the default actions then stay).
async fn terminating() -> u8 {
    use tokio::signal::unix::{SignalKind, signal};
    let mut handlers = Vec::new();
    for (kind, number) in [
        (SignalKind::interrupt(), 2),
        (SignalKind::terminate(), 15),
        (SignalKind::hangup(), 1),
    ] {
        match signal(kind) {
            Ok(handler) => handlers.push((handler, number)),
            Err(_) => return std::future::pending().await,
        }
    }
    let received = handlers
        .iter_mut()
        .map(|(handler, number)| Box::pin(async move { handler.recv().await.map(|()| *number) }));
    match futures::future::select_all(received).await.0 {
        Some(number) => number,
        None => std::future::pending().await,
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("ptc: {}", one_line(message));
    ExitCode::from(2)
}

fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn clap_error(error: &clap::Error) -> ExitCode {
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = error.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = error.print();
            ExitCode::from(2)
        }
        _ => {
            // The message is the first paragraph; usage and tips follow.
            let text = error.to_string();
            let message = text.split("\n\n").next().unwrap_or_default();
            usage(message.strip_prefix("error: ").unwrap_or(message))
        }
    }
}

/// Who the tools are for, which decides what no tool flag means.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolsFor {
    /// `ptc run` and `ptc sdk`, used by a person in a directory: without
    /// `--workspace`, `--tools` or `--mcp-config`, the workspace tools of
    /// the current directory. One-shot, so their output must be whole:
    /// the MCP servers are waited for (each until ready or its first start
    /// failed, bounded by its `startupTimeoutMs`).
    Cli,
    /// `ptc mcp`, started by a client from wherever it likes (a desktop
    /// client may start it from `/`): only the tools the flags name, at
    /// least one source, and never an upstream server that is this same
    /// `ptc mcp` again. It must answer its client at once, so its MCP
    /// servers start in the background: their tools join as each is ready,
    /// and warnings are printed when all first starts have ended.
    McpServer,
}

/// The registry the tool flags name, and the MCP servers behind some of
/// its tools (keep them for as long as the registry is used); warnings go
/// to stderr.
pub(crate) async fn registry(
    args: &ToolArgs,
    about: ToolsFor,
    client_elicits: Option<ptc::BoxFuture<bool>>,
) -> Result<(Registry, Option<McpServers>), Usage> {
    let workspace = match (&args.workspace, &args.tools, &args.mcp_config, about) {
        (Some(dir), _, _, _) => Some(dir.clone()),
        (None, None, None, ToolsFor::Cli) => Some(PathBuf::from(".")),
        (None, None, None, ToolsFor::McpServer) => {
            return Err(Usage::new(
                "no tools to serve: pass --workspace DIR (file tools confined to DIR), \
                 --tools MANIFEST or --mcp-config FILE",
            ));
        }
        (None, _, _, _) => None,
    };
    let (registry, warnings) = tools_registry(workspace.as_deref(), args.tools.as_deref())?;
    for warning in warnings {
        warnings::warn(warning);
    }
    let Some(path) = &args.mcp_config else {
        return Ok((registry, None));
    };
    let skip_self = about == ToolsFor::McpServer;
    let (servers, skipped) =
        mcp_servers(path, &registry, skip_self, client_elicits).map_err(|e| match e {
            McpConfigError::Invalid { problems } => Usage(problems),
            other => Usage::new(other.to_string()),
        })?;
    for warning in skipped {
        warnings::warn(warning);
    }
    let ready = servers.ready();
    match about {
        ToolsFor::Cli => warn_about(ready.await),
        ToolsFor::McpServer => {
            tokio::spawn(async move { warn_about(ready.await) });
        }
    }
    Ok((registry, Some(servers)))
}

/// Stops the MCP servers cleanly, if there are any.
pub(crate) async fn stop(servers: Option<McpServers>) {
    if let Some(servers) = servers {
        servers.shutdown().await;
    }
}

async fn run(args: RunArgs) -> Result<ExitCode, Usage> {
    let (code, description) = match (&args.eval, &args.file) {
        (Some(code), _) => (code.clone(), "ptc run -e".to_owned()),
        (None, Some(file)) if file == Path::new("-") => {
            let code = read_program(io::stdin(), "stdin")?;
            (code, "ptc run -".to_owned())
        }
        (None, Some(file)) => {
            let name = file.display().to_string();
            let opened = std::fs::File::open(file)
                .map_err(|e| Usage::new(format!("cannot read {name}: {e}")))?;
            (read_program(opened, &name)?, format!("ptc run {name}"))
        }
        (None, None) => return Err(Usage::new("no program: give FILE, - or -e CODE")),
    };
    if args.session.is_some() && !args.state.outlives_the_process() {
        return Err(Usage::new(
            "--session needs a --state that outlives a process (sqlite:PATH or redis://…): the memory store's sessions end with the process that opened them",
        ));
    }
    let limits = args.limits.limits()?;
    // A store that cannot be opened is said before any server starts.
    let store = args.state.store(&limits).await?;
    let (registry, servers) = registry(&args.tools, ToolsFor::Cli, None).await?;
    registry.set_approver(TerminalApprover::new());
    let mut engine = Engine::new(registry, limits)?;
    if let Some(store) = store {
        engine = engine.with_state(store);
    }

    let progress = Progress::start();
    let language = match (args.language, &args.file) {
        (Some(language), _) => language.into(),
        (None, Some(file)) => Language::from_extension(file).unwrap_or_default(),
        (None, None) => Language::TypeScript,
    };
    let mut request = RunRequest::new(code)
        .description(description)
        .language(language);
    if let Some(session) = args.session {
        request = request.session(session);
    }
    if let Some(justification) = args.escalate {
        request = request
            .sandbox_permissions(SandboxPermissions::RequireEscalated)
            .justification(justification);
    }
    let outcome = engine
        .run_code(request, RunOptions::default().events(progress.sink()))
        .await;
    progress.stop();
    stop(servers).await;
    let outcome = outcome?;

    let text = if args.json {
        serde_json::to_string_pretty(&outcome)?
    } else {
        content_text(&outcome.content)
    };
    match print(&text) {
        Ok(()) if outcome.is_error => Ok(ExitCode::from(1)),
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(Usage::new(format!("cannot write the output: {e}"))),
    }
}

/// A program's text, read no further than the largest program a run
/// accepts (stdin or a device may never end).
fn read_program(source: impl Read, name: &str) -> Result<String, Usage> {
    let limit = Limits::default().max_code_bytes;
    let mut bytes = Vec::new();
    source
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Usage::new(format!("cannot read the program from {name}: {e}")))?;
    if bytes.len() > limit {
        return Err(Usage::new(format!(
            "the program in {name} is larger than the {limit} bytes a run accepts"
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| Usage::new(format!("the program in {name} is not UTF-8 text")))
}

async fn sdk(args: SdkArgs) -> Result<ExitCode, Usage> {
    let (registry, servers) = registry(&args.tools, ToolsFor::Cli, None).await?;
    stop(servers).await;
    let engine = Engine::new(registry, args.limits.limits()?)?;
    let mode = Mode::from(args.mode);
    let format = sdk_format(args.format, args.language)?;
    engine.registry().set_language(args.language.into());
    let presentation = engine.presentation(&engine.registry().scope(), Some(mode));
    let text = format_presentation(&presentation, format);
    let (output, status) = match &args.check {
        None => (text, ExitCode::SUCCESS),
        Some(path) => {
            let expected = std::fs::read_to_string(path)
                .map_err(|e| Usage::new(format!("cannot read {}: {e}", path.display())))?;
            if expected == text {
                return Ok(ExitCode::SUCCESS);
            }
            let diff = similar::TextDiff::from_lines(&expected, &text)
                .unified_diff()
                .header(&path.display().to_string(), "ptc sdk")
                .to_string();
            (diff, ExitCode::from(1))
        }
    };
    match print(&output) {
        Ok(()) => Ok(status),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(Usage::new(format!("cannot write the output: {e}"))),
    }
}

/// The presentation format to print; a format of the other language is a
/// usage error.
fn sdk_format(format: FormatArg, language: LanguageArg) -> Result<SdkFormat, Usage> {
    let python = language == LanguageArg::Python;
    Ok(match (format, python) {
        (FormatArg::Text, _) => SdkFormat::Text,
        (FormatArg::Json, _) => SdkFormat::Json,
        (FormatArg::Ts, false) | (FormatArg::Py, true) => SdkFormat::Sdk,
        (FormatArg::Ts, true) => {
            return Err(Usage::new(
                "--format ts prints the TypeScript SDK: with --language python, use --format py",
            ));
        }
        (FormatArg::Py, false) => {
            return Err(Usage::new("--format py needs --language python"));
        }
    })
}

async fn serve(args: ServeArgs) -> Result<ExitCode, Usage> {
    // `initialize` sets the limits; the quotas the store opens with now
    // are the defaults, and `initialize` reopens it with its own.
    let store = match args.state.store(&Limits::default()).await? {
        Some(store) => store,
        None => ptc::StateStore::open("memory", &Limits::default()).await?,
    };
    let input = tokio::io::BufReader::new(tokio::io::stdin());
    Ok(
        match ptc::serve_with_state(input, tokio::io::stdout(), store).await {
            Ok(()) => ExitCode::SUCCESS,
            // The host stopped reading: the session is over.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("ptc: serve: {e}");
                ExitCode::from(1)
            }
        },
    )
}

/// Writes `text` to stdout, ending it with a newline.
fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    let text = if out.is_terminal() {
        visible_controls(text)
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// Text for a terminal: a program's output may carry escape sequences
/// that would move the cursor, retitle the window or worse, or bidirectional
/// controls that reorder what is shown. The characters titles escape are
/// shown as Rust escapes (`\u{1b}`), except line breaks and tabs.
fn visible_controls(text: &str) -> std::borrow::Cow<'_, str> {
    ptc::__private::escape_for_terminal(text)
}

#[cfg(test)]
mod tests {
    use super::visible_controls;

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(visible_controls("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(
            visible_controls("\u{1b}]0;pwned\u{7}\u{1b}[2J\r\u{9b}x"),
            "\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\r\\u{9b}x"
        );
        // The same characters as titles: separators and bidirectional
        // controls too.
        assert_eq!(
            visible_controls("a\u{2028}b\u{202e}c\u{2066}d"),
            "a\\u{2028}b\\u{202e}c\\u{2066}d"
        );
    }
}
