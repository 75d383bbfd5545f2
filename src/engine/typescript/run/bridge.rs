//! The bridge between the program and the run: the native functions the
//! prelude binds `tools` (with `$search` and `$describe`), `console` and the
//! timers to, and the prelude's
//! entry points, kept in the runtime where the program cannot reach them.

use std::sync::{Arc, OnceLock};

use rquickjs::function::{Func, Opt};
use rquickjs::{Array, Ctx, Function, JsLifetime, Object, Value};

use super::super::convert::{self, MAX_ARGUMENT_DEPTH};
use super::super::sandbox::Bytecode;
use super::super::text;
use super::describe::describe_error;
use super::discovery;
use super::{Finish, Shared, StartError};

const PRELUDE: &str = include_str!("../js/prelude.js");
const INSPECT: &str = include_str!("../js/inspect.js");
const RENDER: &str = include_str!("../js/render.js");
const STATE: &str = include_str!("../js/state.js");

/// The scripts a run evaluates: the prelude, and what it loads on first
/// use (the console formatter, the return-value check, `state`).
#[derive(Clone, Copy)]
enum Script {
    Prelude,
    Inspect,
    Render,
    State,
}

impl Script {
    /// What the prelude calls it (`load('render')`); anything else is `state`.
    fn named(name: &str) -> Self {
        match name {
            "inspect" => Self::Inspect,
            "render" => Self::Render,
            _ => Self::State,
        }
    }

    fn source(self) -> &'static str {
        match self {
            Self::Prelude => PRELUDE,
            Self::Inspect => INSPECT,
            Self::Render => RENDER,
            Self::State => STATE,
        }
    }

    /// Its bytecode, compiled once per process.
    fn compiled(self) -> Option<&'static Bytecode> {
        static CODE: [OnceLock<Option<Bytecode>>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        let file = match self {
            Self::Prelude => c"prelude.js",
            Self::Inspect => c"inspect.js",
            Self::Render => c"render.js",
            Self::State => c"state.js",
        };
        CODE[self as usize]
            .get_or_init(|| Bytecode::compile(self.source(), file).ok())
            .as_ref()
    }

    /// Evaluates it in `ctx`: its bytecode, or its source should that not
    /// have compiled.
    fn eval<'js>(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        match self.compiled() {
            Some(code) => code.eval(ctx),
            None => ctx.eval(self.source()),
        }
    }
}

/// The prelude's entry points, and the rejected promises nothing handled
/// (kept alive, so the address that names one is never reused in the run).
/// Held by the runtime, out of the program's reach: a program that could
/// call `settle` would forge its own tool results.
pub(super) struct Bridge<'js> {
    host: Object<'js>,
    /// `[promise, reason]` pairs, flat, by slot (see `Rejections`).
    pub(super) unhandled: Array<'js>,
    /// The realm's `Object.prototype`, for reading each sub-call's arguments.
    pub(super) object_proto: Object<'js>,
}

// SAFETY: `Bridge` holds only values of lifetime 'js, renamed as a whole.
unsafe impl<'js> JsLifetime<'js> for Bridge<'js> {
    type Changed<'to> = Bridge<'to>;
}

impl<'js> Bridge<'js> {
    /// Keeps a rejected promise and its reason alive in `slot` (letting go
    /// of what the slot held); `false` if that failed (out of memory).
    pub(super) fn keep(
        &self,
        ctx: &Ctx<'js>,
        slot: u32,
        promise: Value<'js>,
        reason: &Value<'js>,
    ) -> bool {
        let raw = ctx.as_raw().as_ptr();
        let flags = rquickjs::qjs::JS_PROP_C_W_E as i32;
        // A definition (not a `set`): no setter of the program's can run.
        // SAFETY: the array and both values belong to `ctx`; each define
        // takes the reference it is given.
        let kept = [(slot * 2, promise.clone()), (slot * 2 + 1, reason.clone())]
            .into_iter()
            .all(|(index, value)| unsafe {
                let value = rquickjs::qjs::JS_DupValue(raw, value.as_raw());
                rquickjs::qjs::JS_DefinePropertyValueUint32(
                    raw,
                    self.unhandled.as_raw(),
                    index,
                    value,
                    flags,
                ) >= 0
            });
        if !kept {
            let _ = ctx.catch();
        }
        kept
    }
}

