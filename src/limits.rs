//! The limits of runs (contracts §6): each one's default, range, config key
//! and command-line flag, defined once ([`SETTINGS`]). The Rust API,
//! `initialize`'s config and the command line all end in the same check,
//! so an out-of-range value gets the same message from each of them,
//! naming the limit as its user wrote it (`maxParallelSubCalls`,
//! `--max-parallel`).

use crate::deadline::MAX_DEADLINE_MS;

/// The run deadline when a request gives no `timeoutMs`.
pub(crate) const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The largest `timeoutMs` a request may give.
pub(crate) const MAX_TIMEOUT_MS: u64 = 600_000;
/// The largest `timeoutMs` an escalated request may give: three times the
/// standard maximum, long enough for a batch job a person agreed to, short
/// enough that a forgotten run still ends within a working session.
pub(crate) const ESCALATED_MAX_TIMEOUT_MS: u64 = 1_800_000;
/// A run's CPU budget when a request gives no `cpuTimeMs`: a quarter of
/// the default deadline, so a program spinning in a loop ends long before a
/// run waiting on slow tools would.
pub(crate) const DEFAULT_CPU_TIME_MS: u64 = 30_000;
/// The largest `cpuTimeMs` when the host sets none: the standard tier's
/// longest deadline, past which no run computes anyway.
pub(crate) const MAX_CPU_TIME_MS: u64 = MAX_TIMEOUT_MS;
/// The most sub-calls a run may make, the engine's or one run's budget
/// alike (their numbers count in `u32`).
pub(crate) const MAX_SUB_CALLS: u32 = u32::MAX;
/// Headroom the sandbox thread keeps above the JavaScript stack limit.
const STACK_HEADROOM: usize = 2 << 20;

