//! `run_code`'s arguments (contracts §4), defined once: [`RunRequest`] is
//! what the model sends (its schema, [`parameters`], is derived from the
//! type), what the host sends to `ptc serve` (the same members plus
//! `runId`), and what the Rust API builds; [`RunRequest::from_model`] and
//! [`RunRequest::from_host`] read them with the same words for every mistake.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::json::json_type;

/// The name of the one tool of `ptc` mode.
pub const RUN_CODE: &str = "run_code";

/// `run_code`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunRequest {
    /// The program: the body of an async TypeScript function.
    #[schemars(description = "{code}")]
    pub code: String,
    /// A short summary of what the program does, shown to whoever approves
    /// an escalation; by default, empty (a model that leaves it out does
    /// not lose a turn).
    #[serde(default)]
    #[schemars(
        transform = no_default,
        description = "A short summary of what the program does."
    )]
    pub description: String,
    /// The run deadline in ms; by default the engine's `default_timeout_ms`.
    #[serde(default, deserialize_with = "integer")]
    #[schemars(
        range(min = 1),
        description = "Deadline for the whole run, in milliseconds. Default {default}, maximum {max}{escalated_note}."
    )]
    pub timeout_ms: Option<i64>,
    /// The CPU the program itself may use, in ms (contracts §6, "CPU
    /// budget"); by default the engine's `default_cpu_time_ms`.
    #[serde(default, deserialize_with = "integer")]
    #[schemars(
        range(min = 1),
        description = "CPU time the program itself may use, in milliseconds; waiting on tools does not count. Default {cpu_default}, maximum {cpu_max}."
    )]
    pub cpu_time_ms: Option<i64>,
    /// Sub-calls the run may make; by default the engine's
    /// `max_sub_calls`. The host's to choose, never the model's: its
    /// arguments have no `maxSubCalls`.
    #[serde(skip)]
    #[schemars(skip)]
    pub max_sub_calls: Option<i64>,
    /// The run's id; by default a fresh unique id. An id the host chooses
    /// must not belong to a run still going (`INVALID_ARGUMENTS`). Not the
    /// model's to choose: its arguments have no `runId`.
    #[serde(skip)]
    pub run_id: Option<String>,
    /// Whether the run asks for more than the standard sandbox (contracts
    /// §6, Escalation); by default [`SandboxPermissions::UseDefault`].
    #[serde(default)]
    #[schemars(
        description = "\"require_escalated\" asks a person, before the program starts, for the tools marked as needing escalation and larger limits ({escalated_deadline}more memory and output). Needs a justification. If refused, nothing runs."
    )]
    pub sandbox_permissions: SandboxPermissions,
    /// Why the run needs escalation, shown to whoever approves it; required
    /// (not blank) with [`SandboxPermissions::RequireEscalated`], ignored
    /// otherwise. By default, empty.
    #[serde(default)]
    #[schemars(
        transform = no_default,
        length(min = 1),
        description = "Required with sandboxPermissions \"require_escalated\": why the task needs escalation, in one or two sentences for the person who approves it."
    )]
    pub justification: String,
    /// The session whose values the program's `state` reads and writes
    /// (contracts §9): a handle from an earlier outcome or from
    /// [`Engine::open_session`](crate::Engine::open_session). By default,
    /// none: a run that writes a value starts a new session.
    #[serde(default)]
    #[schemars(
        length(min = 1),
        description = "A session handle from an earlier run's result: `state` then reads and writes that session's values. Leave it out to start without one (writing a value starts a new session)."
    )]
    pub session: Option<String>,
    /// The language of `code`; by default [`Language::TypeScript`]. The
    /// host's to choose (as the presentation it showed the model), never
    /// the model's: its arguments have no `language`.
    #[serde(skip)]
    #[schemars(skip)]
    pub language: Language,
}

/// The language a program is written in (contracts, Python programs):
/// `"typescript"` or `"python"` on the wire.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Hash, serde::Deserialize, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Language {
    /// Type-stripped TypeScript in QuickJS: the body of an async function.
    #[default]
    TypeScript,
    /// Python on Monty, in a worker process: a module whose last expression
    /// is the result. Needs the `python` cargo feature.
    Python,
}

