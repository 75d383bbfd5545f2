//! Where a reference can lead: every object and boolean of the schema
//! document, and the names (`$id`s, anchors) that reach them.
//!
//! The validator resolves a reference against a base URI that depends on
//! the draft, on which keywords it walks as subresources, on the `$id`s it
//! honours or ignores (beside a `$ref`, `id` after draft 4), on the last of
//! two equal `$id`s, and on RFC 3986 normalisation. Mirroring that is
//! fragile, and one case missed lets an exponential schema through; so a
//! reference is taken to reach every place it could, whatever its base:
//! - a JSON-pointer fragment, every place the pointer leads to from any
//!   place of the document (indexes read as the validator reads them:
//!   `01` and `+1` are 1);
//! - a `#name` fragment, every anchor of that name: `$anchor`,
//!   `$dynamicAnchor`, and an `$id`'s or `id`'s fragment;
//! - no fragment, every resource (`$id` or `id`) whose last path segment
//!   could be the reference's, the document's root among them;
//! - a json-schema.org URI, a meta-schema: the validator bundles them (see
//!   [`Target::MetaSchema`]).

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

/// What a `$ref`, `$dynamicRef` or `$recursiveRef` can lead to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Target {
    /// Every place a JSON pointer (its segments unescaped and read as the
    /// validator reads indexes) leads to from any place.
    Pointer(Vec<String>),
    /// Every anchor of the name.
    Anchor(String),
    /// Every resource whose id ends in this path segment, and the
    /// [`Target::Directories`]; "" for any resource and the root.
    Resource(String),
    /// The resources whose id ends in "/", "." or "..": where a reference
    /// lands in them depends on how both normalise.
    Directories,
    /// `$recursiveRef`: every `$recursiveAnchor: true`.
    RecursiveAnchors,
    /// A JSON Schema meta-schema. It applies up to [`META_SCHEMA_WEIGHT`]
    /// of its subschemas at the place and itself again on every member and
    /// element, where its `$dynamicRef`s can land on the document's dynamic
    /// anchors (the outermost in scope wins); the document's parts with a
    /// json-schema.org `$id` replace the meta-schema's own.
    MetaSchema,
}

/// The most subschemas a bundled meta-schema (draft 4 to 2020-12) applies
/// at one place: 15 for 2020-12 (its root, seven `allOf` references and
/// the vocabularies they reach), with room to spare.
pub(super) const META_SCHEMA_WEIGHT: u64 = 50;

impl Target {
    /// Where the reference `value` of `keyword` can lead.
    pub(super) fn of(keyword: &str, value: &Value) -> Vec<Self> {
        let Some(reference) = value.as_str() else {
            return Vec::new();
        };
        let (base, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let fragment = percent_decoded(fragment);
        let mut targets = Vec::new();
        if is_meta_schema(base) {
            targets.push(Self::MetaSchema);
        }
        targets.push(match fragment.strip_prefix('/') {
            Some(path) => Self::Pointer(path.split('/').map(pointer_segment).collect()),
            None if fragment.is_empty() => {
                let name = last_segment(base);
                Self::Resource(if is_directory(&name) {
                    String::new()
                } else {
                    name
                })
            }
            None => Self::Anchor(fragment),
        });
        if keyword == "$recursiveRef" {
            targets.push(Self::RecursiveAnchors);
        }
        targets
    }
}

/// Whether a reference can land on `value` or pass through it: an object,
/// an array or a boolean.
fn can_reach(value: &Value) -> bool {
    value.is_object() || value.is_array() || value.is_boolean()
}

/// One object, array or boolean of the document.
struct Place<'a> {
    parent: usize,
    /// Its key in the parent (an index for an array's element).
    key: Cow<'a, str>,
    value: &'a Value,
}

/// The document's places (the root is place 0) and what names them.
pub(super) struct Places<'a> {
    all: Vec<Place<'a>>,
    by_address: HashMap<*const Value, usize>,
    anchors: HashMap<String, Vec<usize>>,
    /// Places with an `$id` or `id`, and the id's last path segment.
    resources: Vec<(usize, String)>,
    recursive_anchors: Vec<usize>,
    /// `$dynamicAnchor`s and `$recursiveAnchor: true`.
    dynamic_anchors: Vec<usize>,
    /// Places whose id is a json-schema.org URI.
    meta_schema_ids: Vec<usize>,
    /// The places each pointer of a reference leads to.
    pointed: HashMap<Vec<String>, Vec<usize>>,
}

