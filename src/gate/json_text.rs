//! JSON text measured before it is parsed: its length, and what its values
//! would take once parsed, counted by a visitor that builds nothing and
//! stops as soon as the budget is gone.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{Meter, Refusal};
use crate::limits::Bound;

/// The host memory `text` takes once parsed: its length plus
/// [`PER_VALUE`](super::PER_VALUE) for every value in it. Refuses, without
/// reading the rest, as soon as the cost passes `bound.max_cost`.
pub(crate) fn json_text(text: &[u8], bound: Bound) -> Result<usize, Refusal> {
    if text.len() > bound.max_bytes {
        return Err(Refusal::TooLong {
            bytes: text.len(),
            max: bound.max_bytes,
        });
    }
    let mut count = Count {
        meter: Meter::new(bound.max_cost),
        over: false,
    };
    let counted = count.meter.bytes(text.len()).is_ok() && {
        let mut reader = serde_json::Deserializer::from_slice(text);
        let read = (&mut count)
            .deserialize(&mut reader)
            .and_then(|()| reader.end());
        match read {
            Ok(()) => true,
            Err(_) if count.over => false,
            Err(e) => return Err(Refusal::Malformed(e.to_string())),
        }
    };
    if counted {
        Ok(count.meter.used())
    } else {
        Err(Refusal::TooCostly {
            max: bound.max_cost,
        })
    }
}

/// Counts values on a [`Meter`], failing the parse when it runs out.
struct Count {
    meter: Meter,
    over: bool,
}

impl Count {
    fn one<E: de::Error>(&mut self) -> Result<(), E> {
        if self.meter.value().is_err() {
            self.over = true;
            return Err(E::custom("too many values"));
        }
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
    use crate::gate::PER_VALUE;
    use crate::limits::ANSWER;

    const SMALL: Bound = Bound {
        max_bytes: 1 << 20,
        max_cost: 100 * PER_VALUE,
    };

    #[test]
    fn a_value_costs_its_text_and_its_values() {
        let text = br#"{"a":[1,2,"x"],"b":null}"#;
        // The object, the array, three elements, null.
        assert_eq!(json_text(text, SMALL), Ok(text.len() + 6 * PER_VALUE));
        assert_eq!(json_text(b"\"\\u00e9\"", SMALL), Ok(8 + PER_VALUE));
    }

    #[test]
    fn many_small_values_are_refused_before_they_are_parsed() {
        let under = format!("[{}0]", "0,".repeat(90));
        assert!(json_text(under.as_bytes(), SMALL).is_ok());
        let over = format!("[{}0]", "0,".repeat(100));
        assert_eq!(
            json_text(over.as_bytes(), SMALL),
            Err(Refusal::TooCostly {
                max: SMALL.max_cost
            })
        );
        let nested = format!("{{\"k\":[{}]}}", "{},".repeat(99) + "{}");
        assert!(matches!(
            json_text(nested.as_bytes(), SMALL),
            Err(Refusal::TooCostly { .. })
        ));
    }

    #[test]
    fn the_cost_counts_the_text_too() {
        // One value whose text alone passes the cost: refused unread.
        let bound = Bound {
            max_bytes: 1 << 20,
            max_cost: 1000,
        };
        let text = format!("\"{}\"", "x".repeat(1000));
        assert_eq!(
            json_text(text.as_bytes(), bound),
            Err(Refusal::TooCostly { max: 1000 })
        );
    }

    #[test]
    fn every_kind_of_value_is_counted() {
        // true, -1, 1.5, "s", null, 18446744073709551615 and the array.
        let text = br#"[true,-1,1.5,"s",null,18446744073709551615]"#;
        assert_eq!(json_text(text, SMALL), Ok(text.len() + 7 * PER_VALUE));
    }

    #[test]
    fn long_text_is_refused_by_its_length() {
        // Exactly the bound is read.
        let at = Bound {
            max_bytes: 11,
            max_cost: 1 << 20,
        };
        assert!(json_text(b"\"123456789\"", at).is_ok());
        let bound = Bound {
            max_bytes: 8,
            max_cost: 1 << 20,
        };
        assert_eq!(
            json_text(b"\"123456789\"", bound),
            Err(Refusal::TooLong { bytes: 11, max: 8 })
        );
    }

    #[test]
    fn what_is_not_json_says_why() {
        for text in [&b"{"[..], b"[1,]", b"1 2", b"\"\\ud83c\"", b"\"\xff\""] {
            assert!(
                matches!(json_text(text, SMALL), Err(Refusal::Malformed(_))),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn the_real_bounds_let_a_large_text_through_and_stop_a_flood_of_zeros() {
        let text = format!("\"{}\"", "x".repeat(15 << 20));
        assert!(json_text(text.as_bytes(), ANSWER).is_ok());
        let zeros = format!("[{}0]", "0,".repeat(4 << 20));
        assert!(matches!(
            json_text(zeros.as_bytes(), ANSWER),
            Err(Refusal::TooCostly { .. })
        ));
    }
}
