//! The bounds of program-side discovery, both languages' (`tools.$search`
//! and `tools.$describe`; Python's `search_tools` and `describe_tools`):
//! what the host takes of their arguments.

/// Characters of a query that are used: more says nothing more, and would
/// cost the host work no interrupt reaches.
pub(crate) const MAX_QUERY_CHARS: usize = 1024;
/// Names `$describe` takes at once.
pub(crate) const MAX_DESCRIBED: usize = 256;
/// No tool has a longer name (contracts §2), so a longer one is never
/// copied into the answer.
pub(crate) const MAX_NAME_CHARS: usize = 128;
/// Results of a search without a `limit`, and the most any may ask for.
pub(crate) const DEFAULT_LIMIT: u32 = 10;
pub(crate) const MAX_LIMIT: f64 = 50.0;
