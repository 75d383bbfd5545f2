//! From the model's TypeScript to a script QuickJS can run.
//!
//! [`prepare`] checks the size limit, runs a fast lexical pass over the code
//! (`scan`), wraps the code as the body of an async function, and erases
//! TypeScript types with `swc_ts_fast_strip` in strip-only mode (types become
//! whitespace, so every line keeps its length in UTF-16 code units).
//!
//! The lexical pass does two jobs. It bounds the code's nesting before swc
//! sees it: swc's parser, visitors and AST destructor recurse, and hostile
//! input would overflow the stack. And it matches brackets with JavaScript's
//! own lexing (strings, templates, comments, regular expressions), so code
//! whose top level would not be exactly the wrapper expression — code that
//! closes the wrapper, like `}); evil(); (function () {` — is refused. The
//! tests cross-check that verdict against a full parse of the stripped script
//! with swc; doing that parse here too would make every call about 60% slower.
//!
//! # The wrapped script
//!
//! ```text
//! (async function () {<model code>
//! })
//! ```
//!
//! The prefix shares line 1 with the model's first line, so line numbers are
//! the model's own and only columns on line 1 shift (by the prefix length). The
//! suffix starts with a newline, so a `//` comment on the last line ends before
//! `})`; an unterminated `/*` swallows the suffix and is a syntax error.
//!
//! The engine evaluates [`PreparedProgram::script`] as a (sloppy-mode) global
//! script; the completion value is the async function, which it then calls
//! with no arguments to get the program's promise.
//!
//! # Positions
//!
//! Positions handed out here are 1-based; a column counts Unicode characters
//! (scalar values), so `"日本"` and `"😀"` each advance by one per character.
//! Lines are separated by `\n` (a `\r\n` pair is one break); a lone `\r`,
//! U+2028 and U+2029 do not start a new line, because QuickJS counts them
//! inconsistently.
//!
//! QuickJS-ng (as bundled by rquickjs 0.10) reports positions in `Error.stack`
//! frames as `    at <name> (eval_script:LINE:COLUMN)` for runtime errors and
//! `    at eval_script:LINE:COLUMN` for its own syntax errors. `LINE` is
//! 1-based. `COLUMN` counts UTF-8 bytes; it is 1-based on every line but the
//! first, where it is 0-based (clamped to at least 1), because the lexer's
//! "end of previous line" pointer starts at the first byte of the buffer.
//! [`PreparedProgram::to_model_position`] takes positions exactly as QuickJS
//! reports them and undoes all of that.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, PoisonError};

use swc_common::errors::{DiagnosticBuilder, DiagnosticId, Emitter, Handler};
use swc_common::sync::Lrc;
use swc_common::{BytePos, SourceMap};
use swc_ts_fast_strip::{Mode, Options};

use super::intrinsics::Intrinsics;

mod scan;

/// What goes before the model's code, on the same line.
const PREFIX: &str = "(async function () {";
/// What goes after the model's code. The newline ends a trailing `//` comment.
const SUFFIX: &str = "\n})";

/// A program ready for QuickJS: JavaScript whose line/column positions equal
/// the model's TypeScript (see the module docs for the shape).
#[derive(Debug, Clone)]
pub(crate) struct PreparedProgram {
    /// The wrapped, type-stripped script. Evaluating it yields the async
    /// function whose body is the model's code.
    pub(crate) script: String,
    /// The model's code as given, to translate columns back.
    code: Box<str>,
    /// The intrinsics its context needs (see `scan`).
    pub(crate) intrinsics: Intrinsics,
}

impl PreparedProgram {
    /// Maps a position reported by QuickJS in [`Self::script`] back to the
    /// model's code, as a 1-based (line, column in characters) pair.
    ///
    /// `line` and `column` are taken exactly as QuickJS-ng prints them in a
    /// stack frame (`eval_script:LINE:COLUMN`): UTF-8 bytes, 0-based on line 1
    /// and 1-based elsewhere. A position on the wrapper's closing line, or
    /// past the end of a line, maps to the end of the model's code / line.
    pub(crate) fn to_model_position(&self, line: u32, column: u32) -> (u32, u32) {
        let line = line.max(1);
        let Some(script_line) = nth_line(&self.script, line) else {
            return end_position(&self.code);
        };
        // 0-based byte offset within the script line.
        let mut offset = if line == 1 {
            column as usize
        } else {
            (column as usize).saturating_sub(1)
        };
        let mut script_line = script_line;
        if line == 1 {
            // The prefix is ASCII, so its byte length is its width.
            offset = offset.saturating_sub(PREFIX.len());
            script_line = script_line.get(PREFIX.len()..).unwrap_or("");
        }
        let Some(model_line) = nth_line(&self.code, line) else {
            return end_position(&self.code);
        };
        let units = utf16_len(prefix_at_boundary(script_line, offset));
        (line, column_for_utf16(model_line, units))
    }
}

/// A syntax failure: the message and, when known, where in the model's code it
/// is (1-based line; 1-based column in characters).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("{message}")]
pub struct SyntaxError {
    /// What is wrong, without the position.
    pub message: String,
    /// The 1-based line in the model's code, when known.
    pub line: Option<u32>,
    /// The 1-based column (counting characters) in the model's code, when
    /// known.
    pub column: Option<u32>,
}

impl SyntaxError {
    fn at(message: impl Into<String>, (line, column): (u32, u32)) -> Self {
        Self {
            message: message.into(),
            line: Some(line),
            column: Some(column),
        }
    }
}

