//! Comments: a schema's description (or title) and its constraints as JSDoc
//! tags, with `*/` escaped and line breaks continued.

use serde_json::Value;

use super::Renderer;
use crate::sdk::keywords::Keywords;
use crate::sdk::typescript::writing::{has_either_byte, push_json};

impl Renderer<'_> {
    /// `/** doc */` then `end`, if the schema has anything to say.
    pub(super) fn doc_comment(&mut self, kw: &Keywords<'_>, end: &str) {
        let text = kw.text().is_some();
        if !text && kw.tags.is_none() {
            return;
        }
        if text && self.layout.inline_from.is_some() {
            // A comment ends a one-line attempt: stop before writing it.
            self.layout.aborted = true;
            return;
        }
        let mark = self.out.len();
        self.out.push_str("/** ");
        if self.doc_body(kw) {
            self.out.push_str(" */");
            self.out.push_str(end);
            if self.layout.inline_from.is_some() {
                self.layout.aborted = true;
            }
        } else {
            self.out.truncate(mark);
        }
    }

    /// The description (or title), then the constraints as tags, in schema order.
    pub(super) fn doc_body(&mut self, kw: &Keywords<'_>) -> bool {
        let start = self.out.len();
        if let Some(text) = kw.text() {
            self.doc_text(text);
        }
        for (key, value) in kw.tags.into_iter().flatten() {
            let flag = match key.as_str() {
                "deprecated" | "uniqueItems" => true,
                "default" | "format" | "pattern" | "minimum" | "maximum" | "exclusiveMinimum"
                | "exclusiveMaximum" | "multipleOf" | "minLength" | "maxLength" | "minItems"
                | "maxItems" | "minProperties" | "maxProperties" | "examples" => false,
                _ => continue,
            };
            if flag && value != &Value::Bool(true) {
                continue;
            }
            self.doc_sep(start);
            self.out.push('@');
            self.out.push_str(key);
            if flag {
                continue;
            }
            self.out.push(' ');
            match value {
                Value::String(s) if key == "format" || key == "pattern" => self.doc_text(s),
                _ => {
                    let at = self.out.len();
                    push_json(&mut self.out, value, 0);
                    if self.out[at..].contains("*/") {
                        let escaped = self.out[at..].replace("*/", "*\\/");
                        self.out.truncate(at);
                        self.out.push_str(&escaped);
                    }
                }
            }
        }
        self.out.len() > start
    }

    pub(super) fn doc_sep(&mut self, body: usize) {
        if self.out.len() > body {
            self.out.push(' ');
        }
    }

    /// Comment text: `*/` escaped, each line break continued with ` * `.
    pub(super) fn doc_text(&mut self, text: &str) {
        if !has_either_byte(text.as_bytes(), b'\n', b'/') {
            self.out.push_str(text);
            return;
        }
        let bytes = text.as_bytes();
        let mut from = 0;
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'/' if i > 0 && bytes[i - 1] == b'*' => {
                    self.out.push_str(&text[from..i]);
                    self.out.push('\\');
                    from = i;
                }
                b'\n' => {
                    let line = &text[from..i];
                    self.out.push_str(line.strip_suffix('\r').unwrap_or(line));
                    self.newline();
                    self.out.push_str(" *");
                    if bytes.get(i + 1).is_some_and(|&c| c != b'\n' && c != b'\r') {
                        self.out.push(' ');
                    }
                    from = i + 1;
                    if self.layout.inline_from.is_some() {
                        self.layout.aborted = true;
                    }
                }
                _ => {}
            }
        }
        self.out.push_str(&text[from..]);
    }
}
