//! Which of QuickJS's intrinsics a run's context is built with.
//!
//! A full QuickJS context is most of a short run's cost and most of a
//! waiting run's memory. Some of its intrinsics can only be reached by
//! name: `Date`, `BigInt` (and its literals), the typed arrays and their
//! buffers, `Atomics`, `WeakRef`, `FinalizationRegistry`, `DOMException`,
//! `performance`. A program that never names them, and has no way to reach
//! the global object, compile code or read a property by a computed name,
//! cannot tell whether they exist; it runs in a [`Intrinsics::Lean`]
//! context without them (about a third cheaper to build and to keep). Every
//! other program gets the full set. `strip::scan` decides, lexically and
//! conservatively: any doubt means the full set.
//!
//! What a lean program can observe is the same as in a full context except
//! how much heap is left (the lean context takes less of it).

use rquickjs::context::intrinsic::{Eval, Json, MapSet, Promise, Proxy, RegExp};
use rquickjs::{Context, Runtime};

/// The intrinsics of a run's context.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Intrinsics {
    /// Everything but the intrinsics in [`LEAN_OMITS`].
    Lean,
    /// QuickJS's full set (`JS_NewContext`).
    #[default]
    Full,
}

/// The globals a lean context lacks, each reachable only by its name.
/// A test checks this is exactly the difference between the two contexts.
pub(crate) const LEAN_OMITS: [&str; 22] = [
    "Date",
    "ArrayBuffer",
    "SharedArrayBuffer",
    "Uint8ClampedArray",
    "Int8Array",
    "Uint8Array",
    "Int16Array",
    "Uint16Array",
    "Int32Array",
    "Uint32Array",
    "BigInt64Array",
    "BigUint64Array",
    "Float16Array",
    "Float32Array",
    "Float64Array",
    "DataView",
    "Atomics",
    "BigInt",
    "WeakRef",
    "FinalizationRegistry",
    "DOMException",
    "performance",
];

/// Names through which a program could see the global object, compile code
/// at run time, or read a property by a name it computes: a program that
/// writes any of them runs with the full set.
const ESCAPES: [&str; 22] = [
    "globalThis",
    "this",
    "eval",
    "Function",
    "constructor",
    "Reflect",
    "getOwnPropertyDescriptor",
    "getOwnPropertyDescriptors",
    "__lookupGetter__",
    "__lookupSetter__",
    "prepareStackTrace",
    "caller",
    "super",
    "Proxy",
    "defineProperty",
    "defineProperties",
    "__defineGetter__",
    "__defineSetter__",
    "__proto__",
    "setPrototypeOf",
    "create",
    // `Object.assign` writes with keys made from data: `__proto__` too.
    "assign",
];

/// Whether `word` (a run of ASCII letters, digits, `_` and `$`) names an
/// omitted intrinsic or an escape.
pub(crate) fn is_telltale(word: &[u8]) -> bool {
    // Every telltale is 4 to 25 bytes long; most words are not.
    (4..=25).contains(&word.len())
        && LEAN_OMITS
            .iter()
            .chain(ESCAPES.iter())
            .any(|name| name.as_bytes() == word)
}

