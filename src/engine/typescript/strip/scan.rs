//! A fast lexical pass over the model's code, before swc sees it.
//!
//! swc's parser, its AST visitors and the AST's destructor all recurse: one
//! or more stack frames per level of nesting, and nesting comes from brackets
//! but also from operator chains (`1 + 1 + …` builds a left-deep tree,
//! `a => b => …` and `!!!…` recurse in the parser), `else if` ladders and
//! labels. On hostile input (100,000 nested parentheses fit in 100 KB) that
//! overflows any fixed stack, and a stack overflow aborts the process. This
//! pass bounds the nesting first, in one linear scan, so swc only ever sees
//! code whose depth it can handle.
//!
//! # The measure
//!
//! Every token that can add a level to the tree adds to the *segment* of the
//! bracket it is in: 1 for each prefix-capable operator character (`!`, `~`,
//! `+`, `-`) or other operator, a `.`, a keyword or a template; 2 for `=>`
//! and `:` (arrow functions and labels cost the parser most); 3 for a `<`
//! (type arguments nest like brackets) and for an opening bracket, which
//! also starts a new segment on top of the current total. Names and literals
//! add nothing: they are leaves.
//!
//! A segment restarts where what follows sits beside what came before rather
//! than inside it: at `;`, at `,` (unless a `<` may still be open:
//! `Map<K, Map<K, …>>` nests), and at a line break between the end of an
//! operand and a name or literal, where automatic semicolon insertion ends
//! the statement (never before a `{`: `class A extends B` may continue with
//! its body on the next line).
//!
//! The largest total seen must not pass [`LIMIT`]. The weights come from
//! measuring, per construct, how much stack swc uses per level: no construct
//! costs more than about 8 KB per unit in a debug build or 1.4 KB in release,
//! so code at the limit needs at most about 5 MiB of stack in a debug build
//! and 1 MiB in release (the engine runs `prepare` on a thread with 8 MiB;
//! the tests try every construct at the limit on such a thread).
//!
//! The same pass records the first closing bracket with nothing open (code
//! that would close the wrapper function) and the innermost bracket left
//! open, for `prepare`'s checks and messages.
//!
//! # Lexing
//!
//! Strings, templates, comments and regular expressions are skipped exactly as
//! a JavaScript lexer does, so brackets in them do not count. The one thing a
//! lexer cannot know alone is whether `/` starts a regular expression or
//! divides; that depends on the grammar. The previous token decides it here,
//! and where the grammar alone could go either way (`/` after `}`, after a
//! line break following an operand, after `of`/`await`/`yield`, after a `>`
//! that may close type arguments) the code is refused rather than guessed at:
//! a wrong guess would hide brackets from the count. Annex B HTML-like
//! comments are refused too (their rules differ between implementations).
//! These shapes do not occur in ordinary code; the messages say how to
//! rewrite them.

use crate::engine::typescript::intrinsics::{self, Intrinsics};

/// The largest nesting total accepted (see the module docs for the units).
pub(super) const LIMIT: u32 = 640;

/// The most `<` an operand may start (a generic arrow's `<T>(…) =>`, or a
/// `<T>x` assertion) open around one place. swc tries each as an arrow
/// function first and backtracks, so every one nested in another doubles
/// its work twice over: 24 took it 7 s, 18 a tenth of that. Real code nests
/// two or three.
const MAX_TYPE_HEADS: u32 = 16;

/// Units for an opening bracket (`(`, `[`, `{`, `${`).
const OPEN: u32 = 3;
/// Units for `=>` and for a `:` (labels, conditional branches, types).
const HEAVY: u32 = 2;

/// What the scan learned about a program it accepts.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Scan {
    /// The first closing bracket with nothing open, as (byte offset, bracket):
    /// it would close the wrapper function.
    pub(super) unmatched_close: Option<(usize, char)>,
    /// The innermost bracket still open at the end, as (byte offset, bracket).
    pub(super) unclosed: Option<(usize, char)>,
    /// The intrinsics the program's context needs (see [`intrinsics`]):
    /// [`Intrinsics::Full`] if it writes a telltale name (in code, or in a
    /// quoted key), a BigInt literal, an escape in a name or a risky one in
    /// a quoted key, or reads a member by a computed name other than a
    /// number (`a[i]`, `a?.[i]`, `{ [k]: v } = a`).
    pub(super) intrinsics: Intrinsics,
}

/// Why the scan refuses a program, and where (byte offset in the code).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct ScanError {
    pub(super) offset: usize,
    pub(super) kind: ScanErrorKind,
}

#[derive(Debug, PartialEq, Eq)]
pub(super) enum ScanErrorKind {
    /// Nesting past [`LIMIT`].
    TooDeep,
    /// More than [`MAX_TYPE_HEADS`] `<…>` heads open around one place.
    TooManyTypeHeads,
    /// A `/` that could start a regular expression or divide.
    AmbiguousSlash,
    /// `<!--`, or `-->` at the start of a line.
    HtmlComment,
    /// A `//` comment ended by U+2028 or U+2029.
    SeparatorEndsComment,
}

impl ScanErrorKind {
    pub(super) fn message(&self) -> &'static str {
        match self {
            Self::TooDeep => {
                "code nests too deeply (brackets, operator chains or `else if` ladders); \
                 split it into smaller functions or statements"
            }
            Self::TooManyTypeHeads => {
                "too many generic arrow functions or `<T>` assertions nest in one another; \
                 name the inner functions, or write assertions with `as`"
            }
            Self::AmbiguousSlash => {
                "cannot tell whether this `/` starts a regular expression or divides; put a \
                 regular expression in parentheses, and keep a division on the line of its \
                 left operand"
            }
            Self::HtmlComment => "HTML-like comments (`<!--`, `-->`) are not supported",
            Self::SeparatorEndsComment => {
                "a `//` comment ends at a line or paragraph separator (U+2028, U+2029), which \
                 engines read differently; end the comment with a line break"
            }
        }
    }
}

/// What the previous token means for a `/` that follows it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Prev {
    /// Start of code, an operator, an opening bracket, a keyword that takes
    /// an operand, or the `)` of `if (…)`-like heads: `/` starts a regular
    /// expression.
    ExprStart,
    /// The end of an operand (name, literal, `)`, `]`, postfix operator):
    /// `/` divides, if on the same line.
    Operand,
    /// `}`: a block (then `/` starts a regular expression) or an object
    /// literal or function body (then it divides).
    CloseBrace,
    /// `of`, `await`, `yield` (keywords or names), or a `>` that may close
    /// type arguments.
    Unsure,
}

