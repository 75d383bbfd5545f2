//! The builtins the console formatter uses, taken when a sandbox is built.
//!
//! The formatter (`js/inspect.js`) is big, so it loads only at a program's
//! first console call, after the program may have replaced any builtin.
//! `js/primordials.js` takes the originals first, in every fresh context;
//! the formatter loads from them, so it never calls what the program put in
//! their place (and loads alike in lean and full contexts: `intrinsics`).

use std::sync::OnceLock;

use rquickjs::{Ctx, JsLifetime, Value};

use super::sandbox::Bytecode;

const PRIMORDIALS: &str = include_str!("js/primordials.js");

/// The originals of one context, out of the program's reach.
struct Primordials<'js>(Value<'js>);

// SAFETY: `Primordials` holds only a value of lifetime 'js.
unsafe impl<'js> JsLifetime<'js> for Primordials<'js> {
    type Changed<'to> = Primordials<'to>;
}

/// Takes the originals in a fresh context (before any program runs).
pub(crate) fn take(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
    static CODE: OnceLock<Option<Bytecode>> = OnceLock::new();
    let code = CODE.get_or_init(|| Bytecode::compile(PRIMORDIALS, c"primordials.js").ok());
    let originals = match code {
        Some(code) => code.eval(ctx)?,
        None => ctx.eval(PRIMORDIALS)?,
    };
    ctx.store_userdata(Primordials(originals))
        .map_err(|_| rquickjs::Error::Unknown)?;
    Ok(())
}

/// The originals taken in `ctx` (`undefined` if none were).
pub(crate) fn get<'js>(ctx: &Ctx<'js>) -> Value<'js> {
    match ctx.userdata::<Primordials>() {
        Some(primordials) => primordials.0.clone(),
        None => Value::new_undefined(ctx.clone()),
    }
}
