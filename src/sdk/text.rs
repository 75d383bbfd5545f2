//! Text both SDKs write: trimmed descriptions and JSON string literals
//! (valid in TypeScript and in Python alike).

use std::fmt::Write as _;

/// `str::trim`, skipping its Unicode checks when both ends are visible ASCII.
pub(crate) fn trim(s: &str) -> &str {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => s,
        _ => s.trim(),
    }
}

/// A JSON string literal (also a valid TypeScript and Python string); U+2028/2029 escaped too.
pub(crate) fn push_json_str(out: &mut String, s: &str) {
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
