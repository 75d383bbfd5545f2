//! [`MeasuredHttp`]: the HTTP client under rmcp's streamable HTTP transport,
//! for the MCP servers ptc reaches by URL, bounded as [`super::lines`] is
//! on stdio.
//!
//! - A JSON body is read up to `limits.max_bytes` and measured ([`gate::json_text`])
//!   before it is parsed; an SSE body is read event by event, holding at
//!   most `limits.max_bytes` of one, and each event's data is measured
//!   before rmcp parses it. A longer body or event is passed over, counted.
//! - What cannot be read answers the call it belongs to with an error
//!   answer ([`unreadable_answer`]), so the call fails at once: a POST's
//!   body answers the POST's request; an event answers the id its envelope
//!   names, or else the request of the POST whose stream it is on. A
//!   server's request or notification that cannot be read is passed over.
//! - Otherwise as rmcp's own reqwest client: `202`/`204` accept a message,
//!   a `404` in a session has expired it, a `401` with a challenge needs
//!   authorization, `429` and `5xx` are HTTP failures (unless a JSON-RPC
//!   error comes with them), a notification's answer is not needed. It does
//!   not follow redirects: the config names the server's URL.
//! - A log line (`notifications/message`) that came on a POST's response
//!   stream names the POST's request in its `_meta` ([`RELATED_REQUEST`]),
//!   so ptc hands it to that call alone; one that came on the stream ptc
//!   opens with `GET` names none, whatever the server put there.
//! - The answers to its own `tools/list` requests are also kept as the
//!   server sent them ([`RawLists`]): rmcp reads them as typed `Tool`s,
//!   which drop what rmcp does not know (`execution.taskSupport`).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};