/// The limits of runs. Every field says its default and what happens at the limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Sub-calls in flight per run; default 10, 1 = strictly serial, at most
    /// 65,536. More wait, FIFO.
    pub max_parallel_sub_calls: usize,
    /// Run deadline when `timeoutMs` is absent; default 120,000 ms.
    pub default_timeout_ms: u64,
    /// Largest `timeoutMs` accepted; default 600,000 ms, at most
    /// 2,147,483,647. More is `INVALID_ARGUMENTS`.
    pub max_timeout_ms: u64,
    /// Bytes of rendered text; default 32,768, at least 64. Longer text keeps
    /// head and tail.
    pub output_cap_bytes: usize,
    /// JavaScript heap per run; default 64 MiB, at least 1 MiB. Exhausting
    /// it ends the run as `memory`.
    pub memory_limit_bytes: usize,
    /// JavaScript stack per run; default 1 MiB. Overflow is a catchable `RangeError`.
    pub stack_limit_bytes: usize,
    /// Stack of the sandbox threads; default 16 MiB. Must leave 2 MiB above the JS stack.
    pub thread_stack_bytes: usize,
    /// Size of a program; default 1 MiB. Larger code is a `syntax` failure.
    pub max_code_bytes: usize,
    /// Runs executing at once; default 1,024. More wait in FIFO order within their deadline.
    pub max_concurrent_runs: usize,
    /// Images appended to one outcome; default 8. The rest are left out with a notice.
    pub max_images: usize,
    /// Total image bytes (decoded) in one outcome; default 8 MiB.
    pub max_image_bytes: usize,
    /// How long past its deadline (or cancellation) a run whose JavaScript
    /// no interrupt reaches may keep its caller waiting; default 1,000 ms.
    /// Then the caller gets the run's answer and the sandbox thread is
    /// retired (see [`Engine::retired_threads`](crate::Engine::retired_threads)).
    pub grace_ms: u64,
    /// Bytes of `run_code`'s description; default 32 KiB (about 8,000
    /// tokens), at least 8 KiB. The SDK goes in whole when it fits; past
    /// it, an index of the tools' names and summaries; past that, their
    /// namespaces. The model reads the rest with `tools.$describe`.
    pub description_budget_bytes: usize,
    /// Largest `timeoutMs` of an escalated run (`sandboxPermissions:
    /// "require_escalated"`, approved); default 1,800,000 ms, at most
    /// 2,147,483,647. Below `max_timeout_ms` it counts as `max_timeout_ms`.
    /// An escalated run without `timeoutMs` still gets `default_timeout_ms`.
    pub escalated_max_timeout_ms: u64,
    /// Heap of an escalated run; default 256 MiB (four times the standard
    /// limit: room for a large data set a person agreed to load), at least
    /// 1 MiB. Below `memory_limit_bytes` it counts as `memory_limit_bytes`.
    pub escalated_memory_limit_bytes: usize,
    /// Output cap of an escalated run; default 131,072 bytes (four times
    /// the standard cap, still a fraction of a model's context), at least
    /// 64. Below `output_cap_bytes` it counts as `output_cap_bytes`.
    pub escalated_output_cap_bytes: usize,
    /// One `state` value's JSON text (contracts §9); default 1 MiB, at
    /// least 1 KiB. A larger value is refused (`QUOTA`), nothing written.
    pub state_max_value_bytes: usize,
    /// A session's keys and values together; default 16 MiB, at least 1 KiB.
    pub state_max_session_bytes: usize,
    /// A session's keys; default 10,000, at least 1.
    pub state_max_keys: usize,
    /// How long an idle session is kept; default 86,400,000 ms (24 h), at
    /// least 1,000. Then its handle gets the "expired" text.
    pub state_expiry_ms: u64,
    /// Sessions a store keeps; default 10,000, at least 1. Opening one past
    /// it drops the least recently used.
    pub state_max_sessions: usize,
    /// The CPU a run's program may use when `cpuTimeMs` is absent (contracts
    /// §6, "CPU budget"): its sandbox's own time, waiting on tools not
    /// counted; default 30,000 ms. Past it the run ends as `timeout`.
    pub default_cpu_time_ms: u64,
    /// Largest `cpuTimeMs` accepted; default 600,000 ms, at most
    /// 2,147,483,647. More is `INVALID_ARGUMENTS`.
    pub max_cpu_time_ms: u64,
    /// Sub-calls one run may make unless its request says otherwise
    /// (`RunRequest::max_sub_calls`); default 10,000, from 1 to
    /// 4,294,967,295. Past it each further call fails (`DENIED`), which the
    /// program may catch.
    pub max_sub_calls: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_parallel_sub_calls: 10,
            default_timeout_ms: DEFAULT_TIMEOUT_MS,
            max_timeout_ms: MAX_TIMEOUT_MS,
            output_cap_bytes: 32_768,
            memory_limit_bytes: 64 << 20,
            stack_limit_bytes: 1 << 20,
            thread_stack_bytes: 16 << 20,
            max_code_bytes: 1 << 20,
            max_concurrent_runs: 1024,
            max_images: 8,
            max_image_bytes: 8 << 20,
            grace_ms: 1000,
            description_budget_bytes: 32 << 10,
            escalated_max_timeout_ms: ESCALATED_MAX_TIMEOUT_MS,
            escalated_memory_limit_bytes: 256 << 20,
            escalated_output_cap_bytes: 128 << 10,
            state_max_value_bytes: 1 << 20,
            state_max_session_bytes: 16 << 20,
            state_max_keys: 10_000,
            state_expiry_ms: 24 * 60 * 60 * 1000,
            state_max_sessions: 10_000,
            default_cpu_time_ms: DEFAULT_CPU_TIME_MS,
            max_cpu_time_ms: MAX_CPU_TIME_MS,
            max_sub_calls: 10_000,
        }
    }
}

/// A limit hosts and users set by name, with its range: one row of
/// [`SETTINGS`], from which validation, `initialize`'s config and the
/// command line's flags (with their help and its defaults) all come.
pub(crate) struct Setting {
    /// The name in `initialize`'s config and in the Rust API's messages.
    pub(crate) name: &'static str,
    /// The command line's flag for it, if it has one.
    pub(crate) flag: Option<Flag>,
    min: u64,
    max: u64,
    /// Bytes, shown as sizes in messages.
    bytes: bool,
    get: fn(&Limits) -> u64,
    set: fn(&mut Limits, u64),
}

/// How the command line sets a limit.
pub(crate) struct Flag {
    /// The flag without its dashes, such as `max-parallel`.
    pub(crate) long: &'static str,
    /// What its value is called in the help: `MS`, `N`, `BYTES`.
    pub(crate) value_name: &'static str,
    /// Its help, where `{default}` stands for the default.
    help: &'static str,
    /// What else the flag sets, beyond its limit; by default, nothing.
    also: Option<fn(&mut Limits, u64)>,
}

impl Setting {
    /// Sets this limit (values past `usize` saturate, and fail validation).
    pub(crate) fn set(&self, limits: &mut Limits, value: u64) {
        (self.set)(limits, value);
    }

