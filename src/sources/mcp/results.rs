//! An MCP `CallToolResult` as a ptc result: `structuredContent` is the
//! value; otherwise the text content (one text block holding JSON is
//! parsed, once it passed the gate); image blocks become [`ContentBlock::Image`]; resource links
//! join the value as `{ text?, resourceLinks }`; `isError` is a
//! `TOOL_ERROR` carrying the server's text.

use serde_json::Value;

use crate::contract::call::{ContentBlock, ToolError, ToolOutput, ToolResult};
use crate::gate::{self, Refusal};
use crate::limits::ANSWER;

/// The result a program gets for `result`, a `CallToolResult` as JSON
/// (taken, so that `structuredContent` moves rather than being copied).
pub(super) fn tool_result(mut result: Value) -> ToolResult {
    let structured = result
        .as_object_mut()
        .and_then(|r| r.shift_remove("structuredContent"));
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let texts: Vec<&str> = blocks.iter().filter_map(block_text).collect();
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        let text = texts.join("\n");
        return Err(ToolError::tool(if text.is_empty() {
            "the tool failed and said nothing".to_owned()
        } else {
            text
        }));
    }
    let links: Vec<Value> = blocks.iter().filter_map(resource_link).collect();
    let value = match structured {
        Some(structured) => structured,
        None if links.is_empty() => text_value(&texts)?,
        None => with_links(&texts, links),
    };
    let mut output = ToolOutput::new(value);
    for block in blocks {
        if let Some(image) = image_block(block) {
            output = output.with_content(image);
        }
    }
    Ok(output)
}

/// A block's text: a text block, or an embedded resource's text.
fn block_text(block: &Value) -> Option<&str> {
    match block.get("type")?.as_str()? {
        "text" => block.get("text")?.as_str(),
        "resource" => block.get("resource")?.get("text")?.as_str(),
        _ => None,
    }
}

/// No text is `null`; one text holding JSON is that JSON; else the texts.
/// The JSON is measured first (contracts §6, "What enters the host"): one
/// that would cost more than an answer may once parsed fails the call.
fn text_value(texts: &[&str]) -> Result<Value, ToolError> {
    Ok(match texts {
        [] => Value::Null,
        [one] => match gate::json_text(one.as_bytes(), ANSWER) {
            Ok(_) => serde_json::from_str(one).unwrap_or_else(|_| Value::String((*one).to_owned())),
            Err(Refusal::Malformed(_)) => Value::String((*one).to_owned()),
            Err(refusal) => {
                return Err(ToolError::tool(format!(
                    "the tool answered with JSON text ptc cannot take: {}",
                    refusal.to_string().replacen("the message", "it", 1)
                )));
            }
        },
        many => Value::String(many.join("\n")),
    })
}

/// The fields of a `resource_link` block a program can use (`uri`, `name`,
/// and `title`, `description`, `mimeType`, `size` when given); none without
/// a string `uri`.
fn resource_link(block: &Value) -> Option<Value> {
    if block.get("type")?.as_str()? != "resource_link" {
        return None;
    }
    block.get("uri")?.as_str()?;
    let mut link = serde_json::Map::new();
    for key in LINK_FIELDS {
        if let Some(field) = block.get(key).filter(|v| !v.is_null()) {
            link.insert(key.to_owned(), field.clone());
        }
    }
    Some(Value::Object(link))
}

const LINK_FIELDS: [&str; 6] = ["uri", "name", "title", "description", "mimeType", "size"];

/// A result with links: `{ text, resourceLinks }`, `text` the texts joined
/// (not parsed) and left out when there is none. One shape with or without
/// text, so a program tests `resourceLinks` only.
fn with_links(texts: &[&str], links: Vec<Value>) -> Value {
    let mut value = serde_json::Map::new();
    if !texts.is_empty() {
        value.insert("text".to_owned(), Value::String(texts.join("\n")));
    }
    value.insert("resourceLinks".to_owned(), Value::Array(links));
    Value::Object(value)
}

