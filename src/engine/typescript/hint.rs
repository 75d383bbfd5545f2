//! What a runtime `TypeError` most likely came from, when the code shows
//! one of the slips models make (contracts §7, Hints): a tool-call Promise
//! used as its value, or a dotted tool name reached as a path. Read from
//! the code with the lexer only when a run has failed; nothing here runs
//! on a run that succeeds.

use super::excerpt::is_ident;
use super::returned::Returned;

/// One token: its text and its 1-based line.
struct Token<'s> {
    text: &'s str,
    line: u32,
}

/// At most this many tokens are read: a hint is a courtesy, not a cost.
const MAX_TOKENS: usize = 200_000;

/// A runtime failure, as the hints read it.
pub(crate) struct Failure<'a> {
    /// QuickJS's message.
    pub(crate) message: &'a str,
    /// The model's line it was thrown at, when known.
    pub(crate) line: Option<u32>,
    /// The dotted expression that failed (`r.split`), when the code shows it.
    pub(crate) path: Option<&'a str>,
    /// What each tool last returned, in outline.
    pub(crate) returned: &'a Returned,
}

/// A sentence to add to `failure`, thrown by `script`, or `None`.
pub(crate) fn hint(script: &str, failure: &Failure<'_>) -> Option<String> {
    if !failure.message.starts_with("TypeError: ") {
        return None;
    }
    // swc asserts its own invariants; should one fail, no hint.
    let tokens = std::panic::catch_unwind(|| tokens(script)).ok()?;
    let on_line = |at: usize| failure.line.is_none_or(|l| tokens[at].line == l);
    let anywhere = |_: usize| true;
    dotted_path(&tokens, &on_line)
        .or_else(|| dotted_path(&tokens, &anywhere))
        .or_else(|| member_of_call(&tokens, &on_line))
        .or_else(|| promise_binding(&tokens, &on_line))
        .or_else(|| tool_value(&tokens, failure, &on_line))
        .or_else(|| member_of_call(&tokens, &anywhere))
        .or_else(|| promise_binding(&tokens, &anywhere))
}

/// The 1-based lines of `script` that call `tool` as the SDK spells it
/// (`tools.name(` or `tools["name"](`), at most ten; read with the lexer,
/// so comments and strings never count.
pub(crate) fn call_lines(script: &str, tool: &str) -> Vec<u32> {
    let Ok(tokens) = std::panic::catch_unwind(|| tokens(script)) else {
        return Vec::new();
    };
    let mut lines: Vec<u32> = Vec::new();
    for at in 0..tokens.len() {
        if tool_call(&tokens, at).is_some_and(|(name, _)| name == tool)
            && lines.last() != Some(&tokens[at].line)
        {
            lines.push(tokens[at].line);
            if lines.len() == 10 {
                break;
            }
        }
    }
    lines
}

fn tokens(script: &str) -> Vec<Token<'_>> {
    let lexer = super::position::lexer(script);
    let mut out = Vec::new();
    let (mut line, mut counted) = (1u32, 0usize);
    for token in lexer.take(MAX_TOKENS) {
        let (lo, hi) = (token.span.lo.0 as usize - 1, token.span.hi.0 as usize - 1);
        let Some(text) = script.get(lo..hi) else {
            continue;
        };
        line += script[counted..lo].matches('\n').count() as u32;
        counted = lo;
        out.push(Token { text, line });
    }
    out
}

fn text<'s>(tokens: &[Token<'s>], at: usize) -> &'s str {
    tokens.get(at).map_or("", |t| t.text)
}