    /// Sets this limit as its flag does.
    pub(crate) fn set_by_flag(&self, limits: &mut Limits, value: u64) {
        self.set(limits, value);
        if let Some(also) = self.flag.as_ref().and_then(|flag| flag.also) {
            also(limits, value);
        }
    }

    /// The help of its flag, the default filled in (sizes as `32KiB`).
    pub(crate) fn flag_help(&self) -> Option<String> {
        let flag = self.flag.as_ref()?;
        let default = (self.get)(&Limits::default());
        let default = match self.bytes {
            true => size(default).replace(' ', ""),
            false => default.to_string(),
        };
        Some(flag.help.replace("{default}", &default))
    }

    /// Why the limit is out of range, naming it `spelled`; `None` within.
    fn problem(&self, limits: &Limits, spelled: &str) -> Option<String> {
        let value = (self.get)(limits);
        if (self.min..=self.max).contains(&value) {
            return None;
        }
        let shown = |n: u64| match self.bytes {
            true => size(n),
            false => n.to_string(),
        };
        let range = match self.max {
            u64::MAX => format!("at least {}", shown(self.min)),
            max => format!("from {} to {}", shown(self.min), shown(max)),
        };
        Some(format!("{spelled} must be {range}, got {}", shown(value)))
    }
}

fn to_usize(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

fn to_u64(value: usize) -> u64 {
    u64::try_from(value).unwrap_or(u64::MAX)
}

/// The limits a host may set, in the order `initialize` documents them.
pub(crate) const SETTINGS: [Setting; 17] = [
    Setting {
        name: "maxParallelSubCalls",
        flag: Some(Flag {
            long: "max-parallel",
            value_name: "N",
            help: "Sub-calls in flight at once; 1 is strictly serial [default: {default}]",
            also: None,
        }),
        min: 1,
        max: 65_536,
        bytes: false,
        get: |l| to_u64(l.max_parallel_sub_calls),
        set: |l, v| l.max_parallel_sub_calls = to_usize(v),
    },
    Setting {
        name: "defaultTimeoutMs",
        // The run's deadline: it also raises the maximum when larger.
        flag: Some(Flag {
            long: "timeout-ms",
            value_name: "MS",
            help: "Deadline of the run in milliseconds [default: {default}; ptc mcp: 55000]",
            also: Some(|l, v| l.max_timeout_ms = l.max_timeout_ms.max(v)),
        }),
        min: 1,
        max: MAX_DEADLINE_MS,
        bytes: false,
        get: |l| l.default_timeout_ms,
        set: |l, v| l.default_timeout_ms = v,
    },
    Setting {
        name: "maxTimeoutMs",
        flag: None,
        min: 1,
        max: MAX_DEADLINE_MS,
        bytes: false,
        get: |l| l.max_timeout_ms,
        set: |l, v| l.max_timeout_ms = v,
    },
    Setting {
        name: "outputCapBytes",
        flag: Some(Flag {
            long: "output-cap",
            value_name: "BYTES",
            help: "Bytes of output text kept (head and tail) [default: {default}]. Accepts suffixes: KiB, MiB, GiB (or K, M, G) and KB, MB, GB.",
            also: None,
        }),
        min: 64,
        max: u64::MAX,
        bytes: true,
        get: |l| to_u64(l.output_cap_bytes),
        set: |l, v| l.output_cap_bytes = to_usize(v),
    },
    Setting {
        name: "memoryLimitBytes",
        flag: Some(Flag {
            long: "memory-limit",
            value_name: "BYTES",
            help: "JavaScript heap limit in bytes [default: {default}]. Accepts suffixes like --output-cap.",
            also: None,
        }),
        min: 1 << 20,
        max: u64::MAX,
        bytes: true,
        get: |l| to_u64(l.memory_limit_bytes),
        set: |l, v| l.memory_limit_bytes = to_usize(v),
    },
    Setting {
        name: "descriptionBudgetBytes",
        flag: Some(Flag {
            long: "description-budget",
            value_name: "BYTES",
            help: "Bytes of run_code's description [default: {default}]: past it, the SDK gives way to an index of the tools, then to their namespaces. Accepts suffixes like --output-cap.",
            also: None,
        }),
        min: 8 << 10,
        max: u64::MAX,
        bytes: true,
        get: |l| to_u64(l.description_budget_bytes),
        set: |l, v| l.description_budget_bytes = to_usize(v),
    },
    Setting {
        name: "escalatedMaxTimeoutMs",
        flag: Some(Flag {
            long: "escalated-max-timeout-ms",
            value_name: "MS",
            help: "Largest deadline of an escalated run in milliseconds [default: {default}]",
            also: None,
        }),
        min: 1,
        max: MAX_DEADLINE_MS,
        bytes: false,
        get: |l| l.escalated_max_timeout_ms,
        set: |l, v| l.escalated_max_timeout_ms = v,
    },
    Setting {
        name: "escalatedOutputCapBytes",
        flag: Some(Flag {
            long: "escalated-output-cap",
            value_name: "BYTES",
            help: "Bytes of output text an escalated run keeps [default: {default}]",
            also: None,
        }),
        min: 64,
        max: u64::MAX,
        bytes: true,
        get: |l| to_u64(l.escalated_output_cap_bytes),
        set: |l, v| l.escalated_output_cap_bytes = to_usize(v),
    },
    Setting {
        name: "escalatedMemoryLimitBytes",
        flag: Some(Flag {
            long: "escalated-memory-limit",
            value_name: "BYTES",
            help: "JavaScript heap limit of an escalated run [default: {default}]",
            also: None,
        }),
        min: 1 << 20,
        max: u64::MAX,
        bytes: true,
        get: |l| to_u64(l.escalated_memory_limit_bytes),
        set: |l, v| l.escalated_memory_limit_bytes = to_usize(v),
    },
    Setting {
        name: "stateMaxValueBytes",
        flag: Some(Flag {
            long: "state-max-value",
            value_name: "BYTES",
            help: "Bytes of JSON one `state` value may take [default: {default}]",
            also: None,
        }),
        min: 1 << 10,
        max: u64::MAX,
        bytes: true,
        get: |l| to_u64(l.state_max_value_bytes),
        set: |l, v| l.state_max_value_bytes = to_usize(v),
    },
    Setting {
        name: "stateMaxSessionBytes",
        flag: Some(Flag {
            long: "state-max-session",
            value_name: "BYTES",
            help: "Bytes of keys and values one session may hold [default: {default}]",
            also: None,
        }),
        min: 1 << 10,
        max: u64::MAX,
        bytes: true,
        get: |l| to_u64(l.state_max_session_bytes),
        set: |l, v| l.state_max_session_bytes = to_usize(v),
    },
    Setting {
        name: "stateMaxKeys",
        flag: Some(Flag {
            long: "state-max-keys",
            value_name: "N",
            help: "Keys one session may hold [default: {default}]",
            also: None,
        }),
        min: 1,
        max: u64::MAX,
        bytes: false,
        get: |l| to_u64(l.state_max_keys),
        set: |l, v| l.state_max_keys = to_usize(v),
    },
    Setting {
        name: "stateExpiryMs",
        flag: Some(Flag {
            long: "state-expiry-ms",
            value_name: "MS",
            help: "How long an idle session is kept, in milliseconds [default: {default}]",
            also: None,
        }),
        min: 1000,
        max: u64::MAX,
        bytes: false,
        get: |l| l.state_expiry_ms,
        set: |l, v| l.state_expiry_ms = v,
    },
    Setting {
        name: "stateMaxSessions",
        flag: Some(Flag {
            long: "state-max-sessions",
            value_name: "N",
            help: "Sessions the state store keeps; past it the least recently used is dropped [default: {default}]",
            also: None,
        }),
        min: 1,
        max: u64::MAX,
        bytes: false,
        get: |l| to_u64(l.state_max_sessions),
        set: |l, v| l.state_max_sessions = to_usize(v),
    },
    Setting {
        name: "defaultCpuTimeMs",
        // The run's CPU budget: it also raises the maximum when larger.
        flag: Some(Flag {
            long: "cpu-time-ms",
            value_name: "MS",
            help: "CPU the program itself may use, in milliseconds; waiting on tools does not count [default: {default}]",
            also: Some(|l, v| l.max_cpu_time_ms = l.max_cpu_time_ms.max(v)),
        }),
        min: 1,
        max: MAX_DEADLINE_MS,
        bytes: false,
        get: |l| l.default_cpu_time_ms,
        set: |l, v| l.default_cpu_time_ms = v,
    },
    Setting {
        name: "maxCpuTimeMs",
        flag: None,
        min: 1,
        max: MAX_DEADLINE_MS,
        bytes: false,
        get: |l| l.max_cpu_time_ms,
        set: |l, v| l.max_cpu_time_ms = v,
    },
    Setting {
        name: "maxSubCalls",
        flag: Some(Flag {
            long: "max-sub-calls",
            value_name: "N",
            help: "Sub-calls one run may make; past it each call fails with DENIED [default: {default}]",
            also: None,
        }),
        min: 1,
        max: MAX_SUB_CALLS as u64,
        bytes: false,
        get: |l| to_u64(l.max_sub_calls),
        set: |l, v| l.max_sub_calls = to_usize(v),
    },
];

/// The limits one run gets: the standard tier, or the escalated one for an
/// approved `sandboxPermissions: "require_escalated"` request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tier {
    pub(crate) max_timeout_ms: u64,
    pub(crate) memory_limit_bytes: usize,
    pub(crate) output_cap_bytes: usize,
}