use futures::StreamExt;
use futures::stream::BoxStream;
use http::header::{ACCEPT, CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use rmcp::RoleClient;
use rmcp::model::{
    ClientJsonRpcMessage, GetMeta, JsonRpcMessage, RequestId, ServerJsonRpcMessage,
    ServerNotification,
};
use rmcp::transport::common::http_header::{
    EVENT_STREAM_MIME_TYPE, HEADER_LAST_EVENT_ID, HEADER_SESSION_ID, JSON_MIME_TYPE,
};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, SseError, StreamableHttpClient, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::Sse;

use super::lines::{Unreadable, unreadable_answer};
use crate::gate::{self, Refusal};
use crate::json::envelope::{Envelope, envelope};
use crate::limits::Bound;

type Error = StreamableHttpError<reqwest::Error>;
type Events = BoxStream<'static, Result<Sse, SseError>>;

/// How much of a failure's body that is not JSON a message shows.
const DIAGNOSTIC_BYTES: usize = 4 << 10;

/// The `_meta` member that names the request on whose response stream a
/// server's log line came (its id as JSON), set by this client only: it is
/// removed from a log line that came on no request's stream, and never
/// sent. A server relates a notification to a request by sending it on
/// that request's stream (streamable HTTP); rmcp marks its requests so,
/// not its notifications.
pub(crate) const RELATED_REQUEST: &str = "dev.ptc/relatedRequest";

/// How many `tools/list` requests in flight [`RawLists`] keeps answers
/// for (a listing sends one at a time; the oldest is forgotten past it).
const RAW_LISTS: usize = 4;

/// The `result`s of the answers to the `tools/list` requests one client
/// sent, as the server sent them, for the listing to take by request id:
/// rmcp hands the listing typed `Tool`s, which drop members rmcp does not
/// know (`execution.taskSupport`). Only answers to requests it saw go out
/// are kept, at most [`RAW_LISTS`] of them, each within the message limits.
#[derive(Default)]
pub(crate) struct RawLists {
    /// The requests' ids, oldest first, and their answers once read.
    answers: Mutex<VecDeque<(RequestId, Option<serde_json::Value>)>>,
}

impl RawLists {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(RequestId, Option<serde_json::Value>)>> {
        self.answers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes `message` going out: an answer to it is kept if it is a
    /// `tools/list` request.
    fn expect(&self, message: &ClientJsonRpcMessage) {
        if let JsonRpcMessage::Request(request) = message
            && request.request.method() == "tools/list"
        {
            let mut answers = self.lock();
            answers.retain(|(id, _)| *id != request.id);
            answers.push_back((request.id.clone(), None));
            while answers.len() > RAW_LISTS {
                answers.pop_front();
            }
        }
    }

    /// Keeps the `result` of `text` (a message that passed the limits) if
    /// it answers an expected `tools/list` request.
    fn note(&self, text: &[u8]) {
        #[derive(serde::Deserialize)]
        struct Answer {
            result: serde_json::Value,
        }
        if self.lock().is_empty() {
            return;
        }
        let Some(Envelope {
            id: Some(id),
            has_method: false,
            ..
        }) = envelope(text)
        else {
            return;
        };
        if !self.lock().iter().any(|(expected, _)| *expected == id) {
            return;
        }
        let Ok(Answer { result }) = serde_json::from_slice(text) else {
            return;
        };
        if let Some((_, kept)) = self.lock().iter_mut().find(|(expected, _)| *expected == id) {
            *kept = Some(result);
        }
    }

    /// The answer to the `tools/list` request `id` as the server sent it,
    /// if one was read (it is forgotten either way).
    pub(crate) fn take(&self, id: &RequestId) -> Option<serde_json::Value> {
        let mut answers = self.lock();
        let at = answers.iter().position(|(expected, _)| expected == id)?;
        answers.remove(at).and_then(|(_, answer)| answer)
    }
}

/// rmcp's streamable HTTP client, measuring what it reads.
#[derive(Clone)]
pub(crate) struct MeasuredHttp {
    client: reqwest::Client,
    limits: Bound,
    lists: Arc<RawLists>,
}

impl MeasuredHttp {
    /// A client whose messages may be at most `limits`.
    pub(crate) fn new(limits: Bound) -> Result<Self, String> {
        let client = reqwest::Client::builder()
            // As rmcp's: a connection whose last body was not read whole
            // stalls the next request on it.
            .pool_max_idle_per_host(0)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
        Ok(Self {
            client,
            limits,
            lists: Arc::default(),
        })
    }

    /// The answers to this client's `tools/list` requests, as sent.
    pub(crate) fn raw_lists(&self) -> Arc<RawLists> {
        Arc::clone(&self.lists)
    }

    async fn post(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let mut request = self
            .client
            .post(uri.as_ref())
            .header(
                ACCEPT,
                format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}"),
            )
            .header(CONTENT_TYPE, JSON_MIME_TYPE);
        if let Some(token) = auth_header {
            request = request.bearer_auth(token);
        }
        request = with_custom(request, custom_headers)?;
        if let Some(session) = &session_id {
            request = request.header(HEADER_SESSION_ID, session.as_ref());
        }
        self.lists.expect(&message);
        let response = request.body(serde_json::to_vec(&message)?).send().await?;
        // The call this answers; none for a notification or an answer.
        let call = match &message {
            JsonRpcMessage::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        let status = response.status();
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        let session = header(response.headers(), HEADER_SESSION_ID);
        if !status.is_success() {
            return self.failure(response, session_id.is_some(), session).await;
        }
        let content_type = header(response.headers(), CONTENT_TYPE.as_str());
        match media_type(content_type.as_deref()) {
            Some(EVENT_STREAM_MIME_TYPE) => Ok(StreamableHttpPostResponse::Sse(
                measured(
                    post_events(response, self.limits.max_bytes),
                    call,
                    self.limits,
                    self.raw_lists(),
                ),
                session,
            )),
            Some(JSON_MIME_TYPE) => {
                let read = read_message(response, self.limits, &self.lists).await?;
                Ok(match (read, call) {
                    (Ok(mut message), call) => {
                        relate_message(&mut message, call.as_ref());
                        StreamableHttpPostResponse::Json(message, session)
                    }
                    (Err(why), Some(id)) => {
                        StreamableHttpPostResponse::Json(unreadable(id, &why), session)
                    }
                    // What answers a notification is not needed.
                    (Err(_), None) => StreamableHttpPostResponse::Accepted,
                })
            }
            _ if call.is_none() => Ok(StreamableHttpPostResponse::Accepted),
            _ => Err(StreamableHttpError::UnexpectedContentType(content_type)),
        }
    }

    /// A POST's answer that is not a success: the JSON-RPC error it
    /// carries, or what went wrong.
    async fn failure(
        &self,
        response: reqwest::Response,
        in_session: bool,
        session: Option<String>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let status = response.status();
        let headers = response.headers();
        if status == StatusCode::UNAUTHORIZED
            && let Some(challenge) = header(headers, WWW_AUTHENTICATE.as_str())
        {
            return Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(
                challenge,
            )));
        }
        if status == StatusCode::NOT_FOUND && in_session {
            return Err(StreamableHttpError::SessionExpired);
        }
        let http_error =
            HttpStatusError::new(status.as_u16(), header(headers, RETRY_AFTER.as_str()));
        if status == StatusCode::TOO_MANY_REQUESTS {
            return Err(http_error.into());
        }
        let content_type = header(headers, CONTENT_TYPE.as_str());
        let said = if media_type(content_type.as_deref()) == Some(JSON_MIME_TYPE) {
            match read_message(response, self.limits, &self.lists).await? {
                Ok(error @ JsonRpcMessage::Error(_)) => {
                    return Ok(StreamableHttpPostResponse::Json(error, session));
                }
                Ok(_) => "a JSON-RPC message that is not an error".to_owned(),
                Err(why) => why.to_string(),
            }
        } else {
            match read_body(response, DIAGNOSTIC_BYTES).await? {
                Body::Whole(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Body::TooLong(bytes) => format!("{bytes} bytes"),
            }
        };
        if status.is_server_error() {
            return Err(http_error.into());
        }
        Err(StreamableHttpError::UnexpectedServerResponse(
            format!("HTTP {status}: {said}").into(),
        ))
    }
}

// The transport's byte limits are rmcp's defaults; ptc's (`limits`) apply
// whatever it passes.
impl StreamableHttpClient for MeasuredHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.post(uri, message, session_id, auth_header, custom_headers)
            .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        _: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.post(uri, message, session_id, auth_header, custom_headers)
            .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        _: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.post(uri, message, session_id, auth_header, custom_headers)
            .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        self.client
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<Events, Error> {
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            self.limits.max_bytes,
        )
        .await
    }

    /// rmcp's stream, its events cut at `limits.max_bytes` (an error that
    /// ends the stream), then measured. Its events answer no POST.
    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        _: usize,
    ) -> Result<Events, Error> {
        let events = self
            .client
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                self.limits.max_bytes,
            )
            .await?;
        Ok(measured(
            events.map(|e| e.map(Ok)).boxed(),
            None,
            self.limits,
            self.raw_lists(),
        ))
    }
}

