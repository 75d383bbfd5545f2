//! One QuickJS runtime and context per run: the heap cap (a counting
//! allocator that raises a flag the interrupt handler obeys), the stack
//! limit, the interrupt handler, and evaluation helpers.

use std::ffi::CString;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use libmimalloc_sys as mi;
use rquickjs::allocator::Allocator;
use rquickjs::{Context, Ctx, Runtime, Value, qjs};
use tokio_util::sync::CancellationToken;

use super::intrinsics::Intrinsics;
use crate::contract::outcome::FailureKind;
use crate::engine::budget::RunBudget;

/// A run's memory: the JavaScript heap and the host's copies of the run's
/// values (sub-call arguments waiting or in flight) share one limit, and
/// exhausting it raises a flag the interrupt handler obeys, so a caught
/// out-of-memory error still ends the run as `memory`.
#[derive(Debug)]
pub(crate) struct Tripwires {
    /// The limit refused an allocation or a charge.
    pub(crate) out_of_memory: AtomicBool,
    limit: usize,
    /// Bytes the heap holds, as the allocator last counted them.
    heap: AtomicUsize,
    /// Bytes the host holds for the run outside the heap.
    host: AtomicUsize,
    /// A charge for the host's copies was refused.
    host_refused: AtomicBool,
    /// The run's deadline (or cancellation) passed (see [`Tripwires::halt`]).
    halted: AtomicBool,
    /// The interrupt handler has told QuickJS to stop (see
    /// [`STOPPING_RESERVE`]).
    stopping: AtomicBool,
    /// Where the run's context keeps QuickJS's interrupt countdown (see
    /// [`Poller`]); 0 until known.
    countdown: AtomicUsize,
}

impl Tripwires {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            out_of_memory: AtomicBool::new(false),
            limit,
            heap: AtomicUsize::new(0),
            host: AtomicUsize::new(0),
            host_refused: AtomicBool::new(false),
            halted: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
            countdown: AtomicUsize::new(0),
        }
    }

    /// The context is about to go: nothing may write to its countdown.
    pub(crate) fn forget_countdown(&self) {
        self.countdown.store(0, Ordering::Release);
    }

    /// Makes QuickJS ask the interrupt handler at its next poll (a call or
    /// a loop turn), instead of up to 10,000 polls later.
    ///
    /// On the sandbox thread (a refused allocation) this is an ordinary
    /// write between two of QuickJS's own accesses. From another thread (a
    /// deadline) it races QuickJS's decrement of the same aligned `int`: a
    /// store that lands between its read and its write is lost and the
    /// countdown goes on as before, which is no worse than not asking; the
    /// next refused allocation asks again.
    pub(crate) fn ask_soon(&self) {
        let address = self.countdown.load(Ordering::Acquire);
        if address != 0 {
            // SAFETY: the address is the countdown of the live context of
            // the run this belongs to (set by `Poller::new`, only called
            // while the run holds its context), aligned for an `i32`.
            let countdown = unsafe { std::sync::atomic::AtomicI32::from_ptr(address as *mut i32) };
            countdown.store(0, Ordering::Relaxed);
        }
    }

    /// The deadline (or cancellation) passed: QuickJS is to ask its
    /// interrupt handler at its next poll, now and after every allocation
    /// from here on. It asks only once per 10,000 polls, so a loop whose
    /// every turn is long native work (a sort, a `JSON.stringify`, a search)
    /// would otherwise go on for hours past its deadline.
    pub(crate) fn halt(&self) {
        self.halted.store(true, Ordering::Release);
        self.ask_soon();
    }

    /// Whether the run is over for want of memory or time: what fails from
    /// here on is a consequence, not news for the model.
    pub(crate) fn ending(&self) -> bool {
        self.halted.load(Ordering::Acquire) || self.out_of_memory.load(Ordering::Acquire)
    }

    /// Whether the limit was reached by a copy the host would have made.
    pub(crate) fn host_refused(&self) -> bool {
        self.host_refused.load(Ordering::Acquire)
    }

    /// Raises the flag: the run ends as `memory`, at QuickJS's next poll
    /// (a program that catches the refusal goes no further). Always `false`.
    fn exhaust(&self) -> bool {
        self.out_of_memory.store(true, Ordering::Release);
        self.ask_soon();
        false
    }

    /// Whether `bytes` more fit beside `heap` bytes of heap (raising the
    /// flag if not). Past the deadline each allocation also makes QuickJS
    /// ask the interrupt handler at its next poll; allocations are not
    /// refused for it (QuickJS needs memory to throw the interrupt, and
    /// aborts the process when rejecting an async function's promise fails
    /// with a catchable error).
    fn fits(&self, heap: usize, bytes: usize) -> bool {
        let held = heap.saturating_add(self.host.load(Ordering::Relaxed));
        if held.saturating_add(bytes) > self.limit {
            return self.exhaust();
        }
        if self.halted.load(Ordering::Relaxed) {
            self.ask_soon();
        }
        true
    }

    /// Whether a heap of `heap` bytes may grow by `bytes` once QuickJS has
    /// been told to stop: up to [`STOPPING_RESERVE`] past the limit, the
    /// host's charges left out (they may come from other threads, and must
    /// not take the reserve).
    fn fits_while_stopping(&self, heap: usize, bytes: usize) -> bool {
        self.stopping.load(Ordering::Acquire)
            && heap.saturating_add(bytes) <= self.limit.saturating_add(STOPPING_RESERVE)
    }

    /// Bytes still free for the run.
    pub(crate) fn room(&self) -> usize {
        let held = self.heap.load(Ordering::Relaxed) + self.host.load(Ordering::Relaxed);
        self.limit.saturating_sub(held)
    }

    /// Counts `bytes` the host now holds for the run; `false` (and the run
    /// ends as `memory`) when they do not fit.
    pub(crate) fn charge(&self, bytes: usize) -> bool {
        if !self.fits(self.heap.load(Ordering::Relaxed), bytes) {
            self.host_refused.store(true, Ordering::Release);
            return false;
        }
        self.host.fetch_add(bytes, Ordering::AcqRel);
        true
    }

    /// The host let go of `bytes` it had charged.
    pub(crate) fn release(&self, bytes: usize) {
        self.host.fetch_sub(bytes, Ordering::AcqRel);
    }
}

