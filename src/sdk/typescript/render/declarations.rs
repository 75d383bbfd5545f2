//! The SDK's declarations: one method per tool (its JSDoc, then its
//! signature) and one `type Name = …;` per alias.

use serde_json::Value;

use super::Renderer;
use crate::sdk::keywords::Keywords;
use crate::sdk::typescript::MAX_DEPTH;
use crate::sdk::typescript::aliases::Scope;
use crate::sdk::typescript::writing::{is_ident, push_json_str, trim};
use crate::tool::definition::{Policy, ToolDefinition};

/// The JSDoc line of an escalation-only tool (also the last line of its
/// description in mode `both`).
pub(crate) const ESCALATION_NOTE: &str = "Needs an escalated run: call run_code with sandboxPermissions \"require_escalated\" and a justification.";

/// The JSDoc line of a tool whose calls a person approves (policy `ask`),
/// so the model can tell its user a prompt is coming.
pub(crate) const ASKS_NOTE: &str = "Asks the user to approve each call first.";

impl<'a> Renderer<'a> {
    /// [`method`](Self::method), after loading the tool's schemas into the
    /// cache: this walk's loads do not wait on each other, the renderer's
    /// would. A group's `header` line comes first.
    pub(in crate::sdk::typescript) fn warm_method(
        &mut self,
        tool: &'a ToolDefinition,
        header: Option<&str>,
    ) {
        std::hint::black_box(warm(&tool.parameters, 0));
        if let Some(output) = &tool.output {
            std::hint::black_box(warm(output, 0));
        }
        if let Some(header) = header {
            self.out.push_str(header);
        }
        self.method(tool);
    }

    /// ` /** doc */` then ` name(args: T): Promise<O>;`.
    fn method(&mut self, tool: &'a ToolDefinition) {
        self.layout.indent = 1;
        let params = Scope {
            root: &tool.parameters,
            owner: &tool.name,
            kind: "Args",
            alias: None,
        };
        let output = tool.output.as_ref().map(|o| Scope {
            root: o,
            owner: &tool.name,
            kind: "Output",
            alias: None,
        });
        let quoted = !is_ident(&tool.name) || tool.name == "new";
        let params_kw = Keywords::of(&tool.parameters);
        let output_kw = output.and_then(|o| Keywords::of(o.root));
        self.method_doc(tool, quoted, params_kw.as_ref(), output_kw.as_ref());

        self.out.push(' ');
        if quoted {
            push_json_str(&mut self.out, &tool.name);
        } else {
            self.out.push_str(&tool.name);
        }
        self.out
            .push_str(if args_optional(&tool.parameters, params_kw.as_ref()) {
                "(args?: "
            } else {
                "(args: "
            });
        self.scope = params;
        self.cycles.guarded = false;
        self.ty_of(&tool.parameters, params_kw.as_ref(), 0);
        self.out.push_str("): Promise<");
        match output {
            Some(scope) => {
                self.scope = scope;
                self.ty_of(scope.root, output_kw.as_ref(), 0);
            }
            None => self.out.push_str("unknown"),
        }
        self.out.push_str(">;\n");
    }

