//! ptc's own requests to the host (`tools/call`, `tools/approve`): their
//! ids, and the answers they wait for.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::Value;
use tokio::sync::oneshot;

use super::lock;
use super::outbox::Outbox;
use crate::contract::host_protocol::asks::Cancel;
use crate::contract::host_protocol::{Method, Request, RpcError};

/// ptc's requests to the host and their pending answers.
pub(super) struct Peer {
    pub(super) outbox: Outbox,
    pub(super) next_id: AtomicU64,
    pub(super) pending: Mutex<HashMap<u64, oneshot::Sender<Result<Value, RpcError>>>>,
}

impl Peer {
    /// Sends a request; the answer arrives through the returned handle.
    pub(super) fn request(self: &Arc<Self>, params: impl Serialize + Method) -> PendingRequest {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let (answer, answered) = oneshot::channel();
        lock(&self.pending).insert(id, answer);
        self.outbox.send(&Request::new(id, params));
        PendingRequest {
            peer: Arc::clone(self),
            id,
            answered,
        }
    }

    /// Routes a response from the host; unknown ids are ignored.
    pub(super) fn answer(&self, id: &Value, reply: Result<Value, RpcError>) {
        let Some(id) = id.as_u64() else { return };
        if let Some(waiting) = lock(&self.pending).remove(&id) {
            let _ = waiting.send(reply);
        }
    }
}

/// A request to the host awaiting its answer. Dropped unanswered (ptc stopped
/// waiting), it forgets the request and sends `$/cancel` — synchronously, so
/// the notification is queued before whatever ends the wait is.
pub(super) struct PendingRequest {
    peer: Arc<Peer>,
    id: u64,
    answered: oneshot::Receiver<Result<Value, RpcError>>,
}

impl PendingRequest {
    pub(super) async fn answer(&mut self) -> Result<Value, RpcError> {
        (&mut self.answered)
            .await
            .unwrap_or_else(|_| Err(RpcError::new(0, "the session ended")))
    }
}

impl Drop for PendingRequest {
    fn drop(&mut self) {
        if lock(&self.peer.pending).remove(&self.id).is_some() {
            self.peer.outbox.notify(Cancel { id: self.id });
        }
    }
}
