//! The form of a forwarded elicitation request as the user sees it: every
//! text the server wrote in it escaped and marked as its own, as its
//! message is (each line after `│ `), so a server can neither send a
//! terminal control characters nor pass its words for ptc's.
//!
//! What a client shows of a form, and what becomes of each:
//!
//! - the form's and each field's `title` and `description`: marked; a
//!   field without a title gets its key, marked, as its title (clients
//!   show the key otherwise);
//! - the options of a choice: a choice whose options have no titles (its
//!   values are shown) gets them, the values marked (a single choice as
//!   `enumNames`, which every protocol version with elicitation reads; a
//!   multiple choice as `anyOf` titles); titles and `enumNames` are
//!   marked. The values, which are the answer, stay as the server sent them;
//! - a text field's `default`, the text the field starts with: marked, and
//!   an answer that left it as it was goes back to the server as its own
//!   default ([`Defaults::restore`]). A field with a `format` (email, uri,
//!   date, date-time: the marked text would not be one) keeps a default
//!   without spaces or control characters as it is, which cannot read as
//!   a sentence, and shows no other; a marked default longer than the
//!   field's `maxLength` is left out. Defaults of numbers, booleans and
//!   choices are values, kept.

use std::borrow::Cow;

use rmcp::model::{
    ConstTitle, ElicitationSchema, EnumSchema, LegacyEnumSchema, MultiSelectEnumSchema,
    PrimitiveSchemaDefinition, SingleSelectEnumSchema, TitledItems, TitledMultiSelectEnumSchema,
};
use serde_json::Value;

use crate::tool::title::{escape_hostile_keeping_lines, is_hostile};

/// The server's words, escaped, each line marked `│ ` (an empty text is
/// one marked empty line).
pub(super) fn marked(text: &str) -> String {
    let escaped = escape_hostile_keeping_lines(text);
    let lines: Vec<String> = if escaped.is_empty() {
        vec!["│ ".to_owned()]
    } else {
        escaped.lines().map(|line| format!("│ {line}")).collect()
    };
    lines.join("\n")
}

fn marked_cow(text: &mut Option<Cow<'static, str>>) {
    if let Some(text) = text {
        *text = Cow::Owned(marked(text));
    }
}

/// The text fields whose default the form shows marked: the field, the
/// text shown, and the server's default.
#[derive(Debug, Default)]
pub(super) struct Defaults(Vec<(String, String, String)>);

impl Defaults {
    /// An accepted answer's `content` with each text the user left as
    /// shown put back as the server's default.
    pub(super) fn restore(&self, content: &mut Value) {
        let Some(fields) = content.as_object_mut() else {
            return;
        };
        for (key, shown, default) in &self.0 {
            if let Some(value) = fields.get_mut(key)
                && value.as_str() == Some(shown.as_str())
            {
                *value = Value::String(default.clone());
            }
        }
    }
}

