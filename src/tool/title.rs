//! How a call and its result read to a person (contracts §2, titles): a
//! tool's own title functions or templates, the default title made of the
//! name and the arguments, and the rules every title obeys — one line, no
//! control characters, at most [`MAX_TITLE_CHARS`] characters.
//!
//! Titles are for people (events, progress lines, approval prompts), never
//! for the model, and never fail a call: a template naming a missing field,
//! a function that panics or returns nothing, each falls back.

use std::fmt::{self, Write as _};
use std::io;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use serde::{Serialize, Serializer};
use serde_json::Value;

/// The most characters of a title; a longer one is cut, ending with `…`.
pub(crate) const MAX_TITLE_CHARS: usize = 200;
/// The most characters of one value substituted into a template.
const MAX_FIELD_CHARS: usize = 100;
/// The most characters of one argument's name or value in a default title.
const MAX_ARGUMENT_CHARS: usize = 60;
/// The longest template accepted at registration, in characters.
pub(crate) const MAX_TEMPLATE_CHARS: usize = 1000;

type CallFn = Arc<dyn Fn(&Value) -> String + Send + Sync>;
type ResultFn = Arc<dyn Fn(&Value, &Value) -> String + Send + Sync>;

/// How a tool's calls and results read to a person: each either a Rust
/// function or a template, or absent (the default title). Set through
/// [`ToolDefinition`](crate::ToolDefinition)'s `call_title…` and
/// `result_title…` setters.
#[derive(Clone, Default)]
pub(crate) struct Titles {
    call: Option<Source<CallFn>>,
    result: Option<Source<ResultFn>>,
}

#[derive(Clone)]
enum Source<F> {
    Template(Template),
    Function(F),
}

impl<F> Source<F> {
    fn template(&self) -> Option<&Template> {
        match self {
            Source::Template(template) => Some(template),
            Source::Function(_) => None,
        }
    }
}

impl Titles {
    pub(crate) fn set_call_template(&mut self, source: String) {
        self.call = Some(Source::Template(Template::parse(source)));
    }

    pub(crate) fn set_result_template(&mut self, source: String) {
        self.result = Some(Source::Template(Template::parse(source)));
    }

    pub(crate) fn set_call_function(&mut self, f: CallFn) {
        self.call = Some(Source::Function(f));
    }

    pub(crate) fn set_result_function(&mut self, f: ResultFn) {
        self.result = Some(Source::Function(f));
    }

    /// The templates' sources, as `(callTitle, resultTitle)`.
    pub(crate) fn templates(&self) -> (Option<&str>, Option<&str>) {
        fn source<F>(source: &Option<Source<F>>) -> Option<&str> {
            source
                .as_ref()
                .and_then(Source::template)
                .map(|t| t.source.as_str())
        }
        (source(&self.call), source(&self.result))
    }

    /// Whether results have a title of their own (else a result reads as
    /// its call).
    pub(crate) fn titles_results(&self) -> bool {
        self.result.is_some()
    }

    /// The first template that cannot be used: `(member, why)`.
    pub(crate) fn problem(&self) -> Option<(&'static str, String)> {
        let (call, result) = (
            self.call.as_ref().and_then(Source::template),
            self.result.as_ref().and_then(Source::template),
        );
        let call = call.and_then(|t| t.problem()).map(|why| ("callTitle", why));
        call.or_else(|| {
            result
                .and_then(|t| t.problem())
                .map(|why| ("resultTitle", why))
        })
    }

    /// The call's title: the tool's own, else the default.
    pub(crate) fn call(&self, name: &str, arguments: &Value) -> String {
        let own = match &self.call {
            Some(Source::Template(template)) => template.render(arguments, None),
            Some(Source::Function(f)) => guarded(|| f(arguments)),
            None => None,
        };
        own.and_then(finish)
            .unwrap_or_else(|| default_title(name, arguments))
    }

    /// The title of the call's successful result `value`: the tool's own
    /// result title, else the call's title.
    pub(crate) fn result(&self, name: &str, arguments: &Value, value: &Value) -> String {
        let own = match &self.result {
            Some(Source::Template(template)) => template.render(arguments, Some(value)),
            Some(Source::Function(f)) => guarded(|| f(arguments, value)),
            None => None,
        };
        own.and_then(finish)
            .unwrap_or_else(|| self.call(name, arguments))
    }
}

/// Runs a title function; a panic is `None` (the title falls back).
fn guarded(f: impl FnOnce() -> String) -> Option<String> {
    catch_unwind(AssertUnwindSafe(f)).ok()
}

