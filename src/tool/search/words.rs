//! The words search compares: text split into lowercase words at every
//! naming style, common English words dropped, the rest reduced to their
//! stems (Snowball English: `files` and `file`, `replaces` and `replace`
//! meet), and a query widened with the words tools often use for the same
//! thing (`folder` also asks for `directory`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

/// How much a related word counts against a word of the query itself.
pub(crate) const RELATED_WEIGHT: f64 = 0.5;

/// Words too common to tell tools apart.
const STOPWORDS: &[&str] = &[
    "a", "about", "all", "am", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do",
    "does", "for", "from", "how", "i", "in", "into", "is", "it", "its", "me", "my", "of", "on",
    "or", "our", "please", "some", "that", "the", "their", "them", "these", "this", "those", "to",
    "us", "was", "we", "what", "when", "where", "which", "who", "will", "with", "you", "your",
];

/// Words that name one action or thing in tool descriptions. A query word
/// in a group also asks, at [`RELATED_WEIGHT`], for the group's other words.
const RELATED: &[&[&str]] = &[
    &["create", "make", "new", "add", "open", "start"],
    &["add", "append", "insert"],
    &["read", "get", "show", "view", "fetch", "retrieve", "open"],
    &["write", "save", "store"],
    &["edit", "modify", "change", "update", "replace"],
    &["delete", "remove", "forget", "erase", "drop"],
    &["search", "find", "look", "lookup", "query"],
    &["list", "enumerate"],
    &["move", "rename"],
    &["directory", "folder", "dir"],
    &["user", "person", "people", "member", "account", "everyone"],
    &["issue", "bug", "ticket"],
    &["comment", "reply"],
    &["repository", "repo"],
    &["connect", "link", "relation"],
    &["remember", "observation", "memory"],
];

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

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Words stemmed lately on this thread: tool texts repeat their words, and
/// stemming is most of an index build. Cleared when full.
const REMEMBERED_STEMS: usize = 1 << 14;
/// Longer words are stemmed each time, not remembered: the memo outlives
/// the run, and a program's `$search` queries (1,024 characters of new
/// words each) would otherwise fill it with megabytes it never reuses.
const REMEMBERED_WORD_BYTES: usize = 40;

thread_local! {
    static STEMS: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
}

/// The bytes the words and stems remembered on this thread hold.
#[cfg(test)]
pub(crate) fn remembered_bytes() -> usize {
    STEMS.with_borrow(|memo| memo.iter().map(|(w, s)| w.len() + s.len()).sum())
}

fn stem(word: String) -> String {
    if word.len() > REMEMBERED_WORD_BYTES {
        return stemmer().stem(&word).into_owned();
    }
    STEMS.with_borrow_mut(|memo| {
        if let Some(stem) = memo.get(&word) {
            return stem.clone();
        }
        let stem = stemmer().stem(&word).into_owned();
        if memo.len() >= REMEMBERED_STEMS {
            memo.clear();
        }
        memo.insert(word, stem.clone());
        stem
    })
}

/// The terms of `text`: its words without [`STOPWORDS`], stemmed.
pub(crate) fn terms(text: &str) -> Vec<String> {
    tokenize(text)
        .into_iter()
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .map(stem)
        .collect()
}

/// Each stem of [`RELATED`] with the stems related to it.
fn related() -> &'static HashMap<String, Vec<String>> {
    static RELATED_STEMS: OnceLock<HashMap<String, Vec<String>>> = OnceLock::new();
    RELATED_STEMS.get_or_init(|| {
        let mut map: HashMap<String, Vec<String>> = HashMap::new();
        for group in RELATED {
            let stems: Vec<String> = group
                .iter()
                .map(|w| stemmer().stem(w).into_owned())
                .collect();
            for stem in &stems {
                let entry = map.entry(stem.clone()).or_default();
                for other in stems.iter().filter(|o| *o != stem) {
                    if !entry.contains(other) {
                        entry.push(other.clone());
                    }
                }
            }
        }
        map
    })
}

/// The weighted terms of a query, sorted: its own terms at 1, the terms
/// related to them at [`RELATED_WEIGHT`] (unless the query has them too).
pub(crate) fn query_terms(query: &str) -> Vec<(String, f64)> {
    let own = terms(query);
    let mut weighted: HashMap<String, f64> = own.iter().map(|t| (t.clone(), 1.0)).collect();
    for term in &own {
        for other in related().get(term).into_iter().flatten() {
            weighted.entry(other.clone()).or_insert(RELATED_WEIGHT);
        }
    }
    let mut out: Vec<(String, f64)> = weighted.into_iter().collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}
