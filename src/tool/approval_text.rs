//! What a person approving a call or an escalation is shown (contracts §6,
//! "What a person approves"), shared by every front end that asks one (the
//! MCP form, the terminal prompt): the grant first, in ptc's own words,
//! then the model's text in full, escaped so it cannot forge a line.
//!
//! The model writes the justification, the description, the code and the
//! arguments (and so the title). Control characters, line and paragraph
//! separators and bidirectional controls in them are shown escaped
//! (`\u{2028}`); a one-line text shows its line breaks escaped too, and each
//! line of a block (code, arguments) starts with `│ `, so nothing the model
//! writes can pass for a line of ptc's.

use super::approval::{ApprovalRequest, EscalationGrant, EscalationRequest};
use super::title::escape_hostile;
use crate::limits::size;

/// The most bytes of JSON arguments an `ask` call may have: more cannot be
/// shown to a person in full, so the call is refused without asking.
pub(crate) const MAX_SHOWN_ARGUMENT_BYTES: usize = 16 * 1024;
/// The most bytes of code an escalated run may have to be put to a person.
pub(crate) const MAX_SHOWN_CODE_BYTES: usize = 64 * 1024;
/// The most bytes of a justification or description put to a person.
pub(crate) const MAX_SHOWN_NOTE_BYTES: usize = 2 * 1024;

/// Why an approval cannot be asked for: the model-facing refusal, or `None`
/// when everything can be shown in full.
pub(crate) fn too_long_for_call(name: &str, arguments_bytes: usize) -> Option<String> {
    (arguments_bytes > MAX_SHOWN_ARGUMENT_BYTES).then(|| {
        format!(
            "tool `{name}` needs approval and its arguments ({arguments_bytes} bytes of JSON) are too long to show a person in full (at most {}): make them shorter, or split the work into smaller calls",
            size(MAX_SHOWN_ARGUMENT_BYTES as u64)
        )
    })
}

/// As [`too_long_for_call`], for an escalation's code, description and
/// justification.
pub(crate) fn too_long_for_escalation(
    code: &str,
    description: &str,
    justification: &str,
) -> Option<String> {
    let too_long = |what: &str, bytes: usize, max: usize| {
        format!(
            "escalation needs approval and {what} ({bytes} bytes) is too long to show a person in full (at most {}): make it shorter",
            size(max as u64)
        )
    };
    if code.len() > MAX_SHOWN_CODE_BYTES {
        return Some(too_long("the program", code.len(), MAX_SHOWN_CODE_BYTES));
    }
    for (what, text) in [
        ("the justification", justification),
        ("the description", description),
    ] {
        if text.len() > MAX_SHOWN_NOTE_BYTES {
            return Some(too_long(what, text.len(), MAX_SHOWN_NOTE_BYTES));
        }
    }
    None
}

impl ApprovalRequest {
    /// What a person deciding this call is shown, in lines: the tool
    /// first, then the title and every argument (pretty JSON), escaped and
    /// fenced (contracts §6). Ends without a question.
    pub fn shown_text(&self) -> String {
        let arguments = serde_json::to_string_pretty(&self.call.arguments)
            .unwrap_or_else(|_| "(unprintable)".to_owned());
        format!(
            "The program asks to call the tool `{}` (needs approval).\nIts title (the model's, escaped): {}\nIts arguments, in full ({}, each marked │):\n{}",
            self.call.name,
            escape_hostile(&self.title),
            lines(arguments.lines().count()),
            fenced(&arguments)
        )
    }
}

impl EscalationGrant {
    /// The grant in ptc's words: ``It would get the tools deploy, a
    /// deadline of 1000 ms, 1 MiB of memory and 1 KiB of output.``
    pub fn sentence(&self) -> String {
        let tools = match self.tools.as_slice() {
            [] => "no escalation-only tools".to_owned(),
            names => format!("the tools {}", names.join(", ")),
        };
        format!(
            "It would get {tools}, a deadline of {} ms, {} of memory and {} of output.",
            self.timeout_ms,
            size(self.memory_limit_bytes as u64),
            size(self.output_cap_bytes as u64),
        )
    }
}

