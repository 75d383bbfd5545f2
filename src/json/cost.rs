//! What a JSON message costs in host memory once parsed, measured before it
//! is parsed. A `serde_json::Value` takes tens of bytes whatever it holds,
//! so `[0,0,…]` costs 40 times its text: every door that parses what
//! another process sent measures first and refuses a message past its
//! [`MessageLimits`] (contracts §6, "Messages").

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// What one message may take: its bytes, and its cost once parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MessageLimits {
    /// The longest message read, in bytes (a longer one is not read whole).
    pub max_bytes: usize,
    /// The most host memory its parsed value may take ([`cost`]).
    pub max_cost: usize,
}

impl MessageLimits {
    /// Messages of at most `max_bytes`, costing at most four times that
    /// once parsed: a long text passes, a flood of tiny values does not.
    pub(crate) const fn of_bytes(max_bytes: usize) -> Self {
        Self {
            max_bytes,
            max_cost: max_bytes.saturating_mul(4),
        }
    }
}

/// A request to `ptc mcp` (stdio; HTTP by default): MCP messages are small
/// (a program, a tool's arguments); 4 MiB is also what rmcp's HTTP
/// transport reads.
pub(crate) const REQUEST: MessageLimits = MessageLimits::of_bytes(4 << 20);

/// What a tool source answers (an MCP server's message, a manifest
/// command's stdout): 16 MiB, rmcp's own line limit.
pub(crate) const RESULT: MessageLimits = MessageLimits::of_bytes(16 << 20);

/// The host memory one parsed value takes besides its text: a
/// `serde_json::Value` (with `preserve_order`, an object's member adds
/// about as much again for its map entry).
const PER_VALUE: usize = 2 * std::mem::size_of::<serde_json::Value>();

/// Why a message is refused before it is parsed.
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

/// The host memory `text` takes once parsed: its length plus
/// [`PER_VALUE`] for every value in it. Refuses, without parsing the rest,
/// as soon as the cost passes `limits.max_cost`.
pub(crate) fn cost(text: &[u8], limits: MessageLimits) -> Result<usize, Refusal> {
    if text.len() > limits.max_bytes {
        return Err(Refusal::TooLong {
            bytes: text.len(),
            max: limits.max_bytes,
        });
    }
    let budget = limits.max_cost.saturating_sub(text.len()) / PER_VALUE;
    let mut count = Count {
        left: budget,
        over: false,
    };
    let mut reader = serde_json::Deserializer::from_slice(text);
    let counted = (&mut count)
        .deserialize(&mut reader)
        .and_then(|()| reader.end());
    match counted {
        Ok(()) => Ok(text.len() + (budget - count.left) * PER_VALUE),
        Err(_) if count.over => Err(Refusal::TooCostly {
            max: limits.max_cost,
        }),
        Err(e) => Err(Refusal::Malformed(e.to_string())),
    }
}

/// Counts values down from `left`, failing the parse when none is left.
struct Count {
    left: usize,
    over: bool,
}

impl Count {
    fn one<E: de::Error>(&mut self) -> Result<(), E> {
        if self.left == 0 {
            self.over = true;
            return Err(E::custom("too many values"));
        }
        self.left -= 1;
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for &mut Count {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for &mut Count {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.one()
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.one()
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.one()
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.one()
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.one()
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.one()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.one()?;
        while seq.next_element_seed(&mut *self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.one()?;
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value_seed(&mut *self)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: MessageLimits = MessageLimits {
        max_bytes: 1 << 20,
        max_cost: 100 * PER_VALUE,
    };

    #[test]
    fn a_value_costs_what_the_contract_says() {
        // docs/contracts.md §6, "Messages": 144 bytes a value.
        assert_eq!(PER_VALUE, 144);
    }

    #[test]
    fn a_value_costs_its_text_and_its_values() {
        let text = br#"{"a":[1,2,"x"],"b":null}"#;
        // The object, the array, three elements, null.
        assert_eq!(cost(text, SMALL), Ok(text.len() + 6 * PER_VALUE));
        assert_eq!(cost(b"\"\\u00e9\"", SMALL), Ok(8 + PER_VALUE));
    }

    #[test]
    fn many_small_values_are_refused_before_they_are_parsed() {
        let under = format!("[{}0]", "0,".repeat(90));
        assert!(cost(under.as_bytes(), SMALL).is_ok());
        let over = format!("[{}0]", "0,".repeat(100));
        assert_eq!(
            cost(over.as_bytes(), SMALL),
            Err(Refusal::TooCostly {
                max: SMALL.max_cost
            })
        );
        let nested = format!("{{\"k\":[{}]}}", "{},".repeat(99) + "{}");
        assert!(matches!(
            cost(nested.as_bytes(), SMALL),
            Err(Refusal::TooCostly { .. })
        ));
    }

    #[test]
    fn long_text_is_refused_by_its_length() {
        let limits = MessageLimits {
            max_bytes: 8,
            max_cost: 1 << 20,
        };
        assert_eq!(
            cost(b"\"123456789\"", limits),
            Err(Refusal::TooLong { bytes: 11, max: 8 })
        );
    }

    #[test]
    fn what_is_not_json_says_why() {
        for text in [&b"{"[..], b"[1,]", b"1 2", b"\"\\ud83c\"", b"\"\xff\""] {
            assert!(
                matches!(cost(text, SMALL), Err(Refusal::Malformed(_))),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn the_real_limits_let_a_large_text_through_and_stop_a_flood_of_zeros() {
        let text = format!("\"{}\"", "x".repeat(15 << 20));
        assert!(cost(text.as_bytes(), RESULT).is_ok());
        let zeros = format!("[{}0]", "0,".repeat(4 << 20));
        assert!(matches!(
            cost(zeros.as_bytes(), RESULT),
            Err(Refusal::TooCostly { .. })
        ));
    }
}