impl Language {
    /// `typescript` / `python`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TypeScript => "typescript",
            Self::Python => "python",
        }
    }

    /// Why this build cannot run programs in this language, if it cannot.
    pub fn unavailable(self) -> Option<&'static str> {
        match self {
            Self::Python if !cfg!(feature = "python") => {
                Some("this ptc was built without Python programs (cargo feature `python`)")
            }
            _ => None,
        }
    }

    /// What `code` is, in `run_code`'s schema.
    fn code_description(self) -> &'static str {
        match self {
            Self::TypeScript => {
                "TypeScript: the body of an async function that calls `await tools.name(args)` and returns what you need."
            }
            Self::Python => {
                "Python: a module that calls `await tools.name(arg=...)`; the value of its last expression is what you get back."
            }
        }
    }

    /// The language a file's extension names (`.py`, `.ts`, `.js`, …), if any.
    pub fn from_extension(path: &std::path::Path) -> Option<Self> {
        match path.extension()?.to_str()? {
            "py" => Some(Self::Python),
            "ts" | "mts" | "js" | "mjs" => Some(Self::TypeScript),
            _ => None,
        }
    }
}

impl std::str::FromStr for Language {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "typescript" | "ts" => Ok(Self::TypeScript),
            "python" | "py" => Ok(Self::Python),
            other => Err(format!(
                "unknown language `{other}`: expected `typescript` or `python`"
            )),
        }
    }
}

/// What a run asks for: `run_code`'s `sandboxPermissions`.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    serde::Deserialize,
    serde::Serialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
#[non_exhaustive]
pub enum SandboxPermissions {
    /// The standard sandbox: `"use_default"`. The default.
    #[default]
    UseDefault,
    /// The escalated tier, once approved: escalation-only tools become
    /// callable and the escalated limits apply (`"require_escalated"`).
    RequireEscalated,
}

/// Leaves out the `default` schemars gives a defaulted member: an empty
/// justification is no justification.
fn no_default(schema: &mut schemars::Schema) {
    schema.remove("default");
}

/// An optional integer in any JSON spelling (`1e3` is 1000); the members
/// are checked before (see [`crate::contract::check_members`]).
fn integer<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let Some(n) = <Option<serde_json::Number> as serde::Deserialize>::deserialize(d)? else {
        return Ok(None);
    };
    match crate::schema::integer(&n) {
        Some(i) => Ok(Some(i)),
        None => Err(serde::de::Error::custom(format_args!(
            "must be an integer, got {n}"
        ))),
    }
}

/// The members the host may add to the model's arguments.
const RUN_ID: &str = "runId";
const MAX_SUB_CALLS: &str = "maxSubCalls";

impl RunRequest {
    /// A request to run `code`.
    pub fn new(code: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            ..Self::default()
        }
    }

    /// Sets the deadline. By default, the engine's default timeout.
    pub fn timeout_ms(mut self, ms: i64) -> Self {
        self.timeout_ms = Some(ms);
        self
    }

    /// Sets the CPU budget. By default, the engine's default CPU budget.
    pub fn cpu_time_ms(mut self, ms: i64) -> Self {
        self.cpu_time_ms = Some(ms);
        self
    }

    /// Sets how many sub-calls the run may make. By default, the engine's
    /// `max_sub_calls`.
    pub fn max_sub_calls(mut self, calls: i64) -> Self {
        self.max_sub_calls = Some(calls);
        self
    }

    /// Sets the run id. By default, a fresh unique id.
    pub fn run_id(mut self, id: impl Into<String>) -> Self {
        self.run_id = Some(id.into());
        self
    }

    /// Sets the description. By default, empty.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Sets what the run asks for. By default, [`SandboxPermissions::UseDefault`].
    pub fn sandbox_permissions(mut self, permissions: SandboxPermissions) -> Self {
        self.sandbox_permissions = permissions;
        self
    }

    /// Sets why the run needs escalation. By default, empty.
    pub fn justification(mut self, justification: impl Into<String>) -> Self {
        self.justification = justification.into();
        self
    }

    /// Sets the session whose values `state` reads and writes. By
    /// default, none.
    pub fn session(mut self, handle: impl Into<String>) -> Self {
        self.session = Some(handle.into());
        self
    }

    /// Sets the program's language. By default, [`Language::TypeScript`].
    pub fn language(mut self, language: Language) -> Self {
        self.language = language;
        self
    }

    /// Whether the run asks for escalation.
    pub(crate) fn escalated(&self) -> bool {
        self.sandbox_permissions == SandboxPermissions::RequireEscalated
    }

    /// Reads a model's `run_code` arguments: exactly the members of
    /// [`parameters`].
    ///
    /// # Errors
    /// Not an object, a member missing, of the wrong type or unknown
    /// (`runId` included: the run id is the host's to choose), in words
    /// that name the member.
    pub(crate) fn from_model(arguments: Value) -> Result<Self, String> {
        match arguments {
            Value::Object(members) => read(members),
            other => Err(format!("expected a JSON object, got {}", json_type(&other))),
        }
    }

    /// Reads a host's `run_code` params: the model's arguments, plus an
    /// optional `runId` (a string) and `maxSubCalls` (an integer, whose
    /// range is checked with the run's other limits).
    ///
    /// # Errors
    /// As [`from_model`](Self::from_model), and a `runId` that is not a
    /// string or a `maxSubCalls` that is not an integer.
    pub(crate) fn from_host(mut members: Map<String, Value>) -> Result<Self, String> {
        let max_sub_calls = match members.remove(MAX_SUB_CALLS) {
            None | Some(Value::Null) => None,
            Some(value) => Some(
                (value.as_number())
                    .and_then(crate::schema::integer)
                    .ok_or_else(|| {
                        let got = match &value {
                            Value::Number(n) => n.to_string(),
                            other => json_type(other).to_owned(),
                        };
                        format!("`{MAX_SUB_CALLS}` must be an integer, got {got}")
                    })?,
            ),
        };
        let run_id = match members.remove(RUN_ID) {
            None | Some(Value::Null) => None,
            Some(Value::String(id)) => Some(id),
            Some(other) => {
                return Err(format!(
                    "`{RUN_ID}` must be a string, got {}",
                    json_type(&other)
                ));
            }
        };
        let mut request = read(members)?;
        request.run_id = run_id;
        request.max_sub_calls = max_sub_calls;
        Ok(request)
    }
}

