//! Where a Python program calls a tool, for a limit's failure text (see
//! `progress`). Read from the text: `tools.name`, which also spells a
//! dotted name as the stubs' namespaces do (`tools.fs.read_text_file`), or
//! `tools["name"]` / `tools['name']`.

/// The 1-based lines of `code` that name `tool` (not followed by more of a
/// name), at most ten.
pub(super) fn call_lines(code: &str, tool: &str) -> Vec<u32> {
    let quoted = [format!("tools[\"{tool}\"]"), format!("tools['{tool}']")];
    let dotted = format!("tools.{tool}");
    let mut lines = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let names_it = quoted.iter().any(|q| line.contains(q.as_str()))
            || line.match_indices(dotted.as_str()).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + dotted.len()..].chars().next();
                !before.is_some_and(is_name_char) && !after.is_some_and(is_name_char)
            });
        if names_it {
            lines.push(u32::try_from(n + 1).unwrap_or(u32::MAX));
            if lines.len() == 10 {
                break;
            }
        }
    }
    lines
}

/// A character of a Python name.
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::call_lines;

    #[test]
    fn call_sites_are_found_as_the_stubs_spell_them() {
        let code = "a = await tools.list_dir(path='x')\n\
                    # nothing here\n\
                    await tools.list_dirs()\n\
                    await tools[\"list_dir\"]()\n\
                    my_tools.list_dir()\n\
                    x = tools.list_dir";
        assert_eq!(call_lines(code, "list_dir"), [1, 4, 6]);
        assert_eq!(call_lines(code, "read_file"), Vec::<u32>::new());
        assert_eq!(call_lines("await tools.fs.read(path='a')", "fs.read"), [1]);
    }
}
