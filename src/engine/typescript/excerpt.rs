//! The model's line under a runtime error, with a caret under what failed
//! (contracts §7), and the expression QuickJS's message leaves unnamed
//! (`not a function`, a property of `undefined`): read from the code only
//! once a run has failed.

/// How many characters of a long line are shown around the failing place.
const WINDOW: usize = 100;

/// ```text
///   3 | o.split("\n")
///     |   ^^^^^
/// ```
/// for the 1-based `line` and `column` (in UTF-16 units) of `code`; none
/// when the position is outside the code.
pub(crate) fn excerpt(code: &str, (line, column): (u32, u32)) -> Option<String> {
    let text = code
        .lines()
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let chars: Vec<char> = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let at = char_index(text, column)?.min(chars.len());
    let width = name_at(&chars, at)
        .map_or(1, |(start, end)| end - start.max(at))
        .max(1);
    // A long line is shown as a window around the failing place.
    let from = at
        .saturating_sub(WINDOW / 2)
        .min(chars.len().saturating_sub(WINDOW));
    let to = (from + WINDOW).min(chars.len());
    let mut shown: String = chars[from..to].iter().collect();
    let mut pad = at - from;
    if from > 0 {
        shown.insert(0, '…');
        pad += 1;
    }
    if to < chars.len() {
        shown.push('…');
    }
    let gutter = line.to_string();
    Some(format!(
        "{:>w$} | {}\n{:>w$} | {}{}",
        gutter,
        shown.trim_end(),
        "",
        " ".repeat(pad),
        "^".repeat(width.min(to - at.min(to)).max(1)),
        w = gutter.len() + 2,
    ))
}

/// QuickJS's `message`, naming what the code at `at` failed on: what was
/// called for `not a function`, the expression that was `undefined` or
/// `null` for a property read or write; none when it names nothing more.
pub(crate) fn named(code: &str, at: (u32, u32), message: &str) -> Option<String> {
    if message == "TypeError: not a function" {
        let called = callee(code, at)?;
        return Some(format!("TypeError: `{called}` is not a function"));
    }
    let (verb, rest) = ["read", "set"].iter().find_map(|verb| {
        let prefix = format!("TypeError: cannot {verb} property '");
        message.strip_prefix(&prefix).map(|rest| (*verb, rest))
    })?;
    let (property, nothing) = rest.rsplit_once("' of ")?;
    let path = callee(code, at)?;
    let object = path.strip_suffix(property)?.strip_suffix('.')?;
    (!object.is_empty()).then(|| {
        format!("TypeError: cannot {verb} property '{property}' of `{object}`, which is {nothing}")
    })
}

/// The dotted name (`o.split`, `r.items.map`, `r[0].name`, `(…).text`)
/// that ends at the name at `line`, `column`: what QuickJS's `not a
/// function` was about. A bracket or call on the way is kept when short,
/// shown as `…` inside when long; a parenthesised expression ends it.
pub(crate) fn callee(code: &str, (line, column): (u32, u32)) -> Option<String> {
    let text = code
        .lines()
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let chars: Vec<char> = text.chars().collect();
    let (_, end) = name_at(&chars, char_index(text, column)?)?;
    let mut parts: Vec<String> = Vec::new();
    let mut at = end;
    loop {
        let from = at;
        while at > 0 && (is_name_char(chars[at - 1]) || matches!(chars[at - 1], '.' | '?')) {
            at -= 1;
        }
        parts.push(chars[at..from].iter().collect());
        let connected = parts.last().is_some_and(|p| p.starts_with(['.', '[']));
        if at == 0 || !matches!(chars[at - 1], ')' | ']') || (at < from && !connected) {
            break;
        }
        let close = at - 1;
        let open = opening(&chars, close)?;
        let inner: String = chars[open + 1..close].iter().collect();
        let inner = if inner.chars().count() > GROUP_CHARS {
            "…".to_owned()
        } else {
            inner
        };
        parts.push(format!("{}{inner}{}", chars[open], chars[close]));
        at = open;
        // A parenthesised expression, not a call: nothing before it belongs.
        if chars[open] == '(' && !(open > 0 && is_name_char(chars[open - 1])) {
            break;
        }
    }
    parts.reverse();
    let path = parts.concat();
    // A base the line does not show (a literal, the line before): unnamed.
    let shown = at == 0 || !matches!(chars[at - 1], '"' | '\'' | '`' | '}');
    (shown
        && !path.starts_with(['.', '?'])
        && !path.is_empty()
        && !path.starts_with(|c: char| c.is_ascii_digit())
        && path.chars().count() <= PATH_CHARS)
        .then(|| path.to_owned())
}

/// A bracket or call's text longer than this is shown as `…`.
const GROUP_CHARS: usize = 24;
/// A path longer than this is not named.
const PATH_CHARS: usize = 120;

