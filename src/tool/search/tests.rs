use serde_json::{Value, json};

use super::words::tokenize;
use super::*;
use crate::contract::call::ToolError;
use crate::tool::context::ToolContext;
use crate::tool::definition::ToolDefinition;
use crate::tool::handler::Tool;
use crate::tool::registry::Registry;

fn small() -> Vec<ToolDefinition> {
    let params = |names: &[(&str, &str)]| {
        let props: serde_json::Map<String, Value> = names
            .iter()
            .map(|(n, d)| {
                (
                    (*n).to_owned(),
                    json!({ "type": "string", "description": d }),
                )
            })
            .collect();
        json!({ "type": "object", "properties": props })
    };
    vec![
        ToolDefinition::new("github.create_issue")
            .description("Open a new issue in a repository.\nMarkdown body allowed.")
            .parameters(params(&[("title", "Issue title"), ("body", "Issue text")])),
        ToolDefinition::new("github.list_issues")
            .description("List the issues of a repository.")
            .parameters(params(&[("state", "open or closed")])),
        ToolDefinition::new("send_email")
            .description("Send an email message. Plain text only.")
            .parameters(params(&[
                ("to", "Recipient address"),
                ("subject", "Subject line"),
            ])),
        ToolDefinition::new("createCalendarEvent")
            .description("Create an event in the calendar.")
            .parameters(params(&[("when", "Start time")])),
        ToolDefinition::new("weather-forecast").description("Tomorrow's weather for a city."),
    ]
}

fn names(found: &[Found]) -> Vec<&str> {
    found.iter().map(|f| f.name.as_str()).collect()
}

#[test]
fn tokenize_splits_every_naming_style() {
    assert_eq!(
        tokenize("github.create_issue"),
        ["github", "create", "issue"]
    );
    assert_eq!(
        tokenize("createCalendarEvent"),
        ["create", "calendar", "event"]
    );
    assert_eq!(tokenize("weather-forecast"), ["weather", "forecast"]);
    assert_eq!(
        tokenize("HTTPServer getURL2x"),
        ["http", "server", "get", "url2x"]
    );
    assert_eq!(tokenize("  Send, an E-mail!"), ["send", "an", "e", "mail"]);
    assert!(tokenize(" \t-_. ").is_empty());
}

#[test]
fn summary_is_the_first_sentence_of_the_first_line() {
    let tools = small();
    assert_eq!(summary_of(&tools[0]), "Open a new issue in a repository.");
    assert_eq!(summary_of(&tools[2]), "Send an email message.");
    assert_eq!(summary_of(&ToolDefinition::new("x")), "");
    let short = ToolDefinition::new("x")
        .description("Long. Text.")
        .summary("Short");
    assert_eq!(summary_of(&short), "Short");
}

#[test]
fn ranking_on_a_small_registry() {
    let index = SearchIndex::build(&small());
    let all = [true; 5];
    let found = index.search("create issue", 10, &all);
    // Stemmed: "issues" is "issue" too.
    assert_eq!(
        names(&found),
        [
            "github.create_issue",
            "createCalendarEvent",
            "github.list_issues"
        ]
    );
    assert!(found[0].score > found[1].score);
    let found = index.search("issues of a repository", 10, &all);
    assert_eq!(
        names(&found),
        ["github.list_issues", "github.create_issue"],
        "\"a\" is a stopword, so \"for a city\" matches nothing"
    );
    // Scores are rounded to three decimals.
    assert!(found.iter().all(|f| (f.score * 1000.0).fract() == 0.0));
    assert_eq!(
        names(&index.search("E-MAIL subject", 10, &all)),
        ["send_email"]
    );
    assert_eq!(
        names(&index.search("calendar", 1, &all)),
        ["createCalendarEvent"]
    );
    assert!(index.search("nothing matches", 10, &all).is_empty());
}

#[test]
fn ties_keep_registration_order() {
    let tools = [
        ToolDefinition::new("second_same"),
        ToolDefinition::new("first_same"),
    ];
    let index = SearchIndex::build(&tools);
    assert_eq!(
        names(&index.search("same", 10, &[true, true])),
        ["second_same", "first_same"]
    );
}

#[test]
fn hidden_tools_change_nothing() {
    let index = SearchIndex::build(&small());
    let visible = [false, true, true, true, true];
    let found = index.search("issue repository", 10, &visible);
    assert_eq!(names(&found), ["github.list_issues"]);
    // Scores come from the visible tools only: as if the hidden one were gone.
    let without = SearchIndex::build(&small()[1..]);
    assert_eq!(found, without.search("issue repository", 10, &[true; 4]));
}

fn registry() -> Registry {
    let registry = Registry::new();
    for def in small() {
        let tool = Tool::new(def, |args: Value, _cx: ToolContext| async move {
            Ok::<_, ToolError>(args)
        });
        registry.add(tool).unwrap();
    }
    registry
}