/// What a run's heap may take past its limit once the interrupt handler has
/// said stop. QuickJS then builds the uncatchable `interrupted` error (an
/// object, its message, a backtrace); refused, that error becomes a
/// catchable `null`, and when such a `null` rejects an async function's
/// promise QuickJS aborts the process (`js_async_function_resume`: "BUG").
/// Every program is an async function: a heap filled to within a few bytes
/// (`for (;;) o = { o }`) took the host down with it. Once stopped, no
/// program code runs (the error skips `catch` and `finally`), so what the
/// reserve holds is QuickJS's own unwinding, a few errors' worth.
const STOPPING_RESERVE: usize = 1 << 20;

/// Counts the bytes QuickJS holds and refuses past the run's limit (see
/// [`Tripwires`]). The count is the allocator's own; the shared copy is only
/// for the host's charges, so the hot path pays a plain store, no atomic
/// read-modify-write.
struct CappedAllocator {
    used: usize,
    trip: Arc<Tripwires>,
}

impl CappedAllocator {
    fn admit(&self, size: usize) -> bool {
        // The reserve second: the common path pays no more than before.
        self.trip.fits(self.used, size) || self.trip.fits_while_stopping(self.used, size)
    }

    fn count(&mut self, used: usize) {
        self.used = used;
        self.trip.heap.store(used, Ordering::Relaxed);
    }

    /// A refused or failed allocation: the run is out of memory.
    fn refuse(&self) -> *mut u8 {
        self.trip.exhaust();
        std::ptr::null_mut()
    }
}

