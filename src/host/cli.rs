//! The reusable pieces of the `ptc` command line: the tools the usual flags
//! name, what the model sees as text, and an outcome as plain text or JSON.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::manifest::{ManifestError, load_manifest};
use super::workspace::workspace_tools;
use crate::engine::Outcome;
use crate::sdk::presentation::{Presentation, RUN_CODE};
use crate::tool::call::ContentBlock;
use crate::tool::registry::{RegistrationError, Registry};

/// Why the tools named on the command line could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolSetupError {
    /// The workspace directory cannot be used.
    #[error("workspace {}: {source}", path.display())]
    Workspace {
        /// The directory given.
        path: PathBuf,
        /// Why it cannot be used.
        source: io::Error,
    },
    /// The manifest cannot be read or parsed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// A tool cannot be registered (a bad schema in a manifest).
    #[error("{}: {source}", path.display())]
    Registration {
        /// The manifest's path (or the workspace's).
        path: PathBuf,
        /// What is wrong with the tool.
        source: RegistrationError,
    },
}

/// A registry with the built-in workspace tools confined to `workspace` (when
/// given), then the tools of the manifest at `manifest` (when given; a
/// manifest tool with the name of a workspace tool replaces it in place).
/// Returns the registry and the registration warnings (schema parts that
/// cannot be checked here).
///
/// `ptc run` and `ptc sdk` pass the current directory as `workspace` when
/// neither `--workspace` nor `--tools` is given.
///
/// # Errors
/// The workspace is not a directory, the manifest cannot be loaded, or one
/// of its tools cannot be registered.
pub fn tools_registry(
    workspace: Option<&Path>,
    manifest: Option<&Path>,
) -> Result<(Registry, Vec<String>), ToolSetupError> {
    let registry = Registry::new();
    let mut warnings = Vec::new();
    if let Some(root) = workspace {
        let tools = workspace_tools(root).map_err(|source| ToolSetupError::Workspace {
            path: root.to_owned(),
            source,
        })?;
        let added = registry
            .add_all(tools)
            .map_err(|source| ToolSetupError::Registration {
                path: root.to_owned(),
                source,
            })?;
        warnings.extend(added);
    }
    if let Some(path) = manifest {
        let tools = load_manifest(path)?;
        let added = registry
            .add_all(tools)
            .map_err(|source| ToolSetupError::Registration {
                path: path.to_owned(),
                source,
            })?;
        warnings.extend(added);
    }
    Ok((registry, warnings))
}

/// The formats of `ptc sdk`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SdkFormat {
    /// The model's view as text. When the model sees only `run_code` (mode
    /// `ptc`), exactly `run_code`'s description; otherwise one section per
    /// tool the model sees: `## <name>`, the advertised description, and the
    /// parameters schema as pretty JSON. The default.
    #[default]
    Text,
    /// Only the TypeScript declarations: a global-script `.d.ts`.
    Ts,
    /// The whole presentation (`{ tools, sdk }`) as pretty JSON.
    Json,
}

/// Renders a presentation in one of the `ptc sdk` formats. The text always
/// ends with exactly one newline, and the same presentation always gives the
/// same bytes.
pub fn format_presentation(presentation: &Presentation, format: SdkFormat) -> String {
    let mut out = match format {
        SdkFormat::Ts => presentation.sdk.to_string(),
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
pub fn content_text(content: &[ContentBlock]) -> String {
    let lines: Vec<String> = content
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text } => text.clone(),
            ContentBlock::Image { data, mime_type } => {
                format!("[image: {mime_type}, {} bytes]", base64_len(data))
            }
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

/// An outcome as the JSON a host gets: the fields of [`Outcome`] in camelCase
/// with the wall time as `elapsedMs` (milliseconds, fractional), the same
/// shape as the host protocol's `run_code` result.
pub fn outcome_json(outcome: &Outcome) -> Value {
    serde_json::to_value(outcome).expect("an outcome serializes as JSON")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdk::presentation::PresentedTool;
    use serde_json::json;

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

    #[test]
    fn text_format_is_the_run_code_description_alone_in_ptc_mode() {
        let p = Presentation {
            tools: vec![PresentedTool {
                name: RUN_CODE.into(),
                description: Some("Use tools.\n".into()),
                parameters: json!({ "type": "object" }),
            }],
            sdk: "declare const tools: {};\n".into(),
        };
        assert_eq!(format_presentation(&p, SdkFormat::Text), "Use tools.\n");
        assert_eq!(
            format_presentation(&p, SdkFormat::Ts),
            "declare const tools: {};\n"
        );
        let json: Value = serde_json::from_str(&format_presentation(&p, SdkFormat::Json)).unwrap();
        assert_eq!(json["tools"][0]["name"], "run_code");
    }

    #[test]
    fn text_format_lists_native_tools() {
        let p = Presentation {
            tools: vec![
                PresentedTool {
                    name: "a".into(),
                    description: Some("Does a.".into()),
                    parameters: json!({ "type": "object" }),
                },
                PresentedTool {
                    name: "b".into(),
                    description: None,
                    parameters: json!({ "type": "object" }),
                },
            ],
            sdk: "".into(),
        };
        assert_eq!(
            format_presentation(&p, SdkFormat::Text),
            "## a\n\nDoes a.\n\nParameters:\n{\n  \"type\": \"object\"\n}\n\n\
             ## b\n\nParameters:\n{\n  \"type\": \"object\"\n}\n"
        );
        let empty = Presentation {
            tools: vec![],
            sdk: "".into(),
        };
        assert_eq!(
            format_presentation(&empty, SdkFormat::Text),
            "The model sees no tools.\n"
        );
    }
}
