//! ptc: programmatic tool calling.
//!
//! A model gets one tool, `run_code`, plus a TypeScript SDK rendered from the
//! other tools' JSON Schemas, and writes a short program that calls them.
//! ptc strips the program's types, runs it in a fresh QuickJS sandbox,
//! dispatches `tools.*` through the host's handlers, and renders the outcome.
//!
//! # Concepts
//!
//! - A [`Tool`] is a [`ToolDefinition`] (name, JSON Schemas, hints such as
//!   `readOnly`, `timeoutMs` and `policy`) plus a [`ToolHandler`]: a closure,
//!   a [`TypedTool`], or a command from a manifest ([`load_manifest`]).
//! - A [`Registry`] keeps tools in registration order, compiles their schemas
//!   once, and holds the call pipeline's hooks (policy, approver, guards,
//!   execute wrappers, post-execute, observers). A [`Scope`] is one agent's
//!   view: visibility masks and a presentation [`Mode`].
//! - An [`Engine`] is cheap to clone and shares the registry, the [`Limits`]
//!   and the sandbox threads. [`Engine::presentation`] gives what the model
//!   sees; [`Engine::run_code`] runs one program into an [`Outcome`];
//!   [`Engine::invoke`] answers a tool call exactly as the model made it.
//!
//! # Layout
//!
//! Each layer uses only the ones before it, and no module is reached back
//! from one it uses: the bases (`json`, `deadline`; `schema`, `limits`;
//! `contract`, `gate`) → `tool/`, `transport/` and `state/`, side by side → `sdk/`
//! and `sources/`, side by side → `engine/` → `frontends/` (and `fuzz`).
//! The tests hold this (`tests/layout.rs`: no room reaches back or
//! sideways, no two modules reach each other round a circle, and every
//! directory and file of `src/` is named below, a module's `tests` aside).
//!
//! - `contract/`: what crosses a wire, each shape once: `run_code`'s
//!   arguments ([`RunRequest`]), from which the model's schema, the
//!   model's and the host's readers and their error messages come; a
//!   `call` and its answer ([`ToolError`], [`ContentBlock`]); the run's
//!   `events` and its `outcome`, with the `run_facts` MCP clients get as
//!   structured content; what the model sees (`presentation`: the
//!   [`Mode`] and its one rule, the [`Presentation`]); and the
//!   `host_protocol`, both directions: the envelopes and the JSON-RPC
//!   error, the `incoming` reader of the host's lines, the `params`
//!   reader, each of the host's `methods` (params read, result written)
//!   and ptc's `asks` of the host (each answer read).
//! - `tool/`: a tool's [`ToolDefinition`] (`definition`), its handler
//!   (`handler`), what a handler is given (`context`), the one reader of
//!   tool entries in JSON (`wire`), a registered tool with its compiled
//!   schemas (`registered`), the [`Registry`] and its scopes (`registry`),
//!   the tool sources it expects and why their tools are absent
//!   (`availability`), and the call pipeline every call goes through
//!   (`pipeline`), how calls read to a person (`title`: templates,
//!   defaults, hostile values), what approving is (`approval`: the
//!   decision, the request, the answer, the [`Approver`]), what a person
//!   approving one is shown (`approval_text`) and the ceilings on
//!   approvals waiting for an answer (`approvals`); and finding tools
//!   (`search/`: the index of the program's `tools.$search`, built once
//!   per registry version, each tool's analysed `documents` and the
//!   `words` they are made of, and the `nearest` names an unknown name's
//!   message offers).
//! - `schema.rs`: JSON Schema compilation and checking (drafts, what cannot
//!   be checked becomes a warning), with `cost/`: what checking one value
//!   may cost, bounded before a schema is accepted (and the `places` a
//!   schema's subschemas sit). `json.rs`: a JSON value's type in words,
//!   and the `envelope` of a message that cannot be read whole.
//! - `sdk/`: what the model sees. `presentation` (the tools per mode, cached
//!   per registry version), `forms` (`run_code`'s description within its
//!   budget: full, index or namespaces), `templates` (the texts of
//!   `sdk-templates/`), `describe` (the program's `tools.$describe`), what
//!   both languages share (`keywords` of a schema, the `refs` graph,
//!   `naming` types after `$ref`s, `text`); `typescript/`: `aliases`
//!   (names that clash with none of TypeScript's own, `lib-names.txt`),
//!   `writing` TypeScript text, the renderer (`render/`: `objects`,
//!   `arrays`, `references` for `$ref`s, `docs` comments and
//!   `declarations`), server `groups` and rendering many tools in
//!   `parallel`; and `python/`: the Python stubs (`names` and namespaces,
//!   `types`, `methods`, `docs`trings).
//! - `limits.rs`: [`Limits`], and the one table of the limits hosts and
//!   users set: each one's config key, range and command-line flag, from
//!   which validation, `initialize`'s config and the binary's flags come;
//!   and the bounds of what enters the host, each once. `gate.rs`: the one
//!   gate every value entering the host passes, measured before it is
//!   built (`json_text`; the cost model the program doors' readers use).
//!   `deadline.rs`: the [`Deadline`] primitive.
//! - `engine/`: one engine, two languages. The core, which knows neither:
//!   the façade ([`Engine`], in `engine.rs`); what a run is asked
//!   (`request`) and how its outcome is rendered (`report`); the
//!   `driver` that takes one run from admission to outcome and hands the
//!   program to its language's room; `budget`, the CPU and sub-calls a
//!   run may spend beside its deadline; `escalation`, a run's request for
//!   more put to the approver before anything of it runs; what a run needs
//!   (`setup`); what both languages' sub-calls share (`subcall`: ids,
//!   images), the sub-call `scheduler`, `progress` for a limit's failure
//!   text, `output` (the console capture and cap), where `events` go
//!   (the [`EventSink`]), the bounds of program-side `discovery`, a
//!   run's `session` (the store and handle its `state` uses), and
//!   `run_ids`. Then a room per language, neither importing the other:
//!   - `typescript/`: `strip` (TypeScript to a script, with its own lexer,
//!     `scan`), the `sandbox` (heap, interrupts), `guards` for QuickJS's
//!     unpolled loops, `intrinsics`, the sandbox `threads` and `warm`
//!     sandboxes, `run/` (one run's state and step loop, with its `bridge`
//!     to the program, sub-call `dispatch`, `discovery`, `state`, `timers`,
//!     unhandled `rejections` and error `describe`-ing), `convert` and
//!     `text` (values and text out of QuickJS), and what places and
//!     explains a failure (`position`, `excerpt`, `hint`, `returned`); the
//!     JavaScript the runs evaluate in `js/`: the `prelude`, the console's
//!     `inspect`, the `interruptible` paths of guarded built-ins, and the
//!     `render`ing of a value for the model.
//!   - `python/`: Python programs on Monty's `workers`: the run's host side
//!     (in `python.rs`), `convert`-ing values, `discovery`, `state` and
//!     the `lines` that call a tool.
//! - `sources/`: where tools come from besides the host's code: the
//!   `workspace` tools, `manifest` files, and `mcp/`, MCP servers as tool
//!   sources ([`McpServers::start`], [`connect`]): their `config`, one
//!   `connection`, a `server`'s supervision (the first start in the
//!   background, restarts, the registry kept in step, calls), and the
//!   mapping of their `tools` and call `results`, an upstream server's
//!   `notes` during a call (progress and logs, each to its own call), the
//!   MCP client a run calls on behalf of (`caller`), and `elicit/`, an
//!   upstream server's elicitation forwarded to that client (its `form`
//!   escaped and marked as the server's). A connection tells its server of
//!   changed tools through `listing`'s `ListChanged`, so `connection` does
//!   not reach back into `server`.
//! - `state/`: sessions whose values outlive a run, in a store of them: the rules every store keeps (handles minted by the store,
//!   atomic per-key writes, quotas, idle expiry), each session's `handle`,
//!   and the stores: `memory` (the default), `sqlite` (a file shared by
//!   one machine's processes) and `redis` (a server a fleet shares); its
//!   public face is [`StateStore`].
//! - `transport/`: MCP over pipes, bounded: the `line_reader` every door
//!   that reads lines reads through (`ptc serve` too), the `lines` every
//!   MCP message crosses (measured before it is parsed, answered when it
//!   cannot be read, read only while the backlog has room), a server's
//!   `child` process in a process group of its own, and the `http` client
//!   under rmcp's streamable HTTP transport, bounded as `lines` is.
//! - `frontends/`: how non-Rust hosts reach the engine: `serve/`, the host
//!   protocol acted on (its `outbox`, the `errors` naming a tool entry,
//!   `peer` requests; the `session` and its methods; the `host_tool` and
//!   the `approver`); `mcp/`, ptc as an MCP server (its rmcp `handler`, the
//!   `mapping` of tools and results, sub-call `progress`, `approval`
//!   through elicitation, and the streamable `http` transport: its own
//!   accept loop with a connection ceiling, `conns`, and the MCP
//!   `sessions` with a ceiling and an idle expiry).
//! - `fuzz.rs`: the entry points of the fuzz targets (`fuzz/`), replayed by
//!   the tests.
//! - `bin/ptc/`: the `ptc` binary, a user of the library like any other:
//!   `main` (the commands), the `tools` its flags name, its `limits`
//!   flags, its `--state` (`state`), `mcp` (`ptc mcp`), what it prints (`present`), the `terminal`
//!   side of `ptc run` (prompts, progress) and how the library's
//!   `warnings` read on stderr.
//!
//! # Limits
//!
//! Every run has a deadline, a CPU budget, a heap limit, a stack limit, an
//! output cap, a sub-call budget and a sub-call concurrency cap; see
//! [`Limits`] for defaults and what happens at each limit. A run that asks for escalation ([`SandboxPermissions`]) and
//! is approved ([`Approver::escalate`]) gets the escalated tier instead and
//! may call the tools marked [`ToolDefinition::escalation_only`]. A failure of the program is an [`Outcome`] with `is_error` and
//! a [`FailureKind`], never an error of the host.
//!
//! # Example
//!
//! ```
//! use ptc::{Engine, Limits, Registry, RunOptions, RunRequest, Tool, ToolContext, ToolDefinition, ToolError};
//! use serde_json::{json, Value};
//!
//! # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let registry = Registry::new();
//! registry.add(Tool::new(
//!     ToolDefinition::new("add")
//!         .parameters(json!({ "type": "object", "properties": { "a": { "type": "number" }, "b": { "type": "number" } }, "required": ["a", "b"] }))
//!         .read_only(true),
//!     |args: Value, _cx: ToolContext| async move {
//!         Ok::<_, ToolError>(json!(args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0)))
//!     },
//! ))?;
//! let engine = Engine::new(registry, Limits::default())?;
//! let outcome = engine
//!     .run_code(RunRequest::new("const x: number = await tools.add({ a: 2, b: 3 })\nconsole.log('sum', x)\nreturn x * 10"), RunOptions::default())
//!     .await?;
//! assert_eq!(outcome.text(), "sum 5\n50");
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