// SAFETY: every pointer comes from mimalloc (aligned for any type) and is
// released by mimalloc; usable sizes come from `mi_usable_size`, so the
// accounting matches what is freed. mimalloc: many small, short-lived
// allocations per run, often freed on another thread than the one that
// made them; glibc's malloc spent a fifth of a cold run consolidating.
unsafe impl Allocator for CappedAllocator {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        if !self.admit(size) {
            return std::ptr::null_mut();
        }
        let ptr = unsafe { mi::mi_malloc(size) }.cast::<u8>();
        if ptr.is_null() {
            return self.refuse();
        }
        let usable = unsafe { mi::mi_usable_size(ptr.cast()) };
        self.count(self.used + usable);
        ptr
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        let Some(total) = count.checked_mul(size) else {
            return self.refuse();
        };
        if !self.admit(total) {
            return std::ptr::null_mut();
        }
        let ptr = unsafe { mi::mi_calloc(count, size) }.cast::<u8>();
        if ptr.is_null() {
            return self.refuse();
        }
        let usable = unsafe { mi::mi_usable_size(ptr.cast()) };
        self.count(self.used + usable);
        ptr
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        if ptr.is_null() {
            return;
        }
        let usable = unsafe { mi::mi_usable_size(ptr.cast()) };
        self.count(self.used - usable);
        unsafe { mi::mi_free(ptr.cast()) };
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        if ptr.is_null() {
            return self.alloc(new_size);
        }
        let old = unsafe { mi::mi_usable_size(ptr.cast()) };
        if new_size > old && !self.admit(new_size - old) {
            return std::ptr::null_mut();
        }
        let new = unsafe { mi::mi_realloc(ptr.cast(), new_size) }.cast::<u8>();
        if new.is_null() {
            return self.refuse();
        }
        let usable = unsafe { mi::mi_usable_size(new.cast()) };
        self.count(self.used - old + usable);
        new
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        unsafe { mi::mi_usable_size(ptr.cast()) }
    }
}

/// Why the interrupt handler stopped the program.
pub(crate) struct Interrupts {
    pub(crate) trip: Arc<Tripwires>,
    pub(crate) deadline: CancellationToken,
    pub(crate) cancel: CancellationToken,
    /// The run's CPU budget, measured in its steps.
    pub(crate) budget: Arc<RunBudget>,
}

impl Interrupts {
    /// Why the run must stop, if it must: memory first (the heap is gone
    /// whatever else happened), then the deadline or the CPU budget (both
    /// `timeout`; the report tells them apart), then cancellation. The one
    /// place a run's stop reason is read.
    pub(crate) fn reason(&self) -> Option<FailureKind> {
        if self.trip.out_of_memory.load(Ordering::Acquire) {
            Some(FailureKind::Memory)
        } else if self.deadline.is_cancelled() || self.budget.cpu_spent() {
            Some(FailureKind::Timeout)
        } else if self.cancel.is_cancelled() {
            Some(FailureKind::Cancelled)
        } else {
            None
        }
    }

    /// Whether the run must stop (what the interrupt handler asks, on the
    /// run's thread in one of its steps).
    pub(crate) fn should_stop(&self) -> bool {
        self.trip.out_of_memory.load(Ordering::Acquire)
            || self.deadline.is_cancelled()
            || self.cancel.is_cancelled()
            || self.budget.spent_in_stretch()
    }
}

/// How often QuickJS asks the interrupt handler. It asks once per 10,000
/// polls (a call, a loop turn), which is often enough while each poll is
/// quick; but a loop whose every turn is long native work (sorting a typed
/// array in place, a search over a large array: no allocation to refuse)
/// would be asked hours past its deadline. The poller keeps the countdown
/// short while polls are slow and long while they are fast, so the handler
/// is asked about once a millisecond at most. Polls that turn slow after
/// fast ones are noticed only at the end of a long countdown (up to 10,000
/// slow turns): the deadline and the CPU budget cut it short from outside
/// ([`Tripwires::ask_soon`]) when they are due.
///
/// QuickJS has no API for the countdown: it lives in `JSContext` at
/// [`COUNTER_OFFSET`] (quickjs-ng 0.10.1, 16-byte values). The field holds
/// exactly 10,000 whenever the handler is called; the poller writes only
/// when it finds that value there, so a different layout leaves QuickJS's
/// own behaviour untouched.
pub(crate) struct Poller {
    interrupts: Arc<Interrupts>,
    /// The context's countdown, when this target's layout is the known one.
    countdown: Option<usize>,
    last: std::time::Instant,
    every: i32,
}

