//! The deadline primitive: a duration and a cancellation signal that fires
//! when the armed duration elapses. Runs on tokio's clock, so tests drive it
//! with paused time.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::task::AbortHandle;
use tokio_util::sync::CancellationToken;

/// The largest deadline, in milliseconds (the range of a signed 32-bit timer).
pub const MAX_DEADLINE_MS: u64 = 2_147_483_647;

/// A deadline duration outside `0 ..= 2,147,483,647` ms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("deadline of {ms} ms is out of range: use 0 ..= {MAX_DEADLINE_MS} ms")]
pub struct DeadlineError {
    /// The refused value.
    pub ms: i128,
}

struct State {
    signal: CancellationToken,
    timer: Option<AbortHandle>,
    /// Identifies the current arming, so a superseded timer never fires.
    arming: u64,
}

/// A deadline: [`start`](Self::start) arms it, [`clear`](Self::clear) disarms
/// it, and its [`signal`](Self::signal) fires on expiry.
///
/// After an expiry, `start()` or `clear()` installs a fresh, unfired signal;
/// the signal changes identity only after a real expiry. An optional parent
/// signal *clears* the deadline when it fires (it does not expire it), and
/// once the parent has fired `start()` does nothing.
pub struct Deadline {
    duration: Duration,
    parent: Option<CancellationToken>,
    state: Arc<Mutex<State>>,
}

impl std::fmt::Debug for Deadline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deadline")
            .field("duration", &self.duration)
            .field("expired", &self.expired())
            .finish()
    }
}

impl Deadline {
    /// A disarmed deadline of `ms` milliseconds.
    ///
    /// # Errors
    /// `ms` outside `0 ..= 2,147,483,647`.
    pub fn new(ms: i128) -> Result<Self, DeadlineError> {
        Self::build(ms, None)
    }

    /// A disarmed deadline whose parent signal clears it when fired.
    ///
    /// # Errors
    /// `ms` outside `0 ..= 2,147,483,647`.
    pub fn with_parent(ms: i128, parent: CancellationToken) -> Result<Self, DeadlineError> {
        Self::build(ms, Some(parent))
    }

    fn build(ms: i128, parent: Option<CancellationToken>) -> Result<Self, DeadlineError> {
        let valid = u64::try_from(ms).ok().filter(|ms| *ms <= MAX_DEADLINE_MS);
        let Some(ms) = valid else {
            return Err(DeadlineError { ms });
        };
        Ok(Self::of(Duration::from_millis(ms), parent))
    }

