//! What the model sees (contracts §4): the presentation [`Mode`], as
//! `initialize`'s config, `presentation`'s params, the `--mode` flag and
//! the Rust API name it, with the one rule of what each mode offers; and
//! the [`Presentation`] itself (the `presentation` method's result).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How the model sees the tools (contracts §4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every visible tool's own schema.
    Native,
    /// Only `run_code`, carrying the instructions and the TypeScript SDK. The default.
    #[default]
    Ptc,
    /// Both the tools and `run_code`.
    Both,
}

/// What each mode offers the model: the one rule that presentation, the
/// engine's answer to a call and the MCP front end follow.
impl Mode {
    /// Whether the model is offered `run_code`, whose name then belongs to
    /// the engine: `ptc` and `both`.
    pub(crate) fn offers_run_code(self) -> bool {
        self != Mode::Native
    }

    /// Whether the model is offered tools by their own schemas: `native`
    /// and `both`.
    pub(crate) fn offers_tools(self) -> bool {
        self != Mode::Ptc
    }

    /// Whether the model is offered a tool itself: in a mode that offers
    /// tools, except an escalation-only one without `run_code` (there is no
    /// escalated run to call it in).
    pub(crate) fn offers(self, escalation_only: bool) -> bool {
        self.offers_tools() && (self.offers_run_code() || !escalation_only)
    }
}

/// A tool as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct PresentedTool {
    /// The tool's name.
    pub name: String,
    /// The advertised description (summary over description).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The argument schema.
    pub parameters: Value,
}

/// What the model sees: tool schemas in order, and the SDK block.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Presentation {
    /// `native`: the visible tools; `ptc`: only `run_code`; `both`: the tools, then `run_code`.
    pub tools: Vec<PresentedTool>,
    /// The SDK of the visible tools (also inside `run_code`'s description):
    /// TypeScript declarations, or Python stubs when `run_code` speaks Python.
    pub sdk: Arc<str>,
}