#[test]
fn limit_is_clamped_and_empty_queries_find_nothing() {
    let scope = registry().scope();
    assert_eq!(scope.search("repository", 0).len(), 1);
    assert_eq!(scope.search("repository", 1).len(), 1);
    assert_eq!(scope.search("repository", 1000).len(), 2);
    assert!(scope.search("   \n", 10).is_empty());
    assert!(scope.search("", 10).is_empty());
}

#[test]
fn the_index_is_shared_per_registry_version() {
    let registry = registry();
    let (tools, _) = registry.scope().visible_snapshot();
    assert!(Arc::ptr_eq(&index_of(&tools), &index_of(&tools)));
    registry.remove("send_email");
    let (changed, _) = registry.scope().visible_snapshot();
    assert!(!Arc::ptr_eq(&index_of(&tools), &index_of(&changed)));
    assert!(registry.scope().search("email", 10).is_empty());
}

#[test]
fn a_new_version_analyses_only_the_tools_it_adds() {
    let registry = registry();
    let (before, _) = registry.scope().visible_snapshot();
    let first = documents::of_tools(&before);
    registry
        .add(Tool::new(
            ToolDefinition::new("late_tool").description("Added later."),
            |args: Value, _cx: ToolContext| async move { Ok::<_, ToolError>(args) },
        ))
        .unwrap();
    let (after, _) = registry.scope().visible_snapshot();
    let second = documents::of_tools(&after);
    assert_eq!(second.len(), first.len() + 1);
    assert!(first.iter().zip(&second).all(|(a, b)| Arc::ptr_eq(a, b)));
    assert_eq!(second[5].name, "late_tool");
    // The index of the new version finds the new tool, and only it.
    assert_eq!(
        names(&SearchIndex::of(second).search("later", 10, &[true; 6])),
        ["late_tool"]
    );
}

/// The stems remembered on a thread outlive the run: a program searching
/// long new words again and again must not grow them past a few short words
/// each (16,384 × 2 × 1 KiB would be 32 MiB per thread).
#[test]
fn long_words_are_stemmed_without_being_remembered() {
    use super::words::{remembered_bytes, terms};
    let before = remembered_bytes();
    for i in 0..200 {
        let word = format!("{i}{}", "abcdefghij".repeat(100));
        assert_eq!(terms(&word).len(), 1);
    }
    let grown = remembered_bytes().saturating_sub(before);
    assert!(grown < 200 * 100, "{grown} bytes remembered");
    assert_eq!(terms("Files files FILE"), ["file", "file", "file"]);
}

#[test]
fn terms_drop_common_words_and_meet_at_their_stems() {
    use super::words::{query_terms, terms};
    assert_eq!(
        terms("List the files of a folder"),
        ["list", "file", "folder"]
    );
    assert_eq!(terms("replaces"), terms("replace"));
    assert_eq!(terms("github.list_issues"), ["github", "list", "issu"]);
    assert!(terms("the of a").is_empty());
    let weighted = query_terms("make folder");
    let weight = |t: &str| weighted.iter().find(|(w, _)| w == t).map(|(_, x)| *x);
    assert_eq!(weight("make"), Some(1.0));
    assert_eq!(weight("folder"), Some(1.0));
    assert_eq!(weight("creat"), Some(super::words::RELATED_WEIGHT));
    assert_eq!(weight("directori"), Some(super::words::RELATED_WEIGHT));
    assert_eq!(weight("issu"), None);
    let sorted: Vec<&String> = weighted.iter().map(|(t, _)| t).collect();
    assert!(
        sorted.is_sorted(),
        "a stable order: float sums do not depend on hashing"
    );
}

#[test]
fn a_related_word_counts_less_than_the_word_itself() {
    let tools = [
        ToolDefinition::new("make_thing").description("Makes a thing."),
        ToolDefinition::new("create_thing").description("Creates a thing."),
    ];
    let index = SearchIndex::build(&tools);
    let found = index.search("make thing", 10, &[true, true]);
    assert_eq!(names(&found), ["make_thing", "create_thing"]);
    assert!(found[1].score > 0.0 && found[1].score < found[0].score);
}

#[test]
fn nearest_names_put_a_deprecated_tool_after_its_replacement() {
    let registry = Registry::new();
    let add = |name: &str, description: &str| {
        let def = ToolDefinition::new(name).description(description);
        let tool = Tool::new(def, |args: Value, _cx: ToolContext| async move {
            Ok::<_, ToolError>(args)
        });
        registry.add(tool).unwrap();
    };
    add(
        "fs.read_file",
        "Read a file as text. DEPRECATED: Use read_text_file instead.",
    );
    add("fs.read_text_file", "Read a file as text.");
    add("fs.write_file", "Write a file.");
    let (tools, visible) = registry.scope().visible_snapshot();
    let nearest = nearest(&tools, &visible, "fs.readFile");
    assert_eq!(
        nearest.last().map(String::as_str),
        Some("fs.read_file"),
        "{nearest:?}"
    );
    assert_eq!(nearest[0], "fs.read_text_file", "{nearest:?}");
    assert!(!is_deprecated(
        &ToolDefinition::new("plain").description("Reads it.")
    ));
}