/// A configuration that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The JS stack limit does not fit in the sandbox thread's stack.
    #[error(
        "stack limit of {stack_limit} bytes does not fit: sandbox threads have {thread_stack} bytes and need {STACK_HEADROOM} bytes of headroom"
    )]
    StackLimit {
        /// The configured JS stack limit.
        stack_limit: usize,
        /// The sandbox thread stack.
        thread_stack: usize,
    },
    /// A limit outside its range (the same message from every front end).
    #[error("invalid limit: {message}")]
    OutOfRange {
        /// The limit's wire name, such as `maxParallelSubCalls`.
        name: &'static str,
        /// What is wrong, naming the limit, its range and the value.
        message: String,
    },
    /// Limits that do not fit together, such as a default over the maximum.
    #[error("invalid limit: {0}")]
    Invalid(&'static str),
}

impl Limits {
    /// Checks each limit's range and that the limits can work together.
    ///
    /// # Errors
    /// A limit out of its range, a default timeout over the maximum, or a
    /// stack limit without headroom in the thread stack.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.check(|setting| setting.name.to_owned())
    }

    /// As [`validate`](Self::validate), naming each limit by its flag
    /// (`--max-parallel`) where it has one: what the command line says.
    pub(crate) fn validate_flags(&self) -> Result<(), ConfigError> {
        self.check(|setting| match &setting.flag {
            Some(flag) => format!("--{}", flag.long),
            None => setting.name.to_owned(),
        })
    }

    /// Checks the limits, naming a limit out of range as `spell` says.
    fn check(&self, spell: impl Fn(&Setting) -> String) -> Result<(), ConfigError> {
        for setting in &SETTINGS {
            if let Some(message) = setting.problem(self, &spell(setting)) {
                return Err(ConfigError::OutOfRange {
                    name: setting.name,
                    message,
                });
            }
        }
        if self.default_timeout_ms > self.max_timeout_ms {
            return Err(ConfigError::Invalid(
                "defaultTimeoutMs must be between 1 and maxTimeoutMs",
            ));
        }
        if self.default_cpu_time_ms > self.max_cpu_time_ms {
            return Err(ConfigError::Invalid(
                "defaultCpuTimeMs must be between 1 and maxCpuTimeMs",
            ));
        }
        if self.max_concurrent_runs == 0 {
            return Err(ConfigError::Invalid("maxConcurrentRuns must be at least 1"));
        }
        if self.stack_limit_bytes.saturating_add(STACK_HEADROOM) > self.thread_stack_bytes {
            return Err(ConfigError::StackLimit {
                stack_limit: self.stack_limit_bytes,
                thread_stack: self.thread_stack_bytes,
            });
        }
        Ok(())
    }
}