/// The tool a call starting at `at` (`tools.x(` or `tools["x"](`) names,
/// and the index of its `(`.
fn tool_call(tokens: &[Token<'_>], at: usize) -> Option<(String, usize)> {
    if text(tokens, at) != "tools" || (at > 0 && text(tokens, at - 1) == ".") {
        return None;
    }
    match text(tokens, at + 1) {
        "." => {
            let name = text(tokens, at + 2);
            (is_ident(name) && !name.starts_with('$') && text(tokens, at + 3) == "(")
                .then(|| (name.to_owned(), at + 3))
        }
        "[" => {
            let quoted = text(tokens, at + 2);
            let name = unquote(quoted)?;
            (text(tokens, at + 3) == "]" && text(tokens, at + 4) == "(").then_some((name, at + 4))
        }
        _ => None,
    }
}

/// A plain string literal's text.
fn unquote(literal: &str) -> Option<String> {
    let inner = literal
        .strip_prefix('"')
        .and_then(|l| l.strip_suffix('"'))
        .or_else(|| {
            literal
                .strip_prefix('\'')
                .and_then(|l| l.strip_suffix('\''))
        })?;
    (!inner.contains('\\')).then(|| inner.to_owned())
}

/// How the model names a tool in a sentence: `tools.x` or `tools["x.y"]`.
fn tool_expr(name: &str) -> String {
    if is_ident(name) {
        format!("tools.{name}")
    } else {
        format!("tools[{}]", serde_json::to_string(name).unwrap_or_default())
    }
}

/// The index of the `)` closing the `(` at `open`.
fn closing(tokens: &[Token<'_>], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        match token.text {
            "(" | "[" | "{" | "${" => depth += 1,
            ")" | "]" | "}" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (token.text == ")").then_some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// What only a Promise's own methods may follow.
fn is_promise_method(name: &str) -> bool {
    matches!(name, "then" | "catch" | "finally")
}

/// `tools.fs.read_text_file(…)`: a dotted tool name reached as a path.
fn dotted_path(tokens: &[Token<'_>], keep: &dyn Fn(usize) -> bool) -> Option<String> {
    (0..tokens.len()).find_map(|at| {
        if text(tokens, at) != "tools"
            || (at > 0 && text(tokens, at - 1) == ".")
            || text(tokens, at + 1) != "."
            || !keep(at)
        {
            return None;
        }
        let mut parts = Vec::new();
        let mut i = at + 1;
        while text(tokens, i) == "." && is_ident(text(tokens, i + 1)) {
            parts.push(text(tokens, i + 1));
            i += 2;
        }
        if parts.len() < 2 || parts[0].starts_with('$') || is_promise_method(parts[1]) {
            return None;
        }
        let name = parts.join(".");
        Some(format!(
            "`tools.{name}` reads `{}` of the tool `{}`, which is a function: a tool whose name holds a dot is called by its quoted name, `tools[\"{name}\"](…)`",
            parts[1..].join("."),
            parts[0]
        ))
    })
}

/// `tools.x(…).y`: a property of the call's Promise.
fn member_of_call(tokens: &[Token<'_>], keep: &dyn Fn(usize) -> bool) -> Option<String> {
    (0..tokens.len()).find_map(|at| {
        let (name, open) = tool_call(tokens, at)?;
        let close = closing(tokens, open)?;
        let member = text(tokens, close + 2);
        let read = match text(tokens, close + 1) {
            "." | "?." if is_ident(member) && !is_promise_method(member) => format!(".{member}"),
            "[" => "[…]".to_owned(),
            _ => return None,
        };
        if !(keep(at) || keep(close + 1)) {
            return None;
        }
        let call = tool_expr(&name);
        Some(format!(
            "`{call}(…)` is a Promise, and `{read}` reads the Promise's property, not the result's: did you forget `await`? Write `(await {call}(…)){read}`"
        ))
    })
}

/// `const r = tools.x(…)` without `await`, then `r.y`, `r[i]`, `...r` or
/// `of r`.
fn promise_binding(tokens: &[Token<'_>], keep: &dyn Fn(usize) -> bool) -> Option<String> {
    (1..tokens.len()).find_map(|at| {
        let binding = text(tokens, at);
        if !is_ident(binding) || text(tokens, at + 1) != "=" || text(tokens, at - 1) == "." {
            return None;
        }
        let (name, open) = tool_call(tokens, at + 2)?;
        let close = closing(tokens, open)?;
        // Awaited (or assigned anew) anywhere: no telling what it holds.
        let settled = tokens.iter().enumerate().any(|(i, t)| {
            t.text == binding
                && i != at
                && (text(tokens, i.wrapping_sub(1)) == "await" || text(tokens, i + 1) == "=")
        });
        if settled {
            return None;
        }
        (close + 1..tokens.len()).find(|&i| {
            if text(tokens, i) != binding || text(tokens, i.wrapping_sub(1)) == "." || !keep(i) {
                return false;
            }
            let after = text(tokens, i + 1);
            let before = text(tokens, i - 1);
            (matches!(after, "." | "?.") && !is_promise_method(text(tokens, i + 2)))
                || after == "["
                || matches!(before, "of" | "...")
        })?;
        Some(format!(
            "`{binding}` is a Promise from `{}` at line {}: did you forget `await`? Write `{binding} = await {}(…)`",
            tool_expr(&name),
            tokens[at + 2].line,
            tool_expr(&name)
        ))
    })
}

/// A `TypeError` on a value the program got from a tool: what the tool
/// returned. The value is `r` bound as `r = await tools.x(…)` (the failing
/// expression's first name, or what a `for…of` or spread iterates), or
/// `(await tools.x(…))` on the failing line.
fn tool_value(
    tokens: &[Token<'_>],
    failure: &Failure<'_>,
    on_line: &dyn Fn(usize) -> bool,
) -> Option<String> {
    let named = failure
        .path
        .and_then(|path| path.split(['.', '[', '?']).next())
        .filter(|name| is_ident(name));
    let bound = |base: &str| awaited_binding(tokens, base, failure.line);
    let found = named
        .and_then(bound)
        .or_else(|| iterated(tokens, failure.message, on_line).and_then(bound));
    if let Some((binding, name)) = found {
        let outline = failure.returned.of(&name)?;
        return Some(format!(
            "`{}` holds what `{}` returned (line {}): {outline}",
            tokens[binding].text,
            tool_expr(&name),
            tokens[binding].line
        ));
    }
    // `(await tools.x(…)).y`
    (0..tokens.len()).find_map(|at| {
        if text(tokens, at) != "(" || text(tokens, at + 1) != "await" || !on_line(at) {
            return None;
        }
        let (name, open) = tool_call(tokens, at + 2)?;
        let close = closing(tokens, open)?;
        (text(tokens, close + 1) == ")" && matches!(text(tokens, close + 2), "." | "?." | "["))
            .then_some(())?;
        let outline = failure.returned.of(&name)?;
        Some(format!("`{}(…)` returned {outline}", tool_expr(&name)))
    })
}

/// What a `for…of` or a spread on the failing line iterates, for `value
/// is not iterable`.
fn iterated<'s>(
    tokens: &[Token<'s>],
    message: &str,
    on_line: &dyn Fn(usize) -> bool,
) -> Option<&'s str> {
    if !message.ends_with("is not iterable") {
        return None;
    }
    (0..tokens.len()).find_map(|at| {
        let name = text(tokens, at + 1);
        (matches!(text(tokens, at), "of" | "...")
            && on_line(at)
            && is_ident(name)
            && matches!(text(tokens, at + 2), ")" | "]" | "," | ";"))
        .then_some(name)
    })
}

/// The last `base = await tools.x(…)` at or before `line`: the index of
/// `base` and the tool. None when `base` is also assigned another way
/// (no telling then what it holds).
fn awaited_binding(tokens: &[Token<'_>], base: &str, line: Option<u32>) -> Option<(usize, String)> {
    let mut found = None;
    for at in 0..tokens.len() {
        if text(tokens, at) != base
            || text(tokens, at + 1) != "="
            || (at > 0 && text(tokens, at - 1) == ".")
        {
            continue;
        }
        if text(tokens, at + 2) != "await" {
            return None;
        }
        let (name, _) = tool_call(tokens, at + 3)?;
        if line.is_none_or(|l| tokens[at].line <= l) {
            found = Some((at, name));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint_of(code: &str) -> Option<String> {
        let returned = Returned::default();
        let failure = Failure {
            message: "TypeError: not a function",
            line: None,
            path: None,
            returned: &returned,
        };
        hint(code, &failure)
    }

    #[test]
    fn a_promise_bound_without_await_is_named_with_its_call_and_line() {
        let h = hint_of("const r = tools.read_file({ path: 'a' })\nreturn r.split('\\n')").unwrap();
        assert_eq!(
            h,
            "`r` is a Promise from `tools.read_file` at line 1: did you forget `await`? Write `r = await tools.read_file(…)`"
        );
        let h = hint_of("let r = tools[\"fs.read\"]({})\nfor (const x of r) {}").unwrap();
        assert!(
            h.starts_with("`r` is a Promise from `tools[\"fs.read\"]` at line 1"),
            "{h}"
        );
    }

    #[test]
    fn an_awaited_binding_or_a_promise_method_is_no_slip() {
        assert_eq!(
            hint_of("const r = tools.a({}); const v = await r; v.x()"),
            None
        );
        assert_eq!(hint_of("const r = tools.a({}); r.then(v => v.x())"), None);
        assert_eq!(hint_of("const r = await tools.a({}); r.split()"), None);
        let returned = Returned::default();
        let range = Failure {
            message: "RangeError: x",
            line: None,
            path: None,
            returned: &returned,
        };
        assert_eq!(hint("const r = tools.a({}); r.x()", &range), None);
    }

    #[test]
    fn a_member_of_a_call_is_a_member_of_its_promise() {
        let h = hint_of("const s = (await tools.read_file({ a: [1] }).text).length").unwrap();
        assert_eq!(
            h,
            "`tools.read_file(…)` is a Promise, and `.text` reads the Promise's property, not the result's: did you forget `await`? Write `(await tools.read_file(…)).text`"
        );
        assert_eq!(hint_of("const s = (await tools.read_file({})).text"), None);
    }

    #[test]
    fn a_dotted_name_reached_as_a_path_gets_its_quoted_form() {
        let h = hint_of("const r = await tools.fs.read_text_file({ path: 'x' })").unwrap();
        assert_eq!(
            h,
            "`tools.fs.read_text_file` reads `read_text_file` of the tool `fs`, which is a function: a tool whose name holds a dot is called by its quoted name, `tools[\"fs.read_text_file\"](…)`"
        );
        assert_eq!(
            hint_of("const r = await tools.$search('x').map(f => f.name)"),
            None
        );
    }

    #[test]
    fn the_failing_line_comes_first() {
        let code = "const a = tools.x({})\nconst b = tools.y({})\nb.z()";
        let returned = Returned::default();
        let failure = Failure {
            message: "TypeError: not a function",
            line: Some(3),
            path: None,
            returned: &returned,
        };
        let h = hint(code, &failure).unwrap();
        assert!(
            h.starts_with("`b` is a Promise from `tools.y` at line 2"),
            "{h}"
        );
    }

    fn value_hint(code: &str, message: &str, line: u32, path: Option<&str>) -> Option<String> {
        let mut returned = Returned::default();
        returned.record("read_file", &serde_json::json!({ "content": "a\nb" }));
        returned.record("fs.read", &serde_json::json!("a\nb"));
        let failure = Failure {
            message,
            line: Some(line),
            path,
            returned: &returned,
        };
        hint(code, &failure)
    }

    #[test]
    fn a_value_from_a_tool_is_described_where_it_failed() {
        let not_a_function = "TypeError: `r.split` is not a function";
        let code = "const r = await tools.read_file({ path: 'a' })\nreturn r.split('\\n')";
        assert_eq!(
            value_hint(code, not_a_function, 2, Some("r.split")).as_deref(),
            Some(
                "`r` holds what `tools.read_file` returned (line 1): an object { content: string }"
            )
        );
        let code = "let t = await tools['fs.read']({})\nfor (const x of t) {}";
        assert_eq!(
            value_hint(code, "TypeError: value is not iterable", 2, Some("for")).as_deref(),
            Some("`t` holds what `tools[\"fs.read\"]` returned (line 1): a string \"a\\nb\"")
        );
        let code = "return (await tools.read_file({})).split('')";
        assert_eq!(
            value_hint(code, not_a_function, 1, Some("(…).split")).as_deref(),
            Some("`tools.read_file(…)` returned an object { content: string }")
        );
    }

    #[test]
    fn a_value_the_code_may_have_changed_or_never_got_is_not_described() {
        let not_a_function = "TypeError: `r.split` is not a function";
        // Assigned another way too.
        let code = "let r = await tools.read_file({})\nr = 3\nr.split()";
        assert_eq!(value_hint(code, not_a_function, 3, Some("r.split")), None);
        // A tool that never returned in this run.
        let code = "const r = await tools.list({})\nr.split()";
        assert_eq!(value_hint(code, not_a_function, 2, Some("r.split")), None);
        // Bound after the failing line.
        let code = "r.split()\nconst r = await tools.read_file({})";
        assert_eq!(value_hint(code, not_a_function, 1, Some("r.split")), None);
    }

    #[test]
    fn call_sites_are_read_with_the_lexer() {
        let code = "const a = await tools.list_dir({ path: 'x' });\n\
                    // tools.list_dir( in a comment\n\
                    await tools.list_dirs({});\n\
                    await tools[\"list_dir\"]({}); await tools.list_dir({});\n\
                    my.tools.list_dir();\n\
                    const s = 'tools.list_dir()'\n\
                    x = tools.list_dir";
        assert_eq!(call_lines(code, "list_dir"), [1, 4]);
        assert_eq!(call_lines(code, "read_file"), Vec::<u32>::new());
        assert_eq!(call_lines("tools['fs.read']()", "fs.read"), [1]);
    }
}