/// The request with the config's headers; those ptc sets itself are
/// refused, as rmcp refuses them (it adds `MCP-Protocol-Version` there).
fn with_custom(
    mut request: reqwest::RequestBuilder,
    headers: HashMap<HeaderName, HeaderValue>,
) -> Result<reqwest::RequestBuilder, Error> {
    for (name, value) in headers {
        let reserved = [ACCEPT.as_str(), HEADER_SESSION_ID, HEADER_LAST_EVENT_ID];
        if reserved
            .iter()
            .any(|r| name.as_str().eq_ignore_ascii_case(r))
        {
            return Err(StreamableHttpError::ReservedHeaderConflict(
                name.to_string(),
            ));
        }
        request = request.header(name, value);
    }
    Ok(request)
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The body's media type, when it is one of the two MCP's answers use
/// (`Application/JSON; charset=utf-8` is JSON).
fn media_type(content_type: Option<&str>) -> Option<&'static str> {
    let essence = content_type?.split(';').next()?.trim();
    [JSON_MIME_TYPE, EVENT_STREAM_MIME_TYPE]
        .into_iter()
        .find(|known| essence.eq_ignore_ascii_case(known))
}

/// A body, or how long it was when it was too long to keep.
enum Body {
    Whole(Vec<u8>),
    TooLong(usize),
}

