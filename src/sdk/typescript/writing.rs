//! TypeScript text for values: identifiers and quoted keys, JSON literals
//! (which are also literal types), and the byte scans the renderer runs over
//! text it copies.

use std::fmt::Write as _;

use serde_json::Value;

pub(super) use crate::sdk::text::{push_json_str, trim};

/// JSON literals (enum values, defaults) nested deeper than this are cut to `unknown`.
const MAX_JSON_DEPTH: u32 = 64;

/// Whether `bytes` contains `a` or `b`, eight bytes at a time.
pub(super) fn has_either_byte(bytes: &[u8], a: u8, b: u8) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // `(x - ONES) & !x & HIGHS` is non-zero exactly when some byte of `x` is zero.
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let (words, rest) = bytes.as_chunks::<8>();
    let found = words.iter().fold(0, |found, word| {
        let w = u64::from_ne_bytes(*word);
        found | zero_byte(w ^ (ONES * u64::from(a))) | zero_byte(w ^ (ONES * u64::from(b)))
    });
    found != 0 || rest.iter().any(|&c| c == a || c == b)
}

/// An ASCII JavaScript identifier (reserved words are fine as member names).
pub(super) fn is_ident(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && !b[0].is_ascii_digit()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$')
}

pub(super) fn push_key(out: &mut String, name: &str) {
    if is_ident(name) {
        out.push_str(name);
    } else {
        push_json_str(out, name);
    }
}

/// Compact JSON, which is also a valid TypeScript type for a literal value.
pub(super) fn push_json(out: &mut String, value: &Value, depth: u32) {
    if depth > MAX_JSON_DEPTH {
        out.push_str("unknown");
        return;
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => push_number(out, n),
        Value::String(s) => push_json_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json(out, item, depth + 1);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (key, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json_str(out, key);
                out.push(':');
                push_json(out, item, depth + 1);
            }
            out.push('}');
        }
    }
}

/// A JSON number as JSON writes it; integers without going through `fmt`.
fn push_number(out: &mut String, n: &serde_json::Number) {
    let mut digits = itoa::Buffer::new();
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => out.push_str(digits.format(u)),
        (None, Some(i)) => out.push_str(digits.format(i)),
        (None, None) => {
            let _ = write!(out, "{n}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_search_finds_either_byte_anywhere() {
        let text = "0123456789abcdefghij";
        for i in 0..text.len() {
            let mut bytes = text.as_bytes().to_vec();
            assert!(!has_either_byte(&bytes, b'/', b'\n'));
            bytes[i] = b'/';
            assert!(has_either_byte(&bytes, b'/', b'\n'), "/ at {i}");
            bytes[i] = b'\n';
            assert!(has_either_byte(&bytes, b'/', b'\n'), "newline at {i}");
        }
        assert!(!has_either_byte(b"", b'/', b'\n'));
        assert!(!has_either_byte("é/".as_bytes()[..2].as_ref(), b'/', b'\n'));
    }
}
