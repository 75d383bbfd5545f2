//! MCP over streamable HTTP at `/mcp`, with the safeguards a local server
//! needs: loopback only unless allowed, browser `Origin`s other than
//! localhost refused (403, against DNS rebinding and drive-by pages), an
//! optional bearer token compared in constant time (401), and a bound at
//! every door: connections (`http/conns.rs`), request heads and bodies in
//! time and size, sessions in number and idle time (`http/sessions.rs`).

mod conns;
mod sessions;

use std::cell::Cell;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use rmcp::model::{ErrorCode, ErrorData, JsonRpcError};
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq;
use tokio_util::sync::CancellationToken;

use self::sessions::{BoundedSessions, REFUSED};
use super::{McpServeError, McpServer};
use crate::gate::{self, Refusal};
use crate::json::envelope::envelope;
use crate::limits::Bound;

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
    /// Connections served at once. By default, 64 (no more than half the
    /// process's descriptor limit). When all are taken, a new connection
    /// closes the one idle the longest and takes its place; with none
    /// idle it is answered 503.
    pub max_connections: usize,
    /// Time a connection has to send a whole request head, from opening or
    /// from its last answer (so also how long an idle keep-alive
    /// connection stays open). By default, 10 s; then the connection is
    /// closed.
    pub header_timeout: Duration,
    /// Time a request has to send its whole body once its head is in. By
    /// default, 30 s; then it is answered 408 and the connection closed.
    pub body_timeout: Duration,
    /// Bytes a request body may have. By default, 4 MiB; past it the
    /// request is answered 413 (at once when `Content-Length` says so).
    pub max_body_bytes: usize,
    /// MCP sessions live at once. By default, 64; an `initialize` past it
    /// is answered 503 until a session is closed (`DELETE`) or expires.
    pub max_sessions: usize,
    /// How long a session with no open stream (no call in flight, no `GET`
    /// stream) and no message is kept. By default, 120 s; then it is
    /// closed, and its id answers 404.
    pub session_idle: Duration,
}

impl McpHttpOptions {
    /// The default of [`McpHttpOptions::max_connections`].
    pub const DEFAULT_MAX_CONNECTIONS: usize = 64;
    /// The default of [`McpHttpOptions::header_timeout`].
    pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
    /// The default of [`McpHttpOptions::body_timeout`].
    pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
    /// The default of [`McpHttpOptions::max_body_bytes`].
    pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
    /// The default of [`McpHttpOptions::max_sessions`].
    pub const DEFAULT_MAX_SESSIONS: usize = 64;
    /// The default of [`McpHttpOptions::session_idle`].
    pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(120);
}

impl std::fmt::Debug for McpHttpOptions {
    // The token is a secret: never print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpOptions")
            .field("addr", &self.addr)
            .field("allow_remote", &self.allow_remote)
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("stateless", &self.stateless)
            .field("max_connections", &self.max_connections)
            .field("header_timeout", &self.header_timeout)
            .field("body_timeout", &self.body_timeout)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("max_sessions", &self.max_sessions)
            .field("session_idle", &self.session_idle)
            .finish()
    }
}