/// The tokens after which the next token reads differently; every other
/// token is [`After::Other`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum After {
    Other,
    /// `.` or `?.`: a word now is a property name.
    Dot,
    /// `if`, `while` or `with`: a `(` now opens a head followed by a
    /// statement.
    Control,
    /// The keyword `for`: as [`After::Control`], and its head may hold
    /// `of`.
    For,
    /// `await` after `for`: as [`After::For`].
    ForAwait,
    /// `as` or `satisfies` after an operand on its line: a `const` or
    /// `void` now ends a type the stripper erases, leaving the operand
    /// before it.
    TypeOperator,
    /// An operator run ending in `=` or `=>`: a `[` now starts an array
    /// even in a class body.
    Assignment,
}

impl After {
    /// Whether a `(` now opens a control head: `if (…)`, `for await (…)`.
    fn is_control(self) -> bool {
        matches!(self, Self::Control | Self::For | Self::ForAwait)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bracket {
    Paren,
    Square,
    Brace,
    /// `${` in a template: its `}` goes back to the template text.
    Substitution,
}

impl Bracket {
    fn opener(self) -> char {
        match self {
            Self::Paren => '(',
            Self::Square => '[',
            Self::Brace => '{',
            Self::Substitution => '$',
        }
    }
}

struct Frame {
    bracket: Bracket,
    /// Byte offset of the opening bracket.
    offset: usize,
    /// The total when this bracket opened.
    base: u32,
    /// Units in the current segment.
    segment: u32,
    /// Unbalanced `<` in the segment: while type arguments may be open, a
    /// `,` does not start a new segment (`Map<K, Map<K, …>>` nests).
    angles: u32,
    /// `<` that started an operand around this bracket (see
    /// [`MAX_TYPE_HEADS`]), and in its current segment.
    outer_heads: u32,
    heads: u32,
    /// `(` of `if`, `while`, `for`, `with`: its `)` is followed by a
    /// statement.
    control: bool,
    /// `(` of `for` (or `for await`), and whether its `of` has been seen: a
    /// `[` right after that `of` starts an array literal.
    for_head: bool,
    of_seen: bool,
    /// A `{` opened after `class` in the same frame (the class body, or,
    /// conservatively, a heritage object literal): a `[` there is a computed
    /// key unless it follows `=` or `=>` (a field's initializer).
    class_body: bool,
    /// `class_pending` when this frame opened, restored when it closes (a
    /// class in a heritage clause, `extends f(class {})`, must not hide
    /// the outer class's body).
    outer_class_pending: Option<usize>,
}

struct Scanner<'a> {
    code: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// The outermost frame is the wrapper function's body.
    frames: Vec<Frame>,
    prev: Prev,
    /// The previous token ends an operand or a statement (for automatic
    /// semicolon insertion).
    prev_ends: bool,
    /// Which of the tokens that change how the next one reads came last.
    after: After,
    /// A line terminator since the previous token.
    line_break: bool,
    /// A `[` now starts an array literal (or an array pattern): it follows
    /// an opening `(` or `[`, a `,` outside braces, `;`, `...`, a prefix or
    /// binary operator, or a keyword that takes an operand (not `void`, which
    /// may end a type the stripper erases). Anything else may put a member
    /// access or a computed key there.
    array_start: bool,
    /// The program may tell a lean context from a full one.
    telltale: bool,
    /// The depth (frame count) where `class` was last seen, until a `;`
    /// there or that frame closes: a `{` opened at that depth is a class
    /// body (see [`Frame::class_body`]).
    class_pending: Option<usize>,
    unmatched_close: Option<(usize, char)>,
}

/// Scans `code` (the model's code, without the wrapper).
///
/// # Errors
///
/// A [`ScanError`] for nesting past [`LIMIT`], an ambiguous `/`, or an
/// HTML-like comment.
pub(super) fn scan(code: &str) -> Result<Scan, ScanError> {
    let mut scanner = Scanner {
        code,
        bytes: code.as_bytes(),
        pos: 0,
        frames: vec![Frame {
            bracket: Bracket::Brace,
            offset: 0,
            base: 0,
            segment: 0,
            angles: 0,
            outer_heads: 0,
            heads: 0,
            control: false,
            for_head: false,
            of_seen: false,
            class_body: false,
            outer_class_pending: None,
        }],
        prev: Prev::ExprStart,
        prev_ends: false,
        after: After::Other,
        line_break: false,
        array_start: true,
        telltale: false,
        class_pending: None,
        unmatched_close: None,
    };
    scanner.run()?;
    let unclosed = scanner
        .frames
        .get(1..)
        .and_then(<[Frame]>::last)
        .map(|frame| (frame.offset, frame.bracket.opener()));
    Ok(Scan {
        unmatched_close: scanner.unmatched_close,
        unclosed,
        intrinsics: if scanner.telltale {
            Intrinsics::Full
        } else {
            Intrinsics::Lean
        },
    })
}

impl Scanner<'_> {
    fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.pos + ahead).copied().unwrap_or(0)
    }

    /// Whether U+2028 or U+2029 starts here (`E2 80 A8` / `E2 80 A9`).
    fn at_ls_or_ps(&self) -> bool {
        self.peek(0) == 0xe2 && self.peek(1) == 0x80 && matches!(self.peek(2), 0xa8 | 0xa9)
    }

    fn error(&self, offset: usize, kind: ScanErrorKind) -> ScanError {
        ScanError { offset, kind }
    }

    fn top(&mut self) -> &mut Frame {
        // The wrapper frame is never popped.
        let last = self.frames.len() - 1;
        &mut self.frames[last]
    }

    /// Adds `units` to the current segment.
    fn add(&mut self, units: u32, at: usize) -> Result<(), ScanError> {
        let frame = self.top();
        frame.segment = frame.segment.saturating_add(units);
        if frame.base.saturating_add(frame.segment) > LIMIT {
            return Err(self.error(at, ScanErrorKind::TooDeep));
        }
        Ok(())
    }

    fn reset_segment(&mut self) {
        let frame = self.top();
        frame.segment = 0;
        frame.angles = 0;
        frame.heads = 0;
    }

    /// Bookkeeping before each token: a line break between an operand and a
    /// token that cannot continue it ends the statement (automatic semicolon
    /// insertion), so the segment restarts.
    fn begin_token(&mut self, starts_statement: bool) {
        if self.line_break && self.prev_ends && starts_statement {
            self.reset_segment();
        }
    }

    /// Bookkeeping after each token.
    fn end_token(&mut self, prev: Prev, ends: bool) {
        self.prev = prev;
        self.prev_ends = ends;
        self.line_break = false;
        self.after = After::Other;
        self.array_start = false;
    }

    fn run(&mut self) -> Result<(), ScanError> {
        while self.pos < self.bytes.len() {
            let byte = self.bytes[self.pos];
            match byte {
                b' ' | b'\t' | 0x0b | 0x0c => self.pos += 1,
                b'\n' | b'\r' => {
                    self.line_break = true;
                    self.pos += 1;
                }
                b'/' => match self.peek(1) {
                    b'/' => self.skip_line_comment()?,
                    b'*' => self.skip_block_comment(),
                    _ => self.slash()?,
                },
                b'\'' | b'"' => {
                    let start = self.pos;
                    self.begin_token(true);
                    self.skip_string(byte);
                    if self.next_significant() == b':'
                        && quoted_key_telltale(&self.bytes[start..self.pos])
                    {
                        self.telltale = true;
                    }
                    self.end_token(Prev::Operand, true);
                }
                b'`' => {
                    self.begin_token(false);
                    self.pos += 1;
                    self.template_text()?;
                }
                b'(' | b'[' | b'{' => {
                    // Not even `{` ends a statement before it: after
                    // `class A extends B` and a line break, the class body
                    // follows, nested in whatever came before.
                    self.begin_token(false);
                    let bracket = match byte {
                        b'(' => Bracket::Paren,
                        b'[' => Bracket::Square,
                        _ => Bracket::Brace,
                    };
                    let control = byte == b'(' && self.after.is_control();
                    let array = self.array_start
                        && (!self.top().class_body || self.after == After::Assignment);
                    if bracket == Bracket::Square && !array && !self.number_index() {
                        self.telltale = true;
                    }
                    self.open(bracket, control)?;
                    self.pos += 1;
                    self.end_token(Prev::ExprStart, false);
                    self.array_start = bracket != Bracket::Brace;
                }
                b')' | b']' | b'}' => self.close(byte)?,
                b',' | b';' => {
                    self.pos += 1;
                    if byte == b';' || self.top().angles == 0 {
                        self.reset_segment();
                    }
                    self.end_token(Prev::ExprStart, byte == b';');
                    if byte == b';' && self.class_pending == Some(self.frames.len()) {
                        self.class_pending = None;
                    }
                    // After `;` in a block a `[` may start a class field's
                    // computed key (`class { x; [k] = v }`): only at the
                    // top level does it surely start an array.
                    self.array_start = if byte == b';' {
                        self.frames.len() == 1 || self.top().bracket != Bracket::Brace
                    } else {
                        self.top().bracket != Bracket::Brace
                    };
                }
                b'.' => {
                    if self.peek(1).is_ascii_digit() {
                        self.begin_token(true);
                        self.skip_number();
                        self.end_token(Prev::Operand, true);
                    } else if self.peek(1) == b'.' && self.peek(2) == b'.' {
                        self.begin_token(false);
                        self.pos += 3;
                        self.end_token(Prev::ExprStart, false);
                        self.array_start = true;
                    } else {
                        self.begin_token(false);
                        self.add(1, self.pos)?;
                        self.pos += 1;
                        self.end_token(Prev::ExprStart, false);
                        self.after = After::Dot;
                    }
                }
                b'0'..=b'9' => {
                    self.begin_token(true);
                    self.skip_number();
                    self.end_token(Prev::Operand, true);
                }
                b'=' | b'+' | b'-' | b'*' | b'%' | b'&' | b'|' | b'^' | b'<' | b'>' | b'!'
                | b'~' | b'?' | b':' => self.operator_run()?,
                b'#' => {
                    // A private name (`#x`); anything else is a syntax error.
                    self.begin_token(true);
                    self.pos += 1;
                    self.skip_word();
                    self.end_token(Prev::Operand, true);
                }
                b'@' => {
                    self.begin_token(false);
                    self.pos += 1;
                    self.end_token(Prev::ExprStart, false);
                }
                _ if byte >= 0x80 => match self.current_char() {
                    Some(character) if is_line_terminator(character) => {
                        self.line_break = true;
                        self.pos += character.len_utf8();
                    }
                    Some(character) if is_whitespace(character) => {
                        self.pos += character.len_utf8();
                    }
                    _ => self.word()?,
                },
                _ => self.word()?,
            }
        }
        Ok(())
    }

    /// The character at the current position (always a character boundary
    /// outside strings, templates and regular expressions).
    fn current_char(&self) -> Option<char> {
        self.code
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
    }

    fn open(&mut self, bracket: Bracket, control: bool) -> Result<(), ScanError> {
        let at = self.pos;
        self.add(OPEN, at)?;
        let top = self.top();
        let base = top.base.saturating_add(top.segment);
        let outer_heads = top.outer_heads.saturating_add(top.heads);
        self.frames.push(Frame {
            bracket,
            offset: at,
            base,
            segment: 0,
            angles: 0,
            outer_heads,
            heads: 0,
            control,
            for_head: control && matches!(self.after, After::For | After::ForAwait),
            of_seen: false,
            class_body: bracket == Bracket::Brace && self.class_pending == Some(self.frames.len()),
            outer_class_pending: self.class_pending,
        });
        Ok(())
    }

    fn close(&mut self, byte: u8) -> Result<(), ScanError> {
        let at = self.pos;
        self.begin_token(false);
        self.pos += 1;
        if self.frames.len() == 1 {
            // Nothing open: this closes the wrapper function. Remember the
            // first one and carry on counting.
            if self.unmatched_close.is_none() {
                self.unmatched_close = Some((at, char::from(byte)));
            }
            self.end_token(Prev::Operand, true);
            return Ok(());
        }
        let frame = self.frames.pop();
        if self
            .class_pending
            .is_some_and(|depth| depth > self.frames.len())
        {
            self.class_pending = frame.as_ref().and_then(|frame| frame.outer_class_pending);
        }
        match frame {
            Some(Frame {
                bracket: Bracket::Substitution,
                ..
            }) if byte == b'}' => self.template_text(),
            Some(frame) => {
                let prev = match byte {
                    b'}' => Prev::CloseBrace,
                    b')' if frame.control => Prev::ExprStart,
                    _ => Prev::Operand,
                };
                let ends = !(byte == b')' && frame.control);
                self.end_token(prev, ends);
                self.array_start = prev == Prev::ExprStart;
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// A `/` that is not a comment: a regular expression or a division.
    fn slash(&mut self) -> Result<(), ScanError> {
        let at = self.pos;
        let regex = match self.prev {
            Prev::ExprStart => true,
            Prev::Operand if !self.line_break => false,
            Prev::Operand | Prev::CloseBrace | Prev::Unsure => {
                return Err(self.error(at, ScanErrorKind::AmbiguousSlash));
            }
        };
        if regex {
            self.begin_token(false);
            self.skip_regex();
            self.end_token(Prev::Operand, true);
        } else {
            self.begin_token(false);
            self.pos += 1;
            if self.peek(0) == b'=' {
                self.pos += 1;
            }
            self.add(1, at)?;
            self.end_token(Prev::ExprStart, false);
            self.array_start = true;
        }
        Ok(())
    }

    /// A run of operator characters (`=`, `+`, `<`, `?`, `:`, …).
    fn operator_run(&mut self) -> Result<(), ScanError> {
        let start = self.pos;
        while matches!(
            self.peek(0),
            b'=' | b'+'
                | b'-'
                | b'*'
                | b'%'
                | b'&'
                | b'|'
                | b'^'
                | b'<'
                | b'>'
                | b'!'
                | b'~'
                | b'?'
                | b':'
        ) {
            // `?.` is optional chaining unless a digit follows (`a?.5:1`).
            if self.peek(0) == b'?' && self.peek(1) == b'.' && !self.peek(2).is_ascii_digit() {
                if self.pos > start {
                    break;
                }
                self.begin_token(false);
                self.pos += 2;
                self.add(1, start)?;
                self.end_token(Prev::ExprStart, false);
                self.after = After::Dot;
                return Ok(());
            }
            self.pos += 1;
        }
        let run = &self.bytes[start..self.pos];
        if contains(run, b"<!--") || (self.line_break && run.starts_with(b"-->")) {
            return Err(self.error(start, ScanErrorKind::HtmlComment));
        }
        self.begin_token(false);

        // Postfix `++`, `--` and TypeScript's non-null `!` (erased, so `a!++`
        // is `a++`) end an operand, if on its line.
        let bangless = &run[run.iter().take_while(|&&byte| byte == b'!').count()..];
        let postfix_run = matches!(bangless, b"" | b"++" | b"--");
        let postfix = self.prev == Prev::Operand && !self.line_break && postfix_run;

        // Nesting: each prefix-capable character (`!a`, `- -a`) counts, `<`
        // as much as a bracket (type arguments nest like one), `=>` and `:`
        // count [`HEAVY`], anything else at least 1.
        let count = |wanted: &[u8]| {
            u32::try_from(run.iter().filter(|byte| wanted.contains(byte)).count())
                .unwrap_or(u32::MAX)
        };
        let heavy = if contains(run, b"=>") || run.contains(&b':') {
            HEAVY
        } else {
            1
        };
        let units = count(b"!~+-")
            .saturating_add(count(b"<").saturating_mul(OPEN))
            .max(heavy);
        self.add(units, start)?;
        if run == b"<" && self.prev == Prev::ExprStart {
            let frame = self.top();
            frame.heads = frame.heads.saturating_add(1);
            if frame.outer_heads.saturating_add(frame.heads) > MAX_TYPE_HEADS {
                return Err(self.error(start, ScanErrorKind::TooManyTypeHeads));
            }
        }

        // `<` may open type arguments, `>` close them (`=>` is not one).
        let opened = count(b"<");
        let closed = run
            .iter()
            .enumerate()
            .filter(|&(index, &byte)| byte == b'>' && (index == 0 || run[index - 1] != b'='))
            .count();
        let frame = self.top();
        frame.angles = frame
            .angles
            .saturating_add(opened)
            .saturating_sub(u32::try_from(closed).unwrap_or(u32::MAX));

        // A `!` right after `}` or a `>` on its line may be TypeScript's
        // non-null assertion (`{}!`, `f<T>!`), which the stripper erases:
        // neither a `/` nor a `[` may be guessed at after it.
        let non_null = matches!(self.prev, Prev::CloseBrace | Prev::Unsure)
            && !self.line_break
            && postfix_run
            && run.first() == Some(&b'!');
        let prev = if postfix {
            Prev::Operand
        } else if non_null || (run.last() == Some(&b'>') && !run.ends_with(b"=>")) {
            Prev::Unsure
        } else {
            Prev::ExprStart
        };
        self.end_token(prev, postfix);
        self.array_start = prev == Prev::ExprStart;
        if run.ends_with(b"=") || run.ends_with(b"=>") {
            self.after = After::Assignment;
        }
        Ok(())
    }

    /// A name or keyword (including non-ASCII and `\u` escapes).
    fn word(&mut self) -> Result<(), ScanError> {
        let start = self.pos;
        let after_dot = self.after == After::Dot;
        // TypeScript's `as` and `satisfies` follow an operand on its line.
        let after_operand =
            matches!(self.prev, Prev::Operand | Prev::CloseBrace) && !self.line_break;
        self.skip_word();
        if self.pos == start {
            // A stray byte (a control character): swc rejects it.
            self.pos += 1;
            self.end_token(Prev::Operand, true);
            return Ok(());
        }
        let word = &self.bytes[start..self.pos];
        if word.contains(&b'\\') || names_telltale(word) {
            self.telltale = true;
        }
        let of_keyword = self.of_keyword(word, after_dot);
        let keyword = if after_dot {
            Keyword::Name
        } else {
            Keyword::of(word)
        };
        self.begin_token(!continues(word));
        if keyword != Keyword::Name {
            self.add(1, start)?;
        }
        let was_for = self.after == After::For;
        let const_or_void = !after_dot && matches!(word, b"const" | b"void");
        // With a line break between, `as` is a name and its statement ended
        // (`{} as` / `void /re/`); on one line only TypeScript's reading parses.
        let type_end = const_or_void && self.after == After::TypeOperator && !self.line_break;
        let (prev, ends) = match keyword {
            // `x as const`, `x satisfies void`: stripped to `x`.
            _ if type_end => (Prev::Operand, true),
            // Elsewhere a `/` after them is refused: nothing valid puts a
            // regular expression after `const`, and `void /re/` is rare.
            _ if const_or_void => (Prev::Unsure, false),
            Keyword::Name | Keyword::Value | Keyword::Contextual => (Prev::Operand, true),
            Keyword::Unsure => (Prev::Unsure, false),
            Keyword::Operator | Keyword::Control | Keyword::Reserved => (Prev::ExprStart, false),
        };
        // `x as` / `any` on the next line is one expression to TypeScript: a
        // word that continues an expression ends no statement (and as a mere
        // name, at worst the nesting is counted on).
        self.end_token(prev, ends && !continues(word));
        if !after_dot && word == b"class" {
            self.class_pending = Some(self.frames.len());
        }
        self.array_start = of_keyword
            || (matches!(
                keyword,
                Keyword::Operator | Keyword::Control | Keyword::Reserved
            ) && word != b"void"
                && !type_end);
        self.after = if !after_dot && after_operand && matches!(word, b"as" | b"satisfies") {
            After::TypeOperator
        } else if keyword == Keyword::Control && word == b"for" {
            After::For
        } else if was_for && word == b"await" {
            After::ForAwait
        } else if keyword == Keyword::Control {
            After::Control
        } else {
            After::Other
        };
        Ok(())
    }

    /// Whether `word` is the `of` of a `for (… of …)` head: the first `of`
    /// right after an operand in the head (`for (of of [1])` binds `of`).
    fn of_keyword(&mut self, word: &[u8], after_dot: bool) -> bool {
        let after_operand = matches!(self.prev, Prev::Operand | Prev::CloseBrace);
        let frame = self.top();
        if word != b"of" || after_dot || !after_operand || !frame.for_head || frame.of_seen {
            return false;
        }
        frame.of_seen = true;
        true
    }

    fn skip_word(&mut self) {
        while self.pos < self.bytes.len() {
            let byte = self.bytes[self.pos];
            match byte {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'$' => self.pos += 1,
                b'\\' => {
                    // `\uXXXX` or `\u{…}`.
                    self.pos += 1;
                    if self.peek(0) == b'u' && self.peek(1) == b'{' {
                        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'}' {
                            self.pos += 1;
                        }
                        self.pos = (self.pos + 1).min(self.bytes.len());
                    }
                }
                _ if byte >= 0x80 => match self.current_char() {
                    Some(character)
                        if !is_whitespace(character) && !is_line_terminator(character) =>
                    {
                        self.pos += character.len_utf8();
                    }
                    _ => break,
                },
                _ => break,
            }
        }
    }

    fn skip_number(&mut self) {
        // Digits, `.`, letters (hex digits, exponents, `n`) and `_`; a sign
        // only right after the exponent `e`/`E` of a decimal literal.
        let start = self.pos;
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'.' => self.pos += 1,
                b'+' | b'-' if ends_in_exponent(&self.bytes[start..self.pos]) => {
                    self.pos += 1;
                }
                _ => break,
            }
        }
        // A BigInt literal needs the `BigInt` intrinsic; the run may go on
        // into member accesses (`1n.x`, `0..constructor`).
        let run = &self.bytes[start..self.pos];
        if run.ends_with(b"n") || contains(run, b"n.") || names_telltale(run) {
            self.telltale = true;
        }
    }

    /// Whether a `[` here is followed by a number and `]` (`rows[0]`): a
    /// member access no program can turn into another name.
    fn number_index(&self) -> bool {
        let rest = &self.bytes[self.pos + 1..];
        let mut at = rest
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        if !rest.get(at).is_some_and(u8::is_ascii_digit) {
            return false;
        }
        at += rest[at..]
            .iter()
            .take_while(|&&b| b.is_ascii_digit())
            .count();
        at += rest[at..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        rest.get(at) == Some(&b']')
    }

    /// The first byte after the current position that is not whitespace, a
    /// line terminator or in a comment (0 at the end).
    fn next_significant(&self) -> u8 {
        let mut at = self.pos;
        while at < self.bytes.len() {
            match self.bytes[at] {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => at += 1,
                // A line comment ends at a line terminator, U+2028 and
                // U+2029 included (the scan refuses those later anyway).
                b'/' if self.bytes.get(at + 1) == Some(&b'/') => {
                    let rest = &self.code[at..];
                    at += rest
                        .find(['\n', '\r', '\u{2028}', '\u{2029}'])
                        .unwrap_or(rest.len());
                }
                b'/' if self.bytes.get(at + 1) == Some(&b'*') => {
                    at = match self.code[at + 2..].find("*/") {
                        Some(end) => at + 2 + end + 2,
                        None => self.bytes.len(),
                    };
                }
                byte if byte >= 0x80 => match self.code.get(at..).and_then(|r| r.chars().next()) {
                    Some(c) if is_whitespace(c) || is_line_terminator(c) => at += c.len_utf8(),
                    _ => return byte,
                },
                byte => return byte,
            }
        }
        0
    }

    fn skip_string(&mut self, quote: u8) {
        self.pos += 1;
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'\\' => {
                    self.pos += 1;
                    if self.peek(0) == b'\r' && self.peek(1) == b'\n' {
                        self.pos += 1;
                    }
                    if self.pos < self.bytes.len() {
                        self.pos += utf8_width(self.bytes[self.pos]);
                    }
                }
                // Unterminated: swc reports it.
                b'\n' | b'\r' => return,
                byte if byte == quote => {
                    self.pos += 1;
                    return;
                }
                _ => self.pos += 1,
            }
        }
    }

    /// Template text, up to the closing backtick or the next `${`.
    fn template_text(&mut self) -> Result<(), ScanError> {
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'\\' => self.pos += 2,
                b'`' => {
                    self.pos += 1;
                    let at = self.pos - 1;
                    self.add(1, at)?;
                    self.end_token(Prev::Operand, true);
                    return Ok(());
                }
                b'$' if self.peek(1) == b'{' => {
                    self.open(Bracket::Substitution, false)?;
                    self.pos += 2;
                    self.end_token(Prev::ExprStart, false);
                    self.array_start = true;
                    return Ok(());
                }
                _ => self.pos += 1,
            }
        }
        // Unterminated: swc reports it.
        self.pos = self.bytes.len();
        Ok(())
    }

    fn skip_regex(&mut self) {
        self.pos += 1;
        let mut class = false;
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'\\' => {
                    self.pos += 1;
                    match self.bytes.get(self.pos) {
                        None | Some(b'\n' | b'\r') => return,
                        Some(&byte) => self.pos += utf8_width(byte),
                    }
                }
                b'\n' | b'\r' => return,
                b'[' => {
                    class = true;
                    self.pos += 1;
                }
                b']' => {
                    class = false;
                    self.pos += 1;
                }
                b'/' if !class => {
                    self.pos += 1;
                    // Flags.
                    self.skip_word();
                    return;
                }
                _ if self.at_ls_or_ps() => return,
                _ => self.pos += 1,
            }
        }
    }

    /// A `//` comment, up to its line terminator. One ending at U+2028 or
    /// U+2029 is refused: QuickJS ends the comment there without a line
    /// break (`a //…` LS `++b` is `a++` to it, `a; ++b` to swc).
    fn skip_line_comment(&mut self) -> Result<(), ScanError> {
        self.pos += 2;
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'\n' | b'\r' => return Ok(()),
                _ if self.at_ls_or_ps() => {
                    return Err(self.error(self.pos, ScanErrorKind::SeparatorEndsComment));
                }
                _ => self.pos += 1,
            }
        }
        Ok(())
    }

    fn skip_block_comment(&mut self) {
        self.pos += 2;
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b'*' if self.peek(1) == b'/' => {
                    self.pos += 2;
                    return;
                }
                b'\n' | b'\r' => {
                    self.line_break = true;
                    self.pos += 1;
                }
                _ if self.at_ls_or_ps() => {
                    self.line_break = true;
                    self.pos += 3;
                }
                _ => self.pos += 1,
            }
        }
    }
}