    /// ` /** … */` and a line break, if the tool has anything to say: its
    /// description, how to call a name that is not an identifier, that it
    /// needs an escalated run, `@readonly`,
    /// and what its argument and result schemas say of themselves.
    fn method_doc(
        &mut self,
        tool: &ToolDefinition,
        quoted: bool,
        params_kw: Option<&Keywords<'_>>,
        output_kw: Option<&Keywords<'_>>,
    ) {
        let mark = self.out.len();
        self.out.push_str(" /** ");
        let body = self.out.len();
        if let Some(text) = tool.advertised_description() {
            self.doc_text(trim(text));
        }
        if quoted {
            // On a line of its own, so it never runs on from the description.
            if self.out.len() > body {
                self.newline();
                self.out.push_str(" * ");
            }
            self.out.push_str("Call: tools[");
            push_json_str(&mut self.out, &tool.name);
            self.out.push_str("](args)");
        }
        if tool.escalation_only {
            if self.out.len() > body {
                self.newline();
                self.out.push_str(" * ");
            }
            self.out.push_str(ESCALATION_NOTE);
        }
        if tool.policy == Policy::Ask {
            if self.out.len() > body {
                self.newline();
                self.out.push_str(" * ");
            }
            self.out.push_str(ASKS_NOTE);
        }
        // The notes have a line of their own: the tags start the next one.
        let noted = tool.escalation_only || tool.policy == Policy::Ask;
        if tool.read_only {
            self.tag_sep(body, noted);
            self.out.push_str("@readonly");
        }
        for (kw, tag) in [(params_kw, "@param args "), (output_kw, "@returns ")] {
            if let Some(kw) = kw {
                let at = self.out.len();
                self.tag_sep(body, noted);
                self.out.push_str(tag);
                if !self.doc_body(kw) {
                    self.out.truncate(at);
                }
            }
        }
        if self.out.len() == body {
            self.out.truncate(mark);
        } else {
            self.out.push_str(" */\n");
        }
    }

    /// Before a tag: a new comment line right after a note (each ends with
    /// a full stop), else a space.
    fn tag_sep(&mut self, body: usize, after_note: bool) {
        if after_note && self.out.ends_with('.') {
            self.newline();
            self.out.push_str(" * ");
        } else {
            self.doc_sep(body);
        }
    }

    /// Writes `type Name = …;` for every alias, including those found on the way.
    pub(in crate::sdk::typescript) fn declare_aliases(&mut self) {
        let mut i = 0;
        while let Some((scope, target)) = self.aliases.body(i) {
            self.scope = scope;
            self.layout.indent = 0;
            self.cycles.guarded = false;
            let kw = Keywords::of(target);
            if let Some(kw) = &kw {
                self.doc_comment(kw, "\n");
            }
            self.out.push_str("type ");
            self.out.push_str(self.aliases.name(i));
            self.out.push_str(" = ");
            self.ty_of(target, kw.as_ref(), 0);
            self.out.push_str(";\n");
            i += 1;
        }
    }
}

/// Reads the first byte of every key and string in a schema.
fn warm(v: &Value, depth: u32) -> usize {
    if depth > MAX_DEPTH {
        return 0;
    }
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| k.as_bytes().first().map_or(0, |&b| b as usize) + warm(v, depth + 1))
            .sum(),
        Value::Array(items) => items.iter().map(|v| warm(v, depth + 1)).sum(),
        Value::String(s) => s.as_bytes().first().map_or(0, |&b| b as usize),
        _ => 0,
    }
}

/// Whether calling with no argument (`{}`) can be valid: a plain object
/// schema that requires nothing.
fn args_optional(params: &Value, kw: Option<&Keywords<'_>>) -> bool {
    match (params, kw) {
        (Value::Bool(b), _) => *b,
        (_, Some(kw)) => {
            let object = match kw.types {
                None => true,
                Some(Value::String(t)) => t == "object",
                Some(ts) => ts
                    .as_array()
                    .is_some_and(|ts| ts.iter().any(|t| t == "object")),
            };
            object
                && kw.required.is_empty()
                && kw.reference.is_none()
                && kw.any_of.is_none()
                && kw.one_of.is_none()
                && kw.all_of.is_empty()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn args_are_optional_only_when_nothing_is_required() {
        let args_optional =
            |params: &Value| super::args_optional(params, Keywords::of(params).as_ref());
        assert!(args_optional(&json!({ "type": "object" })));
        assert!(args_optional(
            &json!({ "properties": { "a": {} }, "required": [] })
        ));
        assert!(args_optional(&json!(true)));
        assert!(!args_optional(
            &json!({ "type": "object", "required": ["a"] })
        ));
        assert!(!args_optional(&json!({ "$ref": "#/$defs/x" })));
        assert!(!args_optional(&json!({ "type": "string" })));
        assert!(!args_optional(&json!(5)));
    }
}