/// Checks, wraps and strips the model's code.
///
/// # Errors
///
/// A [`SyntaxError`] when the code is over `max_code_bytes`, is not valid
/// TypeScript, uses TypeScript syntax that cannot simply be erased (`enum`,
/// value namespaces, parameter properties, …), or tries to close the wrapper
/// function.
pub(crate) fn prepare(code: &str, max_code_bytes: usize) -> Result<PreparedProgram, SyntaxError> {
    if code.len() > max_code_bytes {
        return Err(SyntaxError {
            message: format!(
                "code is {} bytes, over the {max_code_bytes}-byte limit",
                code.len()
            ),
            line: None,
            column: None,
        });
    }

    // Bound the nesting before swc recurses into it (see `scan`).
    let scan = scan::scan(code).map_err(|error| {
        SyntaxError::at(error.kind.message(), code_position(code, error.offset))
    })?;

    let mut wrapped = String::with_capacity(PREFIX.len() + code.len() + SUFFIX.len());
    wrapped.push_str(PREFIX);
    wrapped.push_str(code);
    wrapped.push_str(SUFFIX);

    let script = strip_types(code, wrapped, &scan)?;
    if let Some((offset, bracket)) = scan.unmatched_close {
        // Valid code that closes the wrapper: `}); evil(); (function () {`.
        return Err(unmatched_close(code, offset, bracket));
    }
    Ok(PreparedProgram {
        script,
        code: code.into(),
        intrinsics: scan.intrinsics,
    })
}

/// The error for a closing bracket with nothing open.
fn unmatched_close(code: &str, offset: usize, bracket: char) -> SyntaxError {
    let opener = match bracket {
        ')' => '(',
        ']' => '[',
        _ => '{',
    };
    SyntaxError::at(
        format!("unexpected `{bracket}`: it has no matching `{opener}`"),
        code_position(code, offset),
    )
}

/// Runs `swc_ts_fast_strip` over the wrapped code.
fn strip_types(code: &str, wrapped: String, scan: &scan::Scan) -> Result<String, SyntaxError> {
    // A fresh source map per call: a shared one would keep every file ever
    // added (memory growing with each run); creating one is cheap.
    let cm: Lrc<SourceMap> = Lrc::default();
    let diagnostics = Diagnostics::default();
    let handler = Handler::with_emitter(false, false, Box::new(diagnostics.clone()));
    // A script (not a module), TypeScript without decorators or JSX.
    let options = Options {
        module: Some(false),
        mode: Mode::StripOnly,
        ..Options::default()
    };
    // swc asserts its own invariants; should one fail on odd input, that is
    // this program's failure, not the host's.
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        swc_ts_fast_strip::operate(&cm, &handler, wrapped, options)
    }));
    let Ok(outcome) = outcome else {
        return Err(SyntaxError {
            message: "the TypeScript stripper failed on this code (an internal error); \
                      simplify the code or its types"
                .to_owned(),
            line: None,
            column: None,
        });
    };
    match outcome {
        Ok(output) => Ok(output.code),
        Err(error) => {
            // The file starts where the source map put it (one past the dummy
            // position); offsets in diagnostics are relative to that.
            let start = cm.files().first().map_or(BytePos(1), |file| file.start_pos);
            Err(match diagnostics.first() {
                Some(Diagnostic {
                    message,
                    lo: Some(lo),
                    invalid_syntax,
                }) => {
                    let offset = lo.0.saturating_sub(start.0) as usize;
                    if invalid_syntax {
                        explain_invalid_syntax(code, scan, &message, offset)
                    } else {
                        SyntaxError::at(clarify(&message), wrapped_offset_position(code, offset))
                    }
                }
                Some(Diagnostic { message, .. }) => SyntaxError {
                    message: clarify(&message),
                    line: None,
                    column: None,
                },
                None => SyntaxError {
                    message: error.message,
                    line: None,
                    column: None,
                },
            })
        }
    }
}

/// Turns a parse error at `offset` (in the wrapped source) into a message
/// about the model's code. swc's own message is kept unless the code closes
/// the wrapper function before the error, or the error lies past the end of
/// the code (then swc's message is about the wrapper's own tokens).
fn explain_invalid_syntax(
    code: &str,
    scan: &scan::Scan,
    message: &str,
    offset: usize,
) -> SyntaxError {
    let past_end = offset >= PREFIX.len() + code.len();
    match (scan.unmatched_close, scan.unclosed) {
        (Some((close, bracket)), _) if PREFIX.len() + close <= offset => {
            unmatched_close(code, close, bracket)
        }
        (_, Some((open, bracket))) if past_end => {
            let (line, column) = code_position(code, open);
            let bracket = if bracket == '$' {
                "${".to_owned()
            } else {
                bracket.to_string()
            };
            SyntaxError::at(
                format!(
                    "unexpected end of code: `{bracket}` at line {line}, column {column} is not \
                     closed"
                ),
                end_position(code),
            )
        }
        _ if past_end && !message.starts_with("Unterminated") => {
            SyntaxError::at("unexpected end of code", end_position(code))
        }
        _ => SyntaxError::at(clarify(message), wrapped_offset_position(code, offset)),
    }
}

/// Rewords swc messages that talk about its own modes.
fn clarify(message: &str) -> String {
    if message.starts_with("The angle-bracket syntax for type assertions") {
        return "The angle-bracket syntax for type assertions, `<T>expr`, is not supported \
                (erasable syntax only); use `expr as T` instead"
            .to_owned();
    }
    if let Some(head) = message.strip_suffix(" must be parenthesized in strip-only mode") {
        return format!("{head} must be parenthesized");
    }
    if let Some(head) = message.strip_suffix(" in strip-only mode") {
        return format!("{head} (erasable syntax only)");
    }
    message.to_owned()
}

/// One diagnostic `swc_ts_fast_strip` emitted.
#[derive(Debug)]
struct Diagnostic {
    message: String,
    /// Where it starts, in source-map coordinates.
    lo: Option<BytePos>,
    /// A parse error (as opposed to syntax that cannot be erased).
    invalid_syntax: bool,
}

/// Collects the diagnostics `swc_ts_fast_strip` emits.
#[derive(Clone, Default)]
struct Diagnostics(Arc<Mutex<Vec<Diagnostic>>>);

impl Diagnostics {
    /// The diagnostic that starts first in the source (positionless last).
    ///
    /// On a fatal parse error swc emits the fatal error first and then the
    /// recoverable ones it met before it, in order; so on a tie the fatal
    /// error (index 0) comes last. This makes an "Unterminated block comment"
    /// win over the `Expected '}', got '<eof>'` it causes.
    fn first(&self) -> Option<Diagnostic> {
        let mut all = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let index = all
            .iter()
            .enumerate()
            .min_by_key(|(index, diagnostic)| {
                (
                    diagnostic.lo.map_or(u32::MAX, |lo| lo.0),
                    if *index == 0 { usize::MAX } else { *index },
                )
            })
            .map(|(index, _)| index)?;
        Some(all.swap_remove(index))
    }
}