/// How a word affects what follows it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Keyword {
    /// Not a keyword: an operand, and a leaf (no nesting).
    Name,
    /// `this`, `null`, `true`, `false`, `super`: operands.
    Value,
    /// Takes an operand: `/` after it starts a regular expression.
    Operator,
    /// `if`, `while`, `for`, `with`: their `(…)` is followed by a statement.
    Control,
    /// A keyword or a name depending on context, with a `/` after it meaning
    /// different things: `of`, `await`, `yield`.
    Unsure,
    /// Any other reserved word: nothing valid puts a division after it.
    Reserved,
    /// A word that is a keyword only in some places (`let`, `type`, `as`,
    /// `async`, …) and a name elsewhere: a `/` after it divides (nothing
    /// valid puts a regular expression there), but it may nest (`as`).
    Contextual,
}

impl Keyword {
    fn of(word: &[u8]) -> Self {
        match word {
            b"this" | b"null" | b"true" | b"false" | b"super" => Self::Value,
            b"return" | b"typeof" | b"instanceof" | b"in" | b"new" | b"delete" | b"void"
            | b"throw" | b"case" | b"do" | b"else" | b"extends" => Self::Operator,
            b"if" | b"while" | b"for" | b"with" => Self::Control,
            b"of" | b"await" | b"yield" => Self::Unsure,
            b"break" | b"catch" | b"class" | b"const" | b"continue" | b"debugger" | b"default"
            | b"enum" | b"export" | b"finally" | b"function" | b"import" | b"switch" | b"try"
            | b"var" => Self::Reserved,
            b"let" | b"static" | b"implements" | b"interface" | b"package" | b"private"
            | b"protected" | b"public" | b"as" | b"satisfies" | b"keyof" | b"infer" | b"is"
            | b"asserts" | b"unique" | b"readonly" | b"declare" | b"abstract" | b"type"
            | b"namespace" | b"module" | b"global" | b"get" | b"set" | b"async" | b"accessor"
            | b"override" | b"out" | b"from" => Self::Contextual,
            _ => Self::Name,
        }
    }
}

