//! Promise rejections nothing handled: recorded by QuickJS's tracker
//! (which must run no JavaScript), described after each step, and reported
//! after the program's output, the first few described and the rest counted.

use indexmap::IndexMap;
use rquickjs::{Ctx, Value};

use super::Shared;
use super::bridge::Bridge;
use super::describe::describe_reason;

/// Unhandled rejections described by their message; past this they are counted.
pub(super) const DESCRIBED_REJECTIONS: usize = 16;

/// Promise rejections nothing has handled (yet): the first few described,
/// the rest counted, so a flood of them costs the host nothing.
#[derive(Default)]
pub(super) struct Rejections {
    /// By the promise's address (its promise is kept alive: see `Bridge`).
    described: IndexMap<usize, Rejection>,
    more: usize,
}

struct Rejection {
    /// Where the bridge keeps its promise and reason.
    slot: u32,
    /// Described after the step that recorded it.
    text: Option<String>,
}

impl Rejections {
    /// A slot no described rejection uses, if fewer than the limit are.
    /// Slots are reused, so the bridge keeps at most that many promises.
    fn free_slot(&self) -> Option<u32> {
        (0..DESCRIBED_REJECTIONS as u32)
            .find(|slot| self.described.values().all(|r| r.slot != *slot))
    }

    fn handled(&mut self, promise: usize) {
        if self.described.shift_remove(&promise).is_none() {
            self.more = self.more.saturating_sub(1);
        }
    }

    /// The captured lines, in the order the rejections happened.
    pub(super) fn lines(&mut self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .described
            .drain(..)
            .map(|(_, r)| {
                let text = r
                    .text
                    .as_deref()
                    .unwrap_or("(the run ended before it was described)");
                format!("[warn] unhandled rejection: {text}")
            })
            .collect();
        if self.more > 0 {
            lines.push(format!(
                "[warn] … and {} more unhandled {}",
                self.more,
                if self.more == 1 {
                    "rejection"
                } else {
                    "rejections"
                }
            ));
        }
        lines
    }
}

/// Records a promise rejection nothing handles yet, or one handled late.
/// Runs inside QuickJS's promise machinery, so it runs no JavaScript (a
/// getter here could re-enter it): the reason is described after the step
/// (see `describe_rejections`). Its promise and reason are kept alive in the
/// bridge, so the promise's address names it for the whole run.
pub(super) fn track_rejection<'js>(
    shared: &Shared,
    ctx: &Ctx<'js>,
    promise: Value<'js>,
    reason: &Value<'js>,
    is_handled: bool,
) {
    if shared.memory.ending() {
        return;
    }
    // SAFETY: reading the pointer of an object value.
    let key = unsafe { rquickjs::qjs::JS_VALUE_GET_PTR(promise.as_raw()) } as usize;
    let mut st = shared.lock();
    if is_handled {
        st.rejections.handled(key);
        return;
    }
    let slot = match (ctx.userdata::<Bridge>(), st.rejections.free_slot()) {
        (Some(bridge), Some(slot)) => bridge.keep(ctx, slot, promise, reason).then_some(slot),
        _ => None,
    };
    match slot {
        Some(slot) => {
            st.rejections
                .described
                .insert(key, Rejection { slot, text: None });
        }
        None => st.rejections.more += 1,
    }
}

/// Describes the rejections recorded since the last call that are still
/// unhandled. Runs the program's getters, so no lock is held meanwhile.
pub(super) fn describe_rejections(shared: &Shared, ctx: &Ctx<'_>) {
    loop {
        let waiting: Vec<(usize, u32)> = shared
            .lock()
            .rejections
            .described
            .iter()
            .filter(|(_, r)| r.text.is_none())
            .map(|(key, r)| (*key, r.slot))
            .collect();
        if waiting.is_empty() {
            return;
        }
        for (key, slot) in waiting {
            let reason = ctx
                .userdata::<Bridge>()
                .and_then(|bridge| bridge.unhandled.get::<Value>(slot as usize * 2 + 1).ok());
            let text = reason.map_or_else(|| "undefined".into(), |r| describe_reason(&r));
            if let Some(rejection) = shared.lock().rejections.described.get_mut(&key) {
                rejection.text = Some(text);
            }
        }
    }
}
