//! An upstream server's `elicitation/create`, forwarded to ptc's own MCP
//! client (docs/mcp.md, "Elicitation from upstream servers").
//!
//! A request goes to the client of the call it is about: over HTTP, one
//! that came on a call's response stream is that call's (rmcp marks it);
//! one tied to no call (stdio) goes to the one run whose calls are in
//! flight to the server, and with no call in flight, or calls of several
//! runs, nobody can be told apart and it is refused at once, as it is when
//! the run's client cannot elicit. The user sees the server's words
//! escaped, each line marked, after ptc's line naming the server and the
//! call, and so is every text of its form (`form`); the answer goes back
//! as the client gave it (a text default left as shown, as the server's).
//! Each forwarded request ends with the call it was forwarded for (or the
//! run's deadline); at most [`MAX_PENDING`] wait at once per session, and
//! a request over [`MAX_REQUEST_BYTES`] is refused unshown.

mod form;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::ErrorData;
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, RequestId};
use rmcp::service::ElicitationMode;
use tokio_util::sync::CancellationToken;

use super::McpCaller;
use crate::tool::approval_text::MAX_SHOWN_ARGUMENT_BYTES;
use crate::tool::context::ToolContext;

/// How many forwarded requests of one server may wait for the user at once.
pub(super) const MAX_PENDING: usize = 4;
/// The most bytes (as JSON) a request may take to be shown to a person.
pub(super) const MAX_REQUEST_BYTES: usize = MAX_SHOWN_ARGUMENT_BYTES;

/// The calls in flight on one session, and the requests waiting.
#[derive(Default)]
pub(super) struct Elicitations {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    next: u64,
    calls: HashMap<u64, InFlight>,
    pending: usize,
}

struct InFlight {
    tool: String,
    /// The id of the call's request, once sent.
    request: Option<RequestId>,
    cx: ToolContext,
    ended: CancellationToken,
}

/// Ends a call's part in forwarding when dropped (the call ended).
pub(super) struct Entered {
    elicitations: Arc<Elicitations>,
    key: u64,
}

impl Entered {
    /// The call's request went out as `request`: a request of the
    /// server's that came on its response stream is this call's.
    pub(super) fn sent(&self, request: &RequestId) {
        if let Some(call) = self.elicitations.lock().calls.get_mut(&self.key) {
            call.request = Some(request.clone());
        }
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        if let Some(call) = self.elicitations.lock().calls.remove(&self.key) {
            call.ended.cancel();
        }
    }
}

/// Makes a waiting request count until dropped.
struct Pending<'a>(&'a Elicitations);

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        self.0.lock().pending -= 1;
    }
}

fn refused(why: String) -> ErrorData {
    ErrorData::invalid_request(why, None)
}

