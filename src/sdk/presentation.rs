//! What the model sees for a scope and mode (contracts §4): the tool
//! schemas and the SDK text, byte-identical for the same tools and config.

use std::sync::{Arc, Mutex, PoisonError};

use super::forms::run_code_text;
use super::typescript::{ASKS_NOTE, ESCALATION_NOTE};
use super::{SdkOptions, render_in, run_code_parameters};
use crate::contract::presentation::{Mode, Presentation, PresentedTool};
use crate::contract::run_code::Language;
use crate::tool::definition::{Policy, ToolDefinition};

use crate::contract::run_code::RUN_CODE;

/// Identifies a set of definitions: the registry's generation (bumped on
/// every change) and which of its tools are visible, in order.
pub(crate) type CacheKey = (u64, Vec<bool>);

/// A rendered SDK's: its definitions and its language.
type SdkKey = (CacheKey, Language);

/// Caches rendered SDKs, so repeated presentations of an unchanged registry
/// do no rendering work.
#[derive(Default)]
pub(crate) struct SdkCache {
    /// The SDKs of recent sets of definitions, each in one language.
    entries: Mutex<Vec<(SdkKey, Arc<str>)>>,
}

const CACHE_ENTRIES: usize = 8;

impl SdkCache {
    fn declarations(&self, key: SdkKey, tools: &[&ToolDefinition]) -> Arc<str> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(i) = entries.iter().position(|(k, _)| *k == key) {
            let hit = entries.remove(i);
            let sdk = Arc::clone(&hit.1);
            entries.push(hit);
            return sdk;
        }
        let sdk: Arc<str> = render_in(key.1, tools).into();
        if entries.len() == CACHE_ENTRIES {
            entries.remove(0);
        }
        entries.push((key, Arc::clone(&sdk)));
        sdk
    }
}

pub(crate) fn present(
    cache: &SdkCache,
    key: CacheKey,
    tools: &[&ToolDefinition],
    mode: Mode,
    options: &SdkOptions,
) -> Presentation {
    let sdk = cache.declarations((key, options.language), tools);
    let mut presented = Vec::new();
    if mode.offers_tools() {
        presented.extend(
            tools
                .iter()
                .filter(|t| mode.offers(t.escalation_only))
                .map(|t| PresentedTool {
                    name: t.name.clone(),
                    description: native_description(t),
                    parameters: t.parameters.clone(),
                }),
        );
    }
    if mode.offers_run_code() {
        presented.push(PresentedTool {
            name: RUN_CODE.into(),
            description: Some(run_code_text(tools, &sdk, options)),
            parameters: run_code_parameters(options),
        });
    }
    Presentation {
        tools: presented,
        sdk,
    }
}

/// A tool's description as the model sees it natively, ending with the
/// notes its declaration has: how to reach an escalation-only one (shown
/// only beside run_code), and that each call of an `ask` one is approved
/// first, so the model can tell its user a prompt is coming.
fn native_description(tool: &ToolDefinition) -> Option<String> {
    let description = tool.advertised_description();
    let notes: Vec<&str> = [
        tool.escalation_only.then_some(ESCALATION_NOTE),
        (tool.policy == Policy::Ask).then_some(ASKS_NOTE),
    ]
    .into_iter()
    .flatten()
    .collect();
    if notes.is_empty() {
        return description.map(str::to_owned);
    }
    let notes = notes.join("\n");
    Some(match description {
        Some(text) => format!("{}\n{notes}", text.trim_end()),
        None => notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refs(defs: &[ToolDefinition]) -> Vec<&ToolDefinition> {
        defs.iter().collect()
    }

    fn defs() -> Vec<ToolDefinition> {
        vec![
            ToolDefinition::new("a")
                .description("long a")
                .summary("short a"),
            ToolDefinition::new("b").parameters(
                json!({ "type": "object", "properties": { "x": { "type": "string" } } }),
            ),
        ]
    }

    #[test]
    fn modes_choose_what_is_shown() {
        let cache = SdkCache::default();
        let o = SdkOptions::default();
        let names = |m| {
            present(&cache, (0, vec![]), &refs(&defs()), m, &o)
                .tools
                .into_iter()
                .map(|t| t.name)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(Mode::Native), ["a", "b"]);
        assert_eq!(names(Mode::Ptc), ["run_code"]);
        assert_eq!(names(Mode::Both), ["a", "b", "run_code"]);
        let p = present(&cache, (0, vec![]), &refs(&defs()), Mode::Native, &o);
        assert_eq!(p.tools[0].description.as_deref(), Some("short a"));
    }

    #[test]
    fn escalation_only_tools_are_noted_beside_run_code_and_left_out_without_it() {
        let cache = SdkCache::default();
        let o = SdkOptions::default();
        let mut defs = defs();
        defs[0] = defs[0].clone().escalation_only(true);
        let native = present(&cache, (0, vec![]), &refs(&defs), Mode::Native, &o);
        let names: Vec<&str> = native.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["b"]);
        let both = present(&cache, (0, vec![]), &refs(&defs), Mode::Both, &o);
        assert_eq!(
            both.tools[0].description.as_deref(),
            Some(format!("short a\n{ESCALATION_NOTE}").as_str())
        );
        assert_eq!(both.tools[1].description, None, "others unchanged");
    }

    #[test]
    fn ask_tools_say_so_natively_too() {
        let cache = SdkCache::default();
        let o = SdkOptions::default();
        let mut defs = defs();
        defs[0] = defs[0].clone().policy(Policy::Ask);
        defs[1] = defs[1].clone().policy(Policy::Ask).escalation_only(true);
        let both = present(&cache, (0, vec![]), &refs(&defs), Mode::Both, &o);
        assert_eq!(
            both.tools[0].description.as_deref(),
            Some(format!("short a\n{ASKS_NOTE}").as_str())
        );
        assert_eq!(
            both.tools[1].description.as_deref(),
            Some(format!("{ESCALATION_NOTE}\n{ASKS_NOTE}").as_str())
        );
    }

    #[test]
    fn run_code_carries_the_sdk_and_output_is_stable() {
        let cache = SdkCache::default();
        let o = SdkOptions::default();
        let p1 = present(&cache, (0, vec![]), &refs(&defs()), Mode::Ptc, &o);
        let description = p1.tools[0].description.clone().unwrap();
        assert!(description.contains(&*p1.sdk));
        let p2 = present(
            &SdkCache::default(),
            (0, vec![]),
            &refs(&defs()),
            Mode::Ptc,
            &o,
        );
        assert_eq!(p1, p2, "same tools, same bytes, cached or not");
    }

    #[test]
    fn cache_follows_the_definitions() {
        let cache = SdkCache::default();
        let o = SdkOptions::default();
        let before = present(&cache, (0, vec![]), &refs(&defs()), Mode::Ptc, &o).sdk;
        let mut changed = defs();
        changed[1].description = Some("now documented".into());
        let after = present(&cache, (1, vec![]), &refs(&changed), Mode::Ptc, &o).sdk;
        assert_ne!(before, after);
        assert!(after.contains("now documented"));
    }
}
