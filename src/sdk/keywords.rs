//! Reading JSON Schema keywords: which ones a schema object has, and what
//! they add up to (an own type, a `null`, a comment's text).

use serde_json::{Map, Value};

use super::text::trim;

/// The keywords of one schema object that rendering reads, found in one pass:
/// a map lookup hashes its key, and most schema objects have only a few keys.
#[derive(Default)]
pub(super) struct Keywords<'a> {
    pub(super) reference: Option<&'a str>,
    pub(super) any_of: Option<&'a [Value]>,
    pub(super) one_of: Option<&'a [Value]>,
    pub(super) all_of: &'a [Value],
    pub(super) constant: Option<&'a Value>,
    pub(super) enumeration: Option<&'a [Value]>,
    /// `type`, when it is a string or an array.
    pub(super) types: Option<&'a Value>,
    pub(super) properties: Option<&'a Map<String, Value>>,
    pub(super) required: &'a [Value],
    pub(super) additional: Option<&'a Value>,
    pub(super) patterns: Option<&'a Map<String, Value>>,
    /// `properties`, `required`, `additionalProperties` or `patternProperties` is present.
    pub(super) object_like: bool,
    pub(super) items: Option<&'a Value>,
    pub(super) prefix_items: Option<&'a Value>,
    pub(super) additional_items: Option<&'a Value>,
    pub(super) min_items: Option<u64>,
    pub(super) max_items: Option<u64>,
    pub(super) nullable: bool,
    description: Option<&'a str>,
    title: Option<&'a str>,
    /// The schema, when it has a keyword renderer writes as a
    /// constraint (a JSDoc tag, a docstring note).
    pub(super) tags: Option<&'a Map<String, Value>>,
}

impl<'a> Keywords<'a> {
    /// `None` for a value that is not a schema object.
    #[inline(always)]
    pub(super) fn of(schema: &'a Value) -> Option<Self> {
        let Value::Object(m) = schema else {
            return None;
        };
        let mut kw = Self::default();
        let slice = |v: &'a Value| v.as_array().map(Vec::as_slice);
        for (key, v) in m {
            // Roughly most frequent first: arms of one length are tried in order.
            match key.as_str() {
                "type" => kw.types = (v.is_string() || v.is_array()).then_some(v),
                "description" => kw.description = v.as_str(),
                "properties" => {
                    kw.object_like = true;
                    kw.properties = v.as_object();
                }
                "required" => {
                    kw.object_like = true;
                    kw.required = slice(v).unwrap_or_default();
                }
                "additionalProperties" => {
                    kw.object_like = true;
                    kw.additional = Some(v);
                }
                "items" => kw.items = Some(v),
                "enum" => kw.enumeration = slice(v),
                "const" => kw.constant = Some(v),
                "oneOf" => kw.one_of = slice(v),
                "anyOf" => kw.any_of = slice(v),
                "allOf" => kw.all_of = slice(v).unwrap_or_default(),
                "$ref" => kw.reference = v.as_str(),
                "minItems" => {
                    kw.min_items = v.as_u64();
                    kw.tags = Some(m);
                }
                "maxItems" => {
                    kw.max_items = v.as_u64();
                    kw.tags = Some(m);
                }
                "minimum" | "maximum" | "default" | "format" | "minLength" | "maxLength"
                | "pattern" | "deprecated" | "uniqueItems" | "exclusiveMinimum"
                | "exclusiveMaximum" | "multipleOf" | "minProperties" | "maxProperties"
                | "examples" => kw.tags = Some(m),
                "nullable" => kw.nullable = v == &Value::Bool(true),
                "title" => kw.title = v.as_str(),
                "patternProperties" => {
                    kw.object_like = true;
                    kw.patterns = v.as_object().filter(|p| !p.is_empty());
                }
                "prefixItems" => kw.prefix_items = Some(v),
                "additionalItems" => kw.additional_items = Some(v),
                _ => {}
            }
        }
        Some(kw)
    }

    /// The description, or else the title.
    pub(super) fn text(&self) -> Option<&'a str> {
        let text = |t: Option<&'a str>| t.map(trim).filter(|t| !t.is_empty());
        text(self.description).or_else(|| text(self.title))
    }

    pub(super) fn array_like(&self) -> bool {
        self.items.is_some() || self.prefix_items.is_some()
    }

    pub(super) fn has_own_type(&self) -> bool {
        self.constant.is_some()
            || self.enumeration.is_some()
            || self.types.is_some()
            || self.object_like
            || self.array_like()
    }

    /// Whether the own type already includes `null` (so `nullable` adds nothing).
    pub(super) fn admits_null(&self) -> bool {
        match (self.constant, self.enumeration, self.types) {
            (Some(c), _, _) => c.is_null(),
            (None, Some(values), _) => values.iter().any(Value::is_null),
            (None, _, Some(Value::String(t))) => t == "null",
            (None, _, Some(Value::Array(ts))) => ts.iter().any(|t| t == "null"),
            _ => false,
        }
    }
}
