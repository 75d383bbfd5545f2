//! What the model sees of the tools in `ptc` mode (contracts §4, §5): the
//! TypeScript SDK rendered from their JSON Schemas, and the `run_code` tool
//! that carries it.

pub(crate) mod describe;
mod forms;
mod keywords;
mod naming;
pub(crate) mod presentation;
mod python;
mod refs;
mod templates;
mod text;
pub(crate) mod typescript;

use serde_json::Value;

use crate::contract::run_code::Language;
use crate::limits::Limits;
use crate::tool::definition::ToolDefinition;

/// Schema nesting deeper than this renders as `unknown` (TypeScript) or `Any` (Python).
const MAX_DEPTH: u32 = 40;

static NULL: Value = Value::Null;

/// Settings that change the run_code texts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SdkOptions {
    /// The run deadline when the model gives no `timeoutMs`. By default, 120000.
    pub default_timeout_ms: u64,
    /// The largest `timeoutMs` the model may ask for; `run_code_parameters`
    /// makes it the schema's `maximum`. By default, 600000.
    pub max_timeout_ms: u64,
    /// The most bytes of `run_code`'s description: past it, the SDK gives
    /// way to an index of the tools, then to their namespaces
    /// ([`Limits::description_budget_bytes`]). By default, 32 KiB.
    pub description_budget_bytes: usize,
    /// The directory the tools work in, named in `run_code`'s description
    /// ("The tools work in `<dir>`…") exactly as given (control characters
    /// escaped). By default, none: no such line. [`Engine::presentation`]
    /// takes it from [`Registry::working_directory`].
    ///
    /// [`Engine::presentation`]: crate::Engine::presentation
    /// [`Registry::working_directory`]: crate::Registry::working_directory
    pub working_directory: Option<String>,
    /// Tool sources whose tools are absent for now (an MCP server still
    /// starting, or one that failed to start, and why), one line each:
    /// `run_code`'s description lists them after the working directory,
    /// each line as given after `- `. By default, none: nothing is shown.
    /// [`Engine::presentation`] takes them from the registry.
    ///
    /// [`Engine::presentation`]: crate::Engine::presentation
    pub unavailable_sources: Vec<String>,
    /// The largest `timeoutMs` of an escalated run (never below
    /// `max_timeout_ms`); when larger, it is the schema's `maximum` instead.
    /// By default, 1800000.
    pub escalated_max_timeout_ms: u64,
    /// The CPU budget when the model gives no `cpuTimeMs`. By default, 30000.
    pub default_cpu_time_ms: u64,
    /// The largest `cpuTimeMs` the model may ask for (the schema's
    /// `maximum`). By default, 600000.
    pub max_cpu_time_ms: u64,
    /// The language `run_code` speaks: its instructions, its schema's
    /// `code`, and the SDK it carries (TypeScript declarations or Python
    /// stubs). By default, [`Language::TypeScript`]. [`Engine::presentation`]
    /// takes it from [`Registry::language`].
    ///
    /// [`Engine::presentation`]: crate::Engine::presentation
    /// [`Registry::language`]: crate::Registry::language
    pub language: Language,
}

impl Default for SdkOptions {
    fn default() -> Self {
        Self::from(&Limits::default())
    }
}

impl From<&Limits> for SdkOptions {
    /// The texts of runs under these limits.
    fn from(limits: &Limits) -> Self {
        Self {
            default_timeout_ms: limits.default_timeout_ms,
            max_timeout_ms: limits.max_timeout_ms,
            description_budget_bytes: limits.description_budget_bytes,
            working_directory: None,
            unavailable_sources: Vec::new(),
            escalated_max_timeout_ms: limits.tier(true).max_timeout_ms,
            default_cpu_time_ms: limits.default_cpu_time_ms,
            max_cpu_time_ms: limits.max_cpu_time_ms,
            language: Language::default(),
        }
    }
}

/// TypeScript declarations (a valid global-script .d.ts) for these tools, in the given order.
///
/// The block declares `ToolCallError`, a `type` alias for each named schema
/// (local `$ref`), and `declare const tools` with the discovery functions
/// `$search` and `$describe`, then one async method per tool:
/// its JSDoc from the advertised description, its argument type from
/// `parameters`, its result from `output` (`unknown` when absent). The same
/// tools always give the same bytes. Rendering never fails: what TypeScript
/// cannot say becomes `unknown`, with its description kept.
pub fn render_declarations(tools: &[&ToolDefinition]) -> String {
    typescript::render_sdk(tools, templates::frame())
}

/// Python stubs (a `.pyi` module that `mypy --strict` accepts) for these
/// tools, in the given order (contracts §5).
///
/// The module declares `ToolCallError`, `search_tools` and `describe_tools`,
/// a `TypedDict` or `TypeAlias` for each named or object schema, and
/// `tools`, whose class has one `async def` per tool (keyword-only
/// arguments, the output schema's type as the result) and a namespace
/// object per `<server>.` prefix. Names that are not identifiers are
/// mangled deterministically; `tools["exact-name"]` reaches any tool. The
/// same tools always give the same bytes; rendering never fails.
pub fn render_python(tools: &[&ToolDefinition]) -> String {
    python::render_module(tools)
}

