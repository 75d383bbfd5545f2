//! `search_tools` and `describe_tools` in Python (contracts §6): host
//! functions the program calls without `await`, answered at once from the
//! SDK's search index and renderer, with the bounds of TypeScript's
//! `tools.$search` and `tools.$describe`.

use monty_pool::ResumeValue;
use monty_types::unstable::{self, MontyNode};
use monty_types::{CallArgs, ExcType, MontyException, MontyObject, ObjectRef};

use super::convert;
use crate::contract::run_code::Language;
use crate::engine::discovery::{
    DEFAULT_LIMIT, MAX_DESCRIBED, MAX_LIMIT, MAX_NAME_CHARS, MAX_QUERY_CHARS,
};
use crate::sdk::describe::describe;
use crate::tool::registry::Scope;

/// `_ptc_search(query, limit)`, behind `search_tools`.
pub(super) const SEARCH: &str = "_ptc_search";
/// `_ptc_describe(names)`, behind `describe_tools`.
pub(super) const DESCRIBE: &str = "_ptc_describe";

/// What the run's prelude defines with them: the functions of the stubs.
pub(super) const PRELUDE: &str = "\
def search_tools(query, *, limit=10):
    return _ptc_search(query, limit)
def describe_tools(names):
    return _ptc_describe(names)
";

/// The answer to a call of [`SEARCH`] or [`DESCRIBE`].
pub(super) fn answer(scope: &Scope, function: &str, args: &CallArgs) -> ResumeValue {
    let answered = match function {
        SEARCH => search_tools(scope, args),
        _ => describe_tools(scope, args),
    };
    match answered {
        Ok(value) => ResumeValue::Return(value),
        Err(message) => ResumeValue::Error(MontyException::new(ExcType::TypeError, Some(message))),
    }
}

fn search_tools(scope: &Scope, args: &CallArgs) -> Result<MontyObject, String> {
    let Some(query) = args.arg(0).and_then(|q| q.as_str()) else {
        return Err("search_tools: the query must be a str".into());
    };
    let limit = match args.arg(1) {
        None => DEFAULT_LIMIT,
        Some(limit) => match limit.type_name() {
            "NoneType" => DEFAULT_LIMIT,
            "int" | "float" => number(limit).clamp(1.0, MAX_LIMIT).floor() as u32,
            _ => return Err("search_tools: limit must be a number".into()),
        },
    };
    let query: String = query.chars().take(MAX_QUERY_CHARS).collect();
    let found = scope.search(&query, limit);
    Ok(convert::to_monty(
        &serde_json::to_value(found).unwrap_or_default(),
    ))
}

/// An int or float as f64 (a big int as the largest limit; NaN as the least).
fn number(value: ObjectRef<'_>) -> f64 {
    let n = value
        .as_int()
        .map(|i| i as f64)
        .or_else(|| value.as_float())
        .unwrap_or(MAX_LIMIT);
    if n.is_nan() { 1.0 } else { n }
}

fn describe_tools(scope: &Scope, args: &CallArgs) -> Result<MontyObject, String> {
    let Some(names) = args.arg(0) else {
        return Err("describe_tools: names must be a str or a list of str".into());
    };
    let names = match names.type_name() {
        "str" => vec![name(names.as_str().unwrap_or_default())],
        "list" | "tuple" => {
            // Counted before anything is copied: a list of millions of
            // names costs nothing to refuse.
            let count = match unstable::node(names) {
                MontyNode::List(ids) | MontyNode::Tuple(ids) => ids.len(),
                _ => 0,
            };
            if count > MAX_DESCRIBED {
                return Err(format!(
                    "describe_tools: at most {MAX_DESCRIBED} names at once"
                ));
            }
            let items = names.items().unwrap_or_default();
            let mut list = Vec::with_capacity(items.len());
            for item in items {
                let Some(text) = item.as_str() else {
                    return Err("describe_tools: every name must be a str".into());
                };
                list.push(name(text));
            }
            list
        }
        _ => return Err("describe_tools: names must be a str or a list of str".into()),
    };
    let text = describe(scope, &names, Language::Python);
    Ok(MontyObject::string(text.as_str()))
}

/// A name as given, or, past the longest tool name, its length.
fn name(text: &str) -> String {
    match text.chars().count() {
        n if n > MAX_NAME_CHARS => format!("(a name of {n} characters)"),
        _ => text.to_owned(),
    }
}