/// The index of the `(` or `[` that the `)` or `]` at `close` closes.
fn opening(chars: &[char], close: usize) -> Option<usize> {
    let mut depth = 0usize;
    for at in (0..=close).rev() {
        match chars[at] {
            ')' | ']' => depth += 1,
            '(' | '[' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
    }
    None
}

/// The span of the name that covers char `at` (or starts right there).
fn name_at(chars: &[char], at: usize) -> Option<(usize, usize)> {
    if !chars.get(at).copied().is_some_and(is_name_char) {
        return None;
    }
    let mut start = at;
    while start > 0 && is_name_char(chars[start - 1]) {
        start -= 1;
    }
    let mut end = at;
    while end < chars.len() && is_name_char(chars[end]) {
        end += 1;
    }
    Some((start, end))
}

/// The char index of a 1-based column counted in UTF-16 units.
fn char_index(text: &str, column: u32) -> Option<usize> {
    let mut units = 1;
    for (i, c) in text.chars().enumerate() {
        if units >= column as usize {
            return Some(i);
        }
        units += c.len_utf16();
    }
    Some(text.chars().count())
}

/// A character of a JavaScript name (as the model writes them: no escapes).
pub(super) fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// A plain JavaScript name (`r`, `$x`, `_a1`).
pub(super) fn is_ident(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(is_name_char)
}

#[cfg(test)]
mod tests {
    use super::{callee, excerpt};

    #[test]
    fn the_line_is_shown_with_a_caret_under_the_name() {
        let code = "const o = { content: 'a' }\nconst n = 1\no.split(\"\\n\")";
        assert_eq!(
            excerpt(code, (3, 3)).unwrap(),
            "  3 | o.split(\"\\n\")\n    |   ^^^^^"
        );
        assert_eq!(
            excerpt(code, (2, 11)).unwrap(),
            "  2 | const n = 1\n    |           ^"
        );
        assert_eq!(excerpt(code, (4, 1)), None);
        assert_eq!(excerpt(code, (0, 1)), None);
    }

    #[test]
    fn columns_count_utf16_units_and_long_lines_are_cut() {
        assert_eq!(
            excerpt("'\u{1f600}'; o.p", (1, 9)).unwrap(),
            "  1 | '\u{1f600}'; o.p\n    |        ^"
        );
        let long = format!("{}x.y{}", "a".repeat(300), "b".repeat(300));
        let shown = excerpt(&long, (1, 303)).unwrap();
        let (text, caret) = shown.split_once('\n').unwrap();
        assert!(text.starts_with("  1 | …") && text.ends_with('…'), "{text}");
        let y = text[..text.find("x.y").unwrap()].chars().count() + 2;
        assert_eq!(caret.find('^'), Some(y), "{shown}");
    }

    #[test]
    fn messages_name_what_failed() {
        use super::named;
        let undefined = "TypeError: cannot read property 'length' of undefined";
        assert_eq!(
            named("return r.text.length", (1, 15), undefined).as_deref(),
            Some("TypeError: cannot read property 'length' of `r.text`, which is undefined")
        );
        assert_eq!(
            named(
                "x.y = 1",
                (1, 3),
                "TypeError: cannot set property 'y' of null"
            )
            .as_deref(),
            Some("TypeError: cannot set property 'y' of `x`, which is null")
        );
        assert_eq!(
            named("o.split()", (1, 3), "TypeError: not a function").as_deref(),
            Some("TypeError: `o.split` is not a function")
        );
        assert_eq!(
            named("f()[0].length", (1, 8), undefined).as_deref(),
            Some("TypeError: cannot read property 'length' of `f()[0]`, which is undefined")
        );
        assert_eq!(
            named("(a + b).length", (1, 9), undefined).as_deref(),
            Some("TypeError: cannot read property 'length' of `(a + b)`, which is undefined")
        );
        // What the code does not show is left as QuickJS said it.
        assert_eq!(named("'x'.y.length", (1, 7), undefined), None);
        assert_eq!(named("a\n  .y.length", (2, 6), undefined), None);
        assert_eq!(named("o.split()", (1, 3), "RangeError: x"), None);
    }

    #[test]
    fn the_callee_is_the_dotted_name_ending_at_the_position() {
        assert_eq!(callee("o.split('\\n')", (1, 3)).as_deref(), Some("o.split"));
        assert_eq!(
            callee("x = r.items.map(f)", (1, 13)).as_deref(),
            Some("r.items.map")
        );
        assert_eq!(callee("go()", (1, 1)).as_deref(), Some("go"));
        assert_eq!(callee("(a + b)()", (1, 1)), None);
        assert_eq!(
            callee("r[0].name.x()", (1, 11)).as_deref(),
            Some("r[0].name.x")
        );
        assert_eq!(callee("f(1).x()", (1, 6)).as_deref(), Some("f(1).x"));
        assert_eq!(callee("a?.b.c()", (1, 6)).as_deref(), Some("a?.b.c"));
        assert_eq!(
            callee(
                "return (await tools.read({ path: 'a.txt' })).text.split()",
                (1, 52)
            )
            .as_deref(),
            Some("(…).text.split")
        );
        assert_eq!(callee("x = (a).b()", (1, 9)).as_deref(), Some("(a).b"));
        assert_eq!(callee("x = a) .b()", (1, 9)), None);
    }
}