impl PartialEq for Titles {
    fn eq(&self, other: &Self) -> bool {
        fn same<F: ?Sized>(a: &Option<Source<Arc<F>>>, b: &Option<Source<Arc<F>>>) -> bool {
            match (a, b) {
                (None, None) => true,
                (Some(Source::Template(a)), Some(Source::Template(b))) => a.source == b.source,
                (Some(Source::Function(a)), Some(Source::Function(b))) => Arc::ptr_eq(a, b),
                _ => false,
            }
        }
        same(&self.call, &other.call) && same(&self.result, &other.result)
    }
}

impl fmt::Debug for Titles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn shown<F>(source: &Option<Source<F>>) -> Option<&str> {
            source.as_ref().map(|s| match s {
                Source::Template(t) => t.source.as_str(),
                Source::Function(_) => "<fn>",
            })
        }
        f.debug_struct("Titles")
            .field("call", &shown(&self.call))
            .field("result", &shown(&self.result))
            .finish()
    }
}

/// The templates, as the definition's `callTitle` and `resultTitle`
/// members (functions are not JSON).
impl Serialize for Titles {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Members<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            call_title: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            result_title: Option<&'a str>,
        }
        let (call_title, result_title) = self.templates();
        Members {
            call_title,
            result_title,
        }
        .serialize(serializer)
    }
}

/// A title template: text with `{dotted.path}` fields; `{{` and `}}` are
/// the braces themselves.
#[derive(Clone)]
struct Template {
    source: String,
    parts: Result<Vec<Part>, String>,
}

#[derive(Clone)]
enum Part {
    Text(String),
    Field(Vec<String>),
}

impl Template {
    fn parse(source: String) -> Self {
        let parts = if source.chars().count() > MAX_TEMPLATE_CHARS {
            Err(format!(
                "a title template is at most {MAX_TEMPLATE_CHARS} characters"
            ))
        } else {
            parse_parts(&source)
        };
        Self { source, parts }
    }

    fn problem(&self) -> Option<String> {
        self.parts.as_ref().err().cloned()
    }

    /// The text, or `None` when the template is broken or a field it names
    /// is missing. With `result`, a path starting at `result` reads the
    /// result value; every other path reads the arguments.
    fn render(&self, arguments: &Value, result: Option<&Value>) -> Option<String> {
        let mut out = String::new();
        for part in self.parts.as_ref().ok()? {
            match part {
                Part::Text(text) => out.push_str(text),
                Part::Field(path) => {
                    push_value(&mut out, lookup(arguments, result, path)?, MAX_FIELD_CHARS)
                }
            }
        }
        Some(out)
    }
}

fn parse_parts(source: &str) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut rest = source;
    while let Some(at) = rest.find(['{', '}']) {
        text.push_str(&rest[..at]);
        let brace = &rest[at..=at];
        let after = &rest[at + 1..];
        if let Some(after_pair) = after.strip_prefix(brace) {
            text.push_str(brace);
            rest = after_pair;
            continue;
        }
        if brace == "}" {
            return Err("a `}` has no `{` (write `}}` for the character)".to_owned());
        }
        let end = after
            .find(['{', '}'])
            .filter(|&end| &after[end..=end] == "}")
            .ok_or_else(|| "a `{` is not closed (write `{{` for the character)".to_owned())?;
        let path = &after[..end];
        let segments: Vec<String> = path.split('.').map(str::to_owned).collect();
        if segments.iter().any(String::is_empty) {
            return Err(format!(
                "`{{{path}}}` is not a field: write names joined by dots, like `{{path}}` or `{{result.lines}}`"
            ));
        }
        if !text.is_empty() {
            parts.push(Part::Text(std::mem::take(&mut text)));
        }
        parts.push(Part::Field(segments));
        rest = &after[end + 1..];
    }
    text.push_str(rest);
    if !text.is_empty() {
        parts.push(Part::Text(text));
    }
    Ok(parts)
}