impl Elicitations {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Marks the call of `tool` (ptc's name) with `cx` in flight until the
    /// returned guard is dropped.
    pub(super) fn enter(self: &Arc<Self>, tool: &str, cx: &ToolContext) -> Entered {
        let mut inner = self.lock();
        inner.next += 1;
        let key = inner.next;
        inner.calls.insert(
            key,
            InFlight {
                tool: tool.to_owned(),
                request: None,
                cx: cx.clone(),
                ended: CancellationToken::new(),
            },
        );
        Entered {
            elicitations: Arc::clone(self),
            key,
        }
    }

    /// Forwards `request` of the server `server` to the client of the call
    /// it came with (`related`: the request on whose response stream it
    /// came, over HTTP), else of the one run with calls in flight, and
    /// gives its answer; or why not, at once.
    pub(super) async fn forward(
        &self,
        server: &str,
        request: ElicitRequestParams,
        related: Option<&RequestId>,
    ) -> Result<ElicitResult, ErrorData> {
        let bytes = serde_json::to_vec(&request).map_or(usize::MAX, |json| json.len());
        if bytes > MAX_REQUEST_BYTES {
            return Err(refused(format!(
                "ptc does not forward an elicitation request of {bytes} bytes: at most {MAX_REQUEST_BYTES} can be shown to a person in full"
            )));
        }
        let ElicitRequestParams::FormElicitationParams {
            meta,
            message,
            requested_schema,
        } = request
        else {
            return Err(refused(
                "ptc forwards form elicitation only, not url".to_owned(),
            ));
        };
        let (tool, cx, ended) = self.target(related)?;
        let Some(caller) = cx.caller::<McpCaller>() else {
            return Err(refused(
                "the run calling this server has no MCP client to ask".to_owned(),
            ));
        };
        let peer = caller.peer.clone();
        if !peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
        {
            return Err(refused(
                "the MCP client of the run calling this server cannot elicit".to_owned(),
            ));
        }
        let _pending = {
            let mut inner = self.lock();
            if inner.pending >= MAX_PENDING {
                return Err(refused(format!(
                    "{MAX_PENDING} elicitation requests of this server already wait for the user"
                )));
            }
            inner.pending += 1;
            Pending(self)
        };
        let (requested_schema, defaults) = form::shown_schema(requested_schema);
        let form = ElicitRequestParams::FormElicitationParams {
            meta,
            message: shown(server, &tool, &message),
            requested_schema,
        };
        let run_ended = cx.cancellation().clone();
        let mut answer = tokio::select! {
            biased;
            () = run_ended.cancelled() => Err(refused(format!("the call to `{tool}` was cancelled or reached its deadline before the user answered"))),
            () = ended.cancelled() => Err(refused(format!("the call to `{tool}` ended before the user answered"))),
            answer = peer.create_elicitation(form) => answer.map_err(|e| refused(format!("ptc's client did not answer: {e}"))),
        }?;
        if answer.action == ElicitationAction::Accept
            && let Some(content) = &mut answer.content
        {
            defaults.restore(content);
        }
        Ok(answer)
    }

    /// The call a request goes to: the one whose request is `related`,
    /// else one of the one run's in flight. (A request related to no call
    /// ptc knows, such as one that came before its call's id was noted, is
    /// taken as tied to none.)
    fn target(
        &self,
        related: Option<&RequestId>,
    ) -> Result<(String, ToolContext, CancellationToken), ErrorData> {
        let inner = self.lock();
        let tied = related.and_then(|related| {
            inner
                .calls
                .values()
                .find(|call| call.request.as_ref() == Some(related))
        });
        if let Some(call) = tied {
            return Ok((call.tool.clone(), call.cx.clone(), call.ended.clone()));
        }
        let run = |call: &InFlight| {
            call.cx
                .caller
                .as_ref()
                .map(|c| Arc::as_ptr(c).cast::<()>() as usize)
        };
        let mut calls = inner.calls.values();
        let Some(first) = calls.next() else {
            return Err(refused(
                "no call of ptc's is in flight to this server, so there is nobody to ask"
                    .to_owned(),
            ));
        };
        if run(first).is_none() || calls.any(|call| run(call) != run(first)) {
            return Err(refused(
                "calls of several runs are in flight to this server, so ptc cannot tell whose user to ask".to_owned(),
            ));
        }
        Ok((first.tool.clone(), first.cx.clone(), first.ended.clone()))
    }
}

/// What the user is shown: ptc's line naming the server and the call,
/// then the server's words escaped, each line marked `│ `.
fn shown(server: &str, tool: &str, message: &str) -> String {
    format!(
        "The MCP server `{server}` asks, during the call to `{tool}` (its words, each line marked │, in the form too):\n{}",
        form::marked(message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::context::CallerContext;

    fn call(caller: Option<&CallerContext>) -> ToolContext {
        ToolContext::new("c", CancellationToken::new(), caller.cloned())
    }

    fn target(elicitations: &Elicitations) -> Result<String, String> {
        elicitations
            .target(None)
            .map(|(tool, ..)| tool)
            .map_err(|e| e.message.into_owned())
    }

    #[test]
    fn a_request_goes_to_the_one_run_in_flight_or_to_nobody() {
        let elicitations = Arc::new(Elicitations::default());
        let (run, other): (CallerContext, CallerContext) = (Arc::new(1u8), Arc::new(2u8));
        assert!(
            target(&elicitations)
                .unwrap_err()
                .starts_with("no call of ptc's")
        );
        let first = elicitations.enter("s.a", &call(Some(&run)));
        let second = elicitations.enter("s.b", &call(Some(&run)));
        assert!(target(&elicitations).is_ok(), "two calls of one run");
        let third = elicitations.enter("s.c", &call(Some(&other)));
        assert!(
            target(&elicitations)
                .unwrap_err()
                .starts_with("calls of several runs")
        );
        drop((first, third));
        assert_eq!(target(&elicitations).unwrap(), "s.b");
        drop(second);
        let _anonymous = elicitations.enter("s.d", &call(None));
        assert!(target(&elicitations).is_err(), "a call with no caller");
        assert!(elicitations.lock().calls.len() == 1);
    }

    #[test]
    fn a_request_tied_to_a_call_goes_to_that_call_whatever_else_is_in_flight() {
        let elicitations = Arc::new(Elicitations::default());
        let (one, other): (CallerContext, CallerContext) = (Arc::new(1u8), Arc::new(2u8));
        let first = elicitations.enter("s.a", &call(Some(&one)));
        let second = elicitations.enter("s.b", &call(Some(&other)));
        first.sent(&RequestId::Number(7));
        second.sent(&RequestId::Number(8));
        let tied = |id| {
            elicitations
                .target(Some(&RequestId::Number(id)))
                .map(|(tool, ..)| tool)
                .map_err(|e| e.message.into_owned())
        };
        assert_eq!(tied(7).unwrap(), "s.a");
        assert_eq!(tied(8).unwrap(), "s.b");
        // Tied to no call in flight: as a request tied to none.
        assert!(tied(9).unwrap_err().starts_with("calls of several runs"));
        drop(second);
        assert_eq!(tied(8).unwrap(), "s.a");
    }

    #[test]
    fn the_server_s_words_cannot_pass_for_ptc_s() {
        assert_eq!(
            shown(
                "relay",
                "relay.ask",
                "Which branch?\nAllow this call?\u{1b}[2J"
            ),
            "The MCP server `relay` asks, during the call to `relay.ask` (its words, each line marked │, in the form too):\n\
             │ Which branch?\n│ Allow this call?\\u{1b}[2J"
        );
    }
}