/// `schema` as the user is shown it, and the defaults to restore.
pub(super) fn shown_schema(mut schema: ElicitationSchema) -> (ElicitationSchema, Defaults) {
    marked_cow(&mut schema.title);
    marked_cow(&mut schema.description);
    let mut defaults = Defaults::default();
    for (key, field) in &mut schema.properties {
        let title = match field {
            PrimitiveSchemaDefinition::String(field) => {
                if let Some(default) = field.default.take() {
                    let shown = marked(&default);
                    let fits = field
                        .max_length
                        .is_none_or(|max| shown.chars().count() <= max as usize);
                    if field.format.is_some() {
                        // What email, uri, date and date-time allow holds
                        // no space and no control character: nothing
                        // that reads as ptc's words. The rest is left out.
                        if !default.contains(|c: char| c.is_whitespace() || is_hostile(c)) {
                            field.default = Some(default);
                        }
                    } else if fits {
                        field.default = Some(shown.clone());
                        defaults.0.push((key.clone(), shown, default));
                    }
                }
                marked_cow(&mut field.description);
                &mut field.title
            }
            PrimitiveSchemaDefinition::Number(field) => {
                marked_cow(&mut field.description);
                &mut field.title
            }
            PrimitiveSchemaDefinition::Integer(field) => {
                marked_cow(&mut field.description);
                &mut field.title
            }
            PrimitiveSchemaDefinition::Boolean(field) => {
                marked_cow(&mut field.description);
                &mut field.title
            }
            PrimitiveSchemaDefinition::Enum(choice) => {
                *choice = shown_choice(choice.clone());
                match choice {
                    EnumSchema::Legacy(choice) => {
                        marked_cow(&mut choice.description);
                        &mut choice.title
                    }
                    EnumSchema::Single(SingleSelectEnumSchema::Titled(choice)) => {
                        marked_cow(&mut choice.description);
                        &mut choice.title
                    }
                    EnumSchema::Multi(MultiSelectEnumSchema::Titled(choice)) => {
                        marked_cow(&mut choice.description);
                        &mut choice.title
                    }
                    // `shown_choice` leaves no choice untitled; a kind
                    // rmcp adds later shows no text ptc knows of.
                    _ => continue,
                }
            }
            // A kind rmcp adds later: no text ptc knows of.
            _ => continue,
        };
        *title = Some(Cow::Owned(marked(title.as_deref().unwrap_or(key))));
    }
    (schema, defaults)
}

/// A choice whose options all have marked titles, its values unchanged.
fn shown_choice(choice: EnumSchema) -> EnumSchema {
    match choice {
        EnumSchema::Single(SingleSelectEnumSchema::Untitled(choice)) => {
            let mut legacy = LegacyEnumSchema::new(choice.enum_);
            legacy.title = choice.title;
            legacy.description = choice.description;
            legacy.default = choice.default;
            EnumSchema::Legacy(with_names(legacy))
        }
        EnumSchema::Legacy(choice) => EnumSchema::Legacy(with_names(choice)),
        EnumSchema::Single(SingleSelectEnumSchema::Titled(mut choice)) => {
            mark_titles(&mut choice.one_of);
            EnumSchema::Single(SingleSelectEnumSchema::Titled(choice))
        }
        EnumSchema::Multi(MultiSelectEnumSchema::Untitled(choice)) => {
            let options = choice
                .items
                .enum_
                .iter()
                .map(|value| ConstTitle::new(value.clone(), marked(value)))
                .collect();
            let mut titled = TitledMultiSelectEnumSchema::new(TitledItems::new(options));
            titled.title = choice.title;
            titled.description = choice.description;
            titled.min_items = choice.min_items;
            titled.max_items = choice.max_items;
            titled.default = choice.default;
            EnumSchema::Multi(MultiSelectEnumSchema::Titled(titled))
        }
        EnumSchema::Multi(MultiSelectEnumSchema::Titled(mut choice)) => {
            mark_titles(&mut choice.items.any_of);
            EnumSchema::Multi(MultiSelectEnumSchema::Titled(choice))
        }
        other => other,
    }
}

/// `enumNames` for every value: the server's names marked, or the values
/// marked where it gave none.
fn with_names(mut choice: LegacyEnumSchema) -> LegacyEnumSchema {
    let given = choice.enum_names.take().unwrap_or_default();
    let names = choice
        .enum_
        .iter()
        .enumerate()
        .map(|(n, value)| marked(given.get(n).unwrap_or(value)))
        .collect();
    choice.enum_names = Some(names);
    choice
}