    /// A disarmed deadline of a duration its caller has already checked.
    pub(crate) fn of(duration: Duration, parent: Option<CancellationToken>) -> Self {
        Self {
            duration,
            parent,
            state: Arc::new(Mutex::new(State {
                signal: CancellationToken::new(),
                timer: None,
                arming: 0,
            })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The duration this deadline arms for.
    pub fn duration(&self) -> Duration {
        self.duration
    }

    /// The current signal; it fires when the armed deadline expires.
    pub fn signal(&self) -> CancellationToken {
        self.lock().signal.clone()
    }

    /// Whether the current signal has fired.
    pub fn expired(&self) -> bool {
        self.lock().signal.is_cancelled()
    }

    /// Arms the deadline, or re-arms it from now. Does nothing once the parent
    /// has fired. Must be called within a tokio runtime.
    pub fn start(&self) {
        if self.parent.as_ref().is_some_and(|p| p.is_cancelled()) {
            return;
        }
        let mut state = self.lock();
        Self::disarm(&mut state);
        let arming = state.arming;
        // The clock starts now, not when the timer task is first polled.
        let at = tokio::time::Instant::now() + self.duration;
        let shared = Arc::clone(&self.state);
        let parent = self.parent.clone();
        let timer = tokio::spawn(async move {
            let expire = async {
                tokio::time::sleep_until(at).await;
                let state = shared.lock().unwrap_or_else(PoisonError::into_inner);
                if state.arming == arming {
                    state.signal.cancel();
                }
            };
            match parent {
                Some(parent) => tokio::select! {
                    biased;
                    _ = parent.cancelled() => {}
                    _ = expire => {}
                },
                None => expire.await,
            }
        });
        state.timer = Some(timer.abort_handle());
    }

    /// Disarms the deadline without firing it.
    pub fn clear(&self) {
        Self::disarm(&mut self.lock());
    }

    /// Stops the timer and, after an expiry, installs a fresh signal.
    fn disarm(state: &mut State) {
        state.arming += 1;
        if let Some(timer) = state.timer.take() {
            timer.abort();
        }
        if state.signal.is_cancelled() {
            state.signal = CancellationToken::new();
        }
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        if let Some(timer) = self.lock().timer.take() {
            timer.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::time::{advance, sleep};

    async fn settle() {
        // Let the timer task observe the advanced clock.
        for _ in 0..5 {
            tokio::task::yield_now().await;
        }
    }

    #[test]
    fn range_is_enforced() {
        assert!(Deadline::new(0).is_ok());
        assert!(Deadline::new(2_147_483_647).is_ok());
        assert_eq!(
            Deadline::new(2_147_483_648).unwrap_err(),
            DeadlineError { ms: 2_147_483_648 }
        );
        assert_eq!(Deadline::new(-1).unwrap_err().ms, -1);
    }

    #[tokio::test(start_paused = true)]
    async fn fires_after_the_duration_and_not_before() {
        let d = Deadline::new(100).unwrap();
        let signal = d.signal();
        d.start();
        advance(Duration::from_millis(99)).await;
        settle().await;
        assert!(!d.expired());
        advance(Duration::from_millis(1)).await;
        settle().await;
        assert!(d.expired());
        assert!(signal.is_cancelled());
    }

    #[tokio::test(start_paused = true)]
    async fn unarmed_deadline_never_fires() {
        let d = Deadline::new(10).unwrap();
        sleep(Duration::from_secs(1)).await;
        assert!(!d.expired());
    }

    #[tokio::test(start_paused = true)]
    async fn restart_rearms_from_now_with_the_same_signal() {
        let d = Deadline::new(100).unwrap();
        let signal = d.signal();
        d.start();
        advance(Duration::from_millis(60)).await;
        d.start();
        advance(Duration::from_millis(60)).await;
        settle().await;
        assert!(!d.expired(), "re-arming restarts the clock");
        advance(Duration::from_millis(40)).await;
        settle().await;
        assert!(signal.is_cancelled());
    }

    #[tokio::test(start_paused = true)]
    async fn clear_disarms_without_firing() {
        let d = Deadline::new(100).unwrap();
        let signal = d.signal();
        d.start();
        advance(Duration::from_millis(50)).await;
        d.clear();
        sleep(Duration::from_secs(1)).await;
        assert!(!d.expired());
        // Still the same signal: it fires on the next real expiry.
        d.start();
        sleep(Duration::from_millis(101)).await;
        assert!(signal.is_cancelled());
    }

    #[tokio::test(start_paused = true)]
    async fn after_expiry_clear_and_start_install_a_fresh_signal() {
        let d = Deadline::new(10).unwrap();
        let first = d.signal();
        d.start();
        sleep(Duration::from_millis(20)).await;
        assert!(first.is_cancelled());
        d.clear();
        let second = d.signal();
        assert!(!second.is_cancelled(), "a fresh signal");
        assert!(!d.expired());

        d.start();
        sleep(Duration::from_millis(20)).await;
        assert!(second.is_cancelled());
        d.start();
        let third = d.signal();
        assert!(!third.is_cancelled(), "a fresh signal");
        sleep(Duration::from_millis(20)).await;
        assert!(third.is_cancelled());
    }

    #[tokio::test(start_paused = true)]
    async fn zero_duration_fires_at_once() {
        let d = Deadline::new(0).unwrap();
        d.start();
        settle().await;
        assert!(d.expired());
    }

    #[tokio::test(start_paused = true)]
    async fn parent_clears_instead_of_expiring() {
        let parent = CancellationToken::new();
        let d = Deadline::with_parent(100, parent.clone()).unwrap();
        d.start();
        advance(Duration::from_millis(50)).await;
        parent.cancel();
        settle().await;
        sleep(Duration::from_secs(1)).await;
        assert!(!d.expired(), "the parent clears the deadline");
        d.start();
        sleep(Duration::from_secs(1)).await;
        assert!(!d.expired(), "start does nothing once the parent fired");
    }

    #[tokio::test(start_paused = true)]
    async fn dropping_the_deadline_stops_its_timer() {
        let d = Deadline::new(10).unwrap();
        let signal = d.signal();
        d.start();
        drop(d);
        sleep(Duration::from_millis(50)).await;
        assert!(!signal.is_cancelled());
    }
}