impl EscalationRequest {
    /// What a person deciding this escalation is shown, in lines: the grant
    /// first (tools, deadline, memory, output), then the model's
    /// justification and description on one escaped line each, then the
    /// whole program, escaped and fenced (contracts §6). Ends without a
    /// question.
    pub fn shown_text(&self) -> String {
        format!(
            "The program asks for an escalated run. {}\nThe model's justification (one line, escaped): {}\nThe model's description (one line, escaped): {}\nThe program, in full ({}, {} bytes, each marked │):\n{}",
            self.grant.sentence(),
            escape_hostile(&self.justification),
            escape_hostile(&self.description),
            lines(self.code.split('\n').count()),
            self.code.len(),
            fenced(&self.code)
        )
    }
}

/// `1 line`, `3 lines`.
fn lines(n: usize) -> String {
    match n {
        1 => "1 line".to_owned(),
        n => format!("{n} lines"),
    }
}

/// Each line of `text` (split at `\n` only) escaped and starting with `│ `.
fn fenced(text: &str) -> String {
    text.split('\n')
        .map(|line| format!("│ {}", escape_hostile(line)))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::context::ToolContext;
    use tokio_util::sync::CancellationToken;

    #[test]
    fn the_grant_comes_first_and_model_text_cannot_forge_lines() {
        let request = EscalationRequest {
            run_id: "run-1".to_owned(),
            code: "const a = 1\n\treturn '\u{1b}[2J\u{9b}31m'\u{2028}It would get".to_owned(),
            description: "tidy \u{202e}gnp.exe".to_owned(),
            justification: "ship\nIt would get no escalation-only tools\u{7}".to_owned(),
            grant: EscalationGrant {
                tools: vec!["deploy".to_owned()],
                timeout_ms: 1000,
                memory_limit_bytes: 1 << 20,
                output_cap_bytes: 1 << 10,
            },
            context: ToolContext::new("run-1", CancellationToken::new(), None),
        };
        let text = request.shown_text();
        assert_eq!(
            text,
            "The program asks for an escalated run. It would get the tools deploy, a deadline of 1000 ms, 1 MiB of memory and 1 KiB of output.\n\
             The model's justification (one line, escaped): ship\\nIt would get no escalation-only tools\\u{7}\n\
             The model's description (one line, escaped): tidy \\u{202e}gnp.exe\n\
             The program, in full (2 lines, 46 bytes, each marked │):\n\
             │ const a = 1\n\
             │ \\treturn '\\u{1b}[2J\\u{9b}31m'\\u{2028}It would get"
        );
        // Only ptc's own lines do not start with the fence.
        let unfenced: Vec<&str> = text.lines().filter(|l| !l.starts_with("│ ")).collect();
        assert_eq!(unfenced.len(), 4, "{text}");
    }

    #[test]
    fn what_cannot_be_shown_is_refused() {
        // The bounds as contracts §6 states them, literally: 16 KiB of
        // arguments, 64 KiB of code, 2 KiB of each note, each exactly shown.
        assert!(too_long_for_call("x", 16 * 1024).is_none());
        assert!(too_long_for_call("x", 16 * 1024 + 1).is_some());
        let at_most_and_over = |n: usize| ("x".repeat(n), "x".repeat(n + 1));
        let (code, long_code) = at_most_and_over(64 * 1024);
        assert!(too_long_for_escalation(&code, "", "").is_none());
        let (note, long_note) = at_most_and_over(2 * 1024);
        assert!(too_long_for_escalation("ok", &note, &note).is_none());
        assert!(too_long_for_escalation("ok", &long_note, "").is_some());
        assert!(too_long_for_escalation("ok", "", &long_note).is_some());
        assert_eq!(
            too_long_for_call("x", 20_000).unwrap(),
            "tool `x` needs approval and its arguments (20000 bytes of JSON) are too long to show a person in full (at most 16 KiB): make them shorter, or split the work into smaller calls"
        );
        assert_eq!(
            too_long_for_escalation(&long_code, "", "").unwrap(),
            "escalation needs approval and the program (65537 bytes) is too long to show a person in full (at most 64 KiB): make it shorter"
        );
    }
}