#[cfg(feature = "python")]
pub(crate) use python::runtime_layout;

/// The SDK of these tools in `language`: [`render_declarations`] or
/// [`render_python`].
pub(crate) fn render_in(language: Language, tools: &[&ToolDefinition]) -> String {
    match language {
        Language::TypeScript => render_declarations(tools),
        Language::Python => render_python(tools),
    }
}

/// The run_code tool description with every declaration: the instruction
/// text (from sdk-templates, in `options.language`), then the declarations.
///
/// `declarations` is what [`render_declarations`] (or, in Python,
/// [`render_python`]) returned; it goes into a fenced `ts` (`python`)
/// block, with a fence longer than any run of backticks inside.
/// This is the description's full form; [`Engine::presentation`](crate::Engine::presentation)
/// gives way to an index or the namespaces when it is over the budget.
pub fn run_code_description(declarations: &str, options: &SdkOptions) -> String {
    let fence = "`".repeat(longest_backtick_run(declarations).max(2) + 1);
    let fence_language = templates::texts(options.language).fence_language;
    let tools = templates::fill(
        templates::FULL,
        &[
            ("fence", &fence),
            ("fence_language", fence_language),
            ("declarations", declarations),
        ],
    );
    instructions(&tools, options)
}

/// The instruction text around `tools`, the tools in one of their forms.
fn instructions(tools: &str, options: &SdkOptions) -> String {
    let default = options.default_timeout_ms.to_string();
    let max = options.max_timeout_ms.to_string();
    let working_directory = options
        .working_directory
        .as_deref()
        .map(|dir| {
            format!(
                "- The tools work in {}: relative paths start there.\n",
                code_span(dir)
            )
        })
        .unwrap_or_default();
    let unavailable: String = options
        .unavailable_sources
        .iter()
        .map(|line| format!("- {}\n", crate::tool::title::escape_hostile(line)))
        .collect();
    let escalated = crate::contract::run_code::escalated_deadline(
        options.max_timeout_ms,
        escalated_max(options),
        "a `timeoutMs`",
    );
    templates::fill(
        templates::texts(options.language).instructions,
        &[
            ("default_timeout_ms", &default),
            ("max_timeout_ms", &max),
            ("working_directory", &working_directory),
            ("unavailable_sources", &unavailable),
            ("tools", tools),
            ("escalated_deadline", &escalated),
        ],
    )
}

/// The escalated `timeoutMs` maximum, never below the standard one.
fn escalated_max(options: &SdkOptions) -> u64 {
    crate::limits::at_least_standard(options.escalated_max_timeout_ms, options.max_timeout_ms)
}

/// The JSON Schema of run_code's arguments: `code` (string, required),
/// `description` (string, required, a short summary of what the program does),
/// `timeoutMs` (integer, optional, 1 … the escalated maximum, its description
/// stating the default, the maximum and the escalated maximum), `cpuTimeMs`
/// (integer, optional, 1 … its maximum, stating its default),
/// `sandboxPermissions` (`"use_default"` or `"require_escalated"`, optional)
/// and `justification` (string, required with `"require_escalated"`). No
/// other properties.
pub fn run_code_parameters(options: &SdkOptions) -> Value {
    let stated = crate::contract::run_code::Stated {
        default: options.default_timeout_ms,
        max: options.max_timeout_ms,
        escalated: escalated_max(options),
        cpu_default: options.default_cpu_time_ms,
        cpu_max: options.max_cpu_time_ms,
    };
    crate::contract::run_code::parameters(options.language, stated)
}

/// Renders one JSON Schema as a TypeScript type expression (exposed for tests/users).
///
/// Local `$ref`s are expanded in place, since an expression cannot declare
/// aliases; a reference back into a type being expanded becomes `unknown`.
/// The schema's own description comes first as a comment.
///
/// ```
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": { "id": { "type": "integer" }, "tags": { "type": "array", "items": { "type": "string" } } },
///     "required": ["id"]
/// });
/// assert_eq!(ptc::schema_to_typescript(&schema), "{ id: number; tags?: string[] }");
/// ```
pub fn schema_to_typescript(schema: &Value) -> String {
    typescript::expression(schema)
}

