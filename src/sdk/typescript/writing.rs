//! TypeScript text for values: identifiers and quoted keys, JSON literals
//! (which are also literal types), and the byte scans the renderer runs over
//! text it copies.

use std::fmt::Write as _;

use serde_json::Value;

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

/// `str::trim`, skipping its Unicode checks when both ends are visible ASCII.
pub(super) fn trim(s: &str) -> &str {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => s,
        _ => s.trim(),
    }
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

/// A JSON string literal (also valid TypeScript); U+2028/2029 escaped too.
pub(super) fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    // No early exit, so the check vectorizes.
    let plain = !bytes.iter().fold(false, |special, &b| {
        special | (b < 0x20) | (b == b'"') | (b == b'\\') | (b == 0xE2)
    });
    if plain {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut from = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        // Every byte matched here starts a character, so `i` is a char boundary.
        let (escape, len) = match b {
            b'"' => ("\\\"", 1),
            b'\\' => ("\\\\", 1),
            b'\n' => ("\\n", 1),
            b'\r' => ("\\r", 1),
            b'\t' => ("\\t", 1),
            0..0x20 => ("", 1),
            0xE2 if bytes.get(i + 1) == Some(&0x80) => match bytes.get(i + 2) {
                Some(0xA8) => ("\\u2028", 3),
                Some(0xA9) => ("\\u2029", 3),
                _ => {
                    i += 1;
                    continue;
                }
            },
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&s[from..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escape);
        }
        i += len;
        from = i;
    }
    out.push_str(&s[from..]);
    out.push('"');
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
