//! The texts around the rendered types, kept in `sdk-templates/` and embedded
//! at build time so the binary is self-contained.

use crate::contract::run_code::Language;

/// The SDK frame: `ToolCallError`, then `{{types}}` and `{{methods}}`.
pub(crate) const FRAME: &str = include_str!("../../sdk-templates/frame.d.ts");

/// The Python stubs' frame: `ToolCallError`, the discovery functions, then
/// `{{types}}`, `{{methods}}` (the `tools` class's members) and
/// `{{namespaces}}` (a class per namespace).
pub(crate) const FRAME_PY: &str = include_str!("../../sdk-templates/frame.pyi");

/// The `run_code` instructions (TypeScript): `{{default_timeout_ms}}`, `{{max_timeout_ms}}`,
/// `{{escalated_deadline}}` (what escalation adds to the deadline, or nothing), `{{working_directory}}` (a whole line, or
/// nothing), `{{unavailable_sources}}` (whole lines, or nothing), then `{{tools}}`, the tools in one of the three forms below.
pub(crate) const INSTRUCTIONS: &str = include_str!("../../sdk-templates/instructions.md");

/// The `run_code` instructions in Python: the placeholders of [`INSTRUCTIONS`].
pub(crate) const INSTRUCTIONS_PY: &str = include_str!("../../sdk-templates/python/instructions.md");

/// The tools when every declaration fits: `{{fence}}`, `{{fence_language}}`
/// (the code block's language), `{{declarations}}`.
pub(crate) const FULL: &str = include_str!("../../sdk-templates/full.md");

/// The tools as an index of names and summaries: `{{count}}`,
/// `{{sdk_size}}`, `{{discovery}}`, `{{fence}}`, `{{fence_language}}`, `{{list}}` and
/// `{{declarations}}` (the frame alone).
pub(crate) const INDEX: &str = include_str!("../../sdk-templates/index.md");

/// The tools as namespaces with counts: the placeholders of [`INDEX`].
pub(crate) const NAMESPACES: &str = include_str!("../../sdk-templates/namespaces.md");

/// How to find, read and call tools that are not declared in the description.
pub(crate) const DISCOVERY: &str = include_str!("../../sdk-templates/discovery.md");

/// [`DISCOVERY`] in Python.
pub(crate) const DISCOVERY_PY: &str = include_str!("../../sdk-templates/python/discovery.md");

/// The texts of `run_code`'s description that differ by language.
pub(crate) struct Texts {
    pub(crate) instructions: &'static str,
    pub(crate) discovery: &'static str,
    /// The language of the declarations' code block.
    pub(crate) fence_language: &'static str,
}

/// The texts of `run_code` in `language`.
pub(crate) fn texts(language: Language) -> &'static Texts {
    static TYPESCRIPT: Texts = Texts {
        instructions: INSTRUCTIONS,
        discovery: DISCOVERY,
        fence_language: "ts",
    };
    static PYTHON: Texts = Texts {
        instructions: INSTRUCTIONS_PY,
        discovery: DISCOVERY_PY,
        fence_language: "python",
    };
    match language {
        Language::TypeScript => &TYPESCRIPT,
        Language::Python => &PYTHON,
    }
}

/// The frame around `{{types}}` and `{{methods}}`: `[head, middle, tail]`.
pub(crate) fn frame() -> [&'static str; 3] {
    let (head, rest) = FRAME.split_once("{{types}}").unwrap_or((FRAME, ""));
    let (middle, tail) = rest.split_once("{{methods}}").unwrap_or((rest, ""));
    [head, middle, tail]
}

/// Replaces each `{{name}}` in `template` with its value from `vars`.
///
/// A placeholder without a value is kept as written, so a typo shows up in the
/// output (and in the golden tests) instead of vanishing.
pub(crate) fn fill(template: &str, vars: &[(&str, &str)]) -> String {
    let extra: usize = vars.iter().map(|(_, v)| v.len()).sum();
    let mut out = String::with_capacity(template.len() + extra);
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            rest = &rest[open..];
            break;
        };
        let name = &after[..close];
        match vars.iter().find(|(k, _)| *k == name) {
            Some((_, value)) => out.push_str(value),
            None => out.push_str(&rest[open..open + 2 + close + 2]),
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_replaces_known_and_keeps_unknown_placeholders() {
        assert_eq!(fill("a{{x}}b{{y}}c", &[("x", "1"), ("y", "22")]), "a1b22c");
        assert_eq!(fill("{{x}}{{x}}", &[("x", "ab")]), "abab");
        assert_eq!(fill("a{{nope}}b", &[("x", "1")]), "a{{nope}}b");
        assert_eq!(fill("a{{unclosed", &[]), "a{{unclosed");
        assert_eq!(fill("no placeholders", &[("x", "1")]), "no placeholders");
    }

    #[test]
    fn values_are_not_rescanned() {
        assert_eq!(fill("{{x}}", &[("x", "{{y}}"), ("y", "no")]), "{{y}}");
    }

    #[test]
    fn templates_use_only_known_placeholders() {
        let [head, middle, tail] = frame();
        assert!(head.starts_with("/**") && head.contains("declare class ToolCallError"));
        assert!(middle.starts_with("declare const tools: {\n"), "{middle}");
        assert!(middle.contains(" $search(") && middle.contains(" $describe("));
        assert_eq!(tail, "};\n");
        let vars = [
            ("default_timeout_ms", ""),
            ("max_timeout_ms", ""),
            ("escalated_deadline", ""),
            ("working_directory", ""),
            ("unavailable_sources", ""),
            ("tools", ""),
            ("fence", ""),
            ("fence_language", ""),
            ("declarations", ""),
            ("count", ""),
            ("sdk_size", ""),
            ("discovery", ""),
            ("list", ""),
        ];
        let python = fill(
            FRAME_PY,
            &[("types", ""), ("methods", ""), ("namespaces", "")],
        );
        assert!(!python.contains("{{"), "{python}");
        let each = [INSTRUCTIONS, INSTRUCTIONS_PY, FULL, INDEX, NAMESPACES];
        for template in each.into_iter().chain([DISCOVERY, DISCOVERY_PY]) {
            let text = fill(template, &vars);
            assert!(!text.contains("{{"), "{text}");
        }
    }
}