/// Whether a word can continue the statement before a line break
/// (`a\ninstanceof B`, `if (a) b\nelse c`, `do a\nwhile (b)`), so that no
/// statement necessarily ends at the line break.
fn continues(word: &[u8]) -> bool {
    matches!(
        word,
        b"in"
            | b"instanceof"
            | b"of"
            | b"as"
            | b"satisfies"
            | b"extends"
            | b"implements"
            | b"else"
            | b"catch"
            | b"finally"
            | b"while"
            | b"is"
            | b"keyof"
            | b"infer"
            | b"asserts"
            | b"unique"
            | b"readonly"
            | b"from"
    )
}

/// Whether a number literal's run so far ends in the exponent marker of a
/// decimal literal (`1e`, `1.5E`, `.5e`), so a sign may follow; not in a
/// member name (`1..e-x` is `1..e - x`) or a hex digit (`0x1e-1`).
fn ends_in_exponent(run: &[u8]) -> bool {
    let Some((&last, mantissa)) = run.split_last() else {
        return false;
    };
    let dots = mantissa.iter().filter(|&&b| b == b'.').count();
    matches!(last, b'e' | b'E')
        && dots <= 1
        && mantissa.iter().any(u8::is_ascii_digit)
        && mantissa
            .iter()
            .all(|&b| b.is_ascii_digit() || b == b'_' || b == b'.')
}

