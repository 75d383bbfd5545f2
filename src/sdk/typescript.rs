//! JSON Schema → TypeScript (contracts §5).
//!
//! One [`Renderer`](render::Renderer) writes every type into one `String`. The mapping:
//!
//! - `type` (also as an array, plus OpenAPI's `nullable`), `const` and `enum`
//!   (JSON literals are valid TypeScript literal types), `anyOf`/`oneOf` as
//!   unions, `allOf` and `$ref` siblings as intersections;
//! - objects as type literals: optional members for properties that are not
//!   `required`, `additionalProperties`/`patternProperties` as an index
//!   signature widened by the named members' types so it stays valid;
//! - arrays as `T[]`, tuples (`prefixItems`, or draft-07 array `items`) with
//!   optional elements past `minItems` and a rest element unless closed;
//! - local `$ref`s as named aliases (declared once, shared between tools when
//!   the whole referenced graph is identical, suffixed when names clash);
//! - descriptions and constraints as JSDoc on the member, or as a leading
//!   comment where there is no member;
//! - anything else (remote `$ref`, `not`, `if`, keyword-only schemas, too deep
//!   nesting) as `unknown`, its description kept.
//!
//! Rendering never fails: every input, even a non-schema, gives valid TypeScript.
//!
//! Its rooms (beside the language-neutral [`keywords`](super::keywords),
//! which reads a schema object, and [`refs`](super::refs), which walks the
//! `$ref` graph): [`aliases`] names the types `$ref`s stand for, [`writing`] quotes
//! names and literals, [`render`] writes types and declarations,
//! [`groups`] heads each server's tools (`<server>.<tool>`) with a comment,
//! and [`parallel`] renders methods ahead on other threads.

mod aliases;
mod groups;
mod parallel;
mod render;
#[cfg(test)]
mod tests;
mod writing;

use serde_json::Value;

use crate::tool::definition::ToolDefinition;
use render::Renderer;
pub(crate) use render::{ASKS_NOTE, ESCALATION_NOTE};

use super::{MAX_DEPTH, NULL};

/// Roughly what one method takes in the SDK (tools1000 averages 1.17 KB).
const BYTES_PER_TOOL: usize = 1280;

/// Renders the SDK for these tools into `frame`: `[head, middle, tail]`
/// around the aliases (`type Name = …;`, in discovery order) and the methods
/// (one per tool, in the given order).
pub(super) fn render_sdk(tools: &[&ToolDefinition], frame: [&str; 3]) -> String {
    render_sdk_with(tools, frame, parallel::workers_for(tools.len()))
}

/// [`render_sdk`] on up to `workers` threads; the bytes do not depend on it.
fn render_sdk_with(tools: &[&ToolDefinition], frame: [&str; 3], workers: usize) -> String {
    let [head, middle, tail] = frame;
    let mut r = Renderer::for_sdk();
    r.out
        .reserve(head.len() + middle.len() + tail.len() + tools.len() * BYTES_PER_TOOL);
    r.out.push_str(head);
    let types_at = r.out.len();
    r.out.push_str(middle);
    r.methods(tools, &groups::group_headers(tools), workers);
    r.out.push_str(tail);
    let mut out = std::mem::take(&mut r.out);
    r.declare_aliases();
    if !r.out.is_empty() {
        out.insert_str(types_at, &r.out);
    }
    out
}

/// One schema as a self-contained type expression: local `$ref`s are expanded
/// in place, a reference back into itself becomes `unknown`.
pub(super) fn expression(schema: &Value) -> String {
    Renderer::expression(schema)
}