impl Emitter for Diagnostics {
    fn emit(&mut self, db: &mut DiagnosticBuilder<'_>) {
        let diagnostic = Diagnostic {
            message: db.message(),
            lo: db.span.primary_span().map(|span| span.lo),
            invalid_syntax: matches!(
                &db.code,
                Some(DiagnosticId::Error(code)) if code == "InvalidSyntax"
            ),
        };
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(diagnostic);
    }
}

/// The position of byte `offset` of the wrapped (unstripped) source, in the
/// model's code. Offsets inside the prefix map to the start, offsets at or
/// past the end of the code to [`end_position`].
fn wrapped_offset_position(code: &str, offset: usize) -> (u32, u32) {
    match offset.checked_sub(PREFIX.len()) {
        Some(offset) => code_position(code, offset),
        None => (1, 1),
    }
}

/// The position of byte `offset` of the model's code; at or past the end, the
/// [`end_position`].
fn code_position(code: &str, offset: usize) -> (u32, u32) {
    if offset >= code.len() {
        return end_position(code);
    }
    let before = prefix_at_boundary(code, offset);
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    (
        count_u32(before.bytes().filter(|&byte| byte == b'\n').count()) + 1,
        count_u32(before[line_start..].chars().count()) + 1,
    )
}

/// Where an error past the end of the code is reported: just after the last
/// non-whitespace character (on the code's last line that has any), or line
/// 1, column 1 for blank code.
fn end_position(code: &str) -> (u32, u32) {
    let content = code.trim_end();
    let line_start = content.rfind('\n').map_or(0, |newline| newline + 1);
    (
        count_u32(content.bytes().filter(|&byte| byte == b'\n').count()) + 1,
        count_u32(content[line_start..].chars().count()) + 1,
    )
}

/// Line `line` (1-based) of `text`, without its `\n` (nor a `\r` before it).
fn nth_line(text: &str, line: u32) -> Option<&str> {
    let index = usize::try_from(line.checked_sub(1)?).ok()?;
    let found = text.split('\n').nth(index)?;
    Some(found.strip_suffix('\r').unwrap_or(found))
}

/// The 1-based character column in `line` of the point `units` UTF-16 code
/// units in (rounded down to a character start, clamped to the line end + 1).
fn column_for_utf16(line: &str, units: usize) -> u32 {
    let mut seen = 0;
    let mut chars = 0;
    for character in line.chars() {
        seen += character.len_utf16();
        if seen > units {
            break;
        }
        chars += 1;
    }
    count_u32(chars) + 1
}

/// `text[..offset]`, with `offset` clamped to the length and moved back to a
/// character boundary.
fn prefix_at_boundary(text: &str, offset: usize) -> &str {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    &text[..offset]
}

fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