impl<'a> Places<'a> {
    pub(super) fn new(root: &'a Value) -> Self {
        let mut places = Self {
            all: Vec::new(),
            by_address: HashMap::new(),
            anchors: HashMap::new(),
            resources: Vec::new(),
            recursive_anchors: Vec::new(),
            dynamic_anchors: Vec::new(),
            meta_schema_ids: Vec::new(),
            pointed: HashMap::new(),
        };
        let mut pointers = Vec::new();
        let mut stack = vec![(0, Cow::Borrowed(""), root)];
        while let Some((parent, key, value)) = stack.pop() {
            let id = places.all.len();
            places.all.push(Place { parent, key, value });
            places.by_address.insert(value, id);
            match value {
                Value::Object(object) => {
                    places.note(id, object, &mut pointers);
                    let children = object.iter().filter(|(_, child)| can_reach(child));
                    for (key, child) in children {
                        stack.push((id, Cow::Borrowed(key.as_str()), child));
                    }
                }
                Value::Array(items) => {
                    let children = items
                        .iter()
                        .enumerate()
                        .filter(|(_, child)| can_reach(child));
                    for (i, child) in children {
                        stack.push((id, Cow::Owned(i.to_string()), child));
                    }
                }
                _ => {}
            }
        }
        places.pointed = places.follow(pointers);
        places
    }

    /// Records what names the place `id`, and the pointers its references
    /// hold.
    fn note(
        &mut self,
        id: usize,
        object: &serde_json::Map<String, Value>,
        pointers: &mut Vec<Vec<String>>,
    ) {
        let text = |key| object.get(key).and_then(Value::as_str);
        // Draft 4 writes `id`; before 2019-09 an id's fragment is a plain
        // anchor (`"$id": "#item"`). Every draft's way counts.
        for uri in ["$id", "id"].into_iter().filter_map(text) {
            let (resource, fragment) = uri.split_once('#').unwrap_or((uri, ""));
            if !resource.is_empty() {
                self.resources.push((id, last_segment(resource)));
                if is_meta_schema(resource) {
                    self.meta_schema_ids.push(id);
                }
            }
            if !fragment.is_empty() {
                self.anchor(percent_decoded(fragment), id);
            }
        }
        if let Some(name) = text("$anchor") {
            self.anchor(name.to_owned(), id);
        }
        if let Some(name) = text("$dynamicAnchor") {
            self.anchor(name.to_owned(), id);
            self.dynamic_anchors.push(id);
        }
        if object.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
            self.recursive_anchors.push(id);
            self.dynamic_anchors.push(id);
        }
        for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
            if let Some(value) = object.get(keyword) {
                for target in Target::of(keyword, value) {
                    if let Target::Pointer(segments) = target {
                        pointers.push(segments);
                    }
                }
            }
        }
    }

    fn anchor(&mut self, name: String, id: usize) {
        self.anchors.entry(name).or_default().push(id);
    }

    /// The places each pointer leads to from any place. The pointers go
    /// into a trie read from their last segment, and every place climbs it
    /// through its ancestors' keys: one step per segment matched, however
    /// many pointers and places there are.
    fn follow(&self, pointers: Vec<Vec<String>>) -> HashMap<Vec<String>, Vec<usize>> {
        let mut trie = Trie::default();
        for segments in pointers {
            trie.insert(segments);
        }
        let mut pointed: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
        for (place, _) in self.all.iter().enumerate().skip(1) {
            let (mut at, mut step) = (place, 0);
            while at != 0 {
                let Some(&next) = trie.children[step].get(&*canonical(&self.all[at].key)) else {
                    break;
                };
                (at, step) = (self.all[at].parent, next);
                if let Some(pointer) = &trie.ends[step] {
                    pointed.entry(pointer.clone()).or_default().push(place);
                }
            }
        }
        pointed
    }

    /// The place of `value`, a part of the document, if it can be a schema.
    pub(super) fn of_value(&self, value: &Value) -> Option<usize> {
        self.by_address.get(&std::ptr::from_ref(value)).copied()
    }

    pub(super) fn value(&self, place: usize) -> &'a Value {
        self.all[place].value
    }

    /// The place as a JSON pointer into the document.
    pub(super) fn pointer(&self, place: usize) -> String {
        let mut keys = Vec::new();
        let mut at = place;
        while at != 0 {
            keys.push(escape(&self.all[at].key));
            at = self.all[at].parent;
        }
        keys.iter().rev().map(|key| format!("/{key}")).collect()
    }

    /// The schemas (objects and booleans) the target can lead to.
    pub(super) fn reached(&self, target: &Target) -> Vec<usize> {
        let found = match target {
            Target::Pointer(segments) => self.pointed.get(segments).cloned().unwrap_or_default(),
            Target::Anchor(name) => self.anchors.get(name).cloned().unwrap_or_default(),
            Target::Resource(name) if name.is_empty() => {
                let mut every: Vec<usize> =
                    self.resources.iter().map(|&(place, _)| place).collect();
                every.push(0);
                every
            }
            Target::Resource(name) => self.resources_where(|last| last == name),
            Target::Directories => self.resources_where(is_directory),
            Target::RecursiveAnchors => self.recursive_anchors.clone(),
            Target::MetaSchema => self.meta_schema_ids.clone(),
        };
        found
            .into_iter()
            .filter(|&place| !self.all[place].value.is_array())
            .collect()
    }

    /// Where a meta-schema's `$dynamicRef`s can land.
    pub(super) fn dynamic_anchors(&self) -> &[usize] {
        &self.dynamic_anchors
    }

    fn resources_where(&self, name: impl Fn(&str) -> bool) -> Vec<usize> {
        let named = self.resources.iter().filter(|(_, last)| name(last));
        named.map(|&(place, _)| place).collect()
    }
}

