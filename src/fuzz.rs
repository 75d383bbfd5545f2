//! Entry points for the fuzz targets (`fuzz/`) and for the test that replays
//! their corpora on stable (`tests/fuzz_corpus.rs`). Not part of the API:
//! each takes arbitrary bytes and panics only when an invariant breaks.

use std::path::Path;

use serde_json::Value;

use crate::contract::presentation::Mode;
use crate::contract::run_code::Language;
use crate::engine::{Engine, RunOptions, RunRequest};
use crate::limits::Limits;
use crate::tool::definition::ToolDefinition;
use crate::tool::handler::Tool;
use crate::tool::registry::Registry;

/// libFuzzer treats every panic as a crash, even one the code catches. swc's
/// parser asserts its own invariants and some odd inputs trip them; ptc
/// catches those (a `syntax` failure), so a panic raised inside swc is let
/// through to that handling. Any other panic is still a crash.
pub fn tolerate_caught_parser_panics() {
    let crash = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let in_swc = info
            .location()
            .is_some_and(|at| at.file().contains("/swc_"));
        if !in_swc {
            crash(info);
        }
    }));
}

/// Stripping and its pre-scan: any text either fails with a position inside
/// the code or gives a script whose positions map back into the code.
pub fn strip(data: &[u8]) {
    let Ok(code) = std::str::from_utf8(data) else {
        return;
    };
    let lines = code.split('\n').count() as u32;
    match crate::engine::typescript::strip::prepare(code, 1 << 20) {
        Ok(program) => {
            for (line, column) in [(1, 1), (2, 1), (lines + 1, 1), (u32::MAX, u32::MAX)] {
                let (l, c) = program.to_model_position(line, column);
                assert!(l >= 1 && l <= lines && c >= 1, "{l}:{c} outside the code");
            }
        }
        Err(error) => {
            if let Some(line) = error.line {
                assert!(line >= 1 && line <= lines, "error line {line} of {lines}");
            }
        }
    }
}

/// SDK rendering from an arbitrary schema, in both languages: never
/// fails, same bytes twice.
pub fn sdk(data: &[u8]) {
    let Ok(parameters) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let registry = Registry::new();
    let output = parameters.get("output").cloned();
    let mut definition = ToolDefinition::new("fuzzed").parameters(parameters);
    definition.output = output;
    let tool = Tool::new(definition, |a: Value, _: crate::ToolContext| async move {
        Ok::<_, crate::ToolError>(a)
    });
    if registry.add(tool).is_err() {
        return;
    }
    let Ok(engine) = Engine::new(registry.clone(), Limits::default()) else {
        return;
    };
    for language in [Language::TypeScript, Language::Python] {
        registry.set_language(language);
        let first = engine.presentation(&registry.scope(), Some(Mode::Both));
        let again = engine.presentation(&registry.scope(), Some(Mode::Both));
        assert_eq!(first, again, "rendering is not deterministic");
    }
}

/// One line of the host protocol, then end of input: `serve` ends cleanly
/// and every line it writes is a JSON object.
pub fn serve_line(data: &[u8]) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let mut input = data.to_vec();
    input.push(b'\n');
    let (writer, mut reader) = tokio::io::duplex(1 << 16);
    let mut output = Vec::new();
    let (served, read) = runtime.block_on(async {
        use tokio::io::AsyncReadExt;
        tokio::join!(
            crate::serve(&input[..], writer),
            reader.read_to_end(&mut output)
        )
    });
    assert!(
        served.is_ok() && read.is_ok(),
        "serve failed: {served:?} {read:?}"
    );
    let text = std::str::from_utf8(&output).expect("serve writes UTF-8");
    for line in text.lines() {
        let message: Value = serde_json::from_str(line).expect("serve writes JSON lines");
        assert!(message.is_object(), "{line}");
    }
}

/// Manifest parsing: an error or tools, never a panic.
pub fn manifest(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = crate::parse_manifest(text, Path::new("."));
    }
}

/// JSON into QuickJS and back: what `JSON.parse(JSON.stringify(v))` gives.
pub fn json_roundtrip(data: &[u8]) {
    let Ok(json) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let runtime = rquickjs::Runtime::new().expect("a QuickJS runtime");
    let context = rquickjs::Context::full(&runtime).expect("a QuickJS context");
    context.with(|ctx| {
        let Ok(value) = crate::engine::typescript::convert::to_js(&ctx, &json) else {
            return;
        };
        let Ok((back, _)) = crate::engine::typescript::convert::plain_from_js(&value, usize::MAX)
        else {
            // Deeper than arguments may nest: refused, not mangled.
            assert!(depth(&json) > crate::engine::typescript::convert::MAX_ARGUMENT_DEPTH as usize);
            return;
        };
        assert!(same(&json, &back), "{json} came back as {back}");
    });
}

fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// Equal as JavaScript sees JSON: numbers as doubles, objects as maps.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// A whole run of a fuzzed program under a short deadline: it ends, as one
/// of the failure kinds or with text, its text is within the cap, and no
/// sandbox thread was retired (an interrupt reached every loop). The grace
/// is long, so only JavaScript that no interrupt reaches is retired, never
/// a run that a loaded machine made slow.
pub fn run(data: &[u8]) {
    let Ok(code) = std::str::from_utf8(data) else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let limits = Limits {
        memory_limit_bytes: 8 << 20,
        grace_ms: 10_000,
        ..Limits::default()
    };
    let engine = Engine::new(Registry::new(), limits).expect("valid limits");
    let request = RunRequest::new(code).timeout_ms(50);
    let outcome = runtime
        .block_on(engine.run_code(request, RunOptions::default()))
        .expect("a run in range");
    assert!(outcome.text().len() <= engine.limits().output_cap_bytes);
    let retired = engine.retired_threads();
    assert_eq!(retired.total, 0, "a sandbox thread was retired: {code:?}");
}

/// A fuzzed Python program (contracts §6.1), run under a short deadline
/// against an `echo` tool: it ends by its deadline plus a margin for a
/// loaded machine, as one of the failure kinds or with text, its text
/// within the cap. One engine serves every input, so its workers are
/// reused as a host's are.
#[cfg(feature = "python")]
pub fn run_python(data: &[u8]) {
    use std::sync::OnceLock;
    use std::time::{Duration, Instant};

    static HOST: OnceLock<(tokio::runtime::Runtime, Engine)> = OnceLock::new();
    let Ok(code) = std::str::from_utf8(data) else {
        return;
    };
    let (runtime, engine) = HOST.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let registry = Registry::new();
        let echo = Tool::new(
            ToolDefinition::new("echo").read_only(true),
            |a: Value, _: crate::ToolContext| async move { Ok::<_, crate::ToolError>(a) },
        );
        registry.add(echo).expect("echo registers");
        let limits = Limits {
            memory_limit_bytes: 16 << 20,
            ..Limits::default()
        };
        (
            runtime,
            Engine::new(registry, limits).expect("valid limits"),
        )
    });
    const DEADLINE_MS: u64 = 300;
    let request = RunRequest::new(code)
        .language(Language::Python)
        .timeout_ms(DEADLINE_MS as i64);
    let started = Instant::now();
    let outcome = runtime
        .block_on(engine.run_code(request, RunOptions::default()))
        .expect("a run in range");
    let took = started.elapsed();
    assert!(
        took < Duration::from_millis(DEADLINE_MS) + Duration::from_secs(10),
        "the run took {took:?}: {code:?}"
    );
    assert!(outcome.text().len() <= engine.limits().output_cap_bytes);
}