/// The members checked against the type's schema, then read as the type.
fn read(mut members: Map<String, Value>) -> Result<RunRequest, String> {
    super::check_members(shape(), &mut members)?;
    serde_json::from_value(Value::Object(members)).map_err(|e| e.to_string())
}

/// [`RunRequest`]'s schema as schemars derives it, each property in its
/// [`plain`] form, the limits not filled in; made once.
fn shape() -> &'static Value {
    static SHAPE: OnceLock<Value> = OnceLock::new();
    SHAPE.get_or_init(|| {
        let mut settings = schemars::generate::SchemaSettings::draft2020_12();
        settings.inline_subschemas = true;
        let derived = settings
            .into_generator()
            .into_root_schema_for::<RunRequest>()
            .to_value();
        let properties: Map<String, Value> = derived["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, property)| (name.clone(), plain(property)))
            .collect();
        serde_json::json!({
            "type": "object",
            "properties": properties,
            "required": derived["required"],
            "additionalProperties": false,
        })
    })
}

/// What escalation adds to the deadline, as a list item (`"a deadline up
/// to 900 ms, "`), or nothing when it adds none: a model is never offered
/// escalation for a deadline it may have without it.
pub(crate) fn escalated_deadline(max: u64, escalated: u64, deadline: &str) -> String {
    match escalated > max {
        true => format!("{deadline} up to {escalated} ms, "),
        false => String::new(),
    }
}

/// The time limits `run_code`'s schema states, in ms.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stated {
    /// `timeoutMs` when absent.
    pub(crate) default: u64,
    /// The largest `timeoutMs` of a standard run.
    pub(crate) max: u64,
    /// The largest `timeoutMs` of an escalated run (never below `max`).
    pub(crate) escalated: u64,
    /// `cpuTimeMs` when absent.
    pub(crate) cpu_default: u64,
    /// The largest `cpuTimeMs`.
    pub(crate) cpu_max: u64,
}

