//! JSON values in words, for messages that say what was given instead;
//! and the id of a message that cannot be read whole (`envelope`). What a
//! JSON text costs before it is parsed is the gate's ([`crate::gate`]).

pub(crate) mod envelope;

use serde_json::Value;

/// A value's JSON type as a message says it: `a string`, `an array`, `null`.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A URI part with its `%XX` escapes decoded; `None` where an escape is
/// malformed or the bytes are not UTF-8.
pub(crate) fn percent_decoded(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::json_type;
    use serde_json::json;

    #[test]
    fn every_type_has_its_article() {
        let said: Vec<_> = [
            json!(null),
            json!(true),
            json!(1.5),
            json!("x"),
            json!([]),
            json!({}),
        ]
        .iter()
        .map(json_type)
        .collect();
        assert_eq!(
            said,
            [
                "null",
                "a boolean",
                "a number",
                "a string",
                "an array",
                "an object"
            ]
        );
    }
}