/// Offset of `interrupt_counter` in quickjs-ng 0.10.1's `JSContext`.
const COUNTER_OFFSET: usize = 504;
/// `JS_INTERRUPT_COUNTER_INIT`: the countdown as the handler finds it.
const COUNTER_INIT: i32 = 10_000;
/// Polls slower than this in total ask again at the next poll.
const SLOW_POLLS: std::time::Duration = std::time::Duration::from_millis(1);
/// Polls faster than this in total ask half as often next time.
const FAST_POLLS: std::time::Duration = std::time::Duration::from_micros(100);

impl Poller {
    pub(crate) fn new(interrupts: Arc<Interrupts>, ctx: &Ctx<'_>) -> Self {
        let known_layout =
            cfg!(target_pointer_width = "64") && std::mem::size_of::<qjs::JSValue>() == 16;
        let countdown = known_layout.then(|| ctx.as_raw().as_ptr() as usize + COUNTER_OFFSET);
        if let Some(address) = countdown {
            interrupts.trip.countdown.store(address, Ordering::Release);
        }
        Self {
            interrupts,
            countdown,
            last: std::time::Instant::now(),
            every: 1,
        }
    }

    /// The interrupt handler: whether to stop, and the next countdown.
    pub(crate) fn poll(&mut self) -> bool {
        if let Some(address) = self.countdown {
            let countdown = address as *mut i32;
            // SAFETY: the address lies inside the live `JSContext` this run
            // owns (the handler is only called while it runs, on its thread,
            // from QuickJS's own poll); it is read and written only when it
            // holds the value QuickJS just stored there.
            if unsafe { countdown.read() } == COUNTER_INIT {
                let now = std::time::Instant::now();
                let took = now - self.last;
                self.last = now;
                self.every = if took > SLOW_POLLS {
                    1
                } else if took < FAST_POLLS {
                    self.every.saturating_mul(2).min(COUNTER_INIT)
                } else {
                    self.every
                };
                unsafe { countdown.write(self.every) };
            }
        }
        let stop = self.interrupts.should_stop();
        if stop {
            // Before QuickJS allocates the error that stops the program.
            self.interrupts.trip.stopping.store(true, Ordering::Release);
        }
        stop
    }
}

/// A fresh, never-used runtime and context with the run's limits, and the
/// flags its allocator raises. Built ahead of need (see the warm pool in
/// the engine); a run installs its interrupt handler when it takes one.
pub(crate) struct Sandbox {
    // Field order matters: the context must go before its runtime.
    pub(crate) context: Context,
    pub(crate) runtime: Runtime,
    pub(crate) trip: Arc<Tripwires>,
}

/// mimalloc v3's `mi_option_arena_eager_commit` (the crate names no constant).
const MI_OPTION_ARENA_EAGER_COMMIT: mi::mi_option_t = 4;

/// Commit mimalloc's arenas as they fill rather than in large steps up front:
/// 100 waiting runs hold 0.16 MiB each instead of 0.21 (W6), at no cost
/// measurable in W1 or W7. Process-wide, set before the first sandbox.
fn tune_allocator() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: setting an option is thread-safe in mimalloc; the value is one
    // the option documents (0: commit on demand).
    ONCE.call_once(|| unsafe { mi::mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0) });
}

/// QuickJS's first cycle collection comes when its heap passes 256 KiB,
/// and each later one at half as much again as survived the last: a program
/// building a large result (W4's 10,000 rows) ran a dozen collections, each
/// walking everything it had built so far.
const QUICKJS_GC_THRESHOLD: usize = 256 << 10;

/// The heap at which a run's first cycle collection comes: a quarter of its
/// limit (never below QuickJS's own threshold). Reference counting frees
/// everything but cycles at once, so only cyclic garbage waits for it, and
/// the heap it waits in stays under a quarter of the limit: a run that
/// keeps less than that never collects, and the rest of the limit stays
/// for what the program keeps. After a collection QuickJS sets its own next
/// threshold (half again as much as survived), as before.
fn gc_threshold(heap_limit: usize) -> usize {
    (heap_limit / 4).max(QUICKJS_GC_THRESHOLD)
}

