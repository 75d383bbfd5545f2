//! The host's methods (host-protocol.md, Methods), one section each: its
//! name, its params as ptc reads them (member by member, each mistake
//! named) and the result ptc writes. `run_code`'s params are
//! [`RunRequest`](crate::RunRequest)'s (`contract/run_code.rs`), its
//! result the run's [`Outcome`](crate::Outcome); `presentation`'s result
//! is the [`Presentation`](crate::Presentation).

use serde::Serialize;
use serde_json::{Value, json};

use super::params::Params;
use super::{Method, RpcError};
use crate::contract::call::{ContentBlock, ToolError};
use crate::contract::outcome::Invocation;
use crate::contract::presentation::Mode;
use crate::contract::run_code::Language;
use crate::limits::{Limits, SETTINGS};

/// The protocol version `initialize` reports.
const PROTOCOL_VERSION: u64 = 1;

// ------------------------------------------------------------- initialize

/// `initialize`'s params: the session's mode, language and limits (its
/// `config`), and the protocol version the host speaks (read, not kept).
pub(crate) struct Initialize {
    pub(crate) mode: Mode,
    pub(crate) language: Language,
    /// Set, not yet checked against each other: the engine checks them.
    pub(crate) limits: Limits,
    /// The state store's URL (contracts §9); by default the one the
    /// session has.
    pub(crate) state: Option<String>,
}

impl Method for Initialize {
    const NAME: &'static str = "initialize";
}

impl Initialize {
    /// The members its `config` takes: the mode and the language, then each
    /// limit (its `SETTINGS` key).
    pub(crate) fn config_keys() -> Vec<&'static str> {
        let limits = SETTINGS.iter().map(|setting| setting.name);
        ["mode", "language", "state"]
            .into_iter()
            .chain(limits)
            .collect()
    }

    pub(crate) fn read(mut params: Params) -> Result<Self, RpcError> {
        let config = params.optional_object("config")?;
        params.optional_u64("protocolVersion")?;
        params.reject_unknown()?;
        let mut config = Params::new(Self::NAME, config.unwrap_or_default()).within("config");
        let mode = config.optional_mode("mode")?.unwrap_or_default();
        let language = config.optional_language("language")?.unwrap_or_default();
        let state = config.optional_string("state")?;
        let mut limits = Limits::default();
        for setting in &SETTINGS {
            if let Some(value) = config.optional_u64(setting.name)? {
                setting.set(&mut limits, value);
            }
        }
        config.reject_unknown()?;
        Ok(Self {
            mode,
            language,
            limits,
            state,
        })
    }

    /// The limits were refused together (`why`, the engine's words).
    pub(crate) fn refused_limits(why: impl std::fmt::Display) -> RpcError {
        Params::new(Self::NAME, Default::default()).invalid(format_args!("config: {why}"))
    }

    /// The state store could not be opened (`why`).
    pub(crate) fn unavailable_state(why: impl std::fmt::Display) -> RpcError {
        Params::new(Self::NAME, Default::default()).invalid(format_args!("config.state: {why}"))
    }

    /// The language cannot run here (`why`).
    pub(crate) fn unavailable_language(why: &str) -> RpcError {
        let what = format_args!("config.language is \"python\", but {why}");
        Params::new(Self::NAME, Default::default()).invalid(what)
    }
}

/// `initialize`'s result: who answers, and in which protocol version.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Initialized {
    name: &'static str,
    version: &'static str,
    protocol_version: u64,
}

impl Initialized {
    /// This ptc.
    pub(crate) fn ptc() -> Self {
        Self {
            name: "ptc",
            version: env!("CARGO_PKG_VERSION"),
            protocol_version: PROTOCOL_VERSION,
        }
    }
}

// ----------------------------------------------------------- session/open

/// `session/open`'s params: none. It opens a new, empty session in the
/// state store (contracts §9), for the host to pass as `run_code`'s
/// `session`.
pub(crate) struct OpenSession;

impl Method for OpenSession {
    const NAME: &'static str = "session/open";
}

impl OpenSession {
    pub(crate) fn read(params: Params) -> Result<Self, RpcError> {
        params.reject_unknown()?;
        Ok(Self)
    }
}

/// `session/open`'s result: the new session's handle.
#[derive(Serialize)]
pub(crate) struct SessionOpened {
    pub(crate) session: String,
}

// --------------------------------------------------------- tools/register