/// The prelude's entry points of the run in `ctx`.
pub(super) fn host<'js>(ctx: &Ctx<'js>) -> Option<Object<'js>> {
    ctx.userdata::<Bridge>().map(|bridge| bridge.host.clone())
}

/// Binds the native functions of the run `shared` into `ctx`, runs the
/// prelude with them and keeps its entry points in the bridge. Returns the
/// entry points (`start`, `settle`, `fire`).
pub(super) fn install<'js>(
    ctx: &Ctx<'js>,
    shared: &Arc<Shared>,
) -> Result<Object<'js>, StartError> {
    let internal = |e: rquickjs::Error| StartError::Sandbox(describe_error(ctx, e).0);
    let native = natives(ctx, shared).map_err(internal)?;
    let prelude: Function = Script::Prelude
        .eval(ctx)
        .and_then(|v| v.get())
        .map_err(internal)?;
    let host: Object = prelude.call((native,)).map_err(internal)?;
    let object_proto = convert::object_prototype(ctx)
        .ok_or_else(|| StartError::Sandbox("no Object.prototype".into()))?;
    let bridge = Bridge {
        host: host.clone(),
        unhandled: Array::new(ctx.clone()).map_err(internal)?,
        object_proto,
    };
    if ctx.store_userdata(bridge).is_err() {
        return Err(StartError::Sandbox("the sandbox bridge is in use".into()));
    }
    Ok(host)
}

/// The object of native functions the prelude is called with.
fn natives<'js>(ctx: &Ctx<'js>, shared: &Arc<Shared>) -> rquickjs::Result<Object<'js>> {
    let native = Object::new(ctx.clone())?;
    let s = Arc::clone(shared);
    let submit = move |name: Value<'_>, args: Value<'_>| s.submit(&name, &args);
    native.set("submit", Func::from(submit))?;
    let s = Arc::clone(shared);
    let state = move |op: i32, key: Value<'js>, value: Opt<Value<'js>>| {
        let value = value
            .0
            .unwrap_or_else(|| Value::new_undefined(key.ctx().clone()));
        s.state_call(op, &key, &value)
    };
    native.set("state", Func::from(state))?;
    let s = Arc::clone(shared);
    let log = move |level: i32, text: Value<'_>| s.log(level, &text);
    native.set("log", Func::from(log))?;
    let s = Arc::clone(shared);
    native.set("setTimer", Func::from(move |delay: f64| s.set_timer(delay)))?;
    let s = Arc::clone(shared);
    native.set("clearTimer", Func::from(move |id: u32| s.clear_timer(id)))?;
    let s = Arc::clone(shared);
    let finish = move |ok: bool, text: Value<'_>, stack: Value<'_>| {
        let text = text::of_string(&text);
        let stack = text::of_string(&stack).unwrap_or_default();
        s.finished(Finish { ok, text, stack });
    };
    native.set("finish", Func::from(finish))?;
    // Discovery answers from the run's side: no sub-call, event or policy.
    let s = Arc::clone(shared);
    let search = move |ctx: Ctx<'js>, query: Value<'js>, options: Opt<Value<'js>>| {
        discovery::search(&ctx, &s.setup.scope, &query, options)
    };
    native.set("search", Func::from(search))?;
    let s = Arc::clone(shared);
    let describe =
        move |ctx: Ctx<'js>, names: Value<'js>| discovery::describe(&ctx, &s.setup.scope, &names);
    native.set("describe", Func::from(describe))?;
    native.set("maxDepth", MAX_ARGUMENT_DEPTH)?;
    native.set("load", Func::from(load_script))?;
    Ok(native)
}

/// `load(name)` from the prelude: a script it loads on first use,
/// evaluated in the current context.
fn load_script<'js>(ctx: Ctx<'js>, name: rquickjs::String<'js>) -> rquickjs::Result<Value<'js>> {
    Script::named(&name.to_string()?).eval(&ctx)
}
