//! Server groups: tools named `<server>.<tool>` (MCP servers' tools) are
//! introduced by a header comment, `// <server>: <n> tools`, before each
//! run of two or more consecutive tools with the same prefix. A lone dotted
//! name is no group (its name shows its prefix), and tools without a dot
//! get none, so an SDK without groups is unchanged.

use crate::tool::definition::ToolDefinition;

/// The prefix before the first dot, if the name has one.
fn group_of(name: &str) -> Option<&str> {
    name.split_once('.').map(|(group, _)| group)
}

/// For each tool, the header line (indented as methods are) to write
/// before it: only at the start of a run of tools of one group.
pub(super) fn group_headers(tools: &[&ToolDefinition]) -> Vec<Option<String>> {
    let mut headers = vec![None; tools.len()];
    let mut start = 0;
    while start < tools.len() {
        let group = group_of(&tools[start].name);
        let run = tools[start..]
            .iter()
            .take_while(|t| group_of(&t.name) == group)
            .count();
        if let Some(group) = group.filter(|_| run > 1) {
            // Tool names are A-Z a-z 0-9 _ . - only: nothing ends the comment.
            headers[start] = Some(format!(" // {group}: {run} tools\n"));
        }
        start += run;
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_starts_each_run_of_two_or_more_tools_of_one_prefix() {
        let defs: Vec<ToolDefinition> = ["plain", "gh.a", "gh.b", "fs.read", "gh.c", "x"]
            .into_iter()
            .map(ToolDefinition::new)
            .collect();
        let refs: Vec<&ToolDefinition> = defs.iter().collect();
        assert_eq!(
            group_headers(&refs),
            [
                None,
                Some(" // gh: 2 tools\n".to_owned()),
                None,
                None,
                None,
                None,
            ]
        );
    }
}