impl McpHttpOptions {
    /// Listen on `addr` (loopback only, no token, with sessions, the
    /// default bounds).
    pub fn new(addr: SocketAddr) -> Self {
        Self {
            addr,
            allow_remote: false,
            token: None,
            stateless: false,
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
            header_timeout: Self::DEFAULT_HEADER_TIMEOUT,
            body_timeout: Self::DEFAULT_BODY_TIMEOUT,
            max_body_bytes: Self::DEFAULT_MAX_BODY_BYTES,
            max_sessions: Self::DEFAULT_MAX_SESSIONS,
            session_idle: Self::DEFAULT_SESSION_IDLE,
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

    /// Sets the connections served at once. By default, 64.
    pub fn max_connections(mut self, max: usize) -> Self {
        self.max_connections = max;
        self
    }

    /// Sets the time a connection has to send a request head. By default,
    /// 10 s.
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// Sets the time a request has to send its body. By default, 30 s.
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// Sets the bytes a request body may have. By default, 4 MiB.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Sets the MCP sessions live at once. By default, 64.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// Sets how long an idle session is kept. By default, 120 s.
    pub fn session_idle(mut self, idle: Duration) -> Self {
        self.session_idle = idle;
        self
    }

    /// The first bound that cannot work (zero), named as the option.
    fn invalid(&self) -> Option<&'static str> {
        [
            (self.max_connections == 0, "max_connections"),
            (self.header_timeout.is_zero(), "header_timeout"),
            (self.body_timeout.is_zero(), "body_timeout"),
            (self.max_body_bytes == 0, "max_body_bytes"),
            (self.max_sessions == 0, "max_sessions"),
            (self.session_idle.is_zero(), "session_idle"),
        ]
        .into_iter()
        .find_map(|(zero, name)| zero.then_some(name))
    }
}

/// An MCP server bound to its address, ready to serve at `/mcp`.
#[derive(Debug)]
pub struct McpHttpServer {
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: conns::ConnLimits,
    stop: CancellationToken,
}

impl McpHttpServer {
    /// Binds `options.addr` for `server`.
    ///
    /// # Errors
    /// [`McpServeError::Refused`] for a non-loopback address without
    /// `allow_remote`, or a bound of zero; [`McpServeError::Io`] when the
    /// address cannot be bound.
    pub async fn bind(server: McpServer, options: McpHttpOptions) -> Result<Self, McpServeError> {
        if !options.addr.ip().is_loopback() && !options.allow_remote {
            return Err(McpServeError::Refused(format!(
                "refusing to listen on {}, which is not a loopback address, without allow_remote (--allow-remote)",
                options.addr
            )));
        }
        if let Some(name) = options.invalid() {
            return Err(McpServeError::Refused(format!(
                "the HTTP bound {name} must be more than zero"
            )));
        }
        let listener = tokio::net::TcpListener::bind(options.addr).await?;
        let stop = CancellationToken::new();
        let mut config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(!options.stateless)
            .with_max_request_body_bytes(options.max_body_bytes)
            .with_cancellation_token(stop.child_token());
        if options.allow_remote {
            config = config.disable_allowed_hosts();
        }
        let sessions = Arc::new(BoundedSessions::new(
            options.max_sessions,
            options.session_idle,
        ));
        sessions.spawn_reaper(stop.clone());
        let service =
            StreamableHttpService::new(move || Ok(server.for_session()), sessions.clone(), config);
        let gate = Arc::new(Gate {
            token: options.token,
        });
        let bounds = Arc::new(Bounds {
            sessions: (!options.stateless).then_some(sessions),
            max_sessions: options.max_sessions,
            session_idle: options.session_idle,
            body_timeout: options.body_timeout,
            max_body_bytes: options.max_body_bytes,
        });
        // The last layer runs first: the gate, then the bounds, then rmcp.
        let router = axum::Router::new()
            .route_service(MCP_PATH, service)
            .layer(middleware::from_fn_with_state(bounds, bound))
            .layer(middleware::from_fn_with_state(gate, admit));
        let limits = conns::ConnLimits {
            max: conns::effective_max(options.max_connections, conns::descriptor_limit()),
            header_timeout: options.header_timeout,
        };
        Ok(Self {
            listener,
            router,
            limits,
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
        // Sessions and their streams end first, so connections can close.
        let stopping = tokio::spawn({
            let stop = stop.clone();
            async move {
                shutdown.cancelled().await;
                stop.cancel();
            }
        });
        let result = conns::serve(self.listener, self.router, self.limits, stop.clone()).await;
        stop.cancel();
        stopping.abort();
        Ok(result?)
    }
}

/// The bounds a request meets once admitted, before rmcp sees it.
struct Bounds {
    /// The sessions, unless stateless.
    sessions: Option<Arc<BoundedSessions>>,
    max_sessions: usize,
    session_idle: Duration,
    body_timeout: Duration,
    max_body_bytes: usize,
}

/// Reads the body whole within the body timeout and size; answers `DELETE`
/// as MCP clients expect; turns a session refused for the ceiling into 503.
async fn bound(State(bounds): State<Arc<Bounds>>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let body = match measured_body(&bounds, &parts, body).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    let request = Request::from_parts(parts, Body::from(body));
    let Some(sessions) = &bounds.sessions else {
        return next.run(request).await;
    };
    let deleting = request.method() == Method::DELETE;
    if deleting
        && let Some(id) = request
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        && !sessions.contains(id)
    {
        return (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response();
    }
    let (mut response, refused) = REFUSED
        .scope(Cell::new(false), async {
            let response = next.run(request).await;
            (response, REFUSED.with(Cell::get))
        })
        .await;
    if refused {
        return too_many_sessions(&bounds);
    }
    // rmcp answers a terminated session 202; clients expect 200 or 204.
    if deleting && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
}

/// The request's body, read whole within the body timeout and size and
/// measured before rmcp parses it: `[0,0,…]` costs seventy times its bytes
/// parsed (contracts §6, "Messages"). Or the answer to a body that cannot
/// be taken: a POST that is not JSON is answered as JSON-RPC says (rmcp
/// would say 415, as if the Content-Type were wrong); a GET or DELETE has
/// no body to read.
async fn measured_body(
    bounds: &Bounds,
    parts: &axum::http::request::Parts,
    body: Body,
) -> Result<axum::body::Bytes, Response> {
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > bounds.max_body_bytes as u64) {
        return Err(too_large(bounds.max_body_bytes));
    }
    let read = read_body(body, bounds.max_body_bytes, declared);
    let body = match tokio::time::timeout(bounds.body_timeout, read).await {
        Err(_) => {
            let waited = bounds.body_timeout.as_millis();
            let why = format!("ptc mcp: the request body did not arrive within {waited} ms");
            return Err(closing(StatusCode::REQUEST_TIMEOUT, why));
        }
        Ok(Err(BodyError::TooLarge)) => return Err(too_large(bounds.max_body_bytes)),
        Ok(Err(BodyError::Broken)) => {
            let why = "ptc mcp: the request body could not be read".to_owned();
            return Err(closing(StatusCode::BAD_REQUEST, why));
        }
        Ok(Ok(body)) => body,
    };
    match gate::json_text(&body, Bound::of_bytes(bounds.max_body_bytes)) {
        Err(refusal @ Refusal::TooCostly { .. }) => {
            let why = format!("ptc mcp: {refusal}");
            Err((StatusCode::PAYLOAD_TOO_LARGE, why).into_response())
        }
        Err(refusal @ Refusal::Malformed(_)) if parts.method == Method::POST => {
            Err(not_json(&body, &refusal))
        }
        _ => Ok(body),
    }
}

/// 503 for a session refused for the ceiling, saying what to do.
fn too_many_sessions(bounds: &Bounds) -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, "1")],
        format!(
            "ptc mcp: too many open sessions (limit {}); end one (DELETE /mcp) or wait for an idle one to expire after {} s",
            bounds.max_sessions,
            bounds.session_idle.as_secs()
        ),
    )
        .into_response()
}

