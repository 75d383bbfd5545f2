//! The host's methods (host-protocol.md, Methods): the params of each as
//! ptc reads them (member by member, each mistake named) and the result ptc
//! writes. `run_code`'s params are [`RunRequest`](crate::RunRequest)'s
//! (`contract/run_code.rs`), its result the run's [`Outcome`](crate::Outcome).

use serde::Serialize;
use serde_json::{Value, json};

use super::RpcError;
use super::params::Params;
use crate::contract::mode::Mode;
use crate::contract::run_code::Language;
use crate::limits::{Limits, SETTINGS};

/// `initialize`'s params: the session's mode, language and limits (its
/// `config`), and the protocol version the host speaks (read, not kept).
pub(crate) struct Initialize {
    pub(crate) mode: Mode,
    pub(crate) language: Language,
    /// Set, not yet checked against each other: the engine checks them.
    pub(crate) limits: Limits,
}

impl Initialize {
    /// The members its `config` takes: the mode and the language, then each
    /// limit (its `SETTINGS` key).
    pub(crate) fn config_keys() -> Vec<&'static str> {
        let limits = SETTINGS.iter().map(|setting| setting.name);
        ["mode", "language"].into_iter().chain(limits).collect()
    }

    pub(crate) fn read(mut params: Params) -> Result<Self, RpcError> {
        let config = params.optional_object("config")?;
        params.optional_u64("protocolVersion")?;
        params.reject_unknown()?;
        let mut config = Params::new("initialize", config.unwrap_or_default()).within("config");
        let mode = config.optional_mode("mode")?.unwrap_or_default();
        let language = config.optional_language("language")?.unwrap_or_default();
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
        })
    }
}

/// `tools/register`'s params: the tool entries, each read by the tools'
/// one reader of entries (`tool/wire.rs`).
pub(crate) struct Register {
    pub(crate) tools: Vec<Value>,
}

impl Register {
    pub(crate) fn read(mut params: Params) -> Result<Self, RpcError> {
        let tools = params.required_array("tools")?;
        params.reject_unknown()?;
        Ok(Self { tools })
    }
}

/// `tools/remove`'s params: the names to remove.
pub(crate) struct Remove {
    pub(crate) names: Vec<String>,
}

impl Remove {
    pub(crate) fn read(mut params: Params) -> Result<Self, RpcError> {
        let names = params.required_strings("names")?;
        params.reject_unknown()?;
        Ok(Self { names })
    }
}

/// `tools/list`'s params: none.
pub(crate) struct List;

impl List {
    pub(crate) fn read(params: Params) -> Result<Self, RpcError> {
        params.reject_unknown()?;
        Ok(Self)
    }
}

/// `presentation`'s params: the mode to present in (the session's when
/// absent). Its result is the presentation itself.
pub(crate) struct Present {
    pub(crate) mode: Option<Mode>,
}

impl Present {
    pub(crate) fn read(mut params: Params) -> Result<Self, RpcError> {
        let mode = params.optional_mode("mode")?;
        params.reject_unknown()?;
        Ok(Self { mode })
    }
}

/// `tools/invoke`'s params: a call as the model made it (`arguments`
/// default to `{}`; `id`, when absent, is made by the session).
pub(crate) struct Invoke {
    pub(crate) name: String,
    pub(crate) arguments: Value,
    pub(crate) id: Option<String>,
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

/// `initialize`'s result: who answers, and in which protocol version.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Initialized {
    pub(crate) name: &'static str,
    pub(crate) version: &'static str,
    pub(crate) protocol_version: u64,
}

/// `tools/register`'s result: the names registered, the registry's size,
/// and what could not be checked (left out when nothing).
#[derive(Serialize)]
pub(crate) struct Registered<W: Serialize> {
    pub(crate) registered: Vec<String>,
    pub(crate) count: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) warnings: Vec<W>,
}

/// `tools/remove`'s result: whether every name was registered.
#[derive(Serialize)]
pub(crate) struct Removed {
    pub(crate) removed: bool,
}

/// `tools/list`'s result: the visible definitions, in registration order.
#[derive(Serialize)]
pub(crate) struct Listed<D: Serialize> {
    pub(crate) tools: Vec<D>,
}

/// `tools/invoke`'s result for a tool (a `run_code` call answers with the
/// run's outcome): its content, and its value or its error.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Invoked<'a, C: Serialize, E: Serialize> {
    pub(crate) is_error: bool,
    pub(crate) content: Vec<C>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) value: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<&'a E>,
}

/// A result of a request that carried run events, with how many of them
/// the host's backlog had no room for (left out when none).
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
