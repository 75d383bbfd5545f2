//! The `$ref` graph of one document: where a local `$ref` points, every
//! `$ref` reachable from one, and whether one reaches another where
//! TypeScript resolves types eagerly.

use serde_json::Value;

use super::{MAX_DEPTH, NULL};

/// Resolves a local `$ref` (`#` or `#/json/pointer`, percent-encoded or not).
pub(super) fn resolve<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    let pointer = r.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    if !pointer.starts_with('/') {
        return None;
    }
    if !pointer.contains('%') {
        return root.pointer(pointer);
    }
    root.pointer(&crate::json::percent_decoded(pointer)?)
}

/// Every `$ref` reachable from `r`, with its target, in a fixed order.
pub(super) fn closure<'a>(root: &'a Value, r: &'a str) -> Vec<(&'a str, &'a Value)> {
    let mut out: Vec<(&'a str, &'a Value)> = Vec::new();
    let mut stack = vec![r];
    while let Some(r) = stack.pop() {
        if out.iter().any(|(seen, _)| *seen == r) {
            continue;
        }
        let target = resolve(root, r).unwrap_or(&NULL);
        out.push((r, target));
        collect_refs(target, &mut stack, 0);
    }
    out
}

fn collect_refs<'a>(schema: &'a Value, out: &mut Vec<&'a str>, depth: u32) {
    // `depth` counts JSON levels: a schema level takes up to three
    // (`properties`, the name, the schema), and rendering stops at MAX_DEPTH.
    if depth > 3 * MAX_DEPTH {
        return;
    }
    match schema {
        Value::Object(m) => {
            for (key, value) in m {
                match (key.as_str(), value) {
                    ("$ref", Value::String(r)) if r.starts_with('#') => out.push(r),
                    ("enum" | "const" | "default" | "examples", _) => {}
                    _ => collect_refs(value, out, depth + 1),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_refs(item, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// Whether `from` refers to `goal` outside any object (and, unless `arrays`,
/// outside any array or tuple).
pub(super) fn reaches(
    root: &Value,
    from: &Value,
    goal: &Value,
    arrays: bool,
    seen: &mut Vec<*const Value>,
    depth: u32,
) -> bool {
    let Value::Object(m) = from else {
        return false;
    };
    if depth > MAX_DEPTH {
        return false;
    }
    for (key, value) in m {
        let next: &[Value] = match (key.as_str(), value) {
            ("$ref", Value::String(r)) => {
                let Some(target) = resolve(root, r) else {
                    continue;
                };
                let key: *const Value = target;
                if std::ptr::eq(target, goal) {
                    return true;
                }
                if seen.contains(&key) {
                    continue;
                }
                seen.push(key);
                std::slice::from_ref(target)
            }
            ("anyOf" | "oneOf" | "allOf", Value::Array(members)) => members,
            ("items" | "prefixItems", Value::Array(members)) if arrays => members,
            ("items" | "prefixItems" | "additionalItems", schema) if arrays => {
                std::slice::from_ref(schema)
            }
            _ => continue,
        };
        if next
            .iter()
            .any(|schema| reaches(root, schema, goal, arrays, seen, depth + 1))
        {
            return true;
        }
    }
    false
}