enum BodyError {
    TooLarge,
    Broken,
}

/// The whole body, refused as soon as it passes `max` bytes.
async fn read_body(body: Body, max: usize, declared: Option<u64>) -> Result<Bytes, BodyError> {
    let mut stream = body.into_data_stream();
    // `declared` is at most `max` here: reserve it, so the bytes are not
    // copied again as the buffer grows.
    let mut whole = Vec::with_capacity(declared.map_or(0, |n| usize::try_from(n).unwrap_or(max)));
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|_| BodyError::Broken)?;
        if chunk.len() > max - whole.len() {
            return Err(BodyError::TooLarge);
        }
        whole.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(whole))
}

/// 400 with a JSON-RPC parse error, under the body's id when it can be
/// found (its fault may be a key that is not UTF-8, with the id intact).
fn not_json(body: &[u8], refusal: &Refusal) -> Response {
    let id = envelope(body).and_then(|e| e.id);
    let error = JsonRpcError::new(
        id,
        ErrorData::new(
            ErrorCode::PARSE_ERROR,
            format!("ptc mcp: the message could not be read: {refusal}"),
            None,
        ),
    );
    let json = serde_json::to_vec(&error).unwrap_or_default();
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        json,
    )
        .into_response()
}

fn too_large(max: usize) -> Response {
    closing(
        StatusCode::PAYLOAD_TOO_LARGE,
        format!("ptc mcp: the request body is over {max} bytes"),
    )
}

/// An answer after which the connection closes (the body was not read).
fn closing(status: StatusCode, text: String) -> Response {
    (status, [(header::CONNECTION, "close")], text).into_response()
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
