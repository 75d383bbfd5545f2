//! `ptc mcp`: the tools the flags name, served to MCP clients over stdio
//! (stdout is the protocol; logs go to stderr) or streamable HTTP.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Args;
use ptc::{Engine, McpHttpOptions, McpHttpServer, McpServeError, McpServer, Mode, serve_mcp_stdio};
use tokio_util::sync::CancellationToken;

use crate::limits::LimitArgs;
use crate::{ModeArg, ToolArgs, ToolsFor, Usage, registry, stop};

#[derive(Args)]
pub(crate) struct McpArgs {
    #[command(flatten)]
    tools: ToolArgs,
    #[command(flatten)]
    limits: LimitArgs,
    /// Which tools the client sees: only run_code (ptc), the tools
    /// themselves (native), or both.
    #[arg(long, value_enum, default_value_t = ModeArg::Ptc)]
    mode: ModeArg,
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (ADDR is
    /// IP:PORT, such as 127.0.0.1:8765; port 0 picks one).
    #[arg(long, value_name = "ADDR")]
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
}

pub(crate) async fn mcp(args: McpArgs) -> Result<ExitCode, Usage> {
    let token = token(&args)?;
    let (registry, servers) = registry(&args.tools, ToolsFor::McpServer).await?;
    let engine = Engine::new(registry, args.limits.mcp_limits()?)?;
    let server = McpServer::new(engine, Mode::from(args.mode));
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
            eprintln!("ptc: warning: serving to other machines without a token (--token-env)");
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
