//! ptc's own accept loop (hyper's HTTP/1 serving the axum router), since
//! `axum::serve` has neither a connection ceiling nor a header read
//! timeout.
//!
//! - At most `max` connections are served at once. When all are taken, a
//!   new connection makes the one idle the longest (no request in flight:
//!   between requests, or still sending its request head) close, and takes
//!   its place, waiting up to [`ADMIT_WAIT`] for it; with none idle it is
//!   answered 503. Up to [`spare`] such newcomers are held at a time; past
//!   them a connection is closed at once, so descriptors stay bounded.
//! - A connection must send a whole request head within `header_timeout`
//!   of opening or of its last answer, or it is closed (hyper's timer); this
//!   also closes idle keep-alive connections.

use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes, HttpBody};
use axum::http::{Request, Response, StatusCode, header};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tokio_util::sync::CancellationToken;

/// How long a connection that found every slot taken waits for one.
pub(super) const ADMIT_WAIT: Duration = Duration::from_secs(1);

/// How long [`serve`] waits, once stopped, for connections to finish.
const DRAIN: Duration = Duration::from_secs(5);

/// How many connections past `max` may wait for a slot (a quarter more).
pub(super) fn spare(max: usize) -> usize {
    max.div_ceil(4)
}

/// The connection ceiling actually used: `max`, but no more than half the
/// process's descriptor limit (upstream servers, files and the listener
/// need the rest), and at least one.
pub(super) fn effective_max(max: usize, descriptor_limit: Option<u64>) -> usize {
    let room =
        descriptor_limit.map_or(usize::MAX, |n| usize::try_from(n / 2).unwrap_or(usize::MAX));
    max.min(room).max(1)
}

/// The soft `RLIMIT_NOFILE`, if the system says.
pub(super) fn descriptor_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given, nothing else.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit) } == 0;
    (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// How connections are bounded.
#[derive(Debug, Clone, Copy)]
pub(super) struct ConnLimits {
    pub max: usize,
    pub header_timeout: Duration,
}

/// One served connection, as the ceiling sees it.
#[derive(Debug)]
struct Conn {
    /// Requests in flight (until their answer's body is dropped).
    busy: AtomicUsize,
    /// When it last became idle, in microseconds since the table's epoch.
    idle_since: AtomicU64,
    /// Fired to make it finish its request in flight, if any, and close.
    close: CancellationToken,
    /// Where its slot goes when it ends, if a newcomer evicted it: straight
    /// to that newcomer, never to whoever asks first.
    heir: Mutex<Option<oneshot::Sender<OwnedSemaphorePermit>>>,
}

/// The connections being served.
#[derive(Debug)]
struct Table {
    epoch: Instant,
    next: AtomicU64,
    conns: Mutex<HashMap<u64, Arc<Conn>>>,
}

impl Table {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_micros()).unwrap_or(u64::MAX)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        lock(&self.conns)
    }

    fn add(&self, stop: &CancellationToken) -> (u64, Arc<Conn>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let conn = Arc::new(Conn {
            busy: AtomicUsize::new(0),
            idle_since: AtomicU64::new(self.now()),
            close: stop.child_token(),
            heir: Mutex::default(),
        });
        self.lock().insert(id, conn.clone());
        (id, conn)
    }

    /// Asks the connection idle the longest to close; its slot will come
    /// through the receiver. None if no connection is idle.
    fn evict_oldest_idle(&self) -> Option<oneshot::Receiver<OwnedSemaphorePermit>> {
        let conns = self.lock();
        let oldest = conns
            .values()
            .filter(|c| c.busy.load(Ordering::Acquire) == 0 && !c.close.is_cancelled())
            .min_by_key(|c| c.idle_since.load(Ordering::Acquire))?;
        // Under the table's lock: the connection has not yet left it, so it
        // will find its heir when it does.
        let (heir, slot) = oneshot::channel();
        *lock(&oldest.heir) = Some(heir);
        oldest.close.cancel();
        Some(slot)
    }

    /// Takes `id` out and passes its slot on: to the newcomer that evicted
    /// it, or back to the semaphore.
    fn remove(&self, id: u64, slot: OwnedSemaphorePermit) {
        let conn = self.lock().remove(&id);
        if let Some(heir) = conn.and_then(|c| lock(&c.heir).take()) {
            // A newcomer that stopped waiting drops the slot: it returns.
            let _ = heir.send(slot);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Accepts and serves connections on `listener` until `stop` fires, then
/// asks them all to close and waits for them a little while.
pub(super) async fn serve(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnLimits,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max));
    let waiting = Arc::new(Semaphore::new(spare(limits.max)));
    let table = Arc::new(Table {
        epoch: Instant::now(),
        next: AtomicU64::new(0),
        conns: Mutex::default(),
    });
    let closing = CancellationToken::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.cancelled() => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) if is_out_of_descriptors(&error) => {
                // Free a descriptor if an idle connection holds one.
                table.evict_oldest_idle();
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
            // A connection reset before it was accepted, and the like.
            Err(_) => continue,
        };
        let _ = stream.set_nodelay(true);
        let context = Served {
            router: router.clone(),
            limits,
            table: table.clone(),
            closing: closing.clone(),
        };
        if let Ok(slot) = slots.clone().try_acquire_owned() {
            // In the table before the next accept, so a newcomer can evict it.
            let entry = table.add(&closing);
            tokio::spawn(context.serve(stream, slot, entry));
            continue;
        }
        let Ok(spare) = waiting.clone().try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let evicted = table.evict_oldest_idle();
        tokio::spawn(admit_when_free(
            context,
            stream,
            evicted,
            slots.clone(),
            spare,
        ));
    }
    drop(listener);
    closing.cancel();
    // Every slot back means every connection ended.
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(DRAIN, async {
        let _ = slots.acquire_many_owned(count(limits.max)).await;
        let _ = waiting.acquire_many_owned(count(spare(limits.max))).await;
    })
    .await;
    Ok(())
}

