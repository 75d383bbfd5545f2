//! `run_code`'s description within its size budget (contracts §4): every
//! declaration when they fit; else an index of the tools' names and
//! summaries; else their namespaces with counts and first names. Each form
//! says which it is and how to reach the rest (`tools.$search`,
//! `tools.$describe`), and each is a pure function of the tools and the
//! options, like the SDK.

use indexmap::IndexMap;

use super::{SdkOptions, instructions, longest_backtick_run, render_in, templates};
use crate::tool::definition::ToolDefinition;
use crate::tool::search::summary_of;

/// A summary in the index is cut to this many characters.
const SUMMARY_CHARS: usize = 120;
/// The names shown per namespace, fewer when the budget is tight.
const NAMES_PER_NAMESPACE: [usize; 4] = [5, 3, 1, 0];

/// The description of `run_code` for `tools`, whose full declarations are
/// `declarations`: the first form that fits `options.description_budget_bytes`.
pub(crate) fn run_code_text(
    tools: &[&ToolDefinition],
    declarations: &str,
    options: &SdkOptions,
) -> String {
    let budget = options.description_budget_bytes;
    // Each form holds its list whole: one longer than the budget cannot fit.
    if declarations.len() <= budget {
        let full = super::run_code_description(declarations, options);
        if full.len() <= budget {
            return full;
        }
    }
    let frame = render_in(options.language, &[]);
    let partial = Partial {
        count: tools.len(),
        sdk_bytes: declarations.len(),
        frame: &frame,
        options,
    };
    let list = index_list(tools);
    if list.len() <= budget {
        let index = partial.fill(templates::INDEX, &list);
        if index.len() <= budget {
            return index;
        }
    }
    partial.namespaces(&namespaces_of(tools), budget)
}

/// What the index and namespace forms share: the counts they state, the
/// frame they declare (`ToolCallError`, `$search`, `$describe`).
struct Partial<'a> {
    count: usize,
    sdk_bytes: usize,
    frame: &'a str,
    options: &'a SdkOptions,
}

impl Partial<'_> {
    fn fill(&self, template: &str, list: &str) -> String {
        let longest = longest_backtick_run(list).max(longest_backtick_run(self.frame));
        let fence = "`".repeat(longest.max(2) + 1);
        let texts = templates::texts(self.options.language);
        let tools = templates::fill(
            template,
            &[
                ("count", &self.count.to_string()),
                ("sdk_size", &approximate_size(self.sdk_bytes)),
                ("discovery", texts.discovery),
                ("fence", &fence),
                ("fence_language", texts.fence_language),
                ("list", list),
                ("declarations", self.frame),
            ],
        );
        instructions(&tools, self.options)
    }

    /// The namespace form: as many names per namespace as fit, then as many
    /// namespaces as fit, the rest counted on a last line.
    fn namespaces(&self, groups: &[Namespace], budget: usize) -> String {
        for names in NAMES_PER_NAMESPACE {
            let text = self.fill(templates::NAMESPACES, &namespace_list(groups, names));
            if text.len() <= budget {
                return text;
            }
        }
        let empty = self.fill(templates::NAMESPACES, "").len();
        let mut list = String::new();
        // The namespaces and tools not shown yet, kept as the list grows
        // (summing the rest anew for each line is quadratic).
        let mut rest = (groups.len(), groups.iter().map(|g| g.tools.len()).sum());
        for group in groups {
            let line = namespace_line(group, 0);
            let after = more_line(rest.0 - 1, rest.1 - group.tools.len());
            if empty + list.len() + line.len() + after.len() > budget {
                // What was shown fit with this group counted among the rest.
                list.push_str(&more_line(rest.0, rest.1));
                break;
            }
            list.push_str(&line);
            rest = (rest.0 - 1, rest.1 - group.tools.len());
        }
        self.fill(templates::NAMESPACES, &list)
    }
}

/// The tools of one namespace (`None`: the names without a dot), in
/// registration order.
struct Namespace<'a> {
    name: Option<&'a str>,
    tools: Vec<&'a str>,
}

