//! What `ptc` prints: the presentation as text, its SDK or JSON, and an
//! outcome's content as plain text.

use ptc::{ContentBlock, Presentation, RUN_CODE};

/// The formats of `ptc sdk`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) enum SdkFormat {
    /// The model's view as text. When the model sees only `run_code` (mode
    /// `ptc`), exactly `run_code`'s description; otherwise one section per
    /// tool the model sees: `## <name>`, the advertised description, and the
    /// parameters schema as pretty JSON. The default.
    #[default]
    Text,
    /// Only the SDK: the TypeScript declarations (a global-script `.d.ts`),
    /// or the Python stubs (a `.pyi` module) when run_code speaks Python.
    Sdk,
    /// The whole presentation (`{ tools, sdk }`) as pretty JSON.
    Json,
}

/// Renders a presentation in one of the `ptc sdk` formats. The text always
/// ends with exactly one newline, and the same presentation always gives the
/// same bytes.
pub(crate) fn format_presentation(presentation: &Presentation, format: SdkFormat) -> String {
    let mut out = match format {
        SdkFormat::Sdk => presentation.sdk.to_string(),
        SdkFormat::Json => {
            serde_json::to_string_pretty(presentation).expect("a presentation serializes as JSON")
        }
        SdkFormat::Text => match presentation.tools.as_slice() {
            [only] if only.name == RUN_CODE => only.description.clone().unwrap_or_default(),
            [] => "The model sees no tools.".to_owned(),
            tools => {
                let mut text = String::new();
                for (i, tool) in tools.iter().enumerate() {
                    if i > 0 {
                        text.push_str("\n\n");
                    }
                    text.push_str("## ");
                    text.push_str(&tool.name);
                    text.push_str("\n\n");
                    if let Some(description) = &tool.description {
                        text.push_str(description.trim_end());
                        text.push_str("\n\n");
                    }
                    text.push_str("Parameters:\n");
                    text.push_str(
                        &serde_json::to_string_pretty(&tool.parameters)
                            .expect("a schema serializes as JSON"),
                    );
                }
                text
            }
        },
    };
    while out.ends_with('\n') {
        out.pop();
    }
    out.push('\n');
    out
}

/// Content blocks as terminal text: text blocks as they are, one per line;
/// an image as a placeholder line `[image: <mimeType>, <bytes> bytes]` (the
/// text block before it names the tool and the sub-call it came from).
pub(crate) fn content_text(content: &[ContentBlock]) -> String {
    let lines: Vec<String> = content
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text } => text.clone(),
            ContentBlock::Image { data, mime_type } => {
                format!("[image: {mime_type}, {} bytes]", base64_len(data))
            }
            // A kind of block this binary does not know yet.
            _ => "[content]".to_owned(),
        })
        .collect();
    lines.join("\n")
}

/// The decoded size of base64 text, without decoding it.
fn base64_len(data: &str) -> usize {
    let data = data.trim_end();
    let padding = data.bytes().rev().take_while(|&b| b == b'=').count().min(2);
    (data.len() / 4 * 3 + (data.len() % 4).saturating_sub(1)).saturating_sub(padding)
}

#[cfg(test)]
mod tests {
    use ptc::{Engine, Limits, Mode, Registry, Tool, ToolContext, ToolDefinition, ToolError};
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn base64_sizes_are_exact() {
        assert_eq!(base64_len(""), 0);
        assert_eq!(base64_len("AA=="), 1);
        assert_eq!(base64_len("AAA="), 2);
        assert_eq!(base64_len("AAAA"), 3);
        assert_eq!(base64_len("AAAAAA=="), 4);
        assert_eq!(base64_len("AAAAAA"), 4);
    }

    #[test]
    fn images_become_placeholder_lines() {
        let text = content_text(&[
            ContentBlock::text("result"),
            ContentBlock::text("Image from `shot` (sub-call r:ptc:1):"),
            ContentBlock::Image {
                data: "AAAA".into(),
                mime_type: "image/png".into(),
            },
        ]);
        assert_eq!(
            text,
            "result\nImage from `shot` (sub-call r:ptc:1):\n[image: image/png, 3 bytes]"
        );
    }

    /// What the model sees in `mode` of a registry holding `tools`.
    fn presentation(tools: Vec<ToolDefinition>, mode: Mode) -> Presentation {
        let registry = Registry::new();
        for definition in tools {
            let tool = Tool::new(definition, |args: Value, _: ToolContext| async move {
                Ok::<_, ToolError>(args)
            });
            registry.add(tool).unwrap();
        }
        let engine = Engine::new(registry, Limits::default()).unwrap();
        engine.presentation(&engine.registry().scope(), Some(mode))
    }

    #[test]
    fn text_format_is_the_run_code_description_alone_in_ptc_mode() {
        let p = presentation(vec![ToolDefinition::new("a")], Mode::Ptc);
        let description = p.tools[0].description.clone().unwrap();
        assert_eq!(
            format_presentation(&p, SdkFormat::Text),
            format!("{}\n", description.trim_end())
        );
        assert_eq!(
            format_presentation(&p, SdkFormat::Sdk),
            format!("{}\n", p.sdk.trim_end())
        );
        let json: Value = serde_json::from_str(&format_presentation(&p, SdkFormat::Json)).unwrap();
        assert_eq!(json["tools"][0]["name"], "run_code");
    }

    #[test]
    fn text_format_lists_native_tools() {
        let object = json!({ "type": "object" });
        let tools = vec![
            ToolDefinition::new("a")
                .description("Does a.")
                .parameters(object.clone()),
            ToolDefinition::new("b").parameters(object),
        ];
        let p = presentation(tools, Mode::Native);
        assert_eq!(
            format_presentation(&p, SdkFormat::Text),
            "## a\n\nDoes a.\n\nParameters:\n{\n  \"type\": \"object\"\n}\n\n\
             ## b\n\nParameters:\n{\n  \"type\": \"object\"\n}\n"
        );
        assert_eq!(
            format_presentation(&presentation(vec![], Mode::Native), SdkFormat::Text),
            "The model sees no tools.\n"
        );
    }
}
