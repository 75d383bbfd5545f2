//! Discovery inside the program (contracts §5): `tools.$search` ranks the
//! visible tools for a query with BM25, `tools.$describe` renders the
//! declarations of named ones. The index is built once per registry
//! version and shared; visibility is applied at query time, and the
//! statistics are taken over the visible tools only, so a hidden tool
//! changes neither the results nor their scores.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use serde::Serialize;
use serde_json::Value;

use super::typescript;
use crate::tool::definition::{ToolDefinition, is_valid_tool_name};
use crate::tool::registry::{Scope, ToolMap};

/// BM25's term-frequency saturation and length normalisation.
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// A token of the name counts as this many of the text's.
const NAME_WEIGHT: f64 = 3.0;
/// The most tools one `$search` returns.
pub(crate) const MAX_LIMIT: u32 = 50;

/// One tool found by `$search`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Found {
    pub(crate) name: String,
    pub(crate) summary: String,
    pub(crate) score: f64,
}

/// The tools of one registry version, tokenised: per tool its weighted
/// length, per token the tools it occurs in with its weighted frequency.
pub(crate) struct SearchIndex {
    names: Vec<String>,
    summaries: Vec<String>,
    lengths: Vec<f64>,
    postings: HashMap<String, Vec<(u32, f64)>>,
}

/// Lowercase words of `text`: split at anything not alphanumeric (so
/// `snake_case`, `kebab-case` and dotted names), and at camelCase humps
/// (`HTTPServer` → http, server).
pub(crate) fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        let chars: Vec<char> = word.chars().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (prev, here) = (chars[i - 1], chars[i]);
            let next_lower = chars.get(i + 1).is_some_and(|c| c.is_lowercase());
            let hump = here.is_uppercase() && (prev.is_lowercase() || prev.is_numeric());
            let acronym_end = here.is_uppercase() && prev.is_uppercase() && next_lower;
            if hump || acronym_end {
                out.push(chars[start..i].iter().collect::<String>().to_lowercase());
                start = i;
            }
        }
        if start < chars.len() {
            out.push(chars[start..].iter().collect::<String>().to_lowercase());
        }
    }
    out
}

/// The one-line summary of a tool: the first line of what the SDK shows
/// (summary over description), cut after its first sentence.
pub(crate) fn summary_of(definition: &ToolDefinition) -> String {
    let text = definition.advertised_description().unwrap_or("").trim();
    let line = text.lines().next().unwrap_or("").trim();
    match line.find(". ") {
        Some(end) => line[..=end].to_owned(),
        None => line.to_owned(),
    }
}

/// The words of a tool's parameters: each top-level property's name and
/// description, and the parameters' own description.
fn parameter_text(parameters: &Value, out: &mut String) {
    if let Some(d) = parameters.get("description").and_then(Value::as_str) {
        out.push_str(d);
        out.push(' ');
    }
    let properties = parameters.get("properties").and_then(Value::as_object);
    for (name, schema) in properties.into_iter().flatten() {
        out.push_str(name);
        out.push(' ');
        if let Some(d) = schema.get("description").and_then(Value::as_str) {
            out.push_str(d);
            out.push(' ');
        }
    }
}