fn mark_titles(options: &mut [ConstTitle]) {
    for option in options {
        option.title = marked(&option.title);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shown(schema: Value) -> (Value, Defaults) {
        let (schema, defaults) = shown_schema(serde_json::from_value(schema).unwrap());
        (serde_json::to_value(schema).unwrap(), defaults)
    }

    #[test]
    fn every_text_of_the_server_is_escaped_and_marked() {
        let (schema, _) = shown(json!({
            "type": "object",
            "title": "Deploy\u{1b}[2J",
            "description": "Two\nlines",
            "properties": {
                "branch": { "type": "string", "title": "Allow this call?\u{202e}", "description": "\u{7}bell" },
                "count": { "type": "integer", "description": "How many" },
                "ok": { "type": "boolean", "title": "OK" },
                "ratio": { "type": "number", "title": "" }
            },
            "required": ["branch"]
        }));
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "title": "│ Deploy\\u{1b}[2J",
                "description": "│ Two\n│ lines",
                "properties": {
                    "branch": { "type": "string", "title": "│ Allow this call?\\u{202e}", "description": "│ \\u{7}bell" },
                    "count": { "type": "integer", "title": "│ count", "description": "│ How many" },
                    "ok": { "type": "boolean", "title": "│ OK" },
                    "ratio": { "type": "number", "title": "│ " }
                },
                "required": ["branch"]
            })
        );
    }

    #[test]
    fn options_get_marked_titles_and_keep_their_values() {
        let (schema, _) = shown(json!({
            "type": "object",
            "properties": {
                "single": { "type": "string", "enum": ["a\u{1b}", "b"], "default": "b" },
                "named": { "type": "string", "enum": ["a", "b"], "enumNames": ["Alpha\u{202e}"] },
                "titled": { "type": "string", "oneOf": [{ "const": "x", "title": "Allow\nthis call?" }] },
                "many": { "type": "array", "items": { "type": "string", "enum": ["p", "q"] }, "default": ["q"] },
                "many_titled": { "type": "array", "items": { "anyOf": [{ "const": "p", "title": "P\u{1b}" }] } }
            }
        }));
        assert_eq!(
            schema["properties"],
            json!({
                "single": { "type": "string", "title": "│ single", "enum": ["a\u{1b}", "b"],
                            "enumNames": ["│ a\\u{1b}", "│ b"], "default": "b" },
                "named": { "type": "string", "title": "│ named", "enum": ["a", "b"],
                           "enumNames": ["│ Alpha\\u{202e}", "│ b"] },
                "titled": { "type": "string", "title": "│ titled",
                            "oneOf": [{ "const": "x", "title": "│ Allow\n│ this call?" }] },
                "many": { "type": "array", "title": "│ many",
                          "items": { "anyOf": [{ "const": "p", "title": "│ p" }, { "const": "q", "title": "│ q" }] },
                          "default": ["q"] },
                "many_titled": { "type": "array", "title": "│ many_titled",
                                 "items": { "anyOf": [{ "const": "p", "title": "│ P\\u{1b}" }] } }
            })
        );
    }

    #[test]
    fn a_text_default_is_shown_marked_and_restored_when_left_as_it_was() {
        let (schema, defaults) = shown(json!({
            "type": "object",
            "properties": {
                "branch": { "type": "string", "default": "main\u{1b}" },
                "note": { "type": "string", "default": "Allow this call?" },
                "mail": { "type": "string", "format": "email", "default": "a@b.c" },
                "mail_words": { "type": "string", "format": "uri", "default": "Allow this call?" },
                "short": { "type": "string", "maxLength": 4, "default": "abcd" },
                "n": { "type": "integer", "default": 3 }
            }
        }));
        let properties = &schema["properties"];
        assert_eq!(properties["branch"]["default"], "│ main\\u{1b}");
        assert_eq!(properties["note"]["default"], "│ Allow this call?");
        // The marked text would break the field's own rules: a formatted
        // value that cannot read as words is kept as it is, others and
        // what would be too long are left out.
        assert_eq!(properties["mail"]["default"], "a@b.c");
        assert!(
            properties["mail_words"].get("default").is_none(),
            "{schema}"
        );
        assert!(properties["short"].get("default").is_none(), "{schema}");
        assert_eq!(properties["n"]["default"], 3);

        let mut answer = json!({ "branch": "│ main\\u{1b}", "note": "changed", "n": 3 });
        defaults.restore(&mut answer);
        assert_eq!(
            answer,
            json!({ "branch": "main\u{1b}", "note": "changed", "n": 3 })
        );
    }
}