/// Whether a name (possibly several joined by characters that are not
/// ASCII name characters, which QuickJS may read as separators) is a
/// telltale of [`intrinsics`].
fn names_telltale(word: &[u8]) -> bool {
    word.split(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$'))
        .any(intrinsics::is_telltale)
}

/// Whether a quoted string (with its quotes) used as a key could name a
/// telltale: it contains one, or an escape that makes letters or digits
/// (`\x63`, `\u0063`, `\143`, `\c`) or disappears (a line continuation).
fn quoted_key_telltale(quoted: &[u8]) -> bool {
    let mut escaped = false;
    for &byte in quoted {
        if escaped {
            let plain = b"nrtbfv".contains(&byte)
                || (byte.is_ascii_punctuation() && byte != b'_' && byte != b'$')
                || byte == b' ';
            if !plain {
                return true;
            }
            escaped = false;
        } else {
            escaped = byte == b'\\';
        }
    }
    names_telltale(quoted)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

fn utf8_width(first: u8) -> usize {
    match first {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

/// Line terminators besides `\n` and `\r`.
fn is_line_terminator(character: char) -> bool {
    matches!(character, '\u{2028}' | '\u{2029}')
}

/// Whitespace besides ASCII space, tab, VT and FF, exactly as swc's lexer has
/// it (which adds U+0085 and U+200B to ECMAScript's list).
fn is_whitespace(character: char) -> bool {
    matches!(
        character,
        '\u{a0}' | '\u{feff}' | '\u{85}' | '\u{1680}' | '\u{2000}'
            ..='\u{200b}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan of accepted code, its intrinsics left at the default (the
    /// verdict has tests of its own).
    fn accepted(code: &str) -> Scan {
        let scan = scan(code).unwrap_or_else(|error| panic!("{code:?}: {error:?}"));
        Scan {
            intrinsics: Intrinsics::default(),
            ..scan
        }
    }

    fn refused(code: &str) -> (ScanErrorKind, usize) {
        let error = scan(code).expect_err(code);
        (error.kind, error.offset)
    }

    #[test]
    fn reports_the_first_unmatched_close_and_the_innermost_unclosed_bracket() {
        assert_eq!(
            accepted("a }) b"),
            Scan {
                unmatched_close: Some((2, '}')),
                unclosed: None,
                ..Scan::default()
            }
        );
        assert_eq!(
            accepted("f(a, [b, { c"),
            Scan {
                unmatched_close: None,
                unclosed: Some((9, '{')),
                ..Scan::default()
            }
        );
        assert_eq!(
            accepted("x = `a${b"),
            Scan {
                unmatched_close: None,
                unclosed: Some((6, '$')),
                ..Scan::default()
            }
        );
        assert_eq!(accepted("if (a) { f([1, 2], `${b}`) }"), Scan::default());
    }

    /// A line break after `as` (or `satisfies`) does not end the statement:
    /// swc reads `1+…+1 as` / `any+…` as one chain, as deep as it is long.
    #[test]
    fn a_line_break_after_as_does_not_restart_the_count() {
        for word in ["as", "satisfies"] {
            let chain = "+1".repeat(400);
            let code = format!("return 1{chain} {word}\nany{chain} {word}\nany");
            assert_eq!(refused(&code).0, ScanErrorKind::TooDeep, "{word}");
        }
    }

    /// Nested `<…>` operand heads are bounded; side by side they are not.
    #[test]
    fn type_heads_are_bounded_where_they_nest() {
        let nested = |n: usize| format!("const f = {}", "<T>(g = ".repeat(n));
        accepted(&nested(MAX_TYPE_HEADS as usize));
        assert_eq!(
            refused(&nested(MAX_TYPE_HEADS as usize + 1)).0,
            ScanErrorKind::TooManyTypeHeads
        );
        let siblings = format!("f({})", "<T,>(a: T) => a, ".repeat(40));
        accepted(&siblings);
        let statements = "const id = <T,>(a: T) => a;\n".repeat(40);
        accepted(&statements);
        // Comparisons are not heads.
        accepted(&"(a < b) && ".repeat(40));
    }

    #[test]
    fn brackets_in_strings_comments_templates_and_regexes_do_not_count() {
        for code in [
            "'}' + \"}\" + '\\'}'",
            "// }\n/* } */ x",
            "`}${'}'}` + `\\${`",
            "/}[/}]\\//.test(s)",
            "x = `a${`b${c}`}`",
            "a\n/* line\nbreak */ + 1",
        ] {
            assert_eq!(accepted(code), Scan::default(), "{code:?}");
        }
    }

    #[test]
    fn decides_regex_or_division_from_the_previous_token() {
        for code in [
            // Regular expressions.
            "/a/.test(s)",
            "return /'/.source",
            "if (a) /'/.test(s)",
            "for await (const x of y) /'/.test(x)",
            "x = a ? /'/ : /\"/",
            "f(/'/, [/'/], { a: /'/ })",
            "x = () => /'/",
            "typeof /'/",
            "return\u{a0}/'/.source",
            // Divisions.
            "a / 2 / '/'.length",
            "f(a) / 2 / '/'.length",
            "a[0] / 2 / '/'.length",
            "1 / 2 / '/'.length",
            "a++ / 2 / '/'.length",
            "a! / 2 / '/'.length",
            "a!++ / 2 / '/'.length",
            "a!!-- / 2 / '/'.length",
            "a.return / 2 / '/'.length",
            "this.#x / 2 / '/'.length",
            "type / 2 / '/'.length",
            "x as const / 2 / '/'.length",
            "x satisfies void / 2 / '/'.length",
            "`x` / 2 / '/'.length",
            "/x/ / 2 / '/'.length",
            "a /= 2",
        ] {
            assert_eq!(accepted(code), Scan::default(), "{code:?}");
        }
    }

    #[test]
    fn refuses_a_slash_the_previous_token_cannot_decide() {
        for (code, offset) in [
            ("if (a) {} /re/", 10),
            ("({}) + {} / 2", 10),
            ("let x = a\n/re/.test(s)", 10),
            ("a++\n/re/", 4),
            ("for (const x of /re/) {}", 16),
            ("await /re/", 6),
            ("yield /re/", 6),
            ("f<T> / 2", 5),
            // `void` and `const` may end a type the stripper erases (below).
            ("void /re/", 5),
            ("const /re/", 6),
            // `as` a name, not TypeScript's: the `void` is JavaScript's.
            ("let as = 1\nas\nvoid /'/", 19),
            ("var as; if (1) {} as\nvoid /'/", 26),
            ("let as\nvoid /'/", 12),
            ("{} as /*\n*/ void /'/", 17),
            // A non-null `!` after `}` leaves an operand.
            ("const o = {}! /(/ 1", 14),
        ] {
            assert_eq!(
                refused(code),
                (ScanErrorKind::AmbiguousSlash, offset),
                "{code:?}"
            );
        }
    }

    /// QuickJS ends a `//` comment at U+2028/U+2029 without a line break
    /// (`a //c` LS `++ b` is `a++ b` to it, `a; ++b` to swc): refused.
    #[test]
    fn refuses_a_line_comment_ended_by_a_separator() {
        for code in ["a //c\u{2028}++ b", "a //c\u{2029}/re/"] {
            assert_eq!(
                refused(code),
                (ScanErrorKind::SeparatorEndsComment, 5),
                "{code:?}"
            );
        }
        assert!(scan("a /* c\u{2028} */ ++b // … fine\nb").is_ok());
    }

    /// After `as`/`satisfies`, `void` and `const` end a type the stripper
    /// erases: a `/` then divides, so brackets after it count (read as a
    /// regular expression, they hid the wrapper's close and any nesting).
    #[test]
    fn reads_a_slash_after_an_erased_type_as_a_division() {
        let code = "0 as void /0}); f(); (async function () {0/ 1";
        assert_eq!(accepted(code).unmatched_close, Some((12, '}')));
        assert_eq!(accepted("x as void /(/ 1").unclosed, Some((11, '(')));
        assert_eq!(
            accepted("x satisfies const /(/ 1").unclosed,
            Some((19, '('))
        );
    }

    #[test]
    fn refuses_html_like_comments() {
        for (code, offset) in [
            ("a <!-- b", 2),
            ("a =<!-- b", 2),
            ("a\n--> b", 2),
            ("a /*\n*/ --> b", 8),
            ("a\u{2028}--> b", 4),
        ] {
            assert_eq!(
                refused(code),
                (ScanErrorKind::HtmlComment, offset),
                "{code:?}"
            );
        }
        assert_eq!(accepted("a-- > b; a-->b"), Scan::default());
    }

    #[test]
    fn counts_nesting_not_length() {
        // Side by side: statements, list items, automatic semicolons.
        accepted(&"x = a + b;\n".repeat(1_000));
        accepted(&"x = a + b\ny = f(x)\n".repeat(1_000));
        accepted(&format!("[{}]", "[1, 2], ".repeat(1_000)));
        accepted(&format!("f({})", "a + b, ".repeat(1_000)));
        // Chains and nesting add up.
        let depth = |code: String| scan(&code).err().map(|error| error.kind);
        assert_eq!(
            depth(format!("x = 1{}", " + 1".repeat(700))),
            Some(ScanErrorKind::TooDeep)
        );
        assert_eq!(
            depth(format!("x = 1{}", "\n+ 1".repeat(700))),
            Some(ScanErrorKind::TooDeep)
        );
        assert_eq!(
            depth(format!("{}1", "(".repeat(220))),
            Some(ScanErrorKind::TooDeep)
        );
        assert_eq!(depth(format!("{}1", "(".repeat(200))), None);
        // Commas inside possible type arguments do not separate.
        assert_eq!(
            depth(format!("let x: {}T", "Map<K, ".repeat(220))),
            Some(ScanErrorKind::TooDeep)
        );
        // Nor does a line break before a class body.
        let class = format!(
            "x = {}class extends B\n{{ m() {{ return ",
            "a = ".repeat(100)
        );
        assert_eq!(
            depth(format!("{}{}", class.repeat(20), "} }".repeat(20))),
            Some(ScanErrorKind::TooDeep)
        );
        // A line break inside an unfinished statement does not either.
        assert_eq!(
            depth(format!("x = {}1", "a ?\nb :\n".repeat(250))),
            Some(ScanErrorKind::TooDeep)
        );
    }

    #[test]
    fn reports_where_the_limit_is_crossed() {
        let code = format!("x = 1{}", " + 1".repeat(1_000));
        let (kind, offset) = refused(&code);
        assert_eq!(kind, ScanErrorKind::TooDeep);
        // `=` and each `+` count 1: unit 641, past the limit, is the 640th `+`.
        assert_eq!(offset, "x = 1".len() + 639 * " + 1".len() + 1);
    }

    fn intrinsics(code: &str) -> Intrinsics {
        scan(code)
            .unwrap_or_else(|error| panic!("{code:?}: {error:?}"))
            .intrinsics
    }

    #[test]
    fn programs_that_cannot_tell_get_the_lean_intrinsics() {
        for code in [
            "return 1",
            "await tools.sleep({ ms: 200 }); return 1",
            "const [a, b] = await Promise.all([tools.a(), tools.b({ q: 'x' })]);\nreturn { a, b }",
            "const rows = await tools.rows(); return rows[0].name + rows[ 12 ].id",
            "for (const r of rows) { if (r.ok) out.push([r.id, r.n]) } return out",
            "const m = new Map(); m.set('k', [1]); return [...m]",
            "const o = { a: [1, 2], b: x ? [3] : [] }; return o",
            "f(a, [b]); g(...[c]); if (d) [e] = [f]",
            "return `${[1, 2].join(',')}`",
            "return x / [2][0]",
            "return typeof [] + void 0 + (a => [a])(1)",
            "try { await tools.x() } catch (e) { console.log(e.code, 'the date') }",
            "const s = 'this is Date and constructor'; console.log(s)",
            "const { a, b: { c } } = obj; return { 'plain key': a, c }",
            "return 'tab\\there' + \"quote\\\"s\"",
            "return 12 + 0x1f + 1_000 + 1e3 + .5",
            "return 1e-5 + 1.5E+3 + .5e-3 + 1_0e+1 + 0x1e-1",
            "return /[a-z]\\d+/.test(s) ? [1] : [2]",
            "for (const v of [1, 2]) f(v); for await (const w of [p]) g(w)",
            "for (of of [1]) f(of); for (const { a } of [o]) f(a)",
            "class A { x = [1, 2]; y = () => [3]; m() { return [4] } }\nlet b = [5]; [b] = [b]",
            "// globalThis in a comment\n/* Date too */ return 1",
        ] {
            assert_eq!(intrinsics(code), Intrinsics::Lean, "{code:?}");
        }
    }

    #[test]
    fn programs_that_could_tell_get_the_full_intrinsics() {
        for code in [
            // Omitted intrinsics, by name.
            "return new Date().getTime()",
            "return performance.now()",
            "return new Uint8Array(2)",
            "return typeof WeakRef",
            "return x.Date",
            // Escapes to the global object, to code, to descriptors.
            "return globalThis",
            "return this",
            "return (() => 1).constructor('return this')()",
            "return eval('1')",
            "return Function('return 1')()",
            "return Reflect.ownKeys(x)",
            "return Object.getOwnPropertyDescriptor(x, k)",
            "return Object.getOwnPropertyDescriptors(x)",
            "return x.__lookupGetter__(k)",
            "Error.prepareStackTrace = (e, s) => s",
            "return f.caller",
            // Ways to the global object's receiver or to reflection.
            "const o = { m() { return super.valueOf() } }",
            "__proto__ = p",
            "Object.defineProperty(o, 'zz', d)",
            "Object.defineProperties(o, d)",
            "o.__defineGetter__('zz', f)",
            "Object.setPrototypeOf(a, b)",
            "return Object.create(p, d)",
            "return new Proxy(t, h)",
            // Names run into a number literal, and BigInt members.
            "return 0..constructor",
            "return .5.constructor",
            "return 1n.toString()",
            "return x[0..k]",
            // A sign after a member named `e` is an operator: what follows
            // is read as code (here, a regular expression and then names).
            "1..e-/'/; return typeof Date //'",
            "return 1.5.e+/'/.source + globalThis //'",
            // A class field's computed key, whatever comes before it.
            "class C extends B { x; ['Da' + 'te'] = F }",
            "class C extends B { in\n[k] = 1 }",
            "class C extends B { x?\n[k] = 1 }",
            "class C extends B { static {}; [k] = 1 }",
            "class C extends {} { [k] = 1 }",
            "class C extends mix(class {}) { in\n['Da' + 'te'] = 1 }",
            "class C extends [class {}, B][1] { delete\n[k] = 1 }",
            "f(class { [k]() {} })",
            // A non-null `!` run into a postfix operator, erased.
            "let a = 1; return [(a)!++ [k]]",
            // TypeScript's non-null `!` after `}`, erased.
            "const F = class {}!['con' + 'structor']",
            "const o = {}!\n[k]",
            // A `const` or `void` that ends an erased type leaves an operand.
            "return x as const [k]",
            "return x satisfies void [k]",
            // Names written with escapes, or run into other characters.
            "return \\u0044ate",
            "return glob\\u{61}lThis",
            "return a\u{feff}Date",
            // BigInt literals.
            "return 10n",
            "return 0xffn * 2",
            // Computed member access and computed keys in patterns.
            "return x[k]",
            "return x['constructor']",
            "return x[`a`]",
            "return x?.[k]",
            "return f()[k]",
            "return a[0][k]",
            "return x [ 1 + 1 ]",
            "const { [k]: v } = x",
            "const { a, [k]: v } = x",
            "return super[k]",
            "return void [k]",
            "return of [k]",
            "for (const x of of[k]) f(x)",
            "for (x in of [k]) f(x)",
            "for (;;) of [k]",
            "return await [k]",
            // Type-stripping leaves a `[` after an operand.
            "return f<T>[k]",
            "return x![k]",
            // Quoted keys naming or spelling a telltale.
            "const { 'constructor': C } = f",
            "const { 'con\\x73tructor': C } = f",
            "const { 'con\\u0073tructor': C } = f",
            "const { 'con\\163tructor': C } = f",
            "const { 'con\\structor': C } = f",
            "const { 'con\\\nstructor': C } = f",
            "const { \"constructor\" /* a comment */ : C } = f",
        ] {
            assert_eq!(intrinsics(code), Intrinsics::Full, "{code:?}");
        }
    }
}