/// The value at `path`: object members by name, array items by index.
fn lookup<'v>(
    arguments: &'v Value,
    result: Option<&'v Value>,
    path: &[String],
) -> Option<&'v Value> {
    let (mut value, rest) = match (result, path.split_first()) {
        (Some(result), Some((first, rest))) if first == "result" => (result, rest),
        _ => (arguments, path),
    };
    for segment in rest {
        value = match value {
            Value::Object(members) => members.get(segment)?,
            Value::Array(items) => items.get(segment.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(value)
}

/// The default title: `name(key: value, …)`, each value as compact JSON.
pub(crate) fn default_title(name: &str, arguments: &Value) -> String {
    let mut out = String::with_capacity(name.len() + 32);
    push_shortened(&mut out, name, MAX_TITLE_CHARS);
    out.push('(');
    match arguments {
        Value::Object(members) => {
            for (i, (key, value)) in members.iter().enumerate() {
                // Past the bound the rest is cut anyway.
                if out.len() > 4 * (MAX_TITLE_CHARS + 1) {
                    break;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                push_shortened(&mut out, key, MAX_ARGUMENT_CHARS);
                out.push_str(": ");
                push_json(&mut out, value, MAX_ARGUMENT_CHARS);
            }
        }
        Value::Null => {}
        other => push_json(&mut out, other, MAX_ARGUMENT_CHARS),
    }
    out.push(')');
    finish(out).unwrap_or_default()
}

/// A value in a template: a string as it is, anything else as compact JSON.
fn push_value(out: &mut String, value: &Value, max_chars: usize) {
    match value {
        Value::String(text) => push_shortened(out, text, max_chars),
        other => push_json(out, other, max_chars),
    }
}

/// Compact JSON of `value`, written no further than the bound needs.
/// Numbers, booleans, `null` and short plain strings (the common
/// arguments) are written directly, without a buffer.
fn push_json(out: &mut String, value: &Value, max_chars: usize) {
    match value {
        Value::Null => return out.push_str("null"),
        Value::Bool(b) => return out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            let start = out.len();
            // Writing to a String cannot fail.
            let _ = write!(out, "{n}");
            if out.len() - start <= max_chars {
                return;
            }
            out.truncate(start);
        }
        Value::String(text)
            if text.len() + 2 <= max_chars
                && !text.chars().any(|c| c < ' ' || c == '"' || c == '\\') =>
        {
            out.push('"');
            out.push_str(text);
            return out.push('"');
        }
        _ => {}
    }
    let mut writer = Bounded {
        bytes: Vec::new(),
        room: 4 * (max_chars + 1),
    };
    // A full writer stops serde with an error: the text so far is enough.
    let _ = serde_json::to_writer(&mut writer, value);
    // A character cut at the end is past the bound, so shortening drops it.
    push_shortened(out, &String::from_utf8_lossy(&writer.bytes), max_chars);
}

/// Takes bytes until its room is used up, then fails.
struct Bounded {
    bytes: Vec<u8>,
    room: usize,
}

impl io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let take = buf.len().min(self.room - self.bytes.len());
        if take == 0 && !buf.is_empty() {
            return Err(io::Error::other("the title is long enough"));
        }
        self.bytes.extend_from_slice(&buf[..take]);
        Ok(take)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Appends `text`, cut to `max_chars` characters with a final `…` when
/// longer (at a character boundary).
fn push_shortened(out: &mut String, text: &str, max_chars: usize) {
    match text.char_indices().nth(max_chars) {
        None => out.push_str(text),
        Some(_) => {
            let cut = text
                .char_indices()
                .nth(max_chars.saturating_sub(1))
                .map_or(text.len(), |(at, _)| at);
            out.push_str(&text[..cut]);
            out.push('…');
        }
    }
}

/// The title as shown: trimmed, characters that could break a line or a
/// terminal escaped (`\n`, `\u{1b}`), then cut to [`MAX_TITLE_CHARS`];
/// `None` when nothing is left. Reads no further than the bound needs.
fn finish(raw: String) -> Option<String> {
    // Most titles are short and plain: kept as they are.
    if raw.len() <= MAX_TITLE_CHARS
        && !raw.starts_with(char::is_whitespace)
        && !raw.ends_with(char::is_whitespace)
        && !raw.chars().any(is_hostile)
    {
        return (!raw.is_empty()).then_some(raw);
    }
    let mut escaped = String::new();
    let mut chars = 0;
    for c in raw.trim().chars() {
        if chars > MAX_TITLE_CHARS {
            break;
        }
        chars += push_escaped(&mut escaped, c);
    }
    if escaped.is_empty() {
        return None;
    }
    let mut title = String::new();
    push_shortened(&mut title, &escaped, MAX_TITLE_CHARS);
    Some(title)
}

/// Any text shown as a title is (a handler's progress note): trimmed,
/// escaped and cut to one line; `None` when nothing is left.
pub(crate) fn as_line(text: String) -> Option<String> {
    finish(text)
}

/// `text` with the characters [`finish`] escapes escaped, nothing cut.
pub(crate) fn escape_hostile(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        push_escaped(&mut escaped, c);
    }
    escaped
}

/// `text` for a terminal, its lines kept: the characters [`finish`]
/// escapes escaped the same way, except line breaks and tabs. Borrowed
/// when there is nothing to escape.
pub(crate) fn escape_hostile_keeping_lines(text: &str) -> std::borrow::Cow<'_, str> {
    let hostile = |c: char| is_hostile(c) && c != '\n' && c != '\t';
    if !text.contains(hostile) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match hostile(c) {
            true => escaped.extend(c.escape_default()),
            false => escaped.push(c),
        }
    }
    std::borrow::Cow::Owned(escaped)
}

