//! The limit flags of `ptc run`: parsed here, checked by the library
//! ([`Limits::validate`]), so the command line refuses a value with the same
//! message as `initialize` and the Rust API.

use clap::Args;
use ptc::{ConfigError, Limits};

/// `ptc mcp`'s run deadline when neither `--timeout-ms` nor the model's
/// `timeoutMs` sets one: 55 s, under the 60 s request timeout of the
/// official TypeScript SDK (the client most desktop and IDE hosts embed),
/// so a run that hits its deadline still answers before the client gives
/// up, with 5 s to spare for the answer to travel (docs/mcp.md).
pub(crate) const MCP_DEFAULT_TIMEOUT_MS: u64 = 55_000;

/// The flags that set a run's limits.
#[derive(Args)]
pub(crate) struct LimitArgs {
    /// Deadline of the run in milliseconds [default: 120000; ptc mcp: 55000].
    #[arg(long, value_name = "MS")]
    timeout_ms: Option<u64>,
    /// Sub-calls in flight at once; 1 is strictly serial [default: 10].
    #[arg(long, value_name = "N")]
    max_parallel: Option<u64>,
    /// Bytes of output text kept (head and tail) [default: 32KiB]. Accepts
    /// suffixes: KiB, MiB, GiB (or K, M, G) and KB, MB, GB.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    output_cap: Option<u64>,
    /// JavaScript heap limit in bytes [default: 64MiB]. Accepts suffixes
    /// like --output-cap.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    memory_limit: Option<u64>,
    /// Bytes of run_code's description [default: 32KiB]: past it, the SDK
    /// gives way to an index of the tools, then to their namespaces.
    /// Accepts suffixes like --output-cap.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    description_budget: Option<u64>,
    /// Largest deadline of an escalated run in milliseconds [default: 1800000].
    #[arg(long, value_name = "MS")]
    escalated_max_timeout_ms: Option<u64>,
    /// Bytes of output text an escalated run keeps [default: 128KiB].
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    escalated_output_cap: Option<u64>,
    /// JavaScript heap limit of an escalated run [default: 256MiB].
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    escalated_memory_limit: Option<u64>,
}

/// Which flag sets a limit, by the limit's wire name.
const FLAGS: [(&str, &str); 9] = [
    ("maxParallelSubCalls", "--max-parallel"),
    ("defaultTimeoutMs", "--timeout-ms"),
    ("maxTimeoutMs", "--timeout-ms"),
    ("outputCapBytes", "--output-cap"),
    ("memoryLimitBytes", "--memory-limit"),
    ("descriptionBudgetBytes", "--description-budget"),
    ("escalatedMaxTimeoutMs", "--escalated-max-timeout-ms"),
    ("escalatedOutputCapBytes", "--escalated-output-cap"),
    ("escalatedMemoryLimitBytes", "--escalated-memory-limit"),
];

impl LimitArgs {
    /// The default limits with these flags applied. `--timeout-ms` is the
    /// run's deadline, so it also raises the maximum when it is larger.
    pub(crate) fn limits(&self) -> Limits {
        self.limits_over(Limits::default())
    }

    /// `ptc mcp`'s limits: as [`limits`](Self::limits), but the deadline
    /// is [`MCP_DEFAULT_TIMEOUT_MS`] unless `--timeout-ms` is given.
    pub(crate) fn mcp_limits(&self) -> Limits {
        self.limits_over(Limits {
            default_timeout_ms: MCP_DEFAULT_TIMEOUT_MS,
            ..Limits::default()
        })
    }

    fn limits_over(&self, defaults: Limits) -> Limits {
        let saturate = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let mut limits = defaults;
        if let Some(ms) = self.timeout_ms {
            limits.default_timeout_ms = ms;
            limits.max_timeout_ms = limits.max_timeout_ms.max(ms);
        }
        if let Some(n) = self.max_parallel {
            limits.max_parallel_sub_calls = saturate(n);
        }
        if let Some(bytes) = self.output_cap {
            limits.output_cap_bytes = saturate(bytes);
        }
        if let Some(bytes) = self.memory_limit {
            limits.memory_limit_bytes = saturate(bytes);
        }
        if let Some(bytes) = self.description_budget {
            limits.description_budget_bytes = saturate(bytes);
        }
        if let Some(ms) = self.escalated_max_timeout_ms {
            limits.escalated_max_timeout_ms = ms;
        }
        if let Some(bytes) = self.escalated_output_cap {
            limits.escalated_output_cap_bytes = saturate(bytes);
        }
        if let Some(bytes) = self.escalated_memory_limit {
            limits.escalated_memory_limit_bytes = saturate(bytes);
        }
        limits
    }
}

/// A configuration error, naming the flag that set the limit.
pub(crate) fn explain(error: &ConfigError) -> String {
    match error {
        ConfigError::OutOfRange { name, .. } => match FLAGS.iter().find(|(n, _)| n == name) {
            Some((_, flag)) => format!("{flag}: {error}"),
            None => error.to_string(),
        },
        _ => error.to_string(),
    }
}

/// A byte size: an integer with an optional unit (`B`; `K`, `KiB`, `M`,
/// `MiB`, `G`, `GiB` in powers of 1024; `KB`, `MB`, `GB` in powers of 1000;
/// any case).
fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("expected a size such as 65536 or 64MiB, got {text:?}"))?;
    let multiplier: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        other => {
            return Err(format!(
                "unknown unit {other:?}: use B, KiB, MiB, GiB, KB, MB or GB"
            ));
        }
    };
    number
        .checked_mul(multiplier)
        .ok_or_else(|| format!("{text} is too large"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_take_units() {
        assert_eq!(parse_size("65536"), Ok(65536));
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("64m"), Ok(64 << 20));
        assert_eq!(parse_size("32 KiB"), Ok(32 << 10));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert_eq!(parse_size("10b"), Ok(10));
        assert!(parse_size("").is_err());
        assert!(parse_size("MiB").is_err());
        assert!(parse_size("12XB").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
    }
}
