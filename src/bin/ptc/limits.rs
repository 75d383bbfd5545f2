//! The limit flags of `ptc run`, `ptc sdk` and `ptc mcp`: one per row of
//! the library's table of limits (names, help, defaults), checked by the
//! library, so the command line refuses a value with the same message as
//! `initialize` and the Rust API, naming the flag.

use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use ptc::__private::{LimitFlag, limit_flags, validate_flags};
use ptc::Limits;

/// `ptc mcp`'s run deadline when neither `--timeout-ms` nor the model's
/// `timeoutMs` sets one: 55 s, under the 60 s request timeout of the
/// official TypeScript SDK (the client most desktop and IDE hosts embed),
/// so a run that hits its deadline still answers before the client gives
/// up, with 5 s to spare for the answer to travel (docs/mcp.md).
pub(crate) const MCP_DEFAULT_TIMEOUT_MS: u64 = 55_000;

/// What an MCP client waits for a `tools/call` answer unless the operator
/// says otherwise (`ptc mcp --client-timeout-ms`): the request timeout of
/// the official SDKs.
pub(crate) const MCP_CLIENT_TIMEOUT_MS: u64 = 60_000;

/// The longest deadline a run may have when its client waits `client_ms`
/// for the answer: 5 s under it (half of it, for a client that waits less
/// than 10 s), the time the answer needs to travel.
fn deadline_under(client_ms: u64) -> u64 {
    client_ms - (client_ms / 2).min(5_000)
}

/// The flags that set a run's limits, as given.
pub(crate) struct LimitArgs {
    given: Vec<(LimitFlag, u64)>,
}

impl Args for LimitArgs {
    fn augment_args(cmd: Command) -> Command {
        limit_flags().into_iter().fold(cmd, |cmd, flag| {
            let arg = Arg::new(flag.long)
                .long(flag.long)
                .value_name(flag.value_name)
                .help(flag.help);
            cmd.arg(match flag.bytes {
                true => arg.value_parser(parse_size),
                false => arg.value_parser(clap::value_parser!(u64)),
            })
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for LimitArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let given = limit_flags()
            .into_iter()
            .filter_map(|flag| {
                let value = *matches.get_one::<u64>(flag.long)?;
                Some((flag, value))
            })
            .collect();
        Ok(Self { given })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl LimitArgs {
    /// The default limits with these flags applied, checked.
    ///
    /// # Errors
    /// A limit out of its range, the message naming its flag
    /// (`invalid limit: --max-parallel must be from 1 to 65536, got 0`).
    pub(crate) fn limits(&self) -> Result<Limits, String> {
        self.limits_over(Limits::default())
    }

    /// `ptc mcp`'s limits when its client waits `client_ms` for an
    /// answer: as [`limits`](Self::limits), but no deadline the model may
    /// ask (escalated runs' included) reaches past what the client waits,
    /// and the deadline is [`MCP_DEFAULT_TIMEOUT_MS`] (or less, to fit)
    /// unless `--timeout-ms` is given.
    ///
    /// # Errors
    /// As [`limits`](Self::limits), and a `--timeout-ms` the client would
    /// not wait for.
    pub(crate) fn mcp_limits(&self, client_ms: u64) -> Result<Limits, String> {
        let most = deadline_under(client_ms);
        let mut limits = self.limits_over(Limits {
            default_timeout_ms: MCP_DEFAULT_TIMEOUT_MS.min(most),
            ..Limits::default()
        })?;
        if limits.default_timeout_ms > most {
            return Err(format!(
                "--timeout-ms {} is longer than the client waits for an answer \
                 (--client-timeout-ms {client_ms}, so at most {most}): pass \
                 --client-timeout-ms when the client waits longer or resets its \
                 timeout on progress",
                limits.default_timeout_ms
            ));
        }
        limits.max_timeout_ms = limits.max_timeout_ms.min(most);
        // No run computes past its deadline: the schema offers no more.
        limits.max_cpu_time_ms = limits.max_cpu_time_ms.min(most);
        limits.default_cpu_time_ms = limits.default_cpu_time_ms.min(most);
        limits.escalated_max_timeout_ms = limits.escalated_max_timeout_ms.min(most);
        Ok(limits)
    }

    fn limits_over(&self, mut limits: Limits) -> Result<Limits, String> {
        for (flag, value) in &self.given {
            flag.set(&mut limits, *value);
        }
        validate_flags(&limits).map_err(|e| e.to_string())?;
        Ok(limits)
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
    use super::{deadline_under, parse_size};

    #[test]
    fn deadlines_stay_under_what_the_client_waits() {
        assert_eq!(deadline_under(60_000), 55_000);
        assert_eq!(deadline_under(10_000), 5_000);
        assert_eq!(deadline_under(9_000), 4_500);
        assert_eq!(deadline_under(1_000), 500);
    }

    #[test]
    fn sizes_take_units() {
        assert_eq!(parse_size("65536"), Ok(65536));
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("64m"), Ok(64 << 20));
        assert_eq!(parse_size("32 KiB"), Ok(32 << 10));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("3k"), Ok(3 << 10));
        assert_eq!(parse_size("10b"), Ok(10));
        assert!(parse_size("").is_err());
        assert!(parse_size("MiB").is_err());
        assert!(parse_size("12XB").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
    }
}
