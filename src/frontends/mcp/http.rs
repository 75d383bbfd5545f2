//! MCP over streamable HTTP at `/mcp`, with the safeguards a local server
//! needs: loopback only unless allowed, browser `Origin`s other than
//! localhost refused (403, against DNS rebinding and drive-by pages), and
//! an optional bearer token compared in constant time (401).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq;
use tokio_util::sync::CancellationToken;

use super::{McpServeError, McpServer};

/// The path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// How [`McpHttpServer`] listens.
#[derive(Clone)]
#[non_exhaustive]
pub struct McpHttpOptions {
    /// The address to listen on.
    pub addr: SocketAddr,
    /// Allow a non-loopback address (and any `Host` header). By default, false.
    pub allow_remote: bool,
    /// When set, every request must carry `Authorization: Bearer <token>`.
    /// By default, none.
    pub token: Option<String>,
    /// Serve without MCP sessions, so any process behind a load balancer
    /// can answer any request; elicitation is then unavailable (`ask`
    /// tools are refused). By default, false.
    pub stateless: bool,
}

impl std::fmt::Debug for McpHttpOptions {
    // The token is a secret: never print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpOptions")
            .field("addr", &self.addr)
            .field("allow_remote", &self.allow_remote)
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("stateless", &self.stateless)
            .finish()
    }
}

impl McpHttpOptions {
    /// Listen on `addr` (loopback only, no token, with sessions).
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            allow_remote: false,
            token: None,
            stateless: false,
        }
    }

    /// Allows a non-loopback address. By default, refused.
    pub fn allow_remote(mut self, allow: bool) -> Self {
        self.allow_remote = allow;
        self
    }

    /// Requires this bearer token. By default, none.
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Serves without sessions. By default, with.
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }
}

/// An MCP server bound to its address, ready to serve at `/mcp`.
#[derive(Debug)]
pub struct McpHttpServer {
    listener: tokio::net::TcpListener,
    router: axum::Router,
    stop: CancellationToken,
}

impl McpHttpServer {
    /// Binds `options.addr` for `server`.
    ///
    /// # Errors
    /// [`McpServeError::Refused`] for a non-loopback address without
    /// `allow_remote`; [`McpServeError::Io`] when the address cannot be bound.
    pub async fn bind(server: McpServer, options: McpHttpOptions) -> Result<Self, McpServeError> {
        if !options.addr.ip().is_loopback() && !options.allow_remote {
            return Err(McpServeError::Refused(format!(
                "refusing to listen on {}, which is not a loopback address, without allow_remote (--allow-remote)",
                options.addr
            )));
        }
        let listener = tokio::net::TcpListener::bind(options.addr).await?;
        let stop = CancellationToken::new();
        let mut config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(!options.stateless)
            .with_cancellation_token(stop.child_token());
        if options.allow_remote {
            config = config.disable_allowed_hosts();
        }
        let service = StreamableHttpService::new(
            move || Ok(server.for_session()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let gate = Arc::new(Gate {
            token: options.token,
        });
        let router = axum::Router::new()
            .route_service(MCP_PATH, service)
            .layer(middleware::from_fn_with_state(gate, admit));
        Ok(Self {
            listener,
            router,
            stop,
        })
    }

    /// The address actually bound (port 0 picks a free port).
    ///
    /// # Errors
    /// The socket cannot tell.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until `shutdown` fires; then open sessions are ended.
    ///
    /// # Errors
    /// Accepting connections failed.
    pub async fn serve(self, shutdown: CancellationToken) -> Result<(), McpServeError> {
        let stop = self.stop.clone();
        let result = axum::serve(self.listener, self.router)
            .with_graceful_shutdown(async move {
                shutdown.cancelled().await;
                stop.cancel();
            })
            .await;
        self.stop.cancel();
        Ok(result?)
    }
}

/// What a request must show to reach the MCP endpoint.
struct Gate {
    token: Option<String>,
}

async fn admit(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    if let Some(origin) = request.headers().get(header::ORIGIN)
        && !is_local_origin(origin)
    {
        return (
            StatusCode::FORBIDDEN,
            "ptc mcp: requests from this Origin are not allowed (only localhost pages may call a local MCP server)",
        )
            .into_response();
    }
    if let Some(token) = &gate.token
        && !bearer_matches(request.headers(), token)
    {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "ptc mcp: a valid bearer token is required",
        )
            .into_response();
    }
    next.run(request).await
}

/// An `Origin` of a page served from this machine: `http` or `https` on
/// `localhost`, `127.0.0.1` or `[::1]`, any port, parsed as a URI (scheme,
/// host, port): userinfo (`http://localhost:80@evil.example`, whose host
/// is `evil.example`), a path or anything else an origin never has refuses.
fn is_local_origin(origin: &HeaderValue) -> bool {
    let Ok(uri) = origin.to_str().unwrap_or_default().parse::<Uri>() else {
        return false;
    };
    let web = uri
        .scheme_str()
        .is_some_and(|s| s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https"));
    let Some(authority) = uri.authority() else {
        return false;
    };
    let bare =
        !authority.as_str().contains('@') && uri.path_and_query().is_none_or(|p| p.as_str() == "/");
    let host = authority.host();
    // `http` keeps a port it cannot read as text: `localhost:x` refuses.
    let port = authority.as_str().len() == host.len() || authority.port_u16().is_some();
    let local = ["localhost", "127.0.0.1", "[::1]", "::1"]
        .iter()
        .any(|l| host.eq_ignore_ascii_case(l));
    web && bare && port && local
}

/// Whether `Authorization: Bearer <token>` carries `token`, compared in
/// constant time (the lengths may leak, the contents do not). The scheme
/// is case-insensitive, as RFC 7235 says of every scheme.
fn bearer_matches(headers: &HeaderMap, token: &str) -> bool {
    let Some((scheme, given)) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
    else {
        return false;
    };
    scheme.eq_ignore_ascii_case("bearer")
        && given
            .trim_start_matches(' ')
            .as_bytes()
            .ct_eq(token.as_bytes())
            .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_origins_pass() {
        for origin in [
            "http://localhost",
            "http://localhost:6274",
            "https://127.0.0.1:8443",
            "http://[::1]:3000",
        ] {
            assert!(
                is_local_origin(&HeaderValue::from_static(origin)),
                "{origin}"
            );
        }
        for origin in [
            "https://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io",
            "null",
            "file://",
            "chrome-extension://abc",
            "http://[::2]:80",
            "http://localhost:80@evil.example",
            "http://localhost@evil.example",
            "http://user@localhost",
            "http://localhost/path",
            "http://localhost:notaport",
            "ftp://localhost",
        ] {
            assert!(
                !is_local_origin(&HeaderValue::from_static(origin)),
                "{origin}"
            );
        }
    }

    #[test]
    fn the_bearer_token_must_match_exactly() {
        let with = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, HeaderValue::from_static(value));
            headers
        };
        assert!(bearer_matches(&with("Bearer s3cret"), "s3cret"));
        assert!(bearer_matches(&with("bearer s3cret"), "s3cret"));
        assert!(bearer_matches(&with("BEARER  s3cret"), "s3cret"));
        assert!(!bearer_matches(&with("Bearers3cret"), "s3cret"));
        assert!(!bearer_matches(&with("Bearer s3cre"), "s3cret"));
        assert!(!bearer_matches(&with("Bearer s3cret2"), "s3cret"));
        assert!(!bearer_matches(&with("Basic s3cret"), "s3cret"));
        assert!(!bearer_matches(&HeaderMap::new(), "s3cret"));
    }
}