// The README's Rust example is compiled with the doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

mod contract;
mod deadline;
mod engine;
mod frontends;
#[doc(hidden)]
pub mod fuzz;
mod gate;
mod json;
mod limits;
mod schema;
mod sdk;
mod sources;
mod state;
mod tool;
mod transport;

pub use contract::call::{Call, ContentBlock, ErrorCode, ToolError, ToolOutput, ToolResult};
pub use contract::events::LogLevel;
pub use contract::events::{Carried, RunEvent, RunEventKind};
pub use contract::outcome::{FailureKind, Invocation, Outcome};
pub use contract::presentation::Mode;
pub use contract::presentation::{Presentation, PresentedTool};
pub use contract::run_code::RUN_CODE;
pub use contract::run_code::{Language, RunRequest, SandboxPermissions};
pub use deadline::{Deadline, DeadlineError, MAX_DEADLINE_MS};
pub use engine::events::EventSink;
pub use engine::typescript::strip::SyntaxError;
pub use engine::{Engine, RetiredThreads, RunError, RunOptions};
pub use frontends::mcp::{
    McpHttpOptions, McpHttpServer, McpServeError, McpServer, serve_mcp_stdio,
};
pub use frontends::serve::{serve, serve_with_state};
pub use limits::{ConfigError, Limits};
pub use sdk::{
    SdkOptions, render_declarations, render_python, run_code_description, run_code_parameters,
    schema_to_typescript,
};
pub use sources::manifest::{ManifestError, load_manifest, parse_manifest};
pub use sources::mcp::config::{
    DEFAULT_STARTUP_TIMEOUT_MS, McpConfig, McpConfigError, McpServerConfig, McpTransport,
    ToolPolicy, is_valid_server_name,
};
pub use sources::mcp::{McpOptions, McpProblem, McpServers, connect};
pub use sources::workspace::workspace_tools;
pub use state::{StateError, StateStore};
pub use tool::approval::{
    Approval, ApprovalRequest, Approver, Decision, Denial, EscalationGrant, EscalationRequest,
};
pub use tool::approvals::ApprovalLimits;
pub use tool::context::{CallerContext, ProgressSink, ToolContext};
pub use tool::definition::{Policy, ToolDefinition, is_valid_tool_name};
pub use tool::handler::{BoxFuture, Tool, ToolHandler, TypedTool};
pub use tool::pipeline::{CallOptions, Next};
pub use tool::registry::{RegistrationError, Registry, Restriction, Scope};
pub use transport::child::end_all as end_mcp_server_processes;

