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
    /// The model's line at `at`, with a caret under it (see `excerpt`).
    pub(crate) fn excerpt(&self, at: (u32, u32)) -> Option<String> {
        super::excerpt::excerpt(&self.code, at)
    }

    /// `message`, naming what the code at `at` failed on (see
    /// `excerpt::named`).
    pub(crate) fn named(&self, at: (u32, u32), message: &str) -> Option<String> {
        super::excerpt::named(&self.code, at, message)
    }

    /// The lines of the model's code that call `tool` (see
    /// `hint::call_lines`).
    pub(crate) fn call_lines(&self, tool: &str) -> Vec<u32> {
        super::hint::call_lines(&self.script, tool)
    }

    /// The dotted name ending at `at` (see `excerpt::callee`).
    pub(crate) fn callee(&self, at: (u32, u32)) -> Option<String> {
        super::excerpt::callee(&self.code, at)
    }

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
mod tests;