impl Limits {
    /// A run's tier: the standard limits, or (`escalated`) the escalated
    /// ones, each at least its standard counterpart.
    pub(crate) fn tier(&self, escalated: bool) -> Tier {
        let standard = Tier {
            max_timeout_ms: self.max_timeout_ms,
            memory_limit_bytes: self.memory_limit_bytes,
            output_cap_bytes: self.output_cap_bytes,
        };
        if !escalated {
            return standard;
        }
        Tier {
            max_timeout_ms: at_least_standard(
                self.escalated_max_timeout_ms,
                standard.max_timeout_ms,
            ),
            memory_limit_bytes: at_least_standard(
                self.escalated_memory_limit_bytes,
                standard.memory_limit_bytes,
            ),
            output_cap_bytes: at_least_standard(
                self.escalated_output_cap_bytes,
                standard.output_cap_bytes,
            ),
        }
    }
}

/// An escalated limit as it applies: never below its standard one (a
/// smaller one counts as the standard one).
pub(crate) fn at_least_standard<T: Ord>(escalated: T, standard: T) -> T {
    escalated.max(standard)
}

/// A limit's command-line flag, made from the table of limits: the binary adds
/// one argument per flag.
#[derive(Debug, Clone)]
pub struct LimitFlag {
    /// The flag without its dashes, such as `max-parallel`.
    pub long: &'static str,
    /// What its value is called in the help: `MS`, `N`, `BYTES`.
    pub value_name: &'static str,
    /// Its help, stating its default.
    pub help: String,
    /// Whether it takes a size (`64MiB`) rather than a plain number.
    pub bytes: bool,
    setting: usize,
}

