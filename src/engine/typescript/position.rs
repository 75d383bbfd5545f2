//! Where a runtime error happened, as exactly as the code allows.
//!
//! QuickJS records source positions only at calls, `new`, `throw`, binary
//! operators and expression statements; an error in anything else (a
//! property read in `return x.length`, a `const` initializer, an `if`
//! condition) carries the last position recorded before it, often the start
//! of the function. For the errors that name what failed (a property of
//! `undefined`/`null`, an undefined variable), the failing place is the
//! first token after that position that matches the name: the lexer finds
//! it in the script, so strings, comments and templates never match.

use swc_common::BytePos;
use swc_common::input::StringInput;
use swc_ecma_parser::unstable::Token;
use swc_ecma_parser::{EsSyntax, Lexer, Syntax};

/// What a QuickJS error message says failed.
#[derive(Debug, PartialEq, Eq)]
enum Failed<'m> {
    /// `cannot read property 'p' of undefined` (or set, or `null`).
    Property(&'m str),
    /// `ReferenceError: x is not defined`.
    Variable(&'m str),
    /// `TypeError: value is not iterable`, which QuickJS places nowhere
    /// near the loop or spread: the failing place is what follows the
    /// first `of` or `...` after its position.
    Iterable,
    /// `TypeError: not a function`, which QuickJS places at the call's
    /// first argument when that is a function (`xs.map(e => …)`): the
    /// failing place is then the callee's last name, before the `(`.
    Call,
}

fn failed(message: &str) -> Option<Failed<'_>> {
    for verb in [
        "TypeError: cannot read property '",
        "TypeError: cannot set property '",
    ] {
        if let Some(rest) = message.strip_prefix(verb) {
            let end = rest.rfind("' of ")?;
            return Some(Failed::Property(&rest[..end]));
        }
    }
    if message == "TypeError: not a function" {
        return Some(Failed::Call);
    }
    if message.starts_with("TypeError: ") && message.ends_with(" is not iterable") {
        return Some(Failed::Iterable);
    }
    let name = message
        .strip_prefix("ReferenceError: ")?
        .strip_suffix(" is not defined")?;
    Some(Failed::Variable(name))
}

/// The position (1-based line and column in `script`) of what `message`
/// says failed, searching from QuickJS's position `from`; `None` when the
/// message names nothing or nothing matches (QuickJS's position stands).
pub(crate) fn refine(script: &str, from: (u32, u32), message: &str) -> Option<(u32, u32)> {
    let failed = failed(message)?;
    let start = offset(script, from)?;
    // swc asserts its own invariants; should one fail, QuickJS's position stands.
    std::panic::catch_unwind(|| match failed {
        Failed::Call => callee_before(script, start),
        failed => find(script, start, &failed),
    })
    .ok()?
}

/// For a `not a function` placed at `start`: when that is the start of a
/// call's arguments and not itself called (`map(e => …)`, `map((a) => …)`,
/// `f()`), the name (or the `)`, `]`) just before the `(`.
fn callee_before(script: &str, start: usize) -> Option<(u32, u32)> {
    let text = |lo: BytePos, hi: BytePos| script.get(lo.0 as usize - 1..hi.0 as usize - 1);
    let tokens: Vec<(usize, &str)> = lexer(script)
        .map_while(|t| Some((t.span.lo.0 as usize - 1, text(t.span.lo, t.span.hi)?)))
        .collect();
    let at = tokens.iter().position(|(offset, _)| *offset >= start)?;
    let name = |t: &str| t.chars().all(super::excerpt::is_name_char) && !t.is_empty();
    let called = name(tokens[at].1) && tokens.get(at + 1).is_some_and(|(_, t)| *t == "(");
    let (callee, open) = (tokens.get(at.checked_sub(2)?)?, tokens[at - 1]);
    (open.1 == "(" && !called && (name(callee.1) || matches!(callee.1, ")" | "]")))
        .then(|| line_column(script, callee.0))
}

/// swc's lexer over a stripped script. Byte positions start at 1 (0 is
/// swc's dummy position): a token's text is `script[lo - 1..hi - 1]`.
pub(crate) fn lexer(script: &str) -> Lexer<'_> {
    let input = StringInput::new(script, BytePos(1), BytePos(1 + script.len() as u32));
    Lexer::new(
        Syntax::Es(EsSyntax::default()),
        Default::default(),
        input,
        None,
    )
}