/// The prefix before a name's first dot, when there is one.
fn namespace(name: &str) -> Option<&str> {
    name.split_once('.')
        .map(|(prefix, _)| prefix)
        .filter(|p| !p.is_empty())
}

/// The namespaces in order of their first tool.
fn namespaces_of<'a>(tools: &[&'a ToolDefinition]) -> Vec<Namespace<'a>> {
    let mut groups: IndexMap<Option<&str>, Vec<&str>> = IndexMap::new();
    for tool in tools {
        groups
            .entry(namespace(&tool.name))
            .or_default()
            .push(&tool.name);
    }
    groups
        .into_iter()
        .map(|(name, tools)| Namespace { name, tools })
        .collect()
}

/// Every tool's name and summary, one per line; the tools of a namespace
/// with two or more gathered under a `<namespace>: <n> tools` line where
/// its first tool is.
fn index_list(tools: &[&ToolDefinition]) -> String {
    let mut groups: IndexMap<(bool, &str), Vec<&ToolDefinition>> = IndexMap::new();
    for tool in tools {
        let key = match namespace(&tool.name) {
            Some(prefix) => (true, prefix),
            None => (false, tool.name.as_str()),
        };
        groups.entry(key).or_default().push(tool);
    }
    let mut out = String::new();
    for ((dotted, prefix), members) in &groups {
        let grouped = *dotted && members.len() > 1;
        if grouped {
            out.push_str(&format!("{prefix}: {} tools\n", members.len()));
        }
        for tool in members {
            out.push_str(if grouped { "  " } else { "" });
            out.push_str(&tool.name);
            let summary = one_line(&summary_of(tool));
            if !summary.is_empty() {
                out.push_str(": ");
                out.push_str(&summary);
            }
            out.push('\n');
        }
    }
    out
}

fn namespace_list(groups: &[Namespace], names: usize) -> String {
    groups.iter().map(|g| namespace_line(g, names)).collect()
}

/// `github: 26 tools, github.create_issue, github.get_issue, …`.
fn namespace_line(group: &Namespace, names: usize) -> String {
    let count = group.tools.len();
    let mut line = match group.name {
        Some(name) => format!("{name}: {}", counted(count, "tool")),
        None => format!("(no namespace): {}", counted(count, "tool")),
    };
    for name in group.tools.iter().take(names) {
        line.push_str(", ");
        line.push_str(name);
    }
    if names > 0 && count > names {
        line.push_str(", …");
    }
    line.push('\n');
    line
}

/// `… and 3 more namespaces with 41 tools`, or nothing when none are left.
fn more_line(namespaces: usize, tools: usize) -> String {
    if namespaces == 0 {
        return String::new();
    }
    let noun = if namespaces == 1 {
        "namespace"
    } else {
        "namespaces"
    };
    format!(
        "… and {namespaces} more {noun} with {}\n",
        counted(tools, "tool")
    )
}

/// `1 tool`, `2 tools`.
fn counted(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// A summary as one short line: control characters become spaces, and
/// past [`SUMMARY_CHARS`] it ends with `…`.
fn one_line(summary: &str) -> String {
    let cleaned: String = summary
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let cleaned = cleaned.trim();
    match cleaned.char_indices().nth(SUMMARY_CHARS) {
        Some((cut, _)) => format!("{}…", cleaned[..cut].trim_end()),
        None => cleaned.to_owned(),
    }
}

/// `840 bytes`, `125 KB`, `1.2 MB` (powers of 1024).
fn approximate_size(bytes: usize) -> String {
    const KB: usize = 1 << 10;
    const MB: usize = 1 << 20;
    match bytes {
        b if b < KB => format!("{b} bytes"),
        b if b < MB => format!("{} KB", (b + KB / 2) / KB),
        b => format!("{:.1} MB", b as f64 / MB as f64),
    }
}

#[cfg(test)]
mod tests;
