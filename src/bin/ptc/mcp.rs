//! `ptc mcp`: the tools the flags name, served to MCP clients over stdio
//! (stdout is the protocol; logs go to stderr) or streamable HTTP.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Args;
use ptc::{Engine, McpHttpOptions, McpHttpServer, McpServeError, McpServer, Mode, serve_mcp_stdio};
use tokio_util::sync::CancellationToken;

use crate::limits::{LimitArgs, MCP_CLIENT_TIMEOUT_MS};
use crate::state::StateArgs;
use crate::{LanguageArg, ModeArg, ToolArgs, ToolsFor, Usage, registry, stop};

#[derive(Args)]
pub(crate) struct McpArgs {
    #[command(flatten)]
    tools: ToolArgs,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    state: StateArgs,
    /// Which tools the client sees: only run_code (ptc), the tools
    /// themselves (native), or both.
    #[arg(long, value_enum, default_value_t = ModeArg::Ptc)]
    mode: ModeArg,
    /// The language of run_code: its description and SDK, and the programs
    /// it runs. Python needs a ptc built with the `python` feature.
    #[arg(long, value_enum, default_value_t = LanguageArg::Typescript)]
    language: LanguageArg,
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (ADDR is
    /// IP:PORT or localhost:PORT, such as 127.0.0.1:8765; port 0 picks one).
    #[arg(long, value_name = "ADDR", value_parser = parse_http_addr)]
    http: Option<SocketAddr>,
    /// Allow --http on an address that is not loopback (then any Host
    /// header is accepted; use --token-env).
    #[arg(long, requires = "http")]
    allow_remote: bool,
    /// Require `Authorization: Bearer <token>` on every HTTP request, the
    /// token read from this environment variable.
    #[arg(long, value_name = "VAR", requires = "http")]
    token_env: Option<String>,
    /// Serve HTTP without MCP sessions, so processes behind a load
    /// balancer need no affinity; `ask` tools are then refused (no
    /// elicitation without a session).
    #[arg(long, requires = "http")]
    stateless: bool,
    /// HTTP connections served at once [default: 64]; past it the one idle
    /// the longest is closed, or the newcomer answered 503.
    #[arg(long, value_name = "N", requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: Option<u32>,
    /// MCP sessions live at once [default: 64]; an initialize past it is
    /// answered 503.
    #[arg(long, value_name = "N", requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
    max_sessions: Option<u32>,
    /// How long the MCP client waits for a tools/call answer (the official
    /// SDKs: 60000). Every deadline the model is offered ends 5 s before
    /// it; give more when the client waits longer or resets its timeout on
    /// progress.
    #[arg(long, value_name = "MS", default_value_t = MCP_CLIENT_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1000..=2_147_483_647))]
    client_timeout_ms: u64,
    /// How long tools/list (and a direct call of a tool not listed yet)
    /// waits for --mcp-config servers still starting [default: 10000; 0:
    /// answer at once]. A run's sub-calls wait within its deadline instead.
    #[arg(long, value_name = "MS")]
    startup_wait_ms: Option<u64>,
}

/// `--http`'s address: IP:PORT, or localhost:PORT for the IPv4 loopback.
fn parse_http_addr(text: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = text.parse() {
        return Ok(addr);
    }
    match text.rsplit_once(':') {
        Some((host, port)) if host.eq_ignore_ascii_case("localhost") => port
            .parse::<u16>()
            .map(|port| SocketAddr::from(([127, 0, 0, 1], port)))
            .map_err(|_| format!("`{port}` is not a port number (0 to 65535)")),
        _ => Err("expected IP:PORT or localhost:PORT, such as 127.0.0.1:8765".to_owned()),
    }
}

pub(crate) async fn mcp(args: McpArgs) -> Result<ExitCode, Usage> {
    let token = token(&args)?;
    let language = ptc::Language::from(args.language);
    if let Some(why) = language.unavailable() {
        return Err(Usage::new(format!("--language python: {why}")));
    }
    // On stdio, the upstream servers start once the one client has said
    // whether it can elicit (they are told so); over HTTP, sessions come
    // and go and share them: they are told it cannot (docs/mcp.md).
    let (told, elicits) = tokio::sync::watch::channel(None::<bool>);
    let client_elicits: Option<ptc::BoxFuture<bool>> = args.http.is_none().then(|| {
        let mut elicits = elicits;
        Box::pin(async move {
            elicits
                .wait_for(Option::is_some)
                .await
                .is_ok_and(|told| *told == Some(true))
        }) as _
    });
    let limits = args.limits.mcp_limits(args.client_timeout_ms)?;
    // A store that cannot be opened is said before any server starts.
    let store = args.state.store(&limits).await?;
    let (registry, servers) = registry(&args.tools, ToolsFor::McpServer, client_elicits).await?;
    registry.set_language(language);
    let mut engine = Engine::new(registry, limits)?;
    if let Some(store) = store {
        engine = engine.with_state(store);
    }
    // Said to the operator now, not to the model at its first run.
    if let Some(why) = engine.unavailable(language) {
        return Err(Usage::new(format!("--language python: {why}")));
    }
    let server = McpServer::new(engine, Mode::from(args.mode));
    if let Some(ms) = args.startup_wait_ms {
        server.set_startup_wait(std::time::Duration::from_millis(ms));
    }
    let asked = server.client_elicits();
    tokio::spawn(async move { told.send_replace(Some(asked.await)) });
    let served = match args.http {
        None => serve_mcp_stdio(server).await.map_err(|e| failed(&e)),
        Some(addr) => serve_http(server, addr, &args, token).await?,
    };
    // The upstream servers live as long as the front end serves.
    stop(servers).await;
    Ok(served.map_or_else(|code| code, |()| ExitCode::SUCCESS))
}

/// The bearer token from `--token-env`'s variable, if the flag is given.
fn token(args: &McpArgs) -> Result<Option<String>, Usage> {
    let Some(var) = &args.token_env else {
        if args.allow_remote {
            crate::warnings::warn("serving to other machines without a token (--token-env)");
        }
        return Ok(None);
    };
    match std::env::var(var) {
        Ok(token) if !token.is_empty() => Ok(Some(token)),
        _ => Err(Usage::new(format!(
            "--token-env: the environment variable {var} is not set or empty"
        ))),
    }
}

/// Serves streamable HTTP on `addr` until the process ends.
async fn serve_http(
    server: McpServer,
    addr: SocketAddr,
    args: &McpArgs,
    token: Option<String>,
) -> Result<Result<(), ExitCode>, Usage> {
    let mut options = McpHttpOptions::new(addr)
        .allow_remote(args.allow_remote)
        .stateless(args.stateless);
    if let Some(max) = args.max_connections {
        options = options.max_connections(max as usize);
    }
    if let Some(max) = args.max_sessions {
        options = options.max_sessions(max as usize);
    }
    if let Some(token) = token {
        options = options.token(token);
    }
    let http = McpHttpServer::bind(server, options)
        .await
        .map_err(|e| match e {
            McpServeError::Refused(message) => Usage::new(message),
            other => Usage::new(format!("--http {addr}: {other}")),
        })?;
    let bound = http.local_addr()?;
    eprintln!("ptc: MCP endpoint http://{bound}/mcp");
    Ok(http
        .serve(CancellationToken::new())
        .await
        .map_err(|e| failed(&e)))
}

fn failed(error: &McpServeError) -> ExitCode {
    eprintln!("ptc: mcp: {error}");
    ExitCode::from(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_takes_an_ip_or_localhost_and_a_port() {
        assert_eq!(
            parse_http_addr("127.0.0.1:8765").unwrap().to_string(),
            "127.0.0.1:8765"
        );
        assert_eq!(parse_http_addr("[::1]:0").unwrap().to_string(), "[::1]:0");
        assert_eq!(
            parse_http_addr("localhost:8766").unwrap().to_string(),
            "127.0.0.1:8766"
        );
        assert_eq!(
            parse_http_addr("LocalHost:0").unwrap().to_string(),
            "127.0.0.1:0"
        );
        assert!(
            parse_http_addr("localhost")
                .unwrap_err()
                .contains("localhost:PORT")
        );
        assert!(
            parse_http_addr("localhost:http")
                .unwrap_err()
                .contains("not a port")
        );
        assert!(
            parse_http_addr("localhost:70000")
                .unwrap_err()
                .contains("not a port")
        );
        assert!(parse_http_addr("example.com:80").is_err());
    }
}
