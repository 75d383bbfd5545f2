//! Finding tools by words and by name: `tools.$search` (contracts §5)
//! ranks the visible tools for a query with BM25, and an unknown name's
//! message names the `nearest` visible tools (contracts §3). The index is
//! built once per registry version and shared; each tool is analysed once
//! (`documents`), so a new version re-analyses only the tools it adds. Visibility is applied at
//! query time, and the statistics are taken over the visible tools only,
//! so a hidden tool changes neither the results nor their scores.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use serde::Serialize;

use super::definition::ToolDefinition;
use super::registered::ToolMap;
use documents::Document;
pub(crate) use documents::summary_of;
use words::query_terms;

/// BM25's term-frequency saturation and length normalisation.
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// The most tools one `$search` returns.
pub(crate) const MAX_LIMIT: u32 = 50;

/// One tool found by `$search`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Found {
    pub(crate) name: String,
    pub(crate) summary: String,
    pub(crate) score: f64,
}

/// The tools of one registry version: their documents, and per term the
/// tools it occurs in with its weighted frequency.
pub(crate) struct SearchIndex {
    documents: Vec<Arc<Document>>,
    postings: HashMap<String, Vec<(u32, f64)>>,
}

impl SearchIndex {
    /// Indexes these tools, in this order.
    pub(crate) fn build(tools: &[ToolDefinition]) -> Self {
        Self::of(tools.iter().map(|t| Arc::new(Document::of(t))).collect())
    }

    /// The index of these documents, in this order.
    fn of(documents: Vec<Arc<Document>>) -> Self {
        let mut postings: HashMap<String, Vec<(u32, f64)>> = HashMap::new();
        for (n, document) in documents.iter().enumerate() {
            for (term, weight) in &document.weights {
                postings
                    .entry(term.clone())
                    .or_default()
                    .push((n as u32, *weight));
            }
        }
        SearchIndex {
            documents,
            postings,
        }
    }

    /// How many distinct terms the index holds.
    pub(crate) fn terms(&self) -> usize {
        self.postings.len()
    }

    /// The best `limit` of the tools `visible` admits for `query`, best
    /// first; ties keep registration order. No words, or no match: none.
    pub(crate) fn search(&self, query: &str, limit: usize, visible: &[bool]) -> Vec<Found> {
        let terms = query_terms(query);
        let seen = |n: &u32| visible.get(*n as usize).copied().unwrap_or(false);
        let count = visible.iter().filter(|v| **v).count() as f64;
        let total: f64 = (self.documents.iter().enumerate())
            .filter(|(n, _)| seen(&(*n as u32)))
            .map(|(_, d)| d.length)
            .sum();
        let average = if count > 0.0 { total / count } else { 1.0 };
        let mut scores: HashMap<u32, f64> = HashMap::new();
        for (term, weight) in &terms {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let df = list.iter().filter(|(n, _)| seen(n)).count() as f64;
            let idf = weight * (1.0 + (count - df + 0.5) / (df + 0.5)).ln();
            for (n, tf) in list.iter().filter(|(n, _)| seen(n)) {
                let norm = 1.0 - B + B * self.documents[*n as usize].length / average;
                *scores.entry(*n).or_default() += idf * tf * (K1 + 1.0) / (tf + K1 * norm);
            }
        }
        let mut ranked: Vec<(u32, f64)> = scores.into_iter().filter(|(_, s)| *s > 0.0).collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(limit);
        ranked
            .into_iter()
            .map(|(n, score)| Found {
                name: self.documents[n as usize].name.clone(),
                summary: self.documents[n as usize].summary.clone(),
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
    let index = Arc::new(SearchIndex::of(documents::of_tools(tools)));
    cache.retain(|(map, _)| map.strong_count() > 0);
    if cache.len() >= CACHED_INDEXES {
        cache.remove(0);
    }
    cache.push((Arc::downgrade(tools), Arc::clone(&index)));
    index
}

/// The index a registry version of `tools` would build now, bypassing the
/// cache of indexes (the analysed tools are still reused): for benchmarks.
pub(crate) fn rebuild(tools: &ToolMap) -> SearchIndex {
    SearchIndex::of(documents::of_tools(tools))
}

/// `tools.$search` among `tools` (those `visible`): `limit` is clamped to
/// 1 … [`MAX_LIMIT`].
pub(crate) fn search(
    tools: &Arc<ToolMap>,
    visible: &[bool],
    query: &str,
    limit: u32,
) -> Vec<Found> {
    let limit = limit.clamp(1, MAX_LIMIT) as usize;
    if query.trim().is_empty() {
        return Vec::new();
    }
    index_of(tools).search(query, limit, visible)
}

/// How many names an unknown tool's message suggests at most.
const NEAREST: usize = 3;

/// The visible tools nearest to `name`, a name no visible tool has: first
/// those within a few edits of it (case, `_`, `-` and `.` ignored, and the
/// part after a server prefix compared too), closest first, then what
/// `$search` finds for it; at most three. Hidden tools (not `visible`)
/// are never named.
pub(crate) fn nearest(tools: &Arc<ToolMap>, visible: &[bool], name: &str) -> Vec<String> {
    // No tool's name is longer (and the edit distance takes their product).
    if name.chars().count() > 128 {
        return Vec::new();
    }
    let wanted = squash(name);
    let mut close: Vec<(usize, usize, &str)> = tools
        .values()
        .zip(visible)
        .filter(|(_, v)| **v)
        .enumerate()
        .filter_map(|(order, (tool, _))| {
            let candidate = tool.definition.name.as_str();
            let bare = candidate.rsplit_once('.').map_or(candidate, |(_, b)| b);
            let distance = [candidate, bare]
                .into_iter()
                .map(|c| strsim::damerau_levenshtein(&wanted, &squash(c)))
                .min()?;
            // A third of the name may be wrong, and never less than two edits.
            (distance <= (wanted.chars().count() / 3).max(2))
                .then_some((distance, order, candidate))
        })
        .collect();
    close.sort_unstable();
    let mut names: Vec<String> = close
        .into_iter()
        .take(NEAREST)
        .map(|(_, _, n)| n.to_owned())
        .collect();
    if names.len() < NEAREST {
        for found in index_of(tools).search(name, NEAREST, visible) {
            if names.len() < NEAREST && !names.contains(&found.name) {
                names.push(found.name);
            }
        }
    }
    // A tool its own description calls deprecated is named last, so the
    // model reaches for its replacement first (stable: the order otherwise).
    names.sort_by_key(|n| tools.get(n).is_some_and(|t| is_deprecated(&t.definition)));
    names
}

/// Whether a tool's description calls it deprecated (MCP has no field for
/// it; servers write it there: "DEPRECATED: Use read_text_file instead").
fn is_deprecated(tool: &ToolDefinition) -> bool {
    tool.description
        .as_deref()
        .is_some_and(|d| words::tokenize(d).iter().any(|w| w == "deprecated"))
}

/// A name lowercased, without `_`, `-` and `.`: `readFile` meets `read_file`.
fn squash(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

mod documents;
#[cfg(test)]
mod tests;
mod words;
