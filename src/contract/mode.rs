//! The presentation mode (contracts §4): how the model sees the tools, as
//! `initialize`'s config, `presentation`'s params, the `--mode` flag and
//! the Rust API name it; and the one rule of what each mode offers.

use serde::{Deserialize, Serialize};

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