fn image_block(block: &Value) -> Option<ContentBlock> {
    if block.get("type")?.as_str()? != "image" {
        return None;
    }
    Some(ContentBlock::Image {
        data: block.get("data")?.as_str()?.to_owned(),
        mime_type: block.get("mimeType")?.as_str()?.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::call::ErrorCode;
    use serde_json::json;

    fn text(t: &str) -> Value {
        json!({ "type": "text", "text": t })
    }

    #[test]
    fn structured_content_wins_over_text() {
        let out = tool_result(json!({
            "content": [text("{\"a\":1}")], "structuredContent": { "a": 2 }
        }))
        .unwrap();
        assert_eq!(out.value, json!({ "a": 2 }));
    }

    #[test]
    fn one_json_text_is_parsed_and_other_texts_are_joined() {
        let value = |content: Value| tool_result(json!({ "content": content })).unwrap().value;
        assert_eq!(value(json!([text("[1, 2]")])), json!([1, 2]));
        assert_eq!(value(json!([text("plain")])), json!("plain"));
        assert_eq!(value(json!([text("1"), text("2")])), json!("1\n2"));
        assert_eq!(value(json!([])), Value::Null);
        assert_eq!(
            value(json!([{ "type": "resource", "resource": { "uri": "x:", "text": "\"r\"" } }])),
            json!("r")
        );
    }

    #[test]
    fn images_become_content_blocks() {
        let out = tool_result(json!({ "content": [
            text("look"),
            { "type": "image", "data": "AA==", "mimeType": "image/png" },
            { "type": "audio", "data": "AA==", "mimeType": "audio/wav" }
        ] }))
        .unwrap();
        assert_eq!(out.value, json!("look"));
        assert_eq!(
            out.content,
            [ContentBlock::Image {
                data: "AA==".into(),
                mime_type: "image/png".into()
            }]
        );
    }

    fn link(uri: &str) -> Value {
        json!({ "type": "resource_link", "uri": uri, "name": "n", "mimeType": "text/plain",
                "annotations": { "priority": 1 }, "_meta": { "x": 1 } })
    }

    #[test]
    fn resource_links_join_the_text_as_an_object() {
        let value = |content: Value| tool_result(json!({ "content": content })).unwrap().value;
        let kept = json!({ "uri": "file:///a", "name": "n", "mimeType": "text/plain" });
        assert_eq!(
            value(json!([text("{\"a\":1}"), link("file:///a")])),
            json!({ "text": "{\"a\":1}", "resourceLinks": [kept] })
        );
        assert_eq!(
            value(json!([link("file:///a"), link("file:///b")])),
            json!({ "resourceLinks": [kept, { "uri": "file:///b", "name": "n", "mimeType": "text/plain" }] })
        );
        let full = json!({ "type": "resource_link", "uri": "u:", "name": "n", "title": "T",
                           "description": "D", "size": 3 });
        assert_eq!(
            value(json!([full])),
            json!({ "resourceLinks": [{ "uri": "u:", "name": "n", "title": "T", "description": "D", "size": 3 }] })
        );
        // A link without a string uri is not a link: the result is as without it.
        assert_eq!(
            value(json!([text("7"), { "type": "resource_link", "name": "n" }])),
            json!(7)
        );
    }

    #[test]
    fn structured_content_wins_over_resource_links() {
        let out = tool_result(json!({
            "content": [link("file:///a")], "structuredContent": { "a": 2 }
        }))
        .unwrap();
        assert_eq!(out.value, json!({ "a": 2 }));
    }

    #[test]
    fn is_error_is_a_tool_error_with_the_servers_text() {
        let error =
            tool_result(json!({ "content": [text("no such file")], "isError": true })).unwrap_err();
        assert_eq!(
            (error.code, error.message.as_str()),
            (ErrorCode::ToolError, "no such file")
        );
        let error = tool_result(json!({ "content": [], "isError": true })).unwrap_err();
        assert_eq!(error.message, "the tool failed and said nothing");
    }
}