impl Intrinsics {
    /// A new context on `runtime` with these intrinsics, in QuickJS's own
    /// order (a lean context's globals are the full one's, in order, minus
    /// [`LEAN_OMITS`]).
    pub(crate) fn context(self, runtime: &Runtime) -> rquickjs::Result<Context> {
        match self {
            Self::Full => Context::full(runtime),
            Self::Lean => Context::custom::<(Eval, RegExp, Json, Proxy, MapSet, Promise)>(runtime),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The global names of a context, in order.
    fn global_names(intrinsics: Intrinsics) -> Vec<String> {
        let runtime = Runtime::new().unwrap();
        let context = intrinsics.context(&runtime).unwrap();
        context.with(|ctx| {
            ctx.eval::<Vec<String>, _>("Object.getOwnPropertyNames(globalThis)")
                .unwrap()
        })
    }

    #[test]
    fn a_lean_context_lacks_exactly_the_omitted_globals_in_the_same_order() {
        let full = global_names(Intrinsics::Full);
        let lean = global_names(Intrinsics::Lean);
        let kept: Vec<&String> = full
            .iter()
            .filter(|name| !LEAN_OMITS.contains(&name.as_str()))
            .collect();
        assert_eq!(lean.iter().collect::<Vec<_>>(), kept);
        for name in LEAN_OMITS {
            assert!(full.iter().any(|n| n == name), "{name} is a full global");
        }
    }

    /// Every property reachable from the globals a lean context keeps
    /// (own keys, prototypes, accessors, recursively), as `path kind flags`
    /// lines: the omitted intrinsics must add nothing to the shared ones.
    const REACHABLE: &str = r#"
        (() => {
          const omitted = new Set(OMITTED);
          const seen = new Map();
          const lines = [];
          const walk = (value, path) => {
            if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return;
            if (seen.has(value)) { lines.push(path + ' = ' + seen.get(value)); return; }
            seen.set(value, path);
            lines.push(path + ' : ' + typeof value);
            const proto = Object.getPrototypeOf(value);
            walk(proto, path + '.[[Prototype]]');
            for (const key of Reflect.ownKeys(value)) {
              if (value === globalThis && omitted.has(key)) continue;
              const name = path + '.' + String(key);
              const d = Object.getOwnPropertyDescriptor(value, key);
              lines.push(name + ' ' + ('value' in d ? 'data' : 'accessor') + ' '
                + d.writable + d.enumerable + d.configurable);
              if ('value' in d) walk(d.value, name);
              else { walk(d.get, name + '.get'); walk(d.set, name + '.set'); }
            }
          };
          walk(globalThis, 'globalThis');
          return lines.join('\n');
        })()
    "#;

    fn reachable(intrinsics: Intrinsics) -> String {
        let runtime = Runtime::new().unwrap();
        let context = intrinsics.context(&runtime).unwrap();
        let omitted = format!("{:?}", LEAN_OMITS);
        context.with(|ctx| {
            ctx.eval::<String, _>(REACHABLE.replace("OMITTED", &omitted))
                .unwrap()
        })
    }

    #[test]
    fn the_omitted_intrinsics_change_nothing_reachable_from_the_rest() {
        let full = reachable(Intrinsics::Full);
        let lean = reachable(Intrinsics::Lean);
        assert!(
            full.lines().count() > 1_000,
            "the walk reaches the builtins"
        );
        if full != lean {
            let lean_lines: std::collections::HashSet<&str> = lean.lines().collect();
            let full_lines: std::collections::HashSet<&str> = full.lines().collect();
            let only_full: Vec<_> = full.lines().filter(|l| !lean_lines.contains(l)).collect();
            let only_lean: Vec<_> = lean.lines().filter(|l| !full_lines.contains(l)).collect();
            panic!("only in full: {only_full:#?}\nonly in lean: {only_lean:#?}");
        }
    }

    #[test]
    fn telltales_are_whole_words() {
        assert!(is_telltale(b"Date"));
        assert!(is_telltale(b"globalThis"));
        assert!(is_telltale(b"constructor"));
        assert!(!is_telltale(b"date"));
        assert!(!is_telltale(b"Dates"));
        assert!(!is_telltale(b"tools"));
    }

    /// The console formatter's built-in names (Node's `builtInObjects`) are
    /// a fixed list, the same in lean and full contexts: a full context's
    /// capitalized globals and ptc's `ToolCallError`.
    #[test]
    fn the_console_knows_a_full_context_constructors_as_built_in() {
        let inspect = include_str!("js/inspect.js");
        let start = inspect.find("BUILT_IN_NAMES = [").unwrap();
        let list = &inspect[start..start + inspect[start..].find("];").unwrap()];
        let listed: Vec<&str> = list.split('\'').skip(1).step_by(2).collect();
        let runtime = Runtime::new().unwrap();
        let context = Intrinsics::Full.context(&runtime).unwrap();
        let mut expected: Vec<String> = context.with(|ctx| {
            ctx.eval(
                "Object.getOwnPropertyNames(globalThis).filter(n => /^[A-Z][a-zA-Z0-9]+$/.test(n))",
            )
            .unwrap()
        });
        expected.push("ToolCallError".to_owned());
        assert_eq!(listed, expected);
    }
}