/// Appends `c`, escaped when hostile; returns the characters appended.
fn push_escaped(out: &mut String, c: char) -> usize {
    if is_hostile(c) {
        let escape = c.escape_default();
        let chars = escape.len();
        out.extend(escape);
        chars
    } else {
        out.push(c);
        1
    }
}

/// Control characters, line and paragraph separators, and the bidirectional
/// controls that reorder what a terminal shows.
pub(crate) fn is_hostile(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
        )
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn template(source: &str) -> Template {
        Template::parse(source.to_owned())
    }

    #[test]
    fn templates_substitute_dotted_paths() {
        let args = json!({ "path": "src/lib.rs", "opts": { "n": 3, "tags": ["a", "b"] } });
        let t = template("Read {path} ({opts.n}, {opts.tags.1}, {opts.tags}) {{x}}");
        assert_eq!(
            t.render(&args, None).unwrap(),
            "Read src/lib.rs (3, b, [\"a\",\"b\"]) {x}"
        );
        let t = template("{path}: {result.lines} lines, {result}");
        let result = json!({ "lines": 412 });
        assert_eq!(
            t.render(&args, Some(&result)).unwrap(),
            "src/lib.rs: 412 lines, {\"lines\":412}"
        );
    }

    #[test]
    fn a_missing_field_leaves_the_template_unrendered() {
        let args = json!({ "path": "a", "list": [1] });
        for source in [
            "{nope}",
            "{path.deeper}",
            "{list.1}",
            "{list.x}",
            "{result.n}",
        ] {
            assert_eq!(template(source).render(&args, None), None, "{source}");
        }
        assert_eq!(template("{result}").render(&args, None), None);
    }

    #[test]
    fn broken_templates_say_why() {
        for (source, why) in [
            ("Read {path", "is not closed"),
            ("Read {pa{th}", "is not closed"),
            ("Read path}", "has no `{`"),
            ("Read {}", "is not a field"),
            ("Read {a..b}", "is not a field"),
        ] {
            let problem = template(source).problem().unwrap();
            assert!(problem.contains(why), "{source}: {problem}");
        }
        assert!(template(&"x".repeat(1001)).problem().is_some());
        assert!(template(&"é".repeat(1000)).problem().is_none());
    }

    #[test]
    fn default_titles_show_the_name_and_the_arguments() {
        let args = json!({ "query": "bug", "limit": 5, "deep": { "a": [1, 2] } });
        assert_eq!(
            default_title("search_issues", &args),
            r#"search_issues(query: "bug", limit: 5, deep: {"a":[1,2]})"#
        );
        assert_eq!(default_title("t", &json!({})), "t()");
        assert_eq!(default_title("t", &json!(null)), "t()");
        assert_eq!(default_title("t", &json!([1])), "t([1])");
    }

    #[test]
    fn long_values_are_cut_at_a_character_boundary() {
        let args = json!({ "a": "é".repeat(500), "b": 1 });
        let title = default_title("t", &args);
        assert!(title.starts_with("t(a: \"éé"), "{title}");
        assert!(title.contains("é…, b: 1)"), "{title}");
        let huge =
            json!({ "text": "x".repeat(1_000_000), "more": (0..100_000).collect::<Vec<_>>() });
        let title = default_title(&"n".repeat(1000), &huge);
        assert_eq!(title.chars().count(), MAX_TITLE_CHARS);
        assert!(title.ends_with('…'));
    }

    #[test]
    fn short_values_read_as_their_compact_json() {
        let values = json!([
            null, true, false, 0, -7, 1.5, 1e300, u64::MAX, "", "plain", "é ü",
            "quote\"d", "back\\slash", "line\nbreak", "\u{1b}", "\u{7f}", [1, "a"], { "k": null }
        ]);
        for value in values.as_array().unwrap() {
            let mut out = String::new();
            push_json(&mut out, value, MAX_ARGUMENT_CHARS);
            assert_eq!(out, value.to_string());
        }
        let mut out = String::new();
        push_json(&mut out, &json!("x".repeat(59)), MAX_ARGUMENT_CHARS);
        assert_eq!(out, format!("\"{}…", "x".repeat(58)));
    }

    #[test]
    fn hostile_characters_are_escaped() {
        let title = finish("a\nb\u{1b}[31mc\u{202e}d\u{7f}".to_owned()).unwrap();
        assert_eq!(title, "a\\nb\\u{1b}[31mc\\u{202e}d\\u{7f}");
        assert_eq!(finish(" \u{1b} ".to_owned()).as_deref(), Some("\\u{1b}"));
        assert_eq!(finish(" \t\n ".to_owned()), None);
    }
}