/// Fixes `Error.prepareStackTrace` at `undefined` and `Error.stackTraceLimit`
/// at its default, before any program runs (their accessors and setters
/// gone). QuickJS-ng calls a function stored in `prepareStackTrace` with the
/// frames of every stack it builds, and a frame's `getFunction()` is its
/// function: the prelude's own (which settle runs) would be in the
/// program's hands. It converts a `stackTraceLimit` object with `valueOf`
/// at every stack it builds, the engine's own caught errors included: a
/// program could count those.
fn close_stack_hook(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
    use rquickjs::Object;
    use rquickjs::object::Property;
    let error: Object = ctx.globals().get("Error")?;
    let limit: Value = error.get("stackTraceLimit")?;
    // No flags: neither writable, enumerable nor configurable.
    error.prop("prepareStackTrace", Property::from(rquickjs::Undefined))?;
    error.prop("stackTraceLimit", Property::from(limit))
}

impl Sandbox {
    pub(crate) fn new(
        heap_limit: usize,
        stack_limit: usize,
        intrinsics: Intrinsics,
    ) -> rquickjs::Result<Self> {
        tune_allocator();
        let trip = Arc::new(Tripwires::new(heap_limit));
        let allocator = CappedAllocator {
            used: 0,
            trip: Arc::clone(&trip),
        };
        // No QuickJS memory limit: it counts differently (8 bytes more per
        // allocation) and would refuse first without raising the flag, so a
        // bomb of small objects ended as a catchable `null` instead of
        // `memory`. The allocator is the one limit.
        let runtime = Runtime::new_with_alloc(allocator)?;
        runtime.set_max_stack_size(stack_limit);
        runtime.set_gc_threshold(gc_threshold(heap_limit));
        let context = intrinsics.context(&runtime)?;
        context.with(|ctx| {
            close_stack_hook(&ctx)?;
            super::guards::install(&ctx)
        })?;
        Ok(Self {
            context,
            runtime,
            trip,
        })
    }
}

/// Evaluates a global script under a file name of our choosing, so stack
/// frames of the model's code can be told apart from the prelude's.
pub(crate) fn eval_named<'js>(
    ctx: &Ctx<'js>,
    source: &str,
    file_name: &std::ffi::CStr,
) -> rquickjs::Result<Value<'js>> {
    let src = CString::new(source)?;
    // SAFETY: `src` is NUL-terminated and outlives the call; the returned
    // value is owned and handed to rquickjs, which frees it.
    unsafe {
        let raw = qjs::JS_Eval(
            ctx.as_raw().as_ptr(),
            src.as_ptr(),
            source.len() as _,
            file_name.as_ptr(),
            qjs::JS_EVAL_TYPE_GLOBAL as i32,
        );
        returned(ctx, raw)
    }
}

/// What a QuickJS call returned, or the exception it threw. `JS_EXCEPTION`
/// is a tag, not an object: `Value::type_of` calls it `Unknown` (its
/// `Exception` is an `Error` object), so the tag itself is tested.
///
/// # Safety
/// `raw` is an owned value of `ctx`'s runtime, handed over.
unsafe fn returned<'js>(ctx: &Ctx<'js>, raw: qjs::JSValue) -> rquickjs::Result<Value<'js>> {
    // SAFETY: the caller hands `raw` over; the exception tag owns nothing.
    unsafe {
        if qjs::JS_IsException(raw) {
            Err(rquickjs::Error::Exception)
        } else {
            Ok(Value::from_raw(ctx.clone(), raw))
        }
    }
}

/// A script compiled once to QuickJS bytecode, evaluated per run without
/// parsing (the prelude and the console formatter are on every run's path).
pub(crate) struct Bytecode {
    bytes: Vec<u8>,
}

