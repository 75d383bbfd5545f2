//! `tools.$describe` (`describe_tools` in Python, contracts §5): the
//! declarations of named tools as the program's SDK renders them.

use std::collections::HashSet;

use super::{python, typescript};
use crate::contract::run_code::Language;
use crate::tool::definition::{ToolDefinition, is_valid_tool_name};
use crate::tool::registered::shown;
use crate::tool::registry::Scope;

/// `tools.$describe` (`describe_tools` in Python) in `scope`: the
/// declarations of the visible tools among `names` (in registration
/// order), as the SDK of `language` renders them, then `// unknown: …`
/// (`# unknown: …`) naming the rest (hidden ones look just as unknown).
pub(crate) fn describe(scope: &Scope, names: &[String], language: Language) -> String {
    let (tools, visible) = scope.visible_snapshot();
    let wanted: HashSet<&str> = names.iter().map(String::as_str).collect();
    let shown: Vec<&ToolDefinition> = shown(&tools, &visible)
        .filter(|t| wanted.contains(t.name.as_str()))
        .collect();
    let mut out = String::new();
    if !shown.is_empty() {
        out = match language {
            Language::TypeScript => {
                typescript::render_sdk(&shown, ["", "declare const tools: {\n", "};\n"])
            }
            Language::Python => python::render_described(&shown),
        };
    }
    let known: HashSet<&str> = shown.iter().map(|t| t.name.as_str()).collect();
    let mut unknown: Vec<String> = Vec::new();
    for name in names {
        let known = known.contains(name.as_str());
        // A name that could break the comment is shown quoted, and what
        // JSON leaves (U+2028, which ends a JavaScript comment too, and
        // the other characters titles escape) as `\u2028`.
        let shown_as = if is_valid_tool_name(name) {
            name.clone()
        } else {
            quoted(name)
        };
        if !known && !unknown.contains(&shown_as) {
            unknown.push(shown_as);
        }
    }
    if !unknown.is_empty() {
        out.push_str(match language {
            Language::TypeScript => "// unknown: ",
            Language::Python => "# unknown: ",
        });
        out.push_str(&unknown.join(", "));
        out.push('\n');
    }
    out
}

/// `name` as a JSON string on one line, nothing in it reordering or
/// breaking what shows it.
fn quoted(name: &str) -> String {
    let json = serde_json::to_string(name).unwrap_or_default();
    if !json.contains(crate::tool::title::is_hostile) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 12);
    for c in json.chars() {
        if crate::tool::title::is_hostile(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::contract::call::ToolError;
    use crate::tool::context::ToolContext;
    use crate::tool::handler::Tool;
    use crate::tool::registry::Registry;

    fn registry() -> Registry {
        let registry = Registry::new();
        let tools = [
            ToolDefinition::new("send_email")
                .description("Send an email message. Plain text only."),
            ToolDefinition::new("weather-forecast").description("Tomorrow's weather for a city."),
        ];
        for def in tools {
            let tool = Tool::new(def, |args: Value, _cx: ToolContext| async move {
                Ok::<_, ToolError>(args)
            });
            registry.add(tool).unwrap();
        }
        registry
    }

    #[test]
    fn describe_renders_visible_tools_and_names_the_rest() {
        let scope = registry().scope();
        let _hidden = scope.deny(["send_email"]);
        let names = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let text = describe(
            &scope,
            &names(&["weather-forecast", "send_email", "nope", "a\nb"]),
            Language::TypeScript,
        );
        assert!(text.starts_with("declare const tools: {\n"), "{text}");
        assert!(text.contains("\"weather-forecast\"(") || text.contains("weather-forecast"));
        assert!(!text.contains("Send an email"), "{text}");
        assert!(
            text.ends_with("};\n// unknown: send_email, nope, \"a\\nb\"\n"),
            "{text}"
        );
        let ts = Language::TypeScript;
        assert_eq!(
            describe(&scope, &names(&["nope"]), ts),
            "// unknown: nope\n"
        );
        assert_eq!(describe(&scope, &[], ts), "");
    }

    /// In Python, the named tools are described as the stubs declare them,
    /// and the rest named on a `#` comment line.
    #[test]
    fn describe_in_python_renders_stubs() {
        let scope = registry().scope();
        let names = ["weather-forecast", "nope", "a\nb"].map(str::to_owned);
        let text = describe(&scope, &names, Language::Python);
        assert!(text.starts_with("class _Tools:\n"), "{text}");
        assert!(text.contains("    async def weather_forecast("), "{text}");
        assert!(!text.contains("send_email"), "{text}");
        assert!(text.ends_with("\n# unknown: nope, \"a\\nb\"\n"), "{text}");
    }

    /// JSON leaves U+2028 and U+2029 as they are, and JavaScript ends a `//`
    /// comment at them: a name with one is shown escaped, on the one line.
    #[test]
    fn describe_keeps_unknown_names_on_the_comment_line() {
        let scope = registry().scope();
        let text = describe(
            &scope,
            &["a\u{2028}b".to_owned(), "c\u{2029}d\u{202e}".to_owned()],
            Language::TypeScript,
        );
        assert_eq!(text, "// unknown: \"a\\u2028b\", \"c\\u2029d\\u202e\"\n");
    }
}