/// Reads a body, keeping at most `max` bytes; a longer one is counted
/// (unread, when its length is declared).
async fn read_body(mut response: reqwest::Response, max: usize) -> Result<Body, reqwest::Error> {
    let declared = response.content_length().unwrap_or(0);
    if declared > max as u64 {
        return Ok(Body::TooLong(
            usize::try_from(declared).unwrap_or(usize::MAX),
        ));
    }
    let mut body = Vec::with_capacity(declared as usize);
    let mut skipped = None;
    while let Some(chunk) = response.chunk().await? {
        match &mut skipped {
            Some(bytes) => *bytes += chunk.len(),
            None if body.len() + chunk.len() > max => {
                skipped = Some(body.len() + chunk.len());
                body = Vec::new();
            }
            None => body.extend_from_slice(&chunk),
        }
    }
    Ok(skipped.map_or(Body::Whole(body), Body::TooLong))
}

/// A JSON body, measured, then parsed; or why it was not.
async fn read_message(
    response: reqwest::Response,
    limits: Bound,
    lists: &RawLists,
) -> Result<Result<ServerJsonRpcMessage, Unreadable>, reqwest::Error> {
    Ok(match read_body(response, limits.max_bytes).await? {
        Body::Whole(text) => parse(&text, limits).inspect(|_| lists.note(&text)),
        Body::TooLong(bytes) => Err(too_long(bytes, limits)),
    })
}

fn parse(text: &[u8], limits: Bound) -> Result<ServerJsonRpcMessage, Unreadable> {
    gate::json_text(text, limits).map_err(Unreadable::Refused)?;
    serde_json::from_slice(text).map_err(|e| Unreadable::Shape(e.to_string()))
}

fn too_long(bytes: usize, limits: Bound) -> Unreadable {
    Unreadable::Refused(Refusal::TooLong {
        bytes,
        max: limits.max_bytes,
    })
}

/// The error answer rmcp gets for an answer to `id` that was not read.
fn unreadable(id: RequestId, why: &Unreadable) -> ServerJsonRpcMessage {
    unreadable_answer::<RoleClient>(id, why, false)
}

/// `events` as rmcp may parse them: each event's data measured, one that
/// is refused replaced by an error answer to the call it belongs to (the
/// one its envelope names, else `call`, once) or passed over; answers to
/// `tools/list` noted in `lists`; log lines related to `call` (the POST's
/// request; none on the `GET` stream).
fn measured(
    events: BoxStream<'static, Result<Result<Sse, Unreadable>, SseError>>,
    call: Option<RequestId>,
    limits: Bound,
    lists: Arc<RawLists>,
) -> Events {
    let related = call.clone();
    let mut call = call;
    events
        .filter_map(move |event| {
            let event = match event {
                Ok(read) => measure(read, &mut call, limits, &lists)
                    .map(|event| Ok(relate(event, related.as_ref()))),
                Err(e) => Some(Err(e)),
            };
            std::future::ready(event)
        })
        .boxed()
}

fn measure(
    read: Result<Sse, Unreadable>,
    call: &mut Option<RequestId>,
    limits: Bound,
    lists: &RawLists,
) -> Option<Sse> {
    let (owner, why) = match read {
        Ok(event) => {
            let data = event.data.as_deref().unwrap_or_default().trim().as_bytes();
            if data.is_empty() {
                return Some(event);
            }
            match gate::json_text(data, limits) {
                Ok(_) => {
                    lists.note(data);
                    return Some(event);
                }
                Err(refusal) => (owner(envelope(data), call), Unreadable::Refused(refusal)),
            }
        }
        Err(why) => (call.take(), why),
    };
    let Some(id) = owner else {
        tracing::debug!("an unreadable event of an MCP server is passed over ({why})");
        return None;
    };
    let answer = serde_json::to_string(&unreadable(id, &why)).ok()?;
    Some(Sse::default().data(answer))
}

