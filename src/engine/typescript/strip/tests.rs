//! The strip tests: the cases in `tests/strip/` (see [`fixtures`]), the
//! full-parse oracle, positions and hostile nesting.

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
fn preparing_again_and_again_keeps_no_state() {
    // A fresh source map per call: the same input yields the same output
    // (and nothing accumulates between calls).
    let first = prepare("let = ;", LIMIT).expect_err("error");
    for _ in 0..100 {
        assert_eq!(prepare("let = ;", LIMIT).expect_err("error"), first);
        assert!(prepare("return 1", LIMIT).is_ok());
    }
}

/// Where the fixtures are.
fn fixture_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/strip")
}

/// A syntax error as a `.err` file writes it: `LINE:COLUMN: message`,
/// or the message alone when it has no position.
fn error_text(error: &SyntaxError) -> String {
    match (error.line, error.column) {
        (Some(line), Some(column)) => format!("{line}:{column}: {}\n", error.message),
        _ => format!("{}\n", error.message),
    }
}

/// The cases in `tests/strip/`, kept as swc keeps `fast_strip`'s: each
/// `NAME.ts` is a program as the model writes it (every byte counts:
/// most end without a line break), beside what [`prepare`] makes of
/// it: `NAME.out.js`, the script, or `NAME.err`, the syntax error
/// ([`error_text`]). A `NAME.value` beside a script is what the script
/// returns when QuickJS runs it (JSON, or `undefined`). On every case
/// the scan and a full parse of the stripped script never disagree on
/// whether the code closes the wrapper, and a script that prepares
/// passes the full parse. `UPDATE_EXPECT=1` rewrites the `.out.js` and
/// `.err` files and the `.value` files there are.
#[test]
fn fixtures() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some_and(|v| v == "1");
    let dir = fixture_dir();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/strip")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .into_string()
                .expect("UTF-8 name")
        })
        .collect();
    files.sort();
    let cases: Vec<&str> = files.iter().filter_map(|f| f.strip_suffix(".ts")).collect();
    let mut failures = Vec::new();
    for file in &files {
        let case = [".out.js", ".err", ".value"]
            .iter()
            .find_map(|ext| file.strip_suffix(ext));
        if case.is_some_and(|case| !cases.contains(&case)) {
            failures.push(format!("{file}: no such case (.ts)"));
        }
    }
    for &name in &cases {
        let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}{ext}"))).ok();
        let code = read(".ts").expect("the case");
        let (ext, actual, unexpected) = match prepare(&code, LIMIT) {
            Ok(prepared) => {
                if let Err(error) = check_shape(&code, &prepared.script) {
                    failures.push(format!(
                        "{name}: the full parse refuses the script: {error:?}"
                    ));
                }
                if let Some(value) = read(".value") {
                    let returned = run(&prepared.script)
                        .unwrap_or_else(|(message, _)| format!("throws {message}"));
                    if update {
                        let path = dir.join(format!("{name}.value"));
                        std::fs::write(path, format!("{returned}\n")).expect("write");
                    } else if returned != value.trim_end_matches('\n') {
                        failures.push(format!("{name}: returns {returned}, not {value}"));
                    }
                }
                (".out.js", prepared.script, ".err")
            }
            Err(error) => (".err", error_text(&error), ".out.js"),
        };
        if scan_agrees_with_oracle(&code) == Some(false) {
            failures.push(format!("{name}: the scan and the full parse disagree"));
        }
        let path = dir.join(format!("{name}{unexpected}"));
        if update {
            let _ = std::fs::remove_file(&path);
            std::fs::write(dir.join(format!("{name}{ext}")), &actual).expect("write");
            continue;
        }
        if path.exists() {
            failures.push(format!(
                "{name}: expected {unexpected}, got {ext}:\n{actual}"
            ));
        } else if read(ext).as_deref() != Some(actual.as_str()) {
            failures.push(format!("{name}{ext} differs; got:\n{actual}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed (bless with UPDATE_EXPECT=1):\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(
        cases.len() >= 55,
        "only {} cases in {}",
        cases.len(),
        dir.display()
    );
}
