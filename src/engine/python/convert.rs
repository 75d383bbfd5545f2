//! Values between JSON (the tools' side) and Monty's objects (the
//! program's side), and how a Python result reads to the model.

use monty_types::{MontyObject, ObjectRef};
use serde_json::{Map, Number, Value as Json};

/// Nesting past this is not plain data (as `convert::MAX_DEPTH` for JavaScript).
const MAX_DEPTH: usize = 256;

/// A JSON value as the program sees it: dicts, lists, str, int, float,
/// bool, None.
pub(super) fn to_monty(value: &Json) -> MontyObject {
    match value {
        Json::Null => MontyObject::none(),
        Json::Bool(b) => MontyObject::bool(*b),
        // Integers beyond i64 arrive as floats, as in JavaScript.
        Json::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => MontyObject::int(i),
            (None, Some(f)) => MontyObject::float(f),
            (None, None) => MontyObject::none(),
        },
        Json::String(s) => MontyObject::string(s.as_str()),
        Json::Array(items) => MontyObject::list(items.iter().map(to_monty)),
        Json::Object(members) => MontyObject::dict(
            members
                .iter()
                .map(|(k, v)| (MontyObject::string(k.as_str()), to_monty(v))),
        ),
    }
}

/// What JSON cannot hold, by the Python type that holds it.
pub(super) struct NotPlain(pub(super) String);

/// A program's value as JSON: dicts with str keys, lists and tuples, str,
/// int, float, bool, None. Anything else names its type.
pub(super) fn to_json(value: ObjectRef<'_>) -> Result<Json, NotPlain> {
    to_json_at(value, 0)
}

fn to_json_at(value: ObjectRef<'_>, depth: usize) -> Result<Json, NotPlain> {
    if depth > MAX_DEPTH {
        return Err(NotPlain(format!("nested deeper than {MAX_DEPTH} levels")));
    }
    match value.type_name() {
        "NoneType" => Ok(Json::Null),
        "bool" => Ok(Json::Bool(value.as_bool().unwrap_or_default())),
        "int" => Ok(match value.as_int() {
            Some(i) => Json::Number(i.into()),
            // A big int: exact as JSON text when it fits serde's numbers.
            None => value
                .py_repr()
                .parse::<Number>()
                .map_or_else(|_| Json::String(value.py_repr()), Json::Number),
        }),
        "float" => value
            .as_float()
            .and_then(Number::from_f64)
            .map(Json::Number)
            .ok_or_else(|| NotPlain(format!("the float {}", value.py_repr()))),
        "str" => Ok(Json::String(value.as_str().unwrap_or_default().to_owned())),
        "list" | "tuple" => value
            .items()
            .unwrap_or_default()
            .into_iter()
            .map(|item| to_json_at(item, depth + 1))
            .collect::<Result<Vec<_>, _>>()
            .map(Json::Array),
        "dict" => {
            let mut members = Map::new();
            for (k, v) in value.pairs().unwrap_or_default() {
                let Some(key) = k.as_str() else {
                    return Err(NotPlain(format!("a dict key of type {}", k.type_name())));
                };
                members.insert(key.to_owned(), to_json_at(v, depth + 1)?);
            }
            Ok(Json::Object(members))
        }
        other => Err(NotPlain(format!("a value of type {other}"))),
    }
}

/// How the result reads to the model (contracts, Python programs): none
/// for `None`, a str as itself, plain data as JSON, anything else as
/// Python's `repr`.
pub(super) fn render(value: &MontyObject) -> Option<String> {
    let value = value.as_ref();
    match value.type_name() {
        "NoneType" => None,
        "str" => Some(value.as_str().unwrap_or_default().to_owned()),
        _ => Some(match to_json(value) {
            Ok(json) => json.to_string(),
            Err(_) => value.py_repr(),
        }),
    }
}
