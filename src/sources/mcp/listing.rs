//! A server's whole `tools/list`: every page, bounded, each entry kept as
//! raw JSON; and the re-listing of one server after `list_changed`, one at
//! a time.
//!
//! The request is sent as a custom one so that the answer comes back as
//! JSON even when rmcp's typed `ListToolsResult` would refuse it: one
//! malformed entry (`inputSchema: []`) then costs that tool, not the page.
//! A well-formed answer is read as sent too, not as rmcp's typed `Tool`s
//! (which drop `execution.taskSupport`): a child's transport hands it on
//! as a custom result, an HTTP one keeps it aside ([`RawLists`]).

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ClientRequest, CustomRequest, ServerResult};
use rmcp::service::PeerRequestOptions;
use rmcp::{Peer, RoleClient};
use serde_json::{Value, json};

use super::McpOptions;
use crate::tool::handler::BoxFuture;
use crate::transport::http::RawLists;

/// The entries of every page of `tools/list`, in order, within the caps of
/// `options`; over a cap, why (naming it). `raw` holds the answers as
/// sent, when the transport keeps them aside.
pub(super) async fn list_entries(
    peer: &Peer<RoleClient>,
    options: &McpOptions,
    raw: Option<&RawLists>,
) -> Result<Vec<Value>, String> {
    let mut entries = Vec::new();
    let mut bytes = 0usize;
    let mut cursor: Option<String> = None;
    for page in 1.. {
        if page > options.max_list_pages {
            return Err(format!(
                "tools/list has more than {} pages (the limit)",
                options.max_list_pages
            ));
        }
        let params = cursor.take().map(|cursor| json!({ "cursor": cursor }));
        let request = ClientRequest::CustomRequest(CustomRequest::new("tools/list", params));
        let failed = |e: rmcp::ServiceError| format!("tools/list failed: {e}");
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(failed)?;
        let id = handle.id.clone();
        let answer = handle.await_response().await;
        let sent = raw.and_then(|raw| raw.take(&id));
        let answer = match (answer.map_err(failed)?, sent) {
            (ServerResult::ListToolsResult(_), Some(sent)) => sent,
            (answer, _) => answer_json(answer),
        };
        bytes = bytes.saturating_add(json_size(&answer));
        if bytes > options.max_list_bytes {
            return Err(format!(
                "tools/list is longer than {} bytes (the limit)",
                options.max_list_bytes
            ));
        }
        let Value::Object(mut answer) = answer else {
            return Err("tools/list answered with something that is not an object".to_owned());
        };
        let Some(Value::Array(tools)) = answer.remove("tools") else {
            return Err("tools/list answered without a `tools` array".to_owned());
        };
        entries.extend(tools);
        if entries.len() > options.max_list_tools {
            return Err(format!(
                "tools/list has more than {} tools (the limit)",
                options.max_list_tools
            ));
        }
        match answer.remove("nextCursor") {
            Some(Value::String(next)) => cursor = Some(next),
            _ => return Ok(entries),
        }
    }
    unreachable!("the page loop ends by returning")
}

/// The answer as JSON, whichever variant of rmcp's untagged result it
/// was read as (a well-formed list is a `ListToolsResult`, one with a bad
/// entry a `CustomResult`).
fn answer_json(answer: ServerResult) -> Value {
    match answer {
        ServerResult::CustomResult(custom) => custom.0,
        other => serde_json::to_value(other).unwrap_or(Value::Null),
    }
}

/// How many bytes `value` takes as compact JSON, without writing it out.
fn json_size(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// One server's re-listings: at most one runs, and the `list_changed`s
/// that come meanwhile make at most one more, after it. A server sending
/// notifications by the thousand so costs one listing at a time, not one
/// each.
#[derive(Default)]
pub(super) struct Relisting {
    /// (a re-listing runs, another is due after it)
    state: Mutex<(bool, bool)>,
}

impl Relisting {
    /// Runs `relist` now, unless one runs already: then it is due again
    /// when that one ends (however many times this is called meanwhile).
    pub(super) async fn request<F, Fut>(&self, mut relist: F)
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = ()>,
    {
        {
            let mut state = self.lock();
            if state.0 {
                state.1 = true;
                return;
            }
            state.0 = true;
        }
        // Should the re-listing panic or be dropped, the next request runs.
        let idle_after = IdleAfter(self);
        loop {
            relist().await;
            let mut state = self.lock();
            if !state.1 {
                // Idle under the same lock that saw nothing due, so a
                // request in between is not lost; the guard's work is done.
                state.0 = false;
                drop(state);
                std::mem::forget(idle_after);
                return;
            }
            state.1 = false;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (bool, bool)> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Marks the re-listings idle when the one running ends early (a panic,
/// its task dropped).
struct IdleAfter<'a>(&'a Relisting);

/// What a session's client side tells when its server says its tools
/// changed (`notifications/tools/list_changed`): the supervised server,
/// which re-lists them. A connection knows it only by this, so `connection`
/// and `server` do not depend on each other both ways.
pub(super) trait ListChanged: Send + Sync {
    /// Re-lists the server's tools (see [`Relisting`]).
    fn refresh(self: Arc<Self>) -> BoxFuture<()>;
}

/// The one a connection tells; named as `connection` calls it.
pub(super) type Server = dyn ListChanged;

impl Drop for IdleAfter<'_> {
    fn drop(&mut self) {
        self.0.lock().0 = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn requests_during_a_relisting_make_one_more() {
        let relisting = Arc::new(Relisting::default());
        let runs = Arc::new(AtomicUsize::new(0));
        let (release, wait) = tokio::sync::watch::channel(false);
        let first = tokio::spawn({
            let (relisting, runs, wait) = (relisting.clone(), runs.clone(), wait.clone());
            async move {
                relisting
                    .request(|| {
                        let (runs, mut wait) = (runs.clone(), wait.clone());
                        async move {
                            runs.fetch_add(1, Ordering::SeqCst);
                            let _ = wait.wait_for(|go| *go).await;
                        }
                    })
                    .await;
            }
        });
        while runs.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        for _ in 0..1000 {
            relisting
                .request(|| async { unreachable!("not while one runs") })
                .await;
        }
        release.send_replace(true);
        first.await.unwrap();
        assert_eq!(
            runs.load(Ordering::SeqCst),
            2,
            "the first, then one for all the others"
        );
    }

    #[tokio::test]
    async fn a_relisting_that_panics_does_not_block_the_next() {
        let relisting = Arc::new(Relisting::default());
        let panicked = tokio::spawn({
            let relisting = relisting.clone();
            async move { relisting.request(|| async { panic!("on purpose") }).await }
        });
        assert!(panicked.await.is_err());
        let runs = AtomicUsize::new(0);
        relisting
            .request(|| async {
                runs.fetch_add(1, Ordering::SeqCst);
            })
            .await;
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn sizes_are_those_of_compact_json() {
        assert_eq!(
            json_size(&json!({ "a": [1, "x"] })),
            r#"{"a":[1,"x"]}"#.len()
        );
    }
}
