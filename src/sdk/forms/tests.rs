use super::*;
use crate::limits::Limits;
use crate::sdk::render_declarations;

fn tool(name: &str, description: &str) -> ToolDefinition {
    ToolDefinition::new(name).description(description)
}

fn text(tools: &[ToolDefinition], budget: usize) -> String {
    let refs: Vec<&ToolDefinition> = tools.iter().collect();
    let declarations = render_declarations(&refs);
    let options = SdkOptions {
        description_budget_bytes: budget,
        ..SdkOptions::default()
    };
    run_code_text(&refs, &declarations, &options)
}

fn many(count: usize, namespaces: usize) -> Vec<ToolDefinition> {
    (0..count)
        .map(|i| {
            tool(
                &format!("server{}.tool_number_{i}", i % namespaces),
                "Does one numbered thing. More words follow here.",
            )
        })
        .collect()
}

/// The smallest budget a host may set.
fn minimum_budget() -> usize {
    let mut limits = Limits {
        description_budget_bytes: 0,
        ..Limits::default()
    };
    while limits.validate().is_err() {
        limits.description_budget_bytes += 1;
    }
    limits.description_budget_bytes
}

#[test]
fn full_form_when_the_declarations_fit() {
    let tools = [tool("a", "Does a.")];
    let full = text(&tools, usize::MAX);
    assert!(full.contains("Every tool is declared below."), "{full}");
    assert!(full.contains("  a(args?: {}): Promise<unknown>;") || full.contains(" a("));
    assert_eq!(
        text(&tools, full.len()),
        full,
        "exactly at the budget is full"
    );
}

#[test]
fn index_form_lists_every_name_and_summary_grouped() {
    let details = " More about it.".repeat(200);
    let tools = [
        tool("gh.create_issue", &format!("Opens an issue.{details}")),
        tool("plain", &format!("Not namespaced.{details}")),
        tool("gh.list_issues", &format!("Lists issues.{details}")),
        tool("fs.read", &format!("Reads a file.{details}")),
    ];
    let full = text(&tools, usize::MAX);
    let index = text(&tools, full.len() - 1);
    assert!(index.contains("There are 4 tools, too many to declare here"));
    assert!(index.contains(
        "```text\ngh: 2 tools\n  gh.create_issue: Opens an issue.\n  gh.list_issues: Lists issues.\n\
         plain: Not namespaced.\nfs.read: Reads a file.\n```"
    ));
    assert!(
        index.contains("tools.$describe("),
        "says how to get the rest"
    );
    assert!(index.contains("declare class ToolCallError"));
    assert!(!index.contains("create_issue(args"), "no declarations");
}

#[test]
fn namespace_form_counts_and_names_the_first_tools() {
    let tools = many(3000, 30);
    let out = text(&tools, 32 << 10);
    assert!(out.len() <= 32 << 10);
    assert!(out.contains("There are 3000 tools, too many to list here"));
    assert!(out.contains(
        "server0: 100 tools, server0.tool_number_0, server0.tool_number_30, \
         server0.tool_number_60, server0.tool_number_90, server0.tool_number_120, …\n"
    ));
    assert!(out.contains("server29: 100 tools"));
}

#[test]
fn names_without_a_namespace_are_counted_together() {
    let mut tools = many(1000, 3);
    tools.insert(1, tool("loose_one", "x"));
    tools.push(tool("loose_two", "y"));
    let out = text(&tools, 8 << 10);
    assert!(
        out.contains("(no namespace): 2 tools, loose_one, loose_two\n"),
        "{out}"
    );
}

#[test]
fn every_form_fits_the_smallest_budget() {
    let budget = minimum_budget();
    assert_eq!(budget, 8 << 10);
    for namespaces in [1, 10, 100, 1000, 5000] {
        let tools = many(5000, namespaces);
        let out = text(&tools, budget);
        assert!(out.len() <= budget, "{namespaces}: {} bytes", out.len());
        if namespaces >= 1000 {
            assert!(out.contains(" more namespaces with "), "{out}");
        }
    }
}

#[test]
fn the_rest_line_counts_what_is_left_out() {
    let tools = many(2000, 2000);
    let out = text(&tools, 8 << 10);
    let shown = out.matches(": 1 tool\n").count();
    let rest = format!(
        "… and {} more namespaces with {} tools\n",
        2000 - shown,
        2000 - shown
    );
    assert!(shown > 10 && out.contains(&rest), "{shown} shown:\n{out}");
}

#[test]
fn hostile_summaries_stay_one_short_line() {
    let long = format!("{}. Rest.", "ü".repeat(500));
    let tools = [
        tool("a.x", "ends the fence ```` here\u{7}\u{1b}[31m"),
        tool("a.y", &long),
        tool("filler", &"words ".repeat(2000)),
    ];
    let out = text(&tools, 8 << 10);
    assert!(
        out.contains("`````text\n"),
        "the fence outgrows the summary's"
    );
    assert!(
        out.contains("  a.x: ends the fence ```` here  [31m\n"),
        "{out}"
    );
    let line = out.lines().find(|l| l.starts_with("  a.y: ")).unwrap();
    // contracts §4: a summary is cut to 120 characters, then `…`.
    assert_eq!(line.chars().count(), "  a.y: ".len() + 120 + 1);
    assert!(line.ends_with('…'));
}

#[test]
fn forms_are_byte_stable() {
    let tools = many(500, 7);
    for budget in [8 << 10, 32 << 10, 1 << 20] {
        assert_eq!(text(&tools, budget), text(&tools, budget));
    }
}

#[test]
fn sizes_read_as_people_write_them() {
    assert_eq!(approximate_size(840), "840 bytes");
    assert_eq!(approximate_size(128_000), "125 KB");
    assert_eq!(approximate_size(1_258_291), "1.2 MB");
}

/// The namespace form is linear in the namespaces: with 100,000 of them
/// and a budget for about half their lines, summing the rest anew for
/// each line shown took 5 billion steps (seconds, minutes unoptimised).
/// Timed against 10,000 in the same test: linear is about 10 times as
/// long, quadratic 100 times; a loaded machine slows both.
#[test]
fn many_namespaces_cost_linear_time() {
    let time = |n: usize| {
        let tools: Vec<ToolDefinition> = (0..n).map(|i| tool(&format!("ns{i}.t"), "x")).collect();
        let refs: Vec<&ToolDefinition> = tools.iter().collect();
        let options = SdkOptions {
            description_budget_bytes: n * 10,
            ..SdkOptions::default()
        };
        let started = std::time::Instant::now();
        // The declarations only size the text: a short stand-in of the same length.
        let declarations = "x".repeat(n * 100);
        let out = run_code_text(&refs, &declarations, &options);
        let took = started.elapsed();
        assert!(out.len() <= n * 10, "{}", out.len());
        assert!(out.contains("more namespaces with"), "the rest is counted");
        took
    };
    let small = time(10_000);
    let large = time(100_000);
    assert!(
        large < small * 40,
        "10,000 took {small:?}, 100,000 {large:?}"
    );
}
