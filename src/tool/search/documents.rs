//! What search knows of one tool: its weighted terms, analysed once per
//! registered tool and shared by the index of every registry version that
//! holds it, so a version after adding or removing tools analyses only the
//! new ones.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use serde_json::Value;

use super::words::terms;
use crate::tool::definition::ToolDefinition;
use crate::tool::registered::{RegisteredTool, ToolMap};

/// A term of the name counts as this many of the text's.
const NAME_WEIGHT: f64 = 3.0;

/// One tool as search sees it.
pub(super) struct Document {
    pub(super) name: String,
    pub(super) summary: String,
    /// The sum of the weights: the document's length for BM25.
    pub(super) length: f64,
    /// Each term with its weighted frequency, sorted by term, so postings
    /// (and float sums) do not depend on hashing.
    pub(super) weights: Vec<(String, f64)>,
}

impl Document {
    /// Analyses one tool: the terms of its name, descriptions and parameters.
    pub(super) fn of(tool: &ToolDefinition) -> Self {
        let mut weights: HashMap<String, f64> = HashMap::new();
        for term in terms(&tool.name) {
            *weights.entry(term).or_default() += NAME_WEIGHT;
        }
        let mut text = String::new();
        text.push_str(tool.description.as_deref().unwrap_or(""));
        text.push(' ');
        text.push_str(tool.summary.as_deref().unwrap_or(""));
        text.push(' ');
        parameter_text(&tool.parameters, &mut text);
        for term in terms(&text) {
            *weights.entry(term).or_default() += 1.0;
        }
        let mut weights: Vec<(String, f64)> = weights.into_iter().collect();
        weights.sort_by(|a, b| a.0.cmp(&b.0));
        Document {
            name: tool.name.clone(),
            summary: summary_of(tool),
            length: weights.iter().map(|(_, w)| w).sum(),
            weights,
        }
    }
}

/// Documents of registered tools, by the tool's address; the `Weak` keeps
/// the allocation, so an address names one tool while its entry is here.
type Documents = HashMap<usize, (Weak<RegisteredTool>, Arc<Document>)>;
static DOCUMENTS: Mutex<Option<Documents>> = Mutex::new(None);

/// The documents of `tools`, in order: analysed now for tools no earlier
/// version held, reused for the rest. Entries of dropped tools are pruned.
pub(super) fn of_tools(tools: &ToolMap) -> Vec<Arc<Document>> {
    let mut guard = DOCUMENTS.lock().unwrap_or_else(PoisonError::into_inner);
    let cache = guard.get_or_insert_with(HashMap::new);
    cache.retain(|_, (tool, _)| tool.strong_count() > 0);
    tools
        .values()
        .map(|tool| {
            let key = Arc::as_ptr(tool) as usize;
            match cache.get(&key) {
                // The same allocation, alive: this very tool.
                Some((known, document)) if known.strong_count() > 0 => Arc::clone(document),
                _ => {
                    let document = Arc::new(Document::of(&tool.definition));
                    cache.insert(key, (Arc::downgrade(tool), Arc::clone(&document)));
                    document
                }
            }
        })
        .collect()
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