/// Whether a path segment can normalise into another: "", "." and "..".
fn is_directory(segment: &str) -> bool {
    matches!(segment, "" | "." | "..")
}

/// Pointers stored from their last segment; `ends` marks a whole one.
struct Trie {
    children: Vec<HashMap<String, usize>>,
    ends: Vec<Option<Vec<String>>>,
}

impl Default for Trie {
    fn default() -> Self {
        Self {
            children: vec![HashMap::new()],
            ends: vec![None],
        }
    }
}

impl Trie {
    fn insert(&mut self, segments: Vec<String>) {
        let mut step = 0;
        for segment in segments.iter().rev() {
            step = match self.children[step].get(segment) {
                Some(&next) => next,
                None => {
                    let next = self.children.len();
                    self.children.push(HashMap::new());
                    self.ends.push(None);
                    self.children[step].insert(segment.clone(), next);
                    next
                }
            };
        }
        self.ends[step] = Some(segments);
    }
}

/// Whether a reference's base names a JSON Schema meta-schema.
fn is_meta_schema(base: &str) -> bool {
    let base = base.to_ascii_lowercase();
    base.starts_with("https://json-schema.org/") || base.starts_with("http://json-schema.org/")
}

/// A URI's last path segment, its `%XX` escapes decoded (the validator
/// normalises them).
fn last_segment(uri: &str) -> String {
    let path = uri.split(['?', '#']).next().unwrap_or(uri);
    let path = percent_decoded(path);
    path.rsplit('/').next().unwrap_or(&path).to_owned()
}

/// A JSON pointer's segment as a key: `~1` is `/`, `~0` is `~`.
fn pointer_segment(segment: &str) -> String {
    canonical(&segment.replace("~1", "/").replace("~0", "~")).into_owned()
}

/// A key as the validator matches it against a pointer's segment: one that
/// reads as an index is that index (`01`, `+1` and `1` all are 1).
fn canonical(key: &str) -> Cow<'_, str> {
    match key.parse::<usize>() {
        Ok(index) if index.to_string() != key => Cow::Owned(index.to_string()),
        _ => Cow::Borrowed(key),
    }
}

/// A key as a JSON pointer segment.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A URI part's `%XX` escapes decoded (a `$ref` writes `%25` for `%`); as
/// written where an escape is malformed (the validator refuses such a URI).
fn percent_decoded(text: &str) -> String {
    crate::json::percent_decoded(text).unwrap_or_else(|| text.to_owned())
}