/// A log line's event with its `_meta` naming `related` as
/// [`RELATED_REQUEST`] (or naming nothing, whatever the server sent);
/// any other event as it is.
fn relate(event: Sse, related: Option<&RequestId>) -> Sse {
    let Some(data) = event.data.as_deref() else {
        return event;
    };
    // Most events are not log lines: told apart before anything is parsed.
    if !data.contains(LOG_METHOD)
        || !matches!(
            envelope(data.trim().as_bytes()),
            Some(Envelope {
                has_method: true,
                id: None
            })
        )
    {
        return event;
    }
    let Ok(mut message) = serde_json::from_str::<serde_json::Value>(data) else {
        return event;
    };
    if message.get("method").and_then(serde_json::Value::as_str) != Some(LOG_METHOD) {
        return event;
    }
    let Some(params) = message
        .get_mut("params")
        .and_then(serde_json::Value::as_object_mut)
    else {
        return event;
    };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
    let Some(meta) = meta.as_object_mut() else {
        return event;
    };
    meta.remove(RELATED_REQUEST);
    if let Some(id) = related {
        meta.insert(RELATED_REQUEST.to_owned(), id.clone().into_json_value());
    }
    match serde_json::to_string(&message) {
        Ok(data) => event.data(data),
        Err(_) => event,
    }
}

const LOG_METHOD: &str = "notifications/message";

/// A JSON body's log line with its `_meta` naming `related` (the POST's
/// request), as [`relate`] does for events.
fn relate_message(message: &mut ServerJsonRpcMessage, related: Option<&RequestId>) {
    let JsonRpcMessage::Notification(notification) = message else {
        return;
    };
    let ServerNotification::LoggingMessageNotification(_) = &notification.notification else {
        return;
    };
    let meta = notification.notification.get_meta_mut();
    meta.remove(RELATED_REQUEST);
    if let Some(id) = related {
        meta.insert(RELATED_REQUEST.to_owned(), id.clone().into_json_value());
    }
}

/// The call an unreadable event answers: the id its envelope names, or
/// else the POST's; none for a request or notification of the server's.
fn owner(envelope: Option<Envelope>, call: &mut Option<RequestId>) -> Option<RequestId> {
    match envelope {
        Some(Envelope {
            has_method: true, ..
        }) => None,
        Some(Envelope { id: Some(id), .. }) => {
            if call.as_ref() == Some(&id) {
                *call = None;
            }
            Some(id)
        }
        _ => call.take(),
    }
}

/// A POST's SSE body as events of at most `max` bytes each.
fn post_events(
    response: reqwest::Response,
    max: usize,
) -> BoxStream<'static, Result<Result<Sse, Unreadable>, SseError>> {
    let reader = EventReader {
        response,
        max,
        pending: Vec::new(),
        scanned: 0,
        event: Partial::default(),
        skipping_line: false,
    };
    futures::stream::unfold(reader, |mut reader| async move {
        let next = reader.next().await.transpose()?;
        Some((next.map_err(|e| SseError::Body(Box::new(e))), reader))
    })
    .boxed()
}

/// Reads SSE events (lines ending in LF or CRLF) from a body, keeping at
/// most `max` bytes of one; a longer one is passed over, counted.
struct EventReader {
    response: reqwest::Response,
    max: usize,
    /// Bytes read and not yet taken as lines.
    pending: Vec<u8>,
    /// How much of `pending` holds no newline.
    scanned: usize,
    event: Partial,
    /// The rest of a line too long to keep is still to come.
    skipping_line: bool,
}

/// The event read so far.
#[derive(Default)]
struct Partial {
    sse: Sse,
    data: Option<Vec<u8>>,
    /// Its bytes so far, and whether it is past `max`.
    bytes: usize,
    too_long: bool,
}

impl EventReader {
    /// The next event, or why it is not one; `None` at the end of the body.
    async fn next(&mut self) -> Result<Option<Result<Sse, Unreadable>>, reqwest::Error> {
        loop {
            while let Some(at) = self.pending[self.scanned..]
                .iter()
                .position(|&b| b == b'\n')
            {
                // The line keeps the buffer; what follows it is moved.
                let rest = self.pending.split_off(self.scanned + at + 1);
                let mut line = std::mem::replace(&mut self.pending, rest);
                self.scanned = 0;
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                if let Some(event) = self.line(&line) {
                    return Ok(Some(event));
                }
            }
            self.scanned = self.pending.len();
            if self.event.bytes + self.pending.len() > self.max {
                self.event.bytes += self.pending.len();
                self.event.too_long = true;
                self.event.data = None;
                self.skipping_line = true;
                self.pending.clear();
                self.scanned = 0;
            }
            match self.response.chunk().await? {
                Some(chunk) => self.pending.extend_from_slice(&chunk),
                // An event cut off by the end is not one, unless it
                // already was too long (so that its call is answered).
                None => {
                    let event = std::mem::take(&mut self.event);
                    return Ok(event.too_long.then(|| Err(self.too_long(event.bytes))));
                }
            }
        }
    }