/// The JSON Schema of `run_code`'s arguments as the model sees it:
/// [`RunRequest`]'s, with the limits filled in: `timeoutMs` from 1 to the
/// escalated maximum (`escalated`, never below `max`), by default
/// `default`; `cpuTimeMs` from 1 to `cpu_max`, by default `cpu_default`;
/// the descriptions state the default, the maximum and, when larger, the
/// escalated maximum.
pub(crate) fn parameters(language: Language, stated: Stated) -> Value {
    let Stated {
        default,
        max,
        escalated,
        cpu_default,
        cpu_max,
    } = stated;
    let escalated_note = match escalated > max {
        true => format!(" ({escalated} with sandboxPermissions \"require_escalated\")"),
        false => String::new(),
    };
    let escalated_deadline = escalated_deadline(max, escalated, "a deadline");
    let fill = |text: &str| {
        text.replace("{default}", &default.to_string())
            .replace("{max}", &max.to_string())
            .replace("{escalated_note}", &escalated_note)
            .replace("{escalated_deadline}", &escalated_deadline)
            .replace("{escalated}", &escalated.to_string())
            .replace("{cpu_default}", &cpu_default.to_string())
            .replace("{cpu_max}", &cpu_max.to_string())
            .replace("{code}", language.code_description())
    };
    let mut schema = shape().clone();
    let properties = schema["properties"].as_object_mut().into_iter().flatten();
    for (name, property) in properties {
        if name == "timeoutMs" {
            property["maximum"] = escalated.into();
            property["default"] = default.into();
        }
        if name == "cpuTimeMs" {
            property["maximum"] = cpu_max.into();
            property["default"] = cpu_default.into();
        }
        if let Some(text) = property["description"].as_str() {
            property["description"] = fill(text).into();
        }
        *property = plain(property);
    }
    schema
}