fn count_u32(count: usize) -> u32 {
    u32::try_from(count).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use rquickjs::{CatchResultExt, CaughtError, Context, Function, Promise, Runtime};
    use swc_common::Spanned;
    use swc_ecma_ast::{Expr, ExprStmt, FnExpr, ParenExpr, Script, Stmt};
    use swc_ecma_parser::error::SyntaxError as ParseErrorKind;
    use swc_ecma_parser::{EsSyntax, Parser, StringInput, Syntax};

    use super::*;

    // The oracle: a full swc parse of the stripped script, checking that its
    // top level is exactly the wrapper expression.

    /// Parses the stripped script as JavaScript and checks that it is exactly the
    /// wrapper expression, with the wrapper's own braces as the function body.
    fn check_shape(code: &str, script: &str) -> Result<(), SyntaxError> {
        // Spans start at 1 (0 is swc's dummy position).
        let base = 1u32;
        let end = BytePos(base.saturating_add(u32::try_from(script.len()).unwrap_or(u32::MAX)));
        let input = StringInput::new(script, BytePos(base), end);
        let mut parser = Parser::new(Syntax::Es(EsSyntax::default()), input, None);
        let parsed = parser.parse_script();
        let mut errors = parser.take_errors();
        // Annex B HTML-like comments (`<!--`, `-->`): allowed in scripts by both
        // swc and QuickJS, but their edge rules differ between implementations,
        // and a comment one parser sees and the other does not is a way to hide
        // a `})` from this check. Reject them outright.
        errors.extend(
            parser
                .take_script_module_errors()
                .into_iter()
                .filter(|error| matches!(error.kind(), ParseErrorKind::LegacyCommentInModule)),
        );
        let parsed = match parsed {
            Ok(parsed) => parsed,
            Err(error) => {
                errors.push(error);
                return Err(first_parse_error(code, script, base, errors));
            }
        };
        if !errors.is_empty() {
            return Err(first_parse_error(code, script, base, errors));
        }

        // The body block runs from the prefix's `{` to the suffix's `}`.
        let body_lo = BytePos(base + (PREFIX.len() - 1) as u32);
        let body_hi = BytePos(end.0 - 1);
        if is_wrapper(&parsed, body_lo, body_hi) {
            Ok(())
        } else {
            let (line, column) = breakout_position(code, script, base, &parsed, body_lo);
            Err(SyntaxError::at(
                "unexpected `}`: it has no matching `{`",
                (line, column),
            ))
        }
    }

    /// Whether `script` is exactly `(async function () { … })` with the body
    /// spanning `body_lo..body_hi`.
    fn is_wrapper(script: &Script, body_lo: BytePos, body_hi: BytePos) -> bool {
        let [Stmt::Expr(ExprStmt { expr, .. })] = script.body.as_slice() else {
            return false;
        };
        let Expr::Paren(ParenExpr { expr: inner, .. }) = &**expr else {
            return false;
        };
        let Expr::Fn(FnExpr {
            ident: None,
            function,
        }) = &**inner
        else {
            return false;
        };
        function.is_async
            && !function.is_generator
            && function.params.is_empty()
            && function
                .body
                .as_ref()
                .is_some_and(|body| body.span.lo == body_lo && body.span.hi == body_hi)
    }

    /// Where the model's code closed the wrapper: the end of the first top-level
    /// item's function body (its closing `}`), else the start of the code.
    fn breakout_position(
        code: &str,
        script: &str,
        base: u32,
        parsed: &Script,
        body_lo: BytePos,
    ) -> (u32, u32) {
        let close = parsed.body.first().and_then(|stmt| {
            let Stmt::Expr(ExprStmt { expr, .. }) = stmt else {
                return None;
            };
            let Expr::Paren(ParenExpr { expr: inner, .. }) = &**expr else {
                return None;
            };
            let Expr::Fn(FnExpr { function, .. }) = &**inner else {
                return None;
            };
            let body = function.body.as_ref()?;
            (body.span.lo == body_lo).then(|| body.span.hi.0.saturating_sub(1))
        });
        match close {
            Some(close) => {
                script_offset_position(code, script, close.saturating_sub(base) as usize)
            }
            None => (1, 1),
        }
    }

    /// The earliest of `errors`, as a [`SyntaxError`] in model coordinates.
    fn first_parse_error(
        code: &str,
        script: &str,
        base: u32,
        errors: Vec<swc_ecma_parser::error::Error>,
    ) -> SyntaxError {
        let Some(first) = errors.into_iter().min_by_key(|error| error.span().lo) else {
            return SyntaxError {
                message: "invalid syntax".to_owned(),
                line: None,
                column: None,
            };
        };
        let offset = first.span().lo.0.saturating_sub(base) as usize;
        let message = match first.kind() {
            ParseErrorKind::LegacyCommentInModule => {
                "HTML-like comments (`<!--`, `-->`) are not supported".to_owned()
            }
            kind => clarify(&kind.msg()),
        };
        SyntaxError::at(message, script_offset_position(code, script, offset))
    }

    /// The position of byte `offset` of the stripped script, in the model's
    /// code. The script's bytes may differ from the model's (erased non-ASCII
    /// types become one space per UTF-16 unit), so this goes through the line and
    /// its UTF-16 width.
    fn script_offset_position(code: &str, script: &str, offset: usize) -> (u32, u32) {
        if offset < PREFIX.len() {
            return (1, 1);
        }
        let before = prefix_at_boundary(script, offset);
        let line = count_u32(before.bytes().filter(|&byte| byte == b'\n').count()) + 1;
        let line_start = before
            .rfind('\n')
            .map_or(PREFIX.len(), |newline| newline + 1);
        let units = utf16_len(&before[line_start..]);
        match nth_line(code, line) {
            Some(model_line) if units <= utf16_len(model_line) => {
                (line, column_for_utf16(model_line, units))
            }
            _ => end_position(code),
        }
    }

    const LIMIT: usize = 1 << 20;

    /// `prepare`'s error for `code`, as (message, line, column).
    fn error(code: &str) -> (String, Option<u32>, Option<u32>) {
        let error = prepare(code, LIMIT).expect_err("should be a syntax error");
        (error.message, error.line, error.column)
    }

    /// `prepare`'s error for `code`, which must have a position.
    fn error_at(code: &str) -> (String, u32, u32) {
        match error(code) {
            (message, Some(line), Some(column)) => (message, line, column),
            other => panic!("no position: {other:?}"),
        }
    }

    /// Evaluates a prepared script the way the engine does: evaluate the
    /// script, call the resulting function, wait for its promise. Returns the
    /// value as JSON, or the error's (message, stack).
    fn run(script: &str) -> Result<String, (String, String)> {
        let runtime = Runtime::new().expect("runtime");
        let context = Context::full(&runtime).expect("context");
        context.with(|ctx| {
            let caught = |error: CaughtError<'_>| match error {
                CaughtError::Exception(exception) => (
                    exception.message().unwrap_or_default(),
                    exception.stack().unwrap_or_default(),
                ),
                other => (other.to_string(), String::new()),
            };
            let function: Function = ctx.eval(script).catch(&ctx).map_err(caught)?;
            let promise: Promise = function.call(()).catch(&ctx).map_err(caught)?;
            let value: rquickjs::Value = promise.finish().catch(&ctx).map_err(caught)?;
            let json = ctx
                .json_stringify(value)
                .expect("stringify")
                .map(|json| json.to_string().expect("utf-8"))
                .unwrap_or_else(|| "undefined".to_owned());
            Ok(json)
        })
    }

    fn run_code(code: &str) -> Result<String, (String, String)> {
        run(&prepare(code, LIMIT).expect("prepares").script)
    }

    /// The (line, column) of the first frame of a QuickJS stack trace.
    fn first_frame(stack: &str) -> (u32, u32) {
        let frame = stack.lines().next().expect("a frame");
        let mut parts = frame.trim_end_matches(')').rsplit(':');
        let column = parts.next().and_then(|c| c.parse().ok()).expect("column");
        let line = parts.next().and_then(|l| l.parse().ok()).expect("line");
        (line, column)
    }

    /// Where QuickJS says `code` threw, mapped back to the model's code.
    fn runtime_error_position(code: &str) -> (u32, u32) {
        let prepared = prepare(code, LIMIT).expect("prepares");
        let (_, stack) = run(&prepared.script).expect_err("throws");
        let (line, column) = first_frame(&stack);
        prepared.to_model_position(line, column)
    }

    /// The 1-based character column of the first `needle` in `line`.
    fn column_of(line: &str, needle: &str) -> u32 {
        let byte = line.find(needle).expect("needle");
        count_u32(line[..byte].chars().count()) + 1
    }

    #[test]
    fn code_over_the_limit_is_refused_with_its_size_and_no_position() {
        let code = "1".repeat(LIMIT + 1);
        assert_eq!(
            error(&code),
            (
                "code is 1048577 bytes, over the 1048576-byte limit".to_owned(),
                None,
                None
            )
        );
        assert!(prepare("return 1", 8).is_ok(), "exactly at the limit");
        let error = prepare("return 10", 8).expect_err("one byte over");
        assert_eq!(error.message, "code is 9 bytes, over the 8-byte limit");
    }

    #[test]
    fn code_is_wrapped_without_moving_its_lines() {
        let prepared = prepare("return 1", LIMIT).expect("prepares");
        assert_eq!(prepared.script, "(async function () {return 1\n})");

        let code = "const a = 1\n\nreturn a // the end";
        let prepared = prepare(code, LIMIT).expect("prepares");
        assert_eq!(prepared.script, format!("{PREFIX}{code}{SUFFIX}"));
        assert_eq!(
            prepared.script.lines().collect::<Vec<_>>()[1..3],
            code.lines().collect::<Vec<_>>()[1..3]
        );
        assert_eq!(run(&prepared.script), Ok("1".to_owned()));
    }

    #[test]
    fn types_are_stripped_into_valid_javascript() {
        let prepared = prepare("const x: number = 1; return x as number", LIMIT).expect("prepares");
        assert_eq!(
            prepared.script,
            "(async function () {const x         = 1; return x          \n})"
        );
        assert_eq!(run(&prepared.script), Ok("1".to_owned()));

        let code = "interface Row { id: string; n?: number }\n\
                    type Pair<T> = [T, T];\n\
                    function first<T>(pair: Pair<T>): T { return pair[0] }\n\
                    const rows: Row[] = [{ id: 'a', n: 2 }];\n\
                    let total!: number;\n\
                    total = rows.reduce((sum: number, row: Row): number => sum + (row.n ?? 0), 0);\n\
                    abstract class Base { abstract f(): void }\n\
                    return [first<string>(['x', 'y']), total!, rows[0]!.id satisfies string]";
        assert_eq!(run_code(code), Ok(r#"["x",2,"a"]"#.to_owned()));
    }

    #[test]
    fn top_level_await_and_return_are_allowed() {
        assert_eq!(
            run_code("const v = await Promise.resolve(41)\nreturn v + 1"),
            Ok("42".to_owned())
        );
        assert_eq!(run_code("await null"), Ok("undefined".to_owned()));
        assert_eq!(
            run_code("'use strict'; return typeof this"),
            Ok(r#""undefined""#.to_owned())
        );
    }

    #[test]
    fn a_trailing_line_comment_does_not_swallow_the_wrapper() {
        assert_eq!(run_code("return 1 // done"), Ok("1".to_owned()));
        assert_eq!(
            error_at("return 1 /* never closed"),
            ("Unterminated block comment".to_owned(), 1, 25)
        );
    }

    #[test]
    fn syntax_errors_carry_the_model_position() {
        assert_eq!(
            error_at("let = ;"),
            ("Expression expected".to_owned(), 1, 7)
        );
        assert_eq!(
            error_at("const a = 1;\nconst b = 2;\nlet = ;"),
            ("Expression expected".to_owned(), 3, 7)
        );
        assert_eq!(
            error_at("const a = 1\nfoo(a b)"),
            ("Expected ',', got 'ident'".to_owned(), 2, 7)
        );
        assert_eq!(
            error_at("const s = 'unterminated\nreturn s"),
            ("Unterminated string constant".to_owned(), 1, 11)
        );
    }

    #[test]
    fn non_erasable_typescript_is_refused_where_it_is() {
        assert_eq!(
            error_at("enum Color { Red }\nreturn Color.Red"),
            (
                "TypeScript enum is not supported (erasable syntax only)".to_owned(),
                1,
                1
            )
        );
        assert_eq!(
            error_at("const a = 1\n\n  namespace N { export const x = 1 }"),
            (
                "TypeScript namespace declaration is not supported (erasable syntax only)"
                    .to_owned(),
                3,
                3
            )
        );
        assert_eq!(
            error_at("module M { export const x = 1 }").0,
            "TypeScript namespace declaration is not supported (erasable syntax only)"
        );
        assert_eq!(
            error_at("class Point {\n  constructor(private x: number) {}\n}"),
            (
                "TypeScript parameter property is not supported (erasable syntax only)".to_owned(),
                2,
                23
            )
        );
        assert_eq!(
            error_at("return <number>x"),
            (
                "The angle-bracket syntax for type assertions, `<T>expr`, is not supported \
                 (erasable syntax only); use `expr as T` instead"
                    .to_owned(),
                1,
                8
            )
        );
        // Type-only namespaces are erasable.
        assert_eq!(
            run_code("declare namespace N { const x: number }\nreturn 1"),
            Ok("1".to_owned())
        );
    }

    #[test]
    fn code_cannot_close_the_wrapper_function() {
        let message = "unexpected `}`: it has no matching `{`".to_owned();
        assert_eq!(
            error_at("}); evil(); (function(){"),
            (message.clone(), 1, 1)
        );
        assert_eq!(
            error_at("}); evil(); (async function () {"),
            (message.clone(), 1, 1)
        );
        assert_eq!(
            error_at("return 1\n  }, function () {"),
            (message.clone(), 2, 3)
        );
        assert_eq!(
            error_at("const a = 1;\n}\nreturn a"),
            (message.clone(), 2, 1)
        );
        assert_eq!(error_at("})(); (() => {"), (message, 1, 1));
        assert_eq!(
            error_at("return 1 ) + (("),
            ("unexpected `)`: it has no matching `(`".to_owned(), 1, 10)
        );
    }

    #[test]
    fn the_oracle_refuses_breakouts_on_its_own() {
        for code in [
            "}); evil(); (function(){",
            "}, function () {",
            "}).call(this, function () {",
            "return 1 })\n;(async function () {",
        ] {
            let script = format!("{PREFIX}{code}{SUFFIX}");
            let error = check_shape(code, &script).expect_err(code);
            assert_eq!(error.message, "unexpected `}`: it has no matching `{`");
        }
        let script = format!("{PREFIX}return 1{SUFFIX}");
        assert_eq!(check_shape("return 1", &script), Ok(()));
    }

    /// Whether the scan and the oracle agree on `code` closing the wrapper,
    /// when swc accepts it; `None` when it does not.
    fn scan_agrees_with_oracle(code: &str) -> Option<bool> {
        let scan = scan::scan(code).ok()?;
        let script = strip_types(code, format!("{PREFIX}{code}{SUFFIX}"), &scan).ok()?;
        let oracle = match check_shape(code, &script) {
            Ok(()) => false,
            Err(error) if error.message.starts_with("unexpected `}`") => true,
            Err(_) => return None,
        };
        Some(scan.unmatched_close.is_some() == oracle)
    }

    #[test]
    fn the_scan_finds_the_breakouts_a_full_parse_finds() {
        for code in [
            "'}' }); evil(); (function(){",
            "const r = /}/; }); evil(); (function(){",
            "const t = `${'}'}`; }); evil(); (function(){",
            "// }\n}); evil(); (function(){",
            "/* } */ }); evil(); (function(){",
            "x = a / b / c }); evil(); (function(){",
            "const f = <T,>(x: T): { a: T } => ({ a: x }); return f(1)",
            "label: { break label }\nreturn `${`${1}`}`",
            "class A { m() { return {} } }\nreturn new A().m()",
            "if (a) /}/.test(s)\nreturn 1",
        ] {
            assert_eq!(scan_agrees_with_oracle(code), Some(true), "{code:?}");
        }
    }

    #[test]
    fn the_scan_agrees_with_a_full_parse_on_random_programs() {
        // Random sequences of fragments, some of which close the wrapper;
        // wherever swc accepts the program, the two verdicts must agree.
        const FRAGMENTS: &[&str] = &[
            "x = 1;",
            "{",
            "}",
            "});",
            "(function () {",
            "})();",
            "}); (function () {",
            "if (a) {",
            "} else {",
            "f(() => {",
            "const r = /[}]/g;",
            "const t = `${'}'}`;",
            "// }\n",
            "/* } */",
            "return {a: 1}",
            "x = a / b / c;",
            "label: {",
            "class A {",
            "m() {",
            "let o = {",
            "a: 1,",
            "};",
            "async () => {",
            "switch (x) {",
            "case 1: {",
            "default:",
            "`${",
            "}`;",
            "'}'",
            "\n",
            "x\n",
            "return (",
            ")",
            "[",
            "]",
            "let v: Map<string, { a: number }> = m;",
            "x as {}",
        ];
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |bound: usize| {
            // xorshift64*
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % bound
        };
        let (mut compared, mut breakouts) = (0, 0);
        for _ in 0..20_000 {
            let length = 1 + next(8);
            let code: String = (0..length)
                .map(|_| FRAGMENTS[next(FRAGMENTS.len())])
                .collect::<Vec<_>>()
                .join(" ");
            if let Some(agrees) = scan_agrees_with_oracle(&code) {
                assert!(agrees, "{code:?}");
                compared += 1;
                breakouts +=
                    usize::from(scan::scan(&code).is_ok_and(|scan| scan.unmatched_close.is_some()));
            }
        }
        assert!(
            compared > 1_000 && breakouts > 100,
            "{compared} compared, {breakouts} breakouts"
        );
    }

    #[test]
    fn an_unfinished_program_is_reported_at_its_last_line() {
        assert_eq!(
            error_at("const a = 1;\nreturn (a +"),
            (
                "unexpected end of code: `(` at line 2, column 8 is not closed".to_owned(),
                2,
                12
            )
        );
        assert_eq!(
            error_at("return 1 +\n\n"),
            ("unexpected end of code".to_owned(), 1, 11)
        );
        assert_eq!(
            error_at("if (ok) {\n  return 1"),
            (
                "unexpected end of code: `{` at line 1, column 9 is not closed".to_owned(),
                2,
                11
            )
        );
        assert_eq!(
            error_at("const s = `a${b"),
            (
                "unexpected end of code: `${` at line 1, column 13 is not closed".to_owned(),
                1,
                16
            )
        );
    }

    #[test]
    fn positions_count_characters_in_non_ascii_code() {
        let line = "const s = \"日本😀\"; let = ;";
        assert_eq!(
            error_at(line),
            (
                "Expression expected".to_owned(),
                1,
                column_of(line, "= ;") + 2
            )
        );
        let code = "// 注释 😀 comment\nconst t: '日本' = '日本' /* ✓ */; let = ;";
        let second = code.lines().nth(1).expect("line 2");
        assert_eq!(
            error_at(code),
            (
                "Expression expected".to_owned(),
                2,
                column_of(second, "= ;") + 2
            )
        );
    }

    #[test]
    fn quickjs_positions_map_back_to_the_model_code() {
        assert_eq!(runtime_error_position("null.x"), (1, 1));
        assert_eq!(runtime_error_position("const a = 1;  null.x"), (1, 15));
        assert_eq!(runtime_error_position("const a = 1;\n  null.x"), (2, 3));

        // Non-ASCII before the error: QuickJS counts bytes, the model sees
        // characters.
        let line = "const s = '日本😀'; null.x";
        assert_eq!(runtime_error_position(line), (1, column_of(line, "null")));
        let code = format!("const a = 1\n{line}");
        assert_eq!(runtime_error_position(&code), (2, column_of(line, "null")));

        // An erased type with non-ASCII in it: the script has spaces where
        // the model has wider characters.
        let line = "const t: '日本😀' = 'x' as '日本😀'; null.x";
        let code = format!("const a = 1\n{line}");
        let prepared = prepare(&code, LIMIT).expect("prepares");
        assert_ne!(prepared.script.lines().nth(1), Some(line), "types erased");
        assert_eq!(runtime_error_position(&code), (2, column_of(line, "null")));
        assert_eq!(runtime_error_position(line), (1, column_of(line, "null")));

        // Positions on the wrapper's closing line, or past a line's end, go to
        // the end.
        let prepared = prepare("return 1\n", LIMIT).expect("prepares");
        assert_eq!(prepared.to_model_position(3, 1), (1, 9));
        assert_eq!(prepared.to_model_position(1, 500), (1, 9));
        assert_eq!(prepared.to_model_position(0, 0), (1, 1));
    }

    #[test]
    fn quickjs_reports_byte_columns_zero_based_on_line_one() {
        // Pins what `to_model_position` relies on; if an rquickjs upgrade
        // changes it, this fails first.
        let runtime = Runtime::new().expect("runtime");
        let context = Context::full(&runtime).expect("context");
        context.with(|ctx| {
            let stack = |source: &str| -> String {
                let function: Function = ctx.eval(source).expect("compiles");
                match function.call::<(), ()>(()).catch(&ctx) {
                    Err(CaughtError::Exception(exception)) => exception.stack().unwrap_or_default(),
                    other => panic!("expected an exception: {other:?}"),
                }
            };
            // `null` at byte offset 16 of line 1.
            assert_eq!(
                stack("(function () {  null.x\n})"),
                "    at <anonymous> (eval_script:1:16)\n"
            );
            // `null` at byte offset 2 of line 2: column 3.
            assert_eq!(
                stack("(function () {\n  null.x\n})"),
                "    at <anonymous> (eval_script:2:3)\n"
            );
            // Bytes, not characters: `'日本'` is 8 bytes, 4 characters.
            assert_eq!(
                stack("(function () {\n'日本'; null.x\n})"),
                "    at <anonymous> (eval_script:2:11)\n"
            );
            // QuickJS's own syntax errors: `at eval_script:LINE:COLUMN`.
            let error = ctx
                .eval::<(), _>("(function () {\n  let x = (1 +\n})")
                .catch(&ctx)
                .expect_err("syntax error");
            let CaughtError::Exception(exception) = error else {
                panic!("expected an exception");
            };
            assert_eq!(
                exception.stack().as_deref(),
                Some("    at eval_script:3:11\n")
            );
        });
    }

    #[test]
    fn html_like_comments_are_refused() {
        let message = "HTML-like comments (`<!--`, `-->`) are not supported".to_owned();
        assert_eq!(
            error_at("x <!-- }); evil(); (function(){"),
            (message.clone(), 1, 3)
        );
        assert_eq!(error_at("x\n--> }); evil();"), (message.clone(), 2, 1));
        assert_eq!(error_at("x\n/*\n*/ --> })"), (message, 3, 4));
        // Not comments: inside strings, or `--` then `>` on one line.
        assert_eq!(
            run_code("let a = 3; const s = '<!-- -->'; return [s, a-->1]"),
            Ok(r#"["<!-- -->",true]"#.to_owned())
        );
    }

    #[test]
    fn an_ambiguous_slash_is_refused_and_clear_ones_pass() {
        let message = scan::ScanErrorKind::AmbiguousSlash.message().to_owned();
        assert_eq!(error_at("if (a) {} /re/.test(s)"), (message.clone(), 1, 11));
        assert_eq!(error_at("let x = a\n/b/g.exec(s)"), (message.clone(), 2, 1));
        assert_eq!(
            error_at("for (const m of /a/g.exec(s) ?? []) {}"),
            (message, 1, 17)
        );
        assert_eq!(
            run_code(
                "const s = 'a/b'; const n: number = 9; const x = n as number\n\
                 if (/\\//.test(s)) return [n / 3, x! / 3, s.split(/\\//).length, `${n / 9}` ]"
            ),
            Ok("[3,3,2,\"1\"]".to_owned())
        );
    }

    #[test]
    fn hostile_nesting_is_refused_without_overflowing_the_stack() {
        // Each shape, at 100,000 levels and at the deepest the scan accepts,
        // on an 8 MiB thread like the engine's: `prepare` must return.
        type Shape = (&'static str, fn(usize) -> String);
        let shapes: &[Shape] = &[
            ("parentheses", |n| {
                format!("return {}1{}", "(".repeat(n), ")".repeat(n))
            }),
            ("brackets", |n| {
                format!("return {}1{}", "[".repeat(n), "]".repeat(n))
            }),
            ("blocks", |n| format!("{}{}", "{".repeat(n), "}".repeat(n))),
            ("objects", |n| {
                format!("return {}1{}", "{a:".repeat(n), "}".repeat(n))
            }),
            ("calls", |n| {
                format!("return {}1{}", "f(".repeat(n), ")".repeat(n))
            }),
            ("templates", |n| {
                format!("return {}1{}", "`${".repeat(n), "}`".repeat(n))
            }),
            ("sums", |n| format!("return 1{}", "+1".repeat(n))),
            ("sums over lines", |n| {
                format!("return 1{}", "\n+1".repeat(n))
            }),
            ("members", |n| format!("return a{}", ".b".repeat(n))),
            ("call chains", |n| format!("return a{}", "()".repeat(n))),
            ("negations", |n| format!("return {}1", "!".repeat(n))),
            ("minus signs", |n| format!("return {}1", "- ".repeat(n))),
            ("powers", |n| format!("return 1{}", "**1".repeat(n))),
            ("assignments", |n| {
                format!("let a; return {}1", "a=".repeat(n))
            }),
            ("conditionals", |n| format!("return {}1", "1?1:".repeat(n))),
            ("arrows", |n| format!("return {}1", "a=>".repeat(n))),
            ("typeof", |n| format!("return {}1", "typeof ".repeat(n))),
            ("await", |n| format!("return {}1", "await ".repeat(n))),
            ("new", |n| format!("return {}a", "new ".repeat(n))),
            ("if", |n| format!("{}1", "if (a) ".repeat(n))),
            ("else if", |n| {
                format!("if (a) {{}}{}", "\nelse if (a) {}".repeat(n))
            }),
            ("labels", |n| format!("{}1", "a: ".repeat(n))),
            ("functions", |n| {
                format!(
                    "return {}1{}",
                    "function(){return ".repeat(n),
                    "}".repeat(n)
                )
            }),
            ("type arguments", |n| {
                format!("let x: {}number{}", "Map<K, ".repeat(n), ">".repeat(n))
            }),
            ("tuple types", |n| {
                format!("let x: {}number{}", "[".repeat(n), "]".repeat(n))
            }),
            ("function types", |n| {
                format!("let x: {}number", "() => ".repeat(n))
            }),
            ("as chains", |n| format!("return x{}", " as any".repeat(n))),
            ("keyof", |n| format!("let x: {}T", "keyof ".repeat(n))),
            ("array types", |n| {
                format!("let x: number{}", "[]".repeat(n))
            }),
            ("optional chains", |n| {
                format!("return a{}", "?.b".repeat(n))
            }),
            ("nested conditionals", |n| {
                format!("return {}1{}", "a ? ".repeat(n), " : 1".repeat(n))
            }),
            ("classes over lines", |n| {
                format!(
                    "return {}1{}",
                    "a = class extends B\n{ m() { return ".repeat(n),
                    "} }".repeat(n)
                )
            }),
            ("non-null chains", |n| format!("return x{}", "!".repeat(n))),
        ];
        let too_deep = scan::ScanErrorKind::TooDeep.message();
        for (name, shape) in shapes {
            let deepest = deepest_accepted(shape);
            for (n, expect_too_deep) in [(100_000, true), (deepest, false)] {
                let code = shape(n);
                let result = std::thread::Builder::new()
                    .stack_size(8 << 20)
                    .spawn(move || prepare(&code, usize::MAX))
                    .expect("spawn")
                    .join()
                    .expect("prepare returns");
                let message = result.err().map(|error| error.message);
                assert_eq!(
                    message.as_deref() == Some(too_deep),
                    expect_too_deep,
                    "{name} at {n}: {message:?}"
                );
            }
        }
    }

    /// The largest `n` for which `scan` accepts `shape(n)`.
    fn deepest_accepted(shape: &fn(usize) -> String) -> usize {
        let (mut accepted, mut refused) = (0, 100_000);
        while refused - accepted > 1 {
            let middle = (accepted + refused) / 2;
            if scan::scan(&shape(middle)).is_ok() {
                accepted = middle;
            } else {
                refused = middle;
            }
        }
        assert!(accepted > 40, "too strict: {accepted}");
        accepted
    }

    #[test]
    fn long_flat_programs_are_not_too_deep() {
        // Statements and list items sit side by side: only nesting counts.
        let statements = "const x = a + b * c - d;\n".repeat(5_000);
        assert!(prepare(&statements, LIMIT).is_ok());
        let without_semicolons = "const x = a + b * c - d\nfoo(x)\n".repeat(3_000);
        assert!(prepare(&without_semicolons, LIMIT).is_ok());
        let list = format!("return [{}]", "{ a: 1, b: [2, 3] }, ".repeat(10_000));
        assert!(prepare(&list, LIMIT).is_ok());
        let chain = format!("return 'x'{}", " + 'x'".repeat(300));
        assert!(prepare(&chain, LIMIT).is_ok());
    }

    #[test]
    fn ordinary_programs_pass_the_scan() {
        // W4 of the shared workloads, verbatim (no semicolons, chains over
        // lines, a division).
        let w4 = "const rows = await tools.get_rows({})\nconst groups = {}\nfor (const r of rows) {\n  const tag = r.tags[0]\n  const g = groups[tag] || (groups[tag] = { tag, n: 0, sum: 0 })\n  g.n++\n  g.sum += r.score\n}\nreturn Object.values(groups)\n  .map(g => ({ tag: g.tag, n: g.n, avg: g.sum / g.n }))\n  .sort((a, b) => b.avg - a.avg || (a.tag < b.tag ? -1 : 1))\n  .slice(0, 10)";
        assert!(prepare(w4, LIMIT).is_ok());

        for (code, expected) in [
            (
                "const text = 'a 1-2, b 3-4'\n\
                 const m = text.match(/(\\d+)-(\\d+)/)\n\
                 if (!m) return null\n\
                 const parts = text.replace(/\\s+/g, ' ').split(/,\\s*/)\n\
                 return [parts.length, Number(m[1]) / 2, /[}]/.test('}')]",
                r#"[2,0.5,true]"#,
            ),
            (
                "class Counter {\n  #n = 0\n  static readonly step: number = 2\n  get value(): number { return this.#n }\n  bump(): this { this.#n += Counter.step; return this }\n}\n\
                 const c = new Counter().bump().bump()\n\
                 return c.value",
                "4",
            ),
            (
                "function pick<T extends object, K extends keyof T>(obj: T, keys: K[]): Pick<T, K> {\n\
                 \x20 const out = {} as Pick<T, K>\n\
                 \x20 for (const k of keys) out[k] = obj[k]\n\
                 \x20 return out\n\
                 }\n\
                 type Row = { a: number; b: string; c?: boolean }\n\
                 const row: Row = { a: 1, b: 'x' }\n\
                 return pick(row, ['a', 'b'])",
                r#"{"a":1,"b":"x"}"#,
            ),
            (
                "async function* numbers(): AsyncGenerator<number> { yield 1; yield 2 }\n\
                 let total = 0\n\
                 outer: for await (const n of numbers()) {\n\
                 \x20 switch (n) {\n\
                 \x20   case 1: { total += n; break }\n\
                 \x20   default: break outer\n\
                 \x20 }\n\
                 }\n\
                 try { JSON.parse('{') } catch (e: unknown) { total += 10 } finally { total *= 2 }\n\
                 return total",
                "22",
            ),
            (
                "const lines: string[] = []\n\
                 for (let i = 0; i < 3; i++) {\n\
                 \x20 lines.push(`${i}: ${(i / 2).toFixed(1)} ${i < 2 ? 'low' : 'high'}`)\n\
                 }\n\
                 return lines.join('\\n')",
                r#""0: 0.0 low\n1: 0.5 low\n2: 1.0 high""#,
            ),
        ] {
            assert_eq!(run_code(code), Ok(expected.to_owned()), "{code}");
        }
    }

    #[test]
    fn preparing_again_and_again_keeps_no_state() {
        // A fresh source map per call: the same input yields the same output
        // (and nothing accumulates between calls).
        let first = prepare("let = ;", LIMIT).expect_err("error");
        for _ in 0..100 {
            assert_eq!(prepare("let = ;", LIMIT).expect_err("error"), first);
            assert!(prepare("return 1", LIMIT).is_ok());
        }
    }
}
