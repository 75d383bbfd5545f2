//! From the model's TypeScript to a script QuickJS can run.
//!
//! [`prepare`] checks the size limit, wraps the code as the body of an async
//! function, erases TypeScript types with `swc_ts_fast_strip` (types become
//! whitespace, so every line keeps its length in UTF-16 code units), and then
//! parses the resulting JavaScript once more to prove that the program is
//! exactly one function expression: model code cannot close the wrapper and
//! run statements of its own at the top level.
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

use std::sync::{Arc, Mutex, PoisonError};

use swc_common::errors::{DiagnosticBuilder, DiagnosticId, Emitter, Handler};
use swc_common::sync::Lrc;
use swc_common::{BytePos, SourceMap, Spanned};
use swc_ecma_ast::{EsVersion, Expr, ExprStmt, FnExpr, ParenExpr, Script, Stmt};
use swc_ecma_parser::error::SyntaxError as ParseErrorKind;
use swc_ecma_parser::lexer::Lexer;
use swc_ecma_parser::unstable::{Capturing, Token};
use swc_ecma_parser::{EsSyntax, Parser, StringInput, Syntax, TsSyntax};
use swc_ts_fast_strip::{Mode, Options};

/// What goes before the model's code, on the same line.
const PREFIX: &str = "(async function () {";
/// What goes after the model's code. The newline ends a trailing `//` comment.
const SUFFIX: &str = "\n})";
/// The message for a `}` that closes the wrapper function.
const UNMATCHED_CLOSE: &str = "unexpected `}`: it has no matching `{`";

/// A program ready for QuickJS: JavaScript whose line/column positions equal
/// the model's TypeScript (see the module docs for the shape).
#[derive(Debug, Clone)]
pub(crate) struct PreparedProgram {
    /// The wrapped, type-stripped script. Evaluating it yields the async
    /// function whose body is the model's code.
    pub(crate) script: String,
    /// The model's code as given, to translate columns back.
    code: Box<str>,
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

    let mut wrapped = String::with_capacity(PREFIX.len() + code.len() + SUFFIX.len());
    wrapped.push_str(PREFIX);
    wrapped.push_str(code);
    wrapped.push_str(SUFFIX);

    let script = strip_types(code, wrapped)?;
    check_shape(code, &script)?;
    Ok(PreparedProgram {
        script,
        code: code.into(),
    })
}