/// Internals exposed for the crate's own benches and binary. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::limits::LimitFlag;

    /// The members of `ptc serve`'s `initialize` config, which the host
    /// libraries' `Config` types name too.
    pub fn config_keys() -> Vec<&'static str> {
        crate::contract::host_protocol::methods::Initialize::config_keys()
    }

    /// The command line's limit flags, from the limits' one table: their
    /// names, help (with the defaults) and what each sets.
    pub fn limit_flags() -> Vec<LimitFlag> {
        crate::limits::limit_flags()
    }

    /// [`Limits::validate`](crate::Limits::validate), naming each limit by
    /// its flag (`--max-parallel`) where it has one.
    ///
    /// # Errors
    ///
    /// As [`Limits::validate`](crate::Limits::validate).
    pub fn validate_flags(limits: &crate::Limits) -> Result<(), crate::ConfigError> {
        limits.validate_flags()
    }

    /// Checks, wraps and strips `code` as a run does, returning the script
    /// QuickJS would evaluate.
    ///
    /// # Errors
    ///
    /// The [`SyntaxError`](crate::SyntaxError) a run would fail with.
    pub fn prepare_script(code: &str, max_code_bytes: usize) -> Result<String, crate::SyntaxError> {
        crate::engine::typescript::strip::prepare(code, max_code_bytes)
            .map(|prepared| prepared.script)
    }

    /// Whether a run of `code` gets a lean context (without the intrinsics
    /// only a name reaches: `engine::typescript::intrinsics`), or `None` if the code is
    /// refused before it runs.
    pub fn lean_intrinsics(code: &str) -> Option<bool> {
        let prepared = crate::engine::typescript::strip::prepare(code, usize::MAX).ok()?;
        Some(prepared.intrinsics == crate::engine::typescript::intrinsics::Intrinsics::Lean)
    }

    /// `text` as `ptc run` prints it to a terminal: the characters titles
    /// escape ([`is_hostile`]) escaped the same way, line breaks and tabs
    /// kept.
    pub fn escape_for_terminal(text: &str) -> std::borrow::Cow<'_, str> {
        crate::tool::title::escape_hostile_keeping_lines(text)
    }

    /// `text` on one line, as titles are (contracts §2): every character
    /// [`is_hostile`] says, line breaks included, escaped. For ptc's own
    /// warning lines, which quote what tool servers wrote.
    pub fn escape_line(text: &str) -> String {
        crate::tool::title::escape_hostile(text)
    }

    /// Whether a title escapes `c` (contracts §2): control characters, line
    /// and paragraph separators, and the bidirectional controls. The
    /// binary's prompts and its terminal output escape the same characters.
    pub fn is_hostile(c: char) -> bool {
        crate::tool::title::is_hostile(c)
    }

    /// What `tools.$search(query, { limit })` finds in `scope`, as `(name,
    /// score)` pairs, best first.
    pub fn search(scope: &crate::Scope, query: &str, limit: u32) -> Vec<(String, f64)> {
        scope
            .search(query, limit)
            .into_iter()
            .map(|found| (found.name, found.score))
            .collect()
    }

    /// Builds the search index of `tools` as a registry version's first
    /// `$search` does; returns how many distinct terms it holds.
    pub fn build_search_index(tools: &[crate::ToolDefinition]) -> usize {
        crate::tool::search::SearchIndex::build(tools).terms()
    }

    /// Builds the search index of `scope`'s registry version as a new
    /// version does, reusing the tools earlier versions analysed; returns
    /// how many distinct terms it holds.
    pub fn rebuild_search_index(scope: &crate::Scope) -> usize {
        crate::tool::search::rebuild(&scope.visible_snapshot().0).terms()
    }
}
