//! Just enough of a JSON-RPC message to answer it when the whole cannot be
//! read: its `id`, and whether it has a `method` (a request) or not (an
//! answer).
//!
//! Keys are read as raw bytes and every other value is passed over
//! unchecked, so a message whose fault is a key or a string that is not
//! valid UTF-8 (`"\ud83c"`, a stray byte) is still tied to its request:
//! the peer gets an error under its id, or ptc's own call fails at once,
//! instead of waiting for a deadline.

use std::fmt;

use rmcp::model::RequestId;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

/// What could be read of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Envelope {
    /// Its `id`, when it has one ptc can answer under.
    pub id: Option<RequestId>,
    /// Whether it has a `method`: a request or a notification.
    pub has_method: bool,
}

/// The envelope of `text`, or nothing when it is not a JSON object (or
/// its `id` is itself unreadable).
pub(crate) fn envelope(text: &[u8]) -> Option<Envelope> {
    let mut reader = serde_json::Deserializer::from_slice(text);
    reader.deserialize_map(EnvelopeVisitor).ok()
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC message")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Envelope, A::Error> {
        let mut envelope = Envelope {
            id: None,
            has_method: false,
        };
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Key::Id => envelope.id = map.next_value_seed(IdSeed)?,
                Key::Method => {
                    map.next_value::<IgnoredAny>()?;
                    envelope.has_method = true;
                }
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(envelope)
    }
}

/// A member's key, compared as bytes (never decoded as text).
enum Key {
    Id,
    Method,
    Other,
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_bytes(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_bytes<E: de::Error>(self, key: &[u8]) -> Result<Key, E> {
        Ok(match key {
            b"id" => Key::Id,
            b"method" => Key::Method,
            _ => Key::Other,
        })
    }
}

/// An `id` ptc can answer under (a string or an integer), or nothing for
/// `null` and values no request id can be.
struct IdSeed;

impl<'de> DeserializeSeed<'de> for IdSeed {
    type Value = Option<RequestId>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for IdSeed {
    type Value = Option<RequestId>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a request id")
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Self::Value, E> {
        Ok(Some(RequestId::Number(n)))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
        Ok(i64::try_from(n).ok().map(RequestId::Number))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, id: &str) -> Result<Self::Value, E> {
        Ok(Some(RequestId::String(id.into())))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::{Envelope, envelope};
    use rmcp::model::RequestId;

    fn request(id: RequestId) -> Option<Envelope> {
        Some(Envelope {
            id: Some(id),
            has_method: true,
        })
    }

    #[test]
    fn a_request_is_read_whatever_its_keys_and_strings_hold() {
        let messages: [&[u8]; 4] = [
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":1}}"#,
            b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\",\"params\":{\"\xff\xfe\":1}}",
            br#"{"\ud83c":0,"jsonrpc":"2.0","method":"x","id":7}"#,
            br#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"s":"\udc00 lone"}}"#,
        ];
        for message in messages {
            assert_eq!(
                envelope(message),
                request(RequestId::Number(7)),
                "{}",
                String::from_utf8_lossy(message)
            );
        }
    }

    #[test]
    fn an_answer_has_no_method() {
        let answer = envelope(b"{\"id\":\"a\",\"result\":{\"\xc3\":[0,0]}}");
        assert_eq!(
            answer,
            Some(Envelope {
                id: Some(RequestId::String("a".into())),
                has_method: false,
            })
        );
    }

    #[test]
    fn ids_no_request_can_have_are_none() {
        for message in [
            r#"{"id":null,"method":"x"}"#,
            r#"{"id":1.5,"method":"x"}"#,
            r#"{"id":[1],"method":"x"}"#,
            r#"{"id":{"a":1},"method":"x"}"#,
            r#"{"id":18446744073709551615,"method":"x"}"#,
            r#"{"method":"x"}"#,
        ] {
            assert_eq!(
                envelope(message.as_bytes()),
                Some(Envelope {
                    id: None,
                    has_method: true,
                }),
                "{message}"
            );
        }
    }

    #[test]
    fn what_is_not_an_object_has_no_envelope() {
        for message in ["[1]", "1", "{\"id\":1", "\"x\"", ""] {
            assert_eq!(envelope(message.as_bytes()), None, "{message}");
        }
    }
}
