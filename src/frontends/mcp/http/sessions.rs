//! MCP sessions with a ceiling and an idle expiry: rmcp's in-memory
//! [`LocalSessionManager`], wrapped so that creating a session past
//! `max_sessions` is refused, and a session with no open stream that has
//! seen no message for `session_idle` is closed.
//!
//! rmcp's own idle timer is off: it counts only messages, so it would close
//! a session in the middle of a long `tools/call` (no message flows while a
//! run works) or while the client listens on its `GET` stream. Here a
//! session is idle only when none of its streams is open.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use tokio_util::sync::CancellationToken;

tokio::task_local! {
    /// Set when a session was refused for the ceiling while serving the
    /// request this task runs, so the front end can answer 503.
    pub(super) static REFUSED: Cell<bool>;
}

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub(super) enum SessionError {
    #[error("ptc mcp: too many open sessions (limit {0})")]
    Full(usize),
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

/// What is known of one live session.
#[derive(Debug)]
struct Activity {
    /// Streams (request answers, the `GET` stream) open now.
    open: usize,
    /// When the last stream closed or the last message came.
    last: Instant,
}

/// Live sessions by id, shared with the guards of their open streams.
type Table = Mutex<HashMap<SessionId, Activity>>;

/// [`LocalSessionManager`] with a ceiling and an idle expiry.
#[derive(Debug)]
pub(super) struct BoundedSessions {
    inner: LocalSessionManager,
    max: usize,
    idle: Duration,
    live: Arc<Table>,
    /// Serialises creation, so two `initialize`s never both take the last slot.
    creating: tokio::sync::Mutex<()>,
}

impl BoundedSessions {
    pub(super) fn new(max: usize, idle: Duration) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = None;
        Self {
            inner,
            max,
            idle,
            live: Arc::default(),
            creating: tokio::sync::Mutex::new(()),
        }
    }

    /// Whether `id` names a live session.
    pub(super) fn contains(&self, id: &str) -> bool {
        lock(&self.live).contains_key(id)
    }

    /// How many sessions are live.
    #[cfg(test)]
    fn len(&self) -> usize {
        lock(&self.live).len()
    }

    /// Closes every session idle for `idle` or longer; returns how many.
    pub(super) async fn expire(&self, now: Instant) -> usize {
        let stale: Vec<SessionId> = lock(&self.live)
            .iter()
            .filter(|(_, a)| a.open == 0 && now.saturating_duration_since(a.last) >= self.idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &stale {
            if let Err(error) = self.close_session(id).await {
                tracing::warn!("ptc mcp: closing idle session {id}: {error}");
            }
        }
        stale.len()
    }

    /// Expires idle sessions until `stop` fires, checking a few times per
    /// `idle`; holds the manager weakly, so it ends with the server.
    pub(super) fn spawn_reaper(self: &Arc<Self>, stop: CancellationToken) {
        let every = (self.idle / 4).clamp(Duration::from_millis(50), Duration::from_secs(5));
        let sessions = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    () = stop.cancelled() => return,
                }
                let Some(sessions) = sessions.upgrade() else {
                    return;
                };
                sessions.expire(Instant::now()).await;
            }
        });
    }

    /// Marks a message on `id` (the idle clock restarts).
    fn touch(&self, id: &SessionId) {
        if let Some(activity) = lock(&self.live).get_mut(id) {
            activity.last = Instant::now();
        }
    }

    /// Counts a stream of `id` open until the guard drops.
    fn open(&self, id: &SessionId) -> Open {
        if let Some(activity) = lock(&self.live).get_mut(id) {
            activity.open += 1;
        }
        Open {
            live: Arc::downgrade(&self.live),
            id: id.clone(),
        }
    }
}

/// An open stream of a session; dropping it restarts the idle clock.
struct Open {
    live: Weak<Table>,
    id: SessionId,
}

