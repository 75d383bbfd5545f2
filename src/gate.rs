//! One gate for every value that enters the host (contracts §6, "What
//! enters the host"). Whatever another process or a program hands ptc is
//! measured by what it would take once built before anything of it is
//! built, and refused past its bound ([`crate::limits::Bound`]):
//!
//! - JSON text ([`json_text`]): a request to `ptc mcp`, a tool source's
//!   answer (an MCP server's message, a JSON text block of its result, a
//!   manifest command's stdout), a `ptc serve` host's line;
//! - a program's values: a TypeScript sub-call's arguments
//!   (`engine::typescript::convert`, read with a [`Meter`]), a Python program's
//!   arguments and value (`engine::python::convert`, whose [`Size`]s count
//!   a value shared n times as the n copies it becomes).
//!
//! One cost model for all of them: a value's text plus [`PER_VALUE`] bytes
//! for each value in it (a `serde_json::Value`, with an object's member
//! about as much again), so `[0,0,…]` costs about seventy times its text.
//! A door calls the gate; it never writes a bound of its own.

mod json_text;

use std::fmt;

pub(crate) use json_text::json_text;

use crate::limits::ARGUMENTS;

/// The host memory one built value takes besides its text: a
/// `serde_json::Value` (with `preserve_order`, an object's member adds
/// about as much again for its map entry).
pub(crate) const PER_VALUE: usize = 2 * std::mem::size_of::<serde_json::Value>();

/// Why a JSON text is refused before it is parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Longer than `max_bytes`.
    TooLong { bytes: usize, max: usize },
    /// Its values would take more than `max_cost` bytes.
    TooCostly { max: usize },
    /// Not JSON (what serde_json said).
    Malformed(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLong { bytes, max } => write!(
                f,
                "the message is {bytes} bytes long, more than the {max} bytes ptc reads"
            ),
            Self::TooCostly { max } => write!(
                f,
                "the message holds so many values that parsing it would take more than {} MiB of memory (the limit)",
                max >> 20
            ),
            Self::Malformed(why) => write!(f, "the message is not JSON: {why}"),
        }
    }
}

/// Why a sub-call's arguments are refused (`INVALID_ARGUMENTS`, in both
/// languages): what they would cost, when it was measured whole.
pub(crate) fn arguments_too_large(cost: Option<u64>) -> String {
    too_large("the arguments", "a call's arguments", cost)
}

/// Why a `state.set` value is refused (`INVALID_VALUE`, in both languages).
pub(crate) fn value_too_large(cost: Option<u64>) -> String {
    too_large("the value", "a `state` value", cost)
}

fn too_large(what: &str, whose: &str, cost: Option<u64>) -> String {
    let max = crate::limits::size(ARGUMENTS.max_cost as u64);
    let cost = cost.map(|c| format!(" ({c} bytes)")).unwrap_or_default();
    format!(
        "{what} would take more than {max} of memory once copied out of the program{cost}, the most {whose} may take (a value passed n times is copied n times): pass less"
    )
}