/// A property in the plain form every provider accepts and the golden
/// files pin: one `type` (an optional member is not `null`able: it is
/// left out), an `enum` of the choices, then the bounds, the default and
/// the description, in that order.
fn plain(property: &Value) -> Value {
    let mut out = Map::new();
    // A unit enum whose variants are documented comes as a `oneOf` of
    // `const`s, each with its type.
    let variants = property["oneOf"].as_array();
    let kind = match &property["type"] {
        Value::Array(kinds) => kinds.iter().find(|k| *k != "null"),
        Value::Null => variants.and_then(|v| v.first()).map(|v| &v["type"]),
        kind => Some(kind),
    };
    let choices = variants.map(|v| v.iter().map(|v| v["const"].clone()).collect::<Vec<_>>());
    if let Some(kind) = kind {
        out.insert("type".into(), kind.clone());
    }
    if let Some(choices) = choices.or_else(|| property["enum"].as_array().cloned()) {
        out.insert("enum".into(), Value::Array(choices));
    }
    for key in ["minimum", "maximum", "default", "minLength", "description"] {
        match &property[key] {
            Value::Null => {}
            value => {
                out.insert(key.into(), value.clone());
            }
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{Language, RunRequest, SandboxPermissions, Stated, parameters};

    fn stated(default: u64, max: u64, escalated: u64) -> Stated {
        Stated {
            default,
            max,
            escalated,
            cpu_default: 3,
            cpu_max: 44,
        }
    }

    /// The schema the model is shown and the type its arguments are read
    /// as agree: every property is read, the required ones are required,
    /// and nothing else is accepted.
    #[test]
    fn the_advertised_schema_is_the_one_arguments_are_read_with() {
        let schema = parameters(Language::TypeScript, stated(5, 10, 20));
        assert_eq!(schema["additionalProperties"], false);
        let properties = schema["properties"].as_object().unwrap();
        let sample = |property: &Value| match property["type"].as_str() {
            Some("string") if property["enum"].is_array() => property["enum"][1].clone(),
            Some("string") => json!("x"),
            Some("integer") => json!(5),
            other => panic!("no sample for {other:?}"),
        };
        let full: serde_json::Map<String, Value> = properties
            .iter()
            .map(|(name, property)| (name.clone(), sample(property)))
            .collect();
        let read = RunRequest::from_model(Value::Object(full.clone())).unwrap();
        assert_eq!(
            (
                read.code.as_str(),
                read.description.as_str(),
                read.timeout_ms
            ),
            ("x", "x", Some(5))
        );
        assert_eq!(read.cpu_time_ms, Some(5));
        assert_eq!(
            read.sandbox_permissions,
            SandboxPermissions::RequireEscalated
        );
        assert_eq!((read.justification.as_str(), read.run_id), ("x", None));
        let required = schema["required"].as_array().unwrap();
        for name in properties.keys() {
            let mut without = full.clone();
            without.remove(name);
            let parsed = RunRequest::from_model(Value::Object(without));
            assert_eq!(parsed.is_err(), required.contains(&json!(name)), "{name}");
        }
        let mut extra = full.clone();
        extra.insert("runId".into(), json!("r"));
        assert_eq!(
            RunRequest::from_model(Value::Object(extra.clone())),
            Err("`runId` is not a known member".to_owned())
        );
        let Value::Object(extra) = Value::Object(extra) else {
            unreachable!()
        };
        let host = RunRequest::from_host(extra).unwrap();
        assert_eq!(host.run_id.as_deref(), Some("r"));
    }

    /// Every mistake names its member, in the same words for the model and
    /// the host; `null` is absent.
    /// Issue 41: a model that leaves out the label loses no turn.
    #[test]
    fn the_description_may_be_left_out() {
        for arguments in [
            json!({ "code": "1" }),
            json!({ "code": "1", "description": null }),
        ] {
            let read = RunRequest::from_model(arguments).unwrap();
            assert_eq!(read.description, "");
        }
    }

    #[test]
    fn mistakes_name_their_member() {
        let model = |arguments: Value| RunRequest::from_model(arguments).unwrap_err();
        let host = |arguments: Value| {
            let Value::Object(members) = arguments else {
                unreachable!()
            };
            RunRequest::from_host(members).unwrap_err()
        };
        for (arguments, message) in [
            (
                json!({ "description": "d" }),
                "`code` is required (a string)",
            ),
            (
                json!({ "code": 1, "description": "d" }),
                "`code` must be a string, got a number",
            ),
            (
                json!({ "code": "1", "description": 2 }),
                "`description` must be a string, got a number",
            ),
            (
                json!({ "code": "1", "description": "d", "timeoutMs": 1.5 }),
                "`timeoutMs` must be an integer, got 1.5",
            ),
            (
                json!({ "code": "1", "description": "d", "timeoutMs": "soon" }),
                "`timeoutMs` must be an integer, got a string",
            ),
            (
                json!({ "code": "1", "description": "d", "sandboxPermissions": "all" }),
                "`sandboxPermissions` must be \"use_default\" or \"require_escalated\", got \"all\"",
            ),
            (
                json!({ "code": "1", "description": "d", "timeout": 5 }),
                "`timeout` is not a known member",
            ),
        ] {
            assert_eq!(model(arguments.clone()), message);
            assert_eq!(host(arguments), message);
        }
        assert_eq!(model(json!([1])), "expected a JSON object, got an array");
        assert_eq!(
            host(json!({ "code": "1", "description": "d", "runId": 7 })),
            "`runId` must be a string, got a number"
        );
        // The sub-call budget is the host's alone.
        assert_eq!(
            model(json!({ "code": "1", "maxSubCalls": 5 })),
            "`maxSubCalls` is not a known member"
        );
        for (budget, got) in [(json!(2.5), "2.5"), (json!("9"), "a string")] {
            assert_eq!(
                host(json!({ "code": "1", "maxSubCalls": budget })),
                format!("`maxSubCalls` must be an integer, got {got}")
            );
        }
        let Value::Object(members) = json!({ "code": "1", "maxSubCalls": 1e3, "cpuTimeMs": 7 })
        else {
            unreachable!()
        };
        let read = RunRequest::from_host(members).unwrap();
        assert_eq!(
            (read.max_sub_calls, read.cpu_time_ms),
            (Some(1000), Some(7))
        );
        let read = RunRequest::from_model(json!({
            "code": "1", "description": "d", "timeoutMs": 1e3, "sandboxPermissions": null, "justification": null
        }))
        .unwrap();
        assert_eq!(read.timeout_ms, Some(1000));
    }

    /// The limits are the schema's: `maximum` is the escalated maximum,
    /// the default is stated, and the escalated maximum is named only when
    /// larger.
    #[test]
    fn parameters_state_the_limits() {
        let p = parameters(Language::TypeScript, stated(5, 77, 77));
        let t = &p["properties"]["timeoutMs"];
        assert_eq!(
            (&t["minimum"], &t["maximum"], &t["default"]),
            (&json!(1), &json!(77), &json!(5))
        );
        assert_eq!(
            t["description"],
            "Deadline for the whole run, in milliseconds. Default 5, maximum 77."
        );
        let p = parameters(Language::TypeScript, stated(5, 77, 900));
        let t = &p["properties"]["timeoutMs"];
        assert_eq!(t["maximum"], 900);
        assert!(
            t["description"]
                .as_str()
                .unwrap()
                .ends_with("maximum 77 (900 with sandboxPermissions \"require_escalated\")."),
            "{t}"
        );
        assert!(
            p["properties"]["sandboxPermissions"]["description"]
                .as_str()
                .unwrap()
                .contains("up to 900 ms")
        );
        assert_eq!(p["properties"]["justification"].get("default"), None);
    }
}