impl LimitFlag {
    /// Sets what this flag sets.
    pub fn set(&self, limits: &mut Limits, value: u64) {
        SETTINGS[self.setting].set_by_flag(limits, value);
    }
}

/// Every limit's command-line flag, in the table's order.
pub(crate) fn limit_flags() -> Vec<LimitFlag> {
    SETTINGS
        .iter()
        .enumerate()
        .filter_map(|(setting, row)| {
            let flag = row.flag.as_ref()?;
            Some(LimitFlag {
                long: flag.long,
                value_name: flag.value_name,
                help: row.flag_help()?,
                bytes: row.bytes,
                setting,
            })
        })
        .collect()
}

/// What one value entering the host may take (contracts §6, "What enters
/// the host"): its JSON text, and its cost once built ([`crate::gate`]: the
/// text plus 144 bytes a value, a value shared n times counted n times).
/// Every door measures what it is given against one of the bounds below
/// before it builds anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bound {
    /// The longest JSON text, in bytes (a longer one is not read whole).
    pub max_bytes: usize,
    /// The most host memory the value may take once built.
    pub max_cost: usize,
}

impl Bound {
    /// Texts of at most `max_bytes`, costing at most four times that once
    /// built: a long string passes, a flood of tiny values does not.
    pub(crate) const fn of_bytes(max_bytes: usize) -> Self {
        Self {
            max_bytes,
            max_cost: max_bytes.saturating_mul(4),
        }
    }
}

/// A request to `ptc mcp` (stdio; HTTP by default): MCP requests are small
/// (a program, a tool's arguments); 4 MiB is also what rmcp's HTTP
/// transport reads.
pub(crate) const REQUEST: Bound = Bound::of_bytes(4 << 20);

/// What a tool source or a host answers (an MCP server's message, a JSON
/// text block of its result, a manifest command's stdout, a `ptc serve`
/// host's line): 16 MiB, rmcp's own line limit.
pub(crate) const ANSWER: Bound = Bound::of_bytes(16 << 20);

/// The arguments of one sub-call, as a program passes them: what a tool's
/// answer may be, so every tool source can take them. The run's memory
/// limit bounds them too (they are charged to it until they settle).
pub(crate) const ARGUMENTS: Bound = ANSWER;

/// How deep a value from a program may nest (arrays and objects, lists and
/// dicts; the root counting as one): JSON text past this depth is refused
/// by serde, and by every host that parses with its default limit.
pub(crate) const MAX_DEPTH: u32 = 128;

/// The most of a sub-call's arguments or value a run event carries whole,
/// as JSON text; past it the event carries its start and its length.
pub(crate) const EVENT_VALUE_BYTES: usize = 16 << 10;

/// How much of such a value's JSON text the event carries instead.
pub(crate) const EVENT_PREVIEW_BYTES: usize = 1 << 10;

/// A size as people write it: `64 MiB`, `512 KiB`, or bytes when neither
/// is exact.
pub(crate) fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::size;

    /// Exact mebibytes and kibibytes read as such; anything else, zero
    /// included, in bytes (a cut `1.5 MiB` would misstate a limit).
    #[test]
    fn sizes_read_as_people_write_them() {
        for (bytes, shown) in [
            (0, "0 bytes"),
            (64, "64 bytes"),
            (1023, "1023 bytes"),
            (1024, "1 KiB"),
            (1025, "1025 bytes"),
            (1536 << 10, "1536 KiB"),
            ((1 << 20) + 1, "1048577 bytes"),
            (1 << 20, "1 MiB"),
            (64 << 20, "64 MiB"),
            (u64::MAX, "18446744073709551615 bytes"),
        ] {
            assert_eq!(size(bytes), shown, "{bytes}");
        }
    }
}