/// What a built value takes in the host by the cost model above: its
/// strings and member names, and [`PER_VALUE`] a value. For values the host
/// holds for a run (a settled call's answer the program has not taken yet),
/// charged to its memory.
pub(crate) fn cost_of(value: &serde_json::Value) -> usize {
    use serde_json::Value;
    let mut cost = 0usize;
    let mut rest = vec![value];
    while let Some(value) = rest.pop() {
        cost = cost.saturating_add(PER_VALUE);
        match value {
            Value::String(text) => cost = cost.saturating_add(text.len()),
            Value::Array(items) => rest.extend(items),
            Value::Object(members) => {
                for (name, member) in members {
                    cost = cost.saturating_add(name.len());
                    rest.push(member);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    cost
}

/// What a value would take once written out and built: its values and
/// the bytes of its JSON text. Sums saturate, so a value shared 2⁴⁰ times
/// measures as huge instead of wrapping. (Values that arrive as a graph
/// need it: a Python program's.)
#[cfg(feature = "python")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Size {
    /// Values in it, the containers included.
    pub values: u64,
    /// Bytes of its JSON text.
    pub text: u64,
}

#[cfg(feature = "python")]
impl Size {
    /// One value whose text is `text` bytes long.
    pub(crate) fn leaf(text: usize) -> Self {
        Self {
            values: 1,
            text: text as u64,
        }
    }

    /// Adds `other`, saturating.
    pub(crate) fn add(&mut self, other: Self) {
        self.values = self.values.saturating_add(other.values);
        self.text = self.text.saturating_add(other.text);
    }

    /// Adds `bytes` of text, saturating.
    pub(crate) fn add_text(&mut self, bytes: usize) {
        self.text = self.text.saturating_add(bytes as u64);
    }

    /// The host memory the value takes once built ([`PER_VALUE`] a value
    /// besides its text), saturating.
    pub(crate) fn cost(self) -> u64 {
        self.values
            .saturating_mul(PER_VALUE as u64)
            .saturating_add(self.text)
    }
}

/// Counts what a value being read would take, refusing once it passes
/// `max` bytes: the budget a door reads a value within.
#[derive(Debug)]
pub(crate) struct Meter {
    used: usize,
    max: usize,
}

/// A [`Meter`] ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Over;

impl Meter {
    pub(crate) fn new(max: usize) -> Self {
        Self { used: 0, max }
    }

    /// One more value.
    pub(crate) fn value(&mut self) -> Result<(), Over> {
        self.bytes(PER_VALUE)
    }

    /// `bytes` more of text.
    pub(crate) fn bytes(&mut self, bytes: usize) -> Result<(), Over> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.max {
            Err(Over)
        } else {
            Ok(())
        }
    }

    /// What was counted so far.
    pub(crate) fn used(&self) -> usize {
        self.used
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_costs_what_the_contract_says() {
        // docs/contracts.md §6, "What enters the host": 144 bytes a value.
        assert_eq!(PER_VALUE, 144);
    }

    #[cfg(feature = "python")]
    #[test]
    fn a_size_costs_its_text_and_its_values() {
        let mut size = Size::leaf(3);
        size.add(Size::leaf(5));
        size.add_text(2);
        assert_eq!(
            size,
            Size {
                values: 2,
                text: 10
            }
        );
        assert_eq!(size.cost(), 2 * 144 + 10);
    }

    #[cfg(feature = "python")]
    #[test]
    fn sizes_saturate_instead_of_wrapping() {
        let mut size = Size {
            values: u64::MAX - 1,
            text: u64::MAX - 1,
        };
        size.add(Size::leaf(10));
        assert_eq!(size.values, u64::MAX);
        assert_eq!(size.text, u64::MAX);
        assert_eq!(size.cost(), u64::MAX);
    }

    #[test]
    fn refusals_say_what_and_the_limit() {
        assert_eq!(
            Refusal::TooLong { bytes: 20, max: 16 }.to_string(),
            "the message is 20 bytes long, more than the 16 bytes ptc reads"
        );
        assert_eq!(
            Refusal::TooCostly { max: 64 << 20 }.to_string(),
            "the message holds so many values that parsing it would take more than 64 MiB of memory (the limit)"
        );
        assert_eq!(
            Refusal::Malformed("EOF".into()).to_string(),
            "the message is not JSON: EOF"
        );
    }

    #[test]
    fn arguments_too_large_say_the_bound_and_the_cost_when_known() {
        let known = arguments_too_large(Some(1 << 30));
        assert_eq!(
            known,
            "the arguments would take more than 64 MiB of memory once copied out of the program (1073741824 bytes), the most a call's arguments may take (a value passed n times is copied n times): pass less"
        );
        assert!(!arguments_too_large(None).contains("bytes)"));
        assert!(arguments_too_large(None).starts_with("the arguments would take more than 64 MiB"));
        let value = super::value_too_large(None);
        assert!(
            value.starts_with("the value would take more than 64 MiB"),
            "{value}"
        );
        assert!(
            value.contains("the most a `state` value may take"),
            "{value}"
        );
    }

    #[test]
    fn a_built_value_costs_its_strings_names_and_values() {
        assert_eq!(cost_of(&serde_json::json!(null)), PER_VALUE);
        assert_eq!(cost_of(&serde_json::json!("abc")), PER_VALUE + 3);
        assert_eq!(
            cost_of(&serde_json::json!({ "ab": [1, "xyz"], "c": true })),
            5 * PER_VALUE + 2 + 3 + 1
        );
    }

    #[test]
    fn a_meter_refuses_past_its_budget_and_not_at_it() {
        let mut meter = Meter::new(PER_VALUE + 4);
        assert_eq!(meter.value(), Ok(()));
        assert_eq!(meter.bytes(4), Ok(()));
        assert_eq!(meter.used(), PER_VALUE + 4);
        assert_eq!(meter.bytes(1), Err(Over));
    }
}