impl SearchIndex {
    /// Indexes these tools, in this order.
    pub(crate) fn build<'a>(tools: impl IntoIterator<Item = &'a ToolDefinition>) -> Self {
        let mut index = SearchIndex {
            names: Vec::new(),
            summaries: Vec::new(),
            lengths: Vec::new(),
            postings: HashMap::new(),
        };
        for (n, tool) in tools.into_iter().enumerate() {
            let mut weights: HashMap<String, f64> = HashMap::new();
            for token in tokenize(&tool.name) {
                *weights.entry(token).or_default() += NAME_WEIGHT;
            }
            let mut text = String::new();
            text.push_str(tool.description.as_deref().unwrap_or(""));
            text.push(' ');
            text.push_str(tool.summary.as_deref().unwrap_or(""));
            text.push(' ');
            parameter_text(&tool.parameters, &mut text);
            for token in tokenize(&text) {
                *weights.entry(token).or_default() += 1.0;
            }
            index.names.push(tool.name.clone());
            index.summaries.push(summary_of(tool));
            index.lengths.push(weights.values().sum());
            // Sorted, so postings (and float sums) do not depend on hashing.
            let mut weights: Vec<_> = weights.into_iter().collect();
            weights.sort_by(|a, b| a.0.cmp(&b.0));
            for (token, weight) in weights {
                index
                    .postings
                    .entry(token)
                    .or_default()
                    .push((n as u32, weight));
            }
        }
        index
    }

    /// The best `limit` of the tools `visible` admits for `query`, best
    /// first; ties keep registration order. No words, or no match: none.
    pub(crate) fn search(&self, query: &str, limit: usize, visible: &[bool]) -> Vec<Found> {
        let mut terms = tokenize(query);
        terms.sort();
        terms.dedup();
        let seen = |n: &u32| visible.get(*n as usize).copied().unwrap_or(false);
        let count = visible.iter().filter(|v| **v).count() as f64;
        let total: f64 = (0..self.lengths.len())
            .filter(|n| seen(&(*n as u32)))
            .map(|n| self.lengths[n])
            .sum();
        let average = if count > 0.0 { total / count } else { 1.0 };
        let mut scores: HashMap<u32, f64> = HashMap::new();
        for term in &terms {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let df = list.iter().filter(|(n, _)| seen(n)).count() as f64;
            let idf = (1.0 + (count - df + 0.5) / (df + 0.5)).ln();
            for (n, tf) in list.iter().filter(|(n, _)| seen(n)) {
                let norm = 1.0 - B + B * self.lengths[*n as usize] / average;
                *scores.entry(*n).or_default() += idf * tf * (K1 + 1.0) / (tf + K1 * norm);
            }
        }
        let mut ranked: Vec<(u32, f64)> = scores.into_iter().filter(|(_, s)| *s > 0.0).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(limit);
        ranked
            .into_iter()
            .map(|(n, score)| Found {
                name: self.names[n as usize].clone(),
                summary: self.summaries[n as usize].clone(),
                score: (score * 1000.0).round() / 1000.0,
            })
            .collect()
    }
}

/// Indexes of recent registry versions, keyed by the tool map they were
/// built from. The `Weak` keeps that map's allocation, so its address
/// names one version only while it is here.
static INDEXES: Mutex<Vec<(Weak<ToolMap>, Arc<SearchIndex>)>> = Mutex::new(Vec::new());
const CACHED_INDEXES: usize = 4;

/// The index of `tools`, built on first use and shared afterwards.
fn index_of(tools: &Arc<ToolMap>) -> Arc<SearchIndex> {
    let mut cache = INDEXES.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, index)) = cache
        .iter()
        .find(|(map, _)| std::ptr::eq(map.as_ptr(), Arc::as_ptr(tools)))
    {
        return Arc::clone(index);
    }
    let index = Arc::new(SearchIndex::build(tools.values().map(|t| &t.definition)));
    cache.retain(|(map, _)| map.strong_count() > 0);
    if cache.len() >= CACHED_INDEXES {
        cache.remove(0);
    }
    cache.push((Arc::downgrade(tools), Arc::clone(&index)));
    index
}

/// `tools.$search` in `scope`: `limit` is clamped to 1 … [`MAX_LIMIT`].
pub(crate) fn search(scope: &Scope, query: &str, limit: u32) -> Vec<Found> {
    let limit = limit.clamp(1, MAX_LIMIT) as usize;
    if query.trim().is_empty() {
        return Vec::new();
    }
    let (tools, visible) = scope.visible_snapshot();
    index_of(&tools).search(query, limit, &visible)
}

/// `tools.$describe` in `scope`: the declarations of the visible tools
/// among `names` (in registration order), as the SDK renders them, then
/// `// unknown: …` naming the rest (hidden ones look just as unknown).
pub(crate) fn describe(scope: &Scope, names: &[String]) -> String {
    let (tools, visible) = scope.visible_snapshot();
    let wanted: HashSet<&str> = names.iter().map(String::as_str).collect();
    let shown: Vec<&ToolDefinition> = tools
        .values()
        .zip(&visible)
        .filter(|(t, v)| **v && wanted.contains(t.definition.name.as_str()))
        .map(|(t, _)| &t.definition)
        .collect();
    let mut out = String::new();
    if !shown.is_empty() {
        out = typescript::render_sdk(&shown, ["", "declare const tools: {\n", "};\n"]);
    }
    let known: HashSet<&str> = shown.iter().map(|t| t.name.as_str()).collect();
    let mut unknown: Vec<String> = Vec::new();
    for name in names {
        let known = known.contains(name.as_str());
        // A name that could break the comment is shown quoted.
        let shown_as = if is_valid_tool_name(name) {
            name.clone()
        } else {
            serde_json::to_string(name).unwrap_or_default()
        };
        if !known && !unknown.contains(&shown_as) {
            unknown.push(shown_as);
        }
    }
    if !unknown.is_empty() {
        out.push_str("// unknown: ");
        out.push_str(&unknown.join(", "));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests;