impl Bytecode {
    /// Compiles `source` as a global script in a throwaway runtime.
    pub(crate) fn compile(source: &str, file_name: &std::ffi::CStr) -> rquickjs::Result<Self> {
        let runtime = Runtime::new()?;
        let context = Context::full(&runtime)?;
        context.with(|ctx| {
            let src = CString::new(source)?;
            // SAFETY: `src` is NUL-terminated; every value we create is freed
            // before the context goes; the written buffer is copied and freed
            // with the context's allocator.
            unsafe {
                let raw_ctx = ctx.as_raw().as_ptr();
                let function = qjs::JS_Eval(
                    raw_ctx,
                    src.as_ptr(),
                    source.len() as _,
                    file_name.as_ptr(),
                    (qjs::JS_EVAL_TYPE_GLOBAL | qjs::JS_EVAL_FLAG_COMPILE_ONLY) as i32,
                );
                let function = returned(&ctx, function)?;
                let mut size = 0;
                let buf = qjs::JS_WriteObject(
                    raw_ctx,
                    &mut size,
                    function.as_raw(),
                    qjs::JS_WRITE_OBJ_BYTECODE as i32,
                );
                if buf.is_null() {
                    return Err(rquickjs::Error::Exception);
                }
                let bytes = std::slice::from_raw_parts(buf, size as usize).to_vec();
                qjs::js_free(raw_ctx, buf.cast());
                Ok(Self { bytes })
            }
        })
    }

    /// Evaluates the compiled script in `ctx`, returning its completion value.
    pub(crate) fn eval<'js>(&self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        // SAFETY: the bytes were written by this same QuickJS build; the read
        // object is consumed by JS_EvalFunction; results are owned values.
        unsafe {
            let raw_ctx = ctx.as_raw().as_ptr();
            let function = qjs::JS_ReadObject(
                raw_ctx,
                self.bytes.as_ptr(),
                self.bytes.len() as _,
                qjs::JS_READ_OBJ_BYTECODE as i32,
            );
            if qjs::JS_VALUE_GET_TAG(function) == qjs::JS_TAG_EXCEPTION {
                return Err(rquickjs::Error::Exception);
            }
            returned(ctx, qjs::JS_EvalFunction(raw_ctx, function))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pins what [`Poller`] relies on: inside the interrupt handler, the
    /// context's countdown sits at [`COUNTER_OFFSET`] holding 10,000. An
    /// rquickjs or QuickJS upgrade that moves it fails here (the poller
    /// itself would then leave QuickJS alone).
    #[test]
    fn the_countdown_is_where_the_poller_looks() {
        let runtime = Runtime::new().unwrap();
        let context = Context::full(&runtime).unwrap();
        let address = context.with(|ctx| ctx.as_raw().as_ptr() as usize + COUNTER_OFFSET);
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        runtime.set_interrupt_handler(Some(Box::new(move || {
            // SAFETY: inside the live context, read on its own thread.
            record
                .lock()
                .unwrap()
                .push(unsafe { (address as *const i32).read() });
            false
        })));
        context.with(|ctx| {
            let _: i32 = ctx
                .eval("let n = 0; for (let i = 0; i < 30000; i++) n++; n")
                .unwrap();
        });
        let seen = seen.lock().unwrap();
        assert!(seen.len() >= 3, "{seen:?}");
        assert!(seen.iter().all(|&v| v == COUNTER_INIT), "{seen:?}");
    }

    /// The reserve opens only once the handler has said stop, holds exactly
    /// [`STOPPING_RESERVE`] past the limit, and is the heap's alone: host
    /// charges neither take it nor shrink it.
    #[test]
    fn the_stopping_reserve_is_the_heaps_and_bounded() {
        let trip = Tripwires::new(1000);
        assert!(!trip.fits_while_stopping(0, 1));
        trip.stopping.store(true, Ordering::Release);
        assert!(trip.fits_while_stopping(1000, STOPPING_RESERVE));
        assert!(!trip.fits_while_stopping(1000, STOPPING_RESERVE + 1));
        assert!(trip.charge(900));
        assert!(
            !trip.charge(200),
            "charges keep to the limit while stopping"
        );
        assert!(trip.fits_while_stopping(100, STOPPING_RESERVE + 900));
    }
}