/// `tools/register`'s params: the tool entries, each read by the tools'
/// one reader of entries (`tool/wire.rs`).
pub(crate) struct Register {
    pub(crate) tools: Vec<Value>,
}

impl Method for Register {
    const NAME: &'static str = "tools/register";
}

impl Register {
    pub(crate) fn read(mut params: Params) -> Result<Self, RpcError> {
        let tools = params.required_array("tools")?;
        params.reject_unknown()?;
        Ok(Self { tools })
    }
}

/// `tools/register`'s result: the names registered, the registry's size,
/// and what could not be checked (left out when nothing).
#[derive(Serialize)]
pub(crate) struct Registered {
    pub(crate) registered: Vec<String>,
    pub(crate) count: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) warnings: Vec<String>,
}

// ----------------------------------------------------------- tools/remove

/// `tools/remove`'s params: the names to remove.
pub(crate) struct Remove {
    pub(crate) names: Vec<String>,
}

impl Method for Remove {
    const NAME: &'static str = "tools/remove";
}

impl Remove {
    pub(crate) fn read(mut params: Params) -> Result<Self, RpcError> {
        let names = params.required_strings("names")?;
        params.reject_unknown()?;
        Ok(Self { names })
    }
}

/// `tools/remove`'s result: whether every name was registered.
#[derive(Serialize)]
pub(crate) struct Removed {
    pub(crate) removed: bool,
}

// ------------------------------------------------------------- tools/list

/// `tools/list`'s params: none.
pub(crate) struct List;

impl Method for List {
    const NAME: &'static str = "tools/list";
}

impl List {
    pub(crate) fn read(params: Params) -> Result<Self, RpcError> {
        params.reject_unknown()?;
        Ok(Self)
    }
}

/// `tools/list`'s result: the visible definitions, in registration order
/// (a definition is the tool's type, its shape its serialization).
#[derive(Serialize)]
pub(crate) struct Listed<D: Serialize> {
    pub(crate) tools: Vec<D>,
}

// ----------------------------------------------------------- presentation

/// `presentation`'s params: the mode to present in (the session's when
/// absent). Its result is the presentation itself.
pub(crate) struct Present {
    pub(crate) mode: Option<Mode>,
}

impl Method for Present {
    const NAME: &'static str = "presentation";
}

impl Present {
    pub(crate) fn read(mut params: Params) -> Result<Self, RpcError> {
        let mode = params.optional_mode("mode")?;
        params.reject_unknown()?;
        Ok(Self { mode })
    }
}

// ----------------------------------------------------------- tools/invoke

/// `tools/invoke`'s params: a call as the model made it (`arguments`
/// default to `{}`; `id`, when absent, is made by the session).
pub(crate) struct Invoke {
    pub(crate) name: String,
    pub(crate) arguments: Value,
    pub(crate) id: Option<String>,
}

impl Method for Invoke {
    const NAME: &'static str = "tools/invoke";
}

impl Invoke {
    pub(crate) fn read(mut params: Params) -> Result<Self, RpcError> {
        let name = params.required_string("name")?;
        let arguments = params.take("arguments").unwrap_or_else(|| json!({}));
        let id = params.optional_string("id")?;
        params.reject_unknown()?;
        Ok(Self {
            name,
            arguments,
            id,
        })
    }
}

/// `tools/invoke`'s result for a tool: its content, and its value or its
/// error. A `run_code` call answers with the run's outcome instead.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Invoked<'a> {
    is_error: bool,
    content: Vec<ContentBlock>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a ToolError>,
}

impl Invoked<'_> {
    /// The result answering `invocation`, as JSON.
    pub(crate) fn of(invocation: &Invocation) -> Value {
        let (value, error) = match invocation {
            Invocation::Run(outcome) => return super::to_json(outcome),
            Invocation::Tool(Ok(output)) => (Some(&output.value), None),
            Invocation::Tool(Err(error)) => (None, Some(error)),
        };
        super::to_json(Invoked {
            is_error: error.is_some(),
            content: invocation.content(),
            value,
            error,
        })
    }
}

// ------------------------------------------------------ results with events

/// A result of a request that carried run events (`run_code`,
/// `tools/invoke`), with how many of them the host's backlog had no room
/// for (left out when none).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WithDropped<R: Serialize> {
    #[serde(flatten)]
    pub(crate) result: R,
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) dropped_events: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