impl Drop for Open {
    fn drop(&mut self) {
        if let Some(live) = self.live.upgrade()
            && let Some(activity) = lock(&live).get_mut(&self.id)
        {
            activity.open = activity.open.saturating_sub(1);
            activity.last = Instant::now();
        }
    }
}

fn lock(table: &Table) -> std::sync::MutexGuard<'_, HashMap<SessionId, Activity>> {
    // The map stays consistent whatever panicked while it was held.
    table
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `stream`, counted as open on its session while it lives.
fn tracked(
    stream: impl Stream<Item = ServerSseMessage> + Send + Sync + 'static,
    open: Open,
) -> impl Stream<Item = ServerSseMessage> + Send + Sync + 'static {
    stream.map(move |message| {
        let _ = &open;
        message
    })
}

impl SessionManager for BoundedSessions {
    type Error = SessionError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _one = self.creating.lock().await;
        if lock(&self.live).len() >= self.max {
            let _ = REFUSED.try_with(|refused| refused.set(true));
            return Err(SessionError::Full(self.max));
        }
        let (id, transport) = self.inner.create_session().await?;
        lock(&self.live).insert(
            id.clone(),
            Activity {
                open: 0,
                last: Instant::now(),
            },
        );
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let _open = self.open(id);
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.contains(id))
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        lock(&self.live).remove(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let open = self.open(id);
        let stream = self.inner.create_stream(id, message).await?;
        Ok(tracked(stream, open))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let open = self.open(id);
        let stream = self.inner.create_standalone_stream(id).await?;
        Ok(tracked(stream, open))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let open = self.open(id);
        let stream = self.inner.resume(id, last_event_id).await?;
        Ok(tracked(stream, open))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn past_the_ceiling_a_session_is_refused_and_flagged() {
        let sessions = BoundedSessions::new(2, Duration::from_secs(60));
        let (a, _ta) = sessions.create_session().await.unwrap();
        let (_b, _tb) = sessions.create_session().await.unwrap();
        let refused = REFUSED
            .scope(Cell::new(false), async {
                let third = sessions.create_session().await;
                (third.is_err(), REFUSED.with(Cell::get))
            })
            .await;
        assert_eq!(refused, (true, true));
        assert_eq!(sessions.len(), 2);

        sessions.close_session(&a).await.unwrap();
        assert!(!sessions.contains(&a));
        let again = REFUSED
            .scope(Cell::new(false), async {
                let ok = sessions.create_session().await.is_ok();
                (ok, REFUSED.with(Cell::get))
            })
            .await;
        assert_eq!(again, (true, false), "a closed session frees its slot");
    }

    #[tokio::test]
    async fn only_sessions_without_open_streams_expire() {
        let sessions = BoundedSessions::new(8, Duration::from_secs(10));
        let (busy, _t1) = sessions.create_session().await.unwrap();
        let (idle, _t2) = sessions.create_session().await.unwrap();
        let stream = sessions.open(&busy);
        let later = Instant::now() + Duration::from_secs(11);
        assert_eq!(sessions.expire(later).await, 1);
        assert!(sessions.contains(&busy));
        assert!(!sessions.contains(&idle));

        // Closing the stream restarts the clock: not idle yet.
        drop(stream);
        assert_eq!(sessions.expire(Instant::now()).await, 0);
        assert_eq!(
            sessions
                .expire(Instant::now() + Duration::from_secs(10))
                .await,
            1
        );
        assert_eq!(sessions.len(), 0);
    }

    #[tokio::test]
    async fn a_message_restarts_the_idle_clock() {
        let sessions = BoundedSessions::new(8, Duration::from_secs(10));
        let (id, _t) = sessions.create_session().await.unwrap();
        let created = Instant::now();
        sessions.touch(&id);
        lock(&sessions.live).get_mut(&id).unwrap().last = created + Duration::from_secs(5);
        assert_eq!(sessions.expire(created + Duration::from_secs(12)).await, 0);
        assert_eq!(sessions.expire(created + Duration::from_secs(15)).await, 1);
    }
}