    /// Takes one line; an empty line ends the event.
    fn line(&mut self, line: &[u8]) -> Option<Result<Sse, Unreadable>> {
        if std::mem::take(&mut self.skipping_line) {
            self.event.bytes += line.len();
            return None;
        }
        if line.is_empty() {
            let event = std::mem::take(&mut self.event);
            return event.finish(self.max);
        }
        if line.starts_with(b":") {
            return None; // a comment
        }
        self.event.bytes += line.len() + 1;
        if self.event.bytes > self.max {
            self.event.too_long = true;
            self.event.data = None;
        }
        if !self.event.too_long {
            self.event.field(line);
        }
        None
    }

    fn too_long(&self, bytes: usize) -> Unreadable {
        Unreadable::Refused(Refusal::TooLong {
            bytes,
            max: self.max,
        })
    }
}

impl Partial {
    /// One field line (`data: …`, `id: …`); unknown fields are ignored.
    fn field(&mut self, line: &[u8]) {
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        let text = || String::from_utf8_lossy(value).into_owned();
        match name {
            b"data" => {
                let data = self.data.get_or_insert_with(Vec::new);
                data.extend_from_slice(value);
                data.push(b'\n');
            }
            b"event" => self.sse.event = Some(text()),
            b"id" if !value.contains(&0) => self.sse.id = Some(text()),
            b"retry" => self.sse.retry = text().parse().ok().or(self.sse.retry),
            _ => {}
        }
    }