/// `text` as a Markdown code span: one line (control characters escaped as
/// in titles), between more backticks than any run of them inside.
fn code_span(text: &str) -> String {
    let text = crate::tool::title::escape_hostile(text);
    let ticks = "`".repeat(longest_backtick_run(&text) + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

fn longest_backtick_run(text: &str) -> usize {
    let (mut longest, mut run) = (0, 0);
    for b in text.bytes() {
        run = if b == b'`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_default_to_the_contract() {
        let o = SdkOptions::default();
        assert_eq!((o.default_timeout_ms, o.max_timeout_ms), (120_000, 600_000));
        assert_eq!(o.escalated_max_timeout_ms, 1_800_000);
    }

    #[test]
    fn parameters_state_the_limits() {
        let options = SdkOptions {
            default_timeout_ms: 5,
            max_timeout_ms: 77,
            escalated_max_timeout_ms: 7,
            ..SdkOptions::default()
        };
        let p = run_code_parameters(&options);
        assert_eq!(p["required"], json!(["code"]));
        assert_eq!(p["additionalProperties"], json!(false));
        assert_eq!(p["properties"]["code"]["type"], "string");
        assert_eq!(p["properties"]["description"]["type"], "string");
        let t = &p["properties"]["timeoutMs"];
        assert_eq!(t["type"], "integer");
        assert_eq!((&t["minimum"], &t["maximum"]), (&json!(1), &json!(77)));
        let text = t["description"].as_str().unwrap();
        assert!(
            text.contains("Default 5") && text.contains("maximum 77."),
            "an escalated maximum below the standard one is not shown: {text}"
        );
        let p = run_code_parameters(&SdkOptions {
            escalated_max_timeout_ms: 900,
            ..options
        });
        let t = &p["properties"]["timeoutMs"];
        assert_eq!(t["maximum"], 900);
        let text = t["description"].as_str().unwrap();
        assert!(
            text.contains("maximum 77 (900 with sandboxPermissions \"require_escalated\")"),
            "{text}"
        );
        let permissions = &p["properties"]["sandboxPermissions"];
        assert_eq!(
            permissions["enum"],
            json!(["use_default", "require_escalated"])
        );
        assert!(
            permissions["description"]
                .as_str()
                .unwrap()
                .contains("900 ms")
        );
        assert_eq!(p["properties"]["justification"]["minLength"], 1);
    }

    #[test]
    fn description_embeds_declarations_and_limits() {
        let options = SdkOptions {
            default_timeout_ms: 1234,
            max_timeout_ms: 98765,
            escalated_max_timeout_ms: 345678,
            ..SdkOptions::default()
        };
        let text = run_code_description("declare const tools: {};\n", &options);
        assert!(text.contains("1234") && text.contains("98765"), "{text}");
        assert!(text.contains("up to 345678 ms"), "{text}");
        assert!(
            text.ends_with("```ts\ndeclare const tools: {};\n```\n"),
            "{text}"
        );
        assert!(!text.contains("{{"));
    }

    /// Escalation that adds no time (`ptc mcp` clamps both maxima under
    /// the client's timeout) offers none: neither the description nor the
    /// schema names a deadline for it.
    #[test]
    fn escalation_offers_no_deadline_it_does_not_extend() {
        for language in [Language::TypeScript, Language::Python] {
            let options = SdkOptions {
                language,
                max_timeout_ms: 55_000,
                escalated_max_timeout_ms: 55_000,
                ..SdkOptions::default()
            };
            let text = run_code_description("", &options);
            assert!(
                text.contains(
                    "- Tools marked as needing escalation, and more memory and output need"
                ),
                "{text}"
            );
            let p = run_code_parameters(&options);
            let permissions = p["properties"]["sandboxPermissions"]["description"]
                .as_str()
                .unwrap();
            assert!(
                permissions.contains("larger limits (more memory and output)"),
                "{permissions}"
            );
        }
    }

    #[test]
    fn the_working_directory_is_named_only_when_set() {
        let without = run_code_description("", &SdkOptions::default());
        assert!(!without.contains("work in"), "{without}");
        let options = SdkOptions {
            working_directory: Some("/home/me/my `odd`\ndir".to_owned()),
            ..SdkOptions::default()
        };
        let with = run_code_description("", &options);
        let line = "- The tools work in ``/home/me/my `odd`\\ndir``: relative paths start there.\n";
        assert!(with.contains(line), "{with}");
        assert_eq!(with.replace(line, ""), without);
        assert_eq!(code_span("`a`"), "`` `a` ``");
    }

    #[test]
    fn unavailable_sources_are_listed_only_when_there_are_some() {
        let without = run_code_description("", &SdkOptions::default());
        let options = SdkOptions {
            working_directory: Some("/w".to_owned()),
            unavailable_sources: vec!["one".to_owned(), "two\nlines".to_owned()],
            ..SdkOptions::default()
        };
        let with = run_code_description("", &options);
        let lines = "- The tools work in `/w`: relative paths start there.\n- one\n- two\\nlines\n";
        assert!(with.contains(lines), "{with}");
        let directory = "- The tools work in `/w`: relative paths start there.\n";
        assert_eq!(with.replace(lines, directory), {
            let options = SdkOptions {
                working_directory: Some("/w".to_owned()),
                ..SdkOptions::default()
            };
            run_code_description("", &options)
        });
        assert!(!without.contains("- one"));
    }

    #[test]
    fn fence_outgrows_backticks_inside() {
        let text = run_code_description("/** ```` */\n", &SdkOptions::default());
        assert!(text.ends_with("`````ts\n/** ```` */\n`````\n"), "{text}");
    }
}
