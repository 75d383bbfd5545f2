//! Just enough of a JSON-RPC message to answer it, read from a message that
//! cannot be read whole: its `id` and whether it has a `method`, every other
//! value passed over without being kept (and its strings unchecked, as they
//! may be what was wrong). Reading `[0,0,…]` this way costs no memory.

use rmcp::model::RequestId;
use serde::Deserialize;
use serde::de::IgnoredAny;

#[derive(Deserialize)]
pub(crate) struct Envelope {
    #[serde(default)]
    pub id: Option<RequestId>,
    #[serde(default)]
    method: Option<IgnoredAny>,
}

impl Envelope {
    /// The envelope of `text`, when it is a JSON object (serde would read
    /// an array's first two values as the fields).
    pub(crate) fn read(text: &[u8]) -> Option<Self> {
        if !text.trim_ascii_start().starts_with(b"{") {
            return None;
        }
        serde_json::from_slice(text).ok()
    }

    /// Whether the message is a request or a notification (not an answer).
    pub(crate) fn has_method(&self) -> bool {
        self.method.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::Envelope;
    use rmcp::model::RequestId;

    #[test]
    fn reads_the_id_and_the_method_past_any_values() {
        let answer = Envelope::read(br#"{"jsonrpc":"2.0","result":{"z":[0,0,0]},"id":7}"#).unwrap();
        assert_eq!(answer.id, Some(RequestId::Number(7)));
        assert!(!answer.has_method());
        let request = Envelope::read(br#"{"id":"a","method":"ping","params":{}}"#).unwrap();
        assert!(request.has_method());
        assert!(Envelope::read(b"[0,0]").is_none());
        assert!(Envelope::read(b"{\"id\":1,").is_none());
    }
}