    /// The event, once its empty line came; none when it has no field.
    fn finish(mut self, max: usize) -> Option<Result<Sse, Unreadable>> {
        if self.too_long {
            return Some(Err(Unreadable::Refused(Refusal::TooLong {
                bytes: self.bytes,
                max,
            })));
        }
        if let Some(mut data) = self.data {
            data.pop(); // the last line's newline
            match String::from_utf8(data) {
                Ok(data) => self.sse.data = Some(data),
                Err(e) => return Some(Err(Unreadable::Refused(Refusal::Malformed(e.to_string())))),
            }
        }
        let sse = self.sse;
        let empty =
            sse.data.is_none() && sse.id.is_none() && sse.event.is_none() && sse.retry.is_none();
        (!empty).then_some(Ok(sse))
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;

    use super::post_events;

    /// The events of an SSE body, each as its data or its refusal.
    async fn events(body: impl Into<Vec<u8>>, max: usize) -> Vec<String> {
        let response = reqwest::Response::from(http::Response::new(body.into()));
        post_events(response, max)
            .map(|event| match event {
                Ok(Ok(sse)) => format!("{:?} {:?}", sse.id, sse.data),
                Ok(Err(why)) => why.to_string(),
                Err(e) => format!("error {e}"),
            })
            .collect()
            .await
    }

    #[test]
    fn raw_lists_keep_answers_to_tools_list_only_and_a_few() {
        use super::RawLists;
        use rmcp::model::{ClientJsonRpcMessage, RequestId};
        let request = |id: i64, method: &str| -> ClientJsonRpcMessage {
            serde_json::from_value(serde_json::json!({
                "jsonrpc": "2.0", "id": id, "method": method, "params": {}
            }))
            .unwrap()
        };
        let answer =
            |id: i64| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{id}]}}}}"#);
        let lists = RawLists::default();
        lists.expect(&request(1, "tools/list"));
        lists.expect(&request(2, "tools/call"));
        lists.note(answer(1).as_bytes());
        lists.note(answer(2).as_bytes());
        let id = |n| RequestId::Number(n);
        assert_eq!(
            lists.take(&id(1)),
            Some(serde_json::json!({ "tools": [1] }))
        );
        assert_eq!((lists.take(&id(1)), lists.take(&id(2))), (None, None));
        for n in 10..20 {
            lists.expect(&request(n, "tools/list"));
            lists.note(answer(n).as_bytes());
        }
        assert_eq!(lists.answers.lock().unwrap().len(), super::RAW_LISTS);
        assert_eq!(lists.take(&id(10)), None, "the oldest is forgotten");
        assert!(lists.take(&id(19)).is_some());
    }

    #[test]
    fn log_lines_name_the_request_of_their_stream_and_only_ptc_names_it() {
        use super::{RELATED_REQUEST, relate, relate_message};
        use rmcp::model::{GetMeta, RequestId, ServerJsonRpcMessage};
        use serde_json::{Value, json};
        let event = |message: Value| sse_stream::Sse::default().data(message.to_string());
        let meta = |event: sse_stream::Sse| -> Value {
            let message: Value = serde_json::from_str(&event.data.unwrap()).unwrap();
            message["params"]["_meta"].clone()
        };
        let forged = json!({ "jsonrpc": "2.0", "method": "notifications/message",
                             "params": { "level": "info", "data": "x",
                                         "_meta": { RELATED_REQUEST: 9, "other": 1 } } });
        // On a POST's stream: the POST's request, whatever the server said.
        assert_eq!(
            meta(relate(event(forged.clone()), Some(&RequestId::Number(4)))),
            json!({ RELATED_REQUEST: 4, "other": 1 })
        );
        // On the GET stream: none.
        assert_eq!(
            meta(relate(event(forged.clone()), None)),
            json!({ "other": 1 })
        );
        let plain = json!({ "jsonrpc": "2.0", "method": "notifications/message",
                            "params": { "level": "info", "data": "x" } });
        assert_eq!(
            meta(relate(event(plain), Some(&RequestId::String("r".into())))),
            json!({ RELATED_REQUEST: "r" })
        );
        // Anything else passes as it came.
        for other in [
            json!({ "jsonrpc": "2.0", "id": 1, "result": { "text": "notifications/message" } }),
            json!({ "jsonrpc": "2.0", "method": "notifications/progress",
                    "params": { "progressToken": 1, "progress": 1, "_meta": { RELATED_REQUEST: 9 } } }),
        ] {
            let text = other.to_string();
            assert_eq!(
                relate(event(other), None).data.as_deref(),
                Some(text.as_str())
            );
        }
        // A JSON body answering a POST is the POST's.
        let mut message: ServerJsonRpcMessage = serde_json::from_value(forged).unwrap();
        relate_message(&mut message, None);
        let rmcp::model::JsonRpcMessage::Notification(notification) = &mut message else {
            panic!("a notification");
        };
        assert!(
            notification
                .notification
                .get_meta()
                .get(RELATED_REQUEST)
                .is_none()
        );
        relate_message(&mut message, Some(&RequestId::Number(5)));
        let rmcp::model::JsonRpcMessage::Notification(notification) = &message else {
            panic!("a notification");
        };
        assert_eq!(
            notification.notification.get_meta().get(RELATED_REQUEST),
            Some(&json!(5))
        );
    }

    #[tokio::test]
    async fn reads_events_as_the_sse_format_says() {
        let body = ": a comment\r\nid: 7\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nevent: x\ndata\n\n\n";
        assert_eq!(
            events(body, 100).await,
            [r#"Some("7") Some("{\"a\":\n1}")"#, r#"None Some("")"#]
        );
    }

    #[tokio::test]
    async fn an_event_past_the_limit_is_counted_and_the_next_one_read() {
        let long = format!("data: {}\n\ndata: 2\n\n", "x".repeat(50));
        assert_eq!(
            events(long, 20).await,
            [
                "the message is 57 bytes long, more than the 20 bytes ptc reads",
                r#"None Some("2")"#
            ]
        );
        // Cut off by the end of the body, it still answers its call.
        assert_eq!(
            events(format!("data: {}", "x".repeat(50)), 20).await,
            ["the message is 56 bytes long, more than the 20 bytes ptc reads"]
        );
        let not_utf8 = events(&b"data: caf\xe9\n\n"[..], 100).await;
        assert!(
            not_utf8[0].starts_with("the message is not JSON: ") && not_utf8[0].contains("utf-8"),
            "{not_utf8:?}"
        );
    }
}