/// A connection past the ceiling, holding a spare place: served once the
/// idle connection it evicted hands over its slot (or, none evicted, once
/// any slot is free), within [`ADMIT_WAIT`]; refused after that.
async fn admit_when_free(
    context: Served,
    stream: TcpStream,
    evicted: Option<oneshot::Receiver<OwnedSemaphorePermit>>,
    slots: Arc<Semaphore>,
    spare: OwnedSemaphorePermit,
) {
    let slot = match evicted {
        Some(heir) => tokio::time::timeout(ADMIT_WAIT, heir)
            .await
            .ok()
            .and_then(Result::ok),
        None => tokio::time::timeout(ADMIT_WAIT, slots.acquire_owned())
            .await
            .ok()
            .and_then(Result::ok),
    };
    match slot {
        Some(slot) => {
            drop(spare);
            let entry = context.table.add(&context.closing);
            context.serve(stream, slot, entry).await;
        }
        None => refuse(stream, context.limits, spare).await,
    }
}

fn is_out_of_descriptors(error: &std::io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// What serving one connection needs.
struct Served {
    router: axum::Router,
    limits: ConnLimits,
    table: Arc<Table>,
    closing: CancellationToken,
}

impl Served {
    async fn serve(
        self,
        stream: TcpStream,
        slot: OwnedSemaphorePermit,
        (id, conn): (u64, Arc<Conn>),
    ) {
        let router = TowerToHyperService::new(self.router);
        let table = self.table.clone();
        let tracked = conn.clone();
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            let busy = Busy::new(tracked.clone(), table.clone());
            let answer = hyper::service::Service::call(&router, request);
            async move {
                let response: Response<Body> = answer.await?;
                Ok::<_, Infallible>(response.map(|body| Body::new(Tracked { body, _busy: busy })))
            }
        });
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(self.limits.header_timeout);
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        tokio::pin!(connection);
        tokio::select! {
            _ = connection.as_mut() => {}
            () = conn.close.cancelled() => {
                // Nothing polls the connection meanwhile, so no request can
                // start: without one in flight it closes now (hyper's
                // graceful shutdown would wait for a half-sent head);
                // with one, after its answer.
                if conn.busy.load(Ordering::Acquire) > 0 {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        }
        self.table.remove(id, slot);
    }
}

/// Answers 503 to the request on a connection that found no slot, then
/// closes it; also when its head does not come within [`ADMIT_WAIT`] (or
/// the header timeout, if shorter), so a spare place is soon free again.
async fn refuse(stream: TcpStream, limits: ConnLimits, spare: OwnedSemaphorePermit) {
    let max = limits.max;
    let service = hyper::service::service_fn(move |_: Request<Incoming>| async move {
        let text = format!(
            "ptc mcp: too many connections (limit {max}); retry later or close idle connections"
        );
        Ok::<_, Infallible>(
            Response::builder()
                .status(StatusCode::SERVICE_UNAVAILABLE)
                .header(header::CONNECTION, "close")
                .header(header::RETRY_AFTER, "1")
                .body(Body::from(text))
                .expect("a valid response"),
        )
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout.min(ADMIT_WAIT))
        .keep_alive(false);
    let _ = builder
        .serve_connection(TokioIo::new(stream), service)
        .await;
    drop(spare);
}

/// A request in flight on a connection, from its head until its answer's
/// body is dropped (written whole, or the connection gone).
struct Busy {
    conn: Arc<Conn>,
    table: Arc<Table>,
}

impl Busy {
    fn new(conn: Arc<Conn>, table: Arc<Table>) -> Self {
        conn.busy.fetch_add(1, Ordering::AcqRel);
        Self { conn, table }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.conn
            .idle_since
            .store(self.table.now(), Ordering::Release);
        self.conn.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// An answer's body that keeps its connection counted busy while it lives.
struct Tracked {
    body: Body,
    _busy: Busy,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ceiling_leaves_half_the_descriptors() {
        assert_eq!(effective_max(64, None), 64);
        assert_eq!(effective_max(64, Some(1024)), 64);
        assert_eq!(effective_max(64, Some(128)), 64);
        assert_eq!(effective_max(64, Some(100)), 50);
        assert_eq!(effective_max(64, Some(1)), 1);
        assert_eq!(effective_max(0, Some(1024)), 1);
        assert_eq!(spare(64), 16);
        assert_eq!(spare(8), 2);
        assert_eq!(spare(1), 1);
    }

    #[test]
    fn the_connection_idle_the_longest_is_evicted_never_a_busy_one() {
        let table = Table {
            epoch: Instant::now(),
            next: AtomicU64::new(0),
            conns: Mutex::default(),
        };
        let stop = CancellationToken::new();
        let (_, old) = table.add(&stop);
        let (_, young) = table.add(&stop);
        let (_, busy) = table.add(&stop);
        old.idle_since.store(10, Ordering::Release);
        young.idle_since.store(20, Ordering::Release);
        busy.idle_since.store(0, Ordering::Release);
        busy.busy.store(1, Ordering::Release);

        assert!(table.evict_oldest_idle().is_some(), "one is idle");
        assert!(old.close.is_cancelled());
        assert!(!young.close.is_cancelled());
        assert!(table.evict_oldest_idle().is_some());
        assert!(young.close.is_cancelled());
        assert!(
            table.evict_oldest_idle().is_none(),
            "only a busy one is left"
        );
        assert!(!busy.close.is_cancelled());
    }

    #[tokio::test]
    async fn an_evicted_slot_goes_to_the_newcomer_that_evicted_it() {
        let table = Table {
            epoch: Instant::now(),
            next: AtomicU64::new(0),
            conns: Mutex::default(),
        };
        let slots = Arc::new(Semaphore::new(1));
        let held = slots.clone().try_acquire_owned().unwrap();
        let (id, _) = table.add(&CancellationToken::new());
        let heir = table.evict_oldest_idle().unwrap();
        // Someone else asking first does not get it.
        let other = tokio::spawn(slots.clone().acquire_owned());
        tokio::task::yield_now().await;
        table.remove(id, held);
        let slot = heir.await.expect("the slot is handed over");
        tokio::task::yield_now().await;
        assert!(!other.is_finished(), "the other waiter did not get it");
        drop(slot);
        assert!(other.await.unwrap().is_ok(), "dropped, it returns");

        // Without an heir, the slot returns to the semaphore.
        let held = slots.clone().try_acquire_owned().unwrap();
        let (id, _) = table.add(&CancellationToken::new());
        table.remove(id, held);
        assert_eq!(slots.available_permits(), 1);
    }
}