/// Runs `swc_ts_fast_strip` over the wrapped code.
fn strip_types(code: &str, wrapped: String) -> Result<String, SyntaxError> {
    // A fresh source map per call: a shared one would keep every file ever
    // added (memory growing with each run); creating one is cheap.
    let cm: Lrc<SourceMap> = Lrc::default();
    let diagnostics = Diagnostics::default();
    let handler = Handler::with_emitter(false, false, Box::new(diagnostics.clone()));
    let options = Options {
        module: Some(false),
        parser: TsSyntax::default(),
        mode: Mode::StripOnly,
        ..Options::default()
    };
    match swc_ts_fast_strip::operate(&cm, &handler, wrapped, options) {
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
                        explain_invalid_syntax(code, &message, offset)
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
/// the wrapper function early or the error lies past the end of the code
/// (then the message swc gives is about the wrapper's tokens).
fn explain_invalid_syntax(code: &str, message: &str, offset: usize) -> SyntaxError {
    let code_end = PREFIX.len() + code.len();
    let past_end = offset >= code_end;
    match bracket_issue(code) {
        Some(BracketIssue::ClosesWrapper(close)) if close <= offset => {
            SyntaxError::at(UNMATCHED_CLOSE, wrapped_offset_position(code, close))
        }
        Some(BracketIssue::Unclosed { open, bracket }) if past_end => {
            let (line, column) = wrapped_offset_position(code, open);
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

/// A bracket the parser saw go wrong, found by replaying its tokens.
#[derive(Debug, PartialEq)]
enum BracketIssue {
    /// The `}` at this offset of the wrapped source closes the wrapper's
    /// function body, before the end of the code.
    ClosesWrapper(usize),
    /// The opening bracket at this offset of the wrapped source is still open
    /// when the parser reaches the wrapper's suffix.
    Unclosed { open: usize, bracket: char },
}

/// Parses the wrapped code again (only on the error path) capturing its
/// tokens, and matches brackets up to where the parser stopped.
fn bracket_issue(code: &str) -> Option<BracketIssue> {
    let mut wrapped = String::with_capacity(PREFIX.len() + code.len() + SUFFIX.len());
    wrapped.push_str(PREFIX);
    wrapped.push_str(code);
    wrapped.push_str(SUFFIX);
    let base = 1u32;
    let end = BytePos(base.saturating_add(u32::try_from(wrapped.len()).ok()?));
    let lexer = Capturing::new(Lexer::new(
        Syntax::Typescript(TsSyntax::default()),
        EsVersion::latest(),
        StringInput::new(&wrapped, BytePos(base), end),
        None,
    ));
    let mut parser = Parser::new_from(lexer);
    // Only the tokens matter; the error is already known.
    drop(parser.parse_script());
    let tokens = parser.input_mut().iter_mut().take();

    let body_open = PREFIX.len() - 1;
    let code_end = PREFIX.len() + code.len();
    let mut open: Vec<(usize, char)> = Vec::new();
    let mut reached_end = false;
    for token in &tokens {
        let offset = token.span.lo.0.saturating_sub(base) as usize;
        reached_end |= offset >= code_end;
        let bracket = match token.token {
            Token::LParen => '(',
            Token::LBracket => '[',
            Token::LBrace => '{',
            Token::RParen | Token::RBracket | Token::RBrace => {
                let Some((opened, bracket)) = open.pop() else {
                    continue;
                };
                if opened == body_open && offset < code_end {
                    return Some(BracketIssue::ClosesWrapper(offset));
                }
                if opened >= PREFIX.len() && offset >= code_end {
                    return Some(BracketIssue::Unclosed {
                        open: opened,
                        bracket,
                    });
                }
                continue;
            }
            _ => continue,
        };
        open.push((offset, bracket));
    }
    let &(opened, bracket) = open.last()?;
    (reached_end && opened >= PREFIX.len()).then_some(BracketIssue::Unclosed {
        open: opened,
        bracket,
    })
}

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
        Err(SyntaxError::at(
            UNMATCHED_CLOSE,
            breakout_position(code, script, base, &parsed, body_lo),
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
        Some(close) => script_offset_position(code, script, close.saturating_sub(base) as usize),
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
    /// win over the "Expected '}', got '<eof>'" it causes.
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
    let Some(offset) = offset.checked_sub(PREFIX.len()) else {
        return (1, 1);
    };
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
mod scratch {
    use super::*;
    #[test]
    fn scratch_print() {
        for code in [
            "return 1",
            "const x: number = 1; return x as number",
            "let = ;",
            "const a = 1;\nconst b = 2;\nlet = ;",
            "enum E { A }\nreturn E.A",
            "const a = 1;\n\nenum E { A }",
            "namespace N { export const x = 1 }",
            "module N { export const x = 1 }",
            "declare namespace N { const x: number }\nreturn 1",
            "class A { constructor(private x: number) {} }",
            "}); evil(); (function(){",
            "}); evil(); (async function () {",
            "return (1 +",
            "return (1 +\n\n",
            "/* unterminated",
            "return 1 // trailing",
            "await 1; return 2",
            "const s = \"日本😀\"; let = ;",
            "const s: \"日本😀\" = \"x\"; let = ;",
            "if (x) {",
            "}",
            "return <number>x",
            "x\n/*\n*/ --> })",
            "x\n/*\r*/ --> })",
            "x <!-- y",
            "x = `${",
            "const s = 'abc",
            "import x from 'y'",
            "export const x = 1",
            "@dec class A {}",
            "return 1 }, function() {",
            "}).call(this, function () {",
            "let x = 010; return x",
            "with (a) {}",
            "'use strict'; return 1",
            "type T = { a: string }; interface I {}\nreturn 1",
            "function f<T>(x: T): T { return x }\nreturn f<number>(1)",
            "abstract class A { abstract f(): void }",
            "let x!: number; x = 1; return x",
            "return (-2) ** 2",
            "return (await 1) ** 2",
        ] {
            println!(
                "{code:?}\n   => {:?}",
                prepare(code, 1 << 20).map(|p| p.script)
            );
        }
    }
}
#[cfg(test)]
mod scratch3 {
    use super::*;
    #[test]
    fn scratch_depth() {
        let Ok(kind) = std::env::var("K") else { return };
        let n: usize = std::env::var("N").unwrap().parse().unwrap();
        let code = match kind.as_str() {
            "paren" => format!("return {}1{}", "(".repeat(n), ")".repeat(n)),
            "parenopen" => format!("return {}1", "(".repeat(n)),
            "bracket" => format!("return {}1{}", "[".repeat(n), "]".repeat(n)),
            "brace" => format!("{}{}", "{".repeat(n), "}".repeat(n)),
            "obj" => format!("return {}1{}", "{a:".repeat(n), "}".repeat(n)),
            "bang" => format!("return {}1", "!".repeat(n)),
            "neg" => format!("return {}1", "- ".repeat(n)),
            "plus" => format!("return 1{}", "+1".repeat(n)),
            "exp" => format!("return 1{}", "**1".repeat(n)),
            "assign" => format!("let a; return {}1", "a=".repeat(n)),
            "cond" => format!("return {}1", "1?1:".repeat(n)),
            "arrow" => format!("return {}1", "a=>".repeat(n)),
            "member" => format!("return a{}", ".b".repeat(n)),
            "call" => format!("return a{}", "()".repeat(n)),
            "elseif" => format!("if (a) {{}}{}", " else if (a) {}".repeat(n)),
            "if" => format!("{}1", "if (a) ".repeat(n)),
            "label" => format!("{}1", "a: ".repeat(n)),
            "template" => format!("return {}1{}", "`${".repeat(n), "}`".repeat(n)),
            "typeof" => format!("return {}1", "typeof ".repeat(n)),
            "await" => format!("return {}1", "await ".repeat(n)),
            "new" => format!("return {}a", "new ".repeat(n)),
            "type" => format!(
                "let x: {}number{}; return 1",
                "Array<".repeat(n),
                ">".repeat(n)
            ),
            "tuple" => format!("let x: {}number{}; return 1", "[".repeat(n), "]".repeat(n)),
            "union" => format!("let x: number{}; return 1", " | number".repeat(n)),
            "comma" => format!("return 1{}", ",1".repeat(n)),
            "str" => format!("return 'x'{}", "+'x'".repeat(n)),
            _ => panic!("kind"),
        };
        let h = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || {
                let t = std::time::Instant::now();
                let r = prepare(&code, 1 << 20);
                (t.elapsed(), r.map(|p| p.script.len()))
            })
            .unwrap();
        let (el, r) = h.join().unwrap();
        println!(
            "RESULT {kind} {n} {el:?} {:?}",
            r.map_err(|e| e.message.chars().take(80).collect::<String>())
        );
    }
}