fn find(script: &str, start: usize, failed: &Failed<'_>) -> Option<(u32, u32)> {
    let lexer = lexer(script);
    let text = |lo: BytePos, hi: BytePos| script.get(lo.0 as usize - 1..hi.0 as usize - 1);
    let (mut after_dot, mut after_iteration) = (false, false);
    // Parentheses open since a `for`: its `of` is at depth 1.
    let mut for_head: Option<usize> = None;
    for token in lexer {
        let (lo, hi) = (token.span.lo, token.span.hi);
        let at = lo.0 as usize - 1;
        if at >= start {
            let hit = match *failed {
                Failed::Property(name) => after_dot && text(lo, hi) == Some(name),
                Failed::Variable(name) => !after_dot && text(lo, hi) == Some(name),
                Failed::Iterable => after_iteration,
                Failed::Call => false,
            };
            if hit {
                return Some(line_column(script, at));
            }
        }
        after_dot = matches!(token.token, Token::Dot | Token::OptionalChain);
        let of_loop = token.token == Token::Of && for_head == Some(1);
        after_iteration = at >= start && (of_loop || token.token == Token::DotDotDot);
        for_head = match (token.token, for_head) {
            (Token::For, _) => Some(0),
            (Token::LParen, Some(depth)) => Some(depth + 1),
            (Token::RParen, Some(1)) => None,
            (Token::RParen, Some(depth)) => Some(depth - 1),
            (_, depth) => depth,
        };
    }
    None
}

/// The byte offset of a 1-based line and column (columns count UTF-16
/// units, as QuickJS's do).
fn offset(script: &str, (line, column): (u32, u32)) -> Option<usize> {
    let mut start = 0;
    for _ in 1..line {
        start += script[start..].find('\n')? + 1;
    }
    let mut units = 1;
    for (i, c) in script[start..].char_indices() {
        if units >= column as usize || c == '\n' {
            return Some(start + i);
        }
        units += c.len_utf16();
    }
    Some(script.len())
}

fn line_column(script: &str, at: usize) -> (u32, u32) {
    let before = &script[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column: usize = before[line_start..]
        .chars()
        .map(char::len_utf16)
        .sum::<usize>()
        + 1;
    (line as u32, column as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_that_name_what_failed() {
        assert_eq!(
            failed("TypeError: cannot read property 'length' of undefined"),
            Some(Failed::Property("length"))
        );
        assert_eq!(
            failed("TypeError: cannot set property 'y' of null"),
            Some(Failed::Property("y"))
        );
        assert_eq!(
            failed("ReferenceError: foo is not defined"),
            Some(Failed::Variable("foo"))
        );
        assert_eq!(
            failed("TypeError: value is not iterable"),
            Some(Failed::Iterable)
        );
        assert_eq!(failed("TypeError: not a function"), Some(Failed::Call));
    }

    #[test]
    fn a_value_not_iterable_is_what_follows_the_next_of_or_spread() {
        let message = "TypeError: value is not iterable";
        let script = "const r = 1;\nconst o = { of: 1 };\nfor (const x of o) {}";
        assert_eq!(refine(script, (1, 1), message), Some((3, 17)));
        assert_eq!(
            refine("f(1)\nconst a = [...o]", (1, 1), message),
            Some((2, 15))
        );
        // Before QuickJS's position, nothing is searched.
        assert_eq!(refine("for (const x of o) {}\ng()", (2, 1), message), None);
    }

    #[test]
    fn finds_the_first_match_after_the_recorded_position() {
        let script = "f()\nconst s = 'x.length'; // x.length\nreturn x.length";
        assert_eq!(
            refine(
                script,
                (1, 1),
                "TypeError: cannot read property 'length' of undefined"
            ),
            Some((3, 10))
        );
        assert_eq!(
            refine("a.b\nlet q = b", (1, 2), "ReferenceError: b is not defined"),
            Some((2, 9))
        );
        assert_eq!(refine("x.y", (1, 1), "TypeError: not a function"), None);
        // Columns count UTF-16 units, as QuickJS's do.
        assert_eq!(
            refine(
                "'\u{1f600}'; o.p",
                (1, 1),
                "TypeError: cannot read property 'p' of null"
            ),
            Some((1, 9))
        );
    }

    #[test]
    fn a_call_placed_at_its_function_argument_is_placed_at_the_callee() {
        let message = "TypeError: not a function";
        let script = "return items.entries.map(e => e.name)";
        assert_eq!(refine(script, (1, 26), message), Some((1, 22)));
        assert_eq!(refine("xs.map((a) => a)", (1, 8), message), Some((1, 4)));
        assert_eq!(refine("f()", (1, 3), message), Some((1, 1)));
        // A name that is itself called, or not after a `(`, stands.
        assert_eq!(refine("f(g())", (1, 3), message), None);
        assert_eq!(refine("r.split('x')", (1, 3), message), None);
    }
}
