//! The renderer's tests, schema in and TypeScript out: expressions, SDK
//! methods and aliases, and the bytes staying the same on any number of threads.

use super::parallel::workers_for;
use super::*;
use serde_json::{Map, json};

fn ts(schema: Value) -> String {
    expression(&schema)
}

struct Sdk {
    types: String,
    methods: String,
}

fn sdk(tools: &[ToolDefinition]) -> Sdk {
    let refs: Vec<&ToolDefinition> = tools.iter().collect();
    let text = render_sdk(&refs, ["", "@@\n", ""]);
    let (types, methods) = text.split_once("@@\n").expect("the middle marker");
    Sdk {
        types: types.to_owned(),
        methods: methods.to_owned(),
    }
}

fn tool(name: &str, parameters: Value) -> ToolDefinition {
    ToolDefinition::new(name).parameters(parameters)
}

#[test]
fn primitives() {
    assert_eq!(ts(json!({ "type": "string" })), "string");
    assert_eq!(ts(json!({ "type": "integer" })), "number");
    assert_eq!(ts(json!({ "type": "number" })), "number");
    assert_eq!(ts(json!({ "type": "boolean" })), "boolean");
    assert_eq!(ts(json!({ "type": "null" })), "null");
    assert_eq!(ts(json!({ "type": "bogus" })), "unknown");
}

#[test]
fn boolean_empty_and_non_schemas() {
    assert_eq!(ts(json!(true)), "unknown");
    assert_eq!(ts(json!({})), "unknown");
    assert_eq!(ts(json!(false)), "never");
    assert_eq!(ts(json!(5)), "unknown");
    assert_eq!(ts(json!("string")), "unknown");
    assert_eq!(ts(json!(null)), "unknown");
    assert_eq!(ts(json!([{ "type": "string" }])), "unknown");
}

#[test]
fn required_and_optional_properties() {
    let schema = json!({
        "type": "object",
        "properties": { "a": { "type": "string" }, "b": { "type": "integer" } },
        "required": ["a"]
    });
    assert_eq!(ts(schema), "{ a: string; b?: number }");
}

#[test]
fn properties_imply_an_object_and_required_names_are_members() {
    let schema = json!({ "properties": { "a": true }, "required": ["a", "b", "b", 7] });
    assert_eq!(ts(schema), "{ a: unknown; b: unknown }");
}

#[test]
fn non_identifier_keys_are_quoted() {
    let schema = json!({
        "type": "object",
        "properties": {
            "x-request-id": { "type": "string" },
            "1st": { "type": "string" },
            "ümlaut": { "type": "string" },
            "say \"hi\"": { "type": "string" },
            "$ok_1": { "type": "string" },
            "new": { "type": "string" }
        }
    });
    assert_eq!(
        ts(schema),
        "{\n \"x-request-id\"?: string;\n \"1st\"?: string;\n \"ümlaut\"?: string;\n \
         \"say \\\"hi\\\"\"?: string;\n $ok_1?: string;\n new?: string;\n}"
    );
}

#[test]
fn objects_without_members_are_records() {
    assert_eq!(
        ts(json!({ "type": "object" })),
        "{ [key: string]: unknown }"
    );
    assert_eq!(
        ts(json!({ "type": "object", "additionalProperties": false })),
        "{ [key: string]: never }"
    );
    assert_eq!(
        ts(json!({ "type": "object", "additionalProperties": { "type": "integer" } })),
        "{ [key: string]: number }"
    );
}

#[test]
fn additional_properties_beside_named_members_stay_valid() {
    let open = json!({
        "type": "object",
        "properties": { "a": { "type": "string" } },
        "additionalProperties": true
    });
    assert_eq!(ts(open), "{ a?: string; [key: string]: unknown }");
    let typed = json!({
        "type": "object",
        "properties": { "a": { "type": "string" }, "b": { "type": "boolean" } },
        "required": ["a"],
        "additionalProperties": { "type": "number" }
    });
    assert_eq!(
        ts(typed),
        "{ a: string; b?: boolean; [key: string]: number | string | boolean | undefined }"
    );
    let closed = json!({
        "type": "object",
        "properties": { "a": { "type": "string" } },
        "required": ["a"],
        "additionalProperties": false
    });
    assert_eq!(ts(closed), "{ a: string }");
}

#[test]
fn pattern_properties_become_a_documented_index_signature() {
    let schema = json!({
        "type": "object",
        "patternProperties": { "^x-": { "type": "string" } },
        "additionalProperties": false
    });
    assert_eq!(
        ts(schema),
        "{\n /** keys matching ^x- */ [key: string]: string;\n}"
    );
}

#[test]
fn arrays() {
    assert_eq!(
        ts(json!({ "type": "array", "items": { "type": "string" } })),
        "string[]"
    );
    assert_eq!(
        ts(json!({ "type": "array", "items": { "type": ["string", "number"] } })),
        "(string | number)[]"
    );
    assert_eq!(
        ts(
            json!({ "type": "array", "items": { "anyOf": [{ "type": "string" }, { "type": "array", "items": { "type": "null" } }] } })
        ),
        "(string | null[])[]"
    );
    assert_eq!(ts(json!({ "type": "array" })), "unknown[]");
    assert_eq!(ts(json!({ "type": "array", "items": false })), "[]");
    assert_eq!(ts(json!({ "items": { "type": "boolean" } })), "boolean[]");
    assert_eq!(
        ts(
            json!({ "type": "array", "items": { "type": "array", "items": { "type": "integer" } } })
        ),
        "number[][]"
    );
}

#[test]
fn tuples() {
    let closed = json!({
        "type": "array",
        "prefixItems": [{ "type": "string" }, { "type": "number" }],
        "items": false,
        "minItems": 2
    });
    assert_eq!(ts(closed), "/** @minItems 2 */ [string, number]");
    let open = json!({
        "type": "array",
        "prefixItems": [{ "type": "string" }, { "type": "number" }],
        "items": { "type": "boolean" }
    });
    assert_eq!(ts(open), "[string?, number?, ...boolean[]]");
    let draft7 = json!({
        "type": "array",
        "items": [{ "type": "string" }, { "type": ["number", "null"] }],
        "additionalItems": false,
        "minItems": 1
    });
    assert_eq!(ts(draft7), "/** @minItems 1 */ [string, (number | null)?]");
    let unbounded = json!({ "type": "array", "items": [{ "type": "string" }], "minItems": 1 });
    assert_eq!(ts(unbounded), "/** @minItems 1 */ [string, ...unknown[]]");
    let by_max = json!({ "prefixItems": [{ "type": "string" }], "maxItems": 1 });
    assert_eq!(ts(by_max), "/** @maxItems 1 */ [string?]");
}

#[test]
fn enums_and_consts_are_literal_unions() {
    assert_eq!(
        ts(json!({ "enum": ["a", "b\"c", 1, -2.5, true, null] })),
        "\"a\" | \"b\\\"c\" | 1 | -2.5 | true | null"
    );
    assert_eq!(ts(json!({ "type": "string", "enum": ["x"] })), "\"x\"");
    assert_eq!(ts(json!({ "enum": [] })), "never");
    assert_eq!(ts(json!({ "const": "ref" })), "\"ref\"");
    assert_eq!(
        ts(json!({ "const": { "a": [1, "x\n", {}] } })),
        "{\"a\":[1,\"x\\n\",{}]}"
    );
    assert_eq!(
        ts(json!({ "const": "line\u{2028}sep\u{1}" })),
        "\"line\\u2028sep\\u0001\""
    );
}

#[test]
fn one_of_and_any_of_are_unions() {
    assert_eq!(
        ts(json!({ "oneOf": [{ "type": "string" }, { "type": "integer" }] })),
        "string | number"
    );
    assert_eq!(
        ts(json!({ "anyOf": [{ "type": "string" }, { "type": "null" }] })),
        "string | null"
    );
    assert_eq!(ts(json!({ "anyOf": [] })), "never");
    assert_eq!(ts(json!({ "anyOf": [{ "not": {} }, true] })), "unknown");
}

#[test]
fn all_of_is_an_intersection() {
    let schema = json!({
        "allOf": [
            { "type": "object", "properties": { "a": { "type": "string" } }, "required": ["a"] },
            { "type": "object", "properties": { "b": { "type": "number" } } }
        ]
    });
    assert_eq!(ts(schema), "{ a: string } & { b?: number }");
    let mixed = json!({
        "type": "object",
        "properties": { "a": { "type": "string" }, "b": { "type": "string" } },
        "anyOf": [{ "required": ["a"] }, { "required": ["b"] }]
    });
    assert_eq!(
        ts(mixed),
        "{ a?: string; b?: string } & ({ a: unknown } | { b: unknown })"
    );
    // A bare `unknown` member adds nothing; a documented one keeps its words.
    let noise = json!({ "type": "string", "allOf": [{ "minLength": 1 }, true, {}] });
    assert_eq!(ts(noise), "string & /** @minLength 1 */ unknown");
}

#[test]
fn type_arrays_and_nullable() {
    assert_eq!(ts(json!({ "type": ["string", "null"] })), "string | null");
    assert_eq!(ts(json!({ "type": ["integer", "number"] })), "number");
    assert_eq!(ts(json!({ "type": [] })), "unknown");
    assert_eq!(
        ts(json!({ "type": "string", "nullable": true })),
        "string | null"
    );
    assert_eq!(
        ts(json!({ "enum": ["a", null], "nullable": true })),
        "\"a\" | null"
    );
    assert_eq!(
        ts(json!({ "type": "array", "items": { "type": "string", "nullable": true } })),
        "(string | null)[]"
    );
    assert_eq!(
        ts(json!({ "type": ["array", "null"], "items": { "type": "string" } })),
        "string[] | null"
    );
}

#[test]
fn local_refs_expand_in_a_standalone_expression() {
    let schema = json!({
        "$defs": { "n": { "type": "number" } },
        "definitions": { "s": { "type": "string" } },
        "type": "object",
        "properties": {
            "a": { "$ref": "#/$defs/n" },
            "b": { "$ref": "#/definitions/s" },
            "c": { "$ref": "#/$defs/missing" },
            "d": { "$ref": "https://example.com/schema.json" },
            "self": { "$ref": "#" }
        }
    });
    assert_eq!(
        ts(schema),
        "{ a?: number; b?: string; c?: unknown; d?: unknown; self?: unknown }"
    );
    let list = json!({
        "$defs": { "node": { "type": "object", "properties": { "next": { "$ref": "#/$defs/node" } } } },
        "$ref": "#/$defs/node"
    });
    assert_eq!(ts(list), "{ next?: unknown }");
}

#[test]
fn docs_become_jsdoc_on_the_member() {
    let schema = json!({
        "type": "object",
        "properties": {
            "limit": {
                "type": "integer", "description": "Max rows.", "minimum": 1,
                "exclusiveMaximum": 10, "multipleOf": 2, "default": 4
            },
            "name": {
                "type": "string", "minLength": 1, "maxLength": 9, "pattern": "^[a-z]+$",
                "format": "hostname", "deprecated": true
            },
            "ids": { "type": "array", "items": { "type": "string" }, "minItems": 1, "maxItems": 3, "uniqueItems": true },
            "t": { "title": "A title stands in for a missing description", "type": "string" },
            "ratio": { "type": "number", "exclusiveMinimum": 0, "maximum": 1.5, "deprecated": false, "examples": [0.5] }
        }
    });
    assert_eq!(
        ts(schema),
        "{\n \
         /** Max rows. @minimum 1 @exclusiveMaximum 10 @multipleOf 2 @default 4 */ limit?: number;\n \
         /** @minLength 1 @maxLength 9 @pattern ^[a-z]+$ @format hostname @deprecated */ name?: string;\n \
         /** @minItems 1 @maxItems 3 @uniqueItems */ ids?: string[];\n \
         /** A title stands in for a missing description */ t?: string;\n \
         /** @exclusiveMinimum 0 @maximum 1.5 @examples [0.5] */ ratio?: number;\n}"
    );
}

#[test]
fn docs_elsewhere_are_leading_comments() {
    assert_eq!(
        ts(
            json!({ "description": "Top.", "oneOf": [{ "type": "string", "description": "An id." }, { "type": "integer", "minimum": 0 }] })
        ),
        "/** Top. */ /** An id. */ string | /** @minimum 0 */ number"
    );
    assert_eq!(
        ts(json!({ "type": "array", "items": { "type": "string", "format": "uri" } })),
        "/** @format uri */ string[]"
    );
}

#[test]
fn comment_terminators_and_line_breaks_are_escaped() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": { "type": "string", "description": "ends */ early /*/ too", "default": "*/", "pattern": "a*/b" },
            "b": { "type": "string", "description": "line one\r\nline two\n\nafter a gap" }
        }
    });
    assert_eq!(
        ts(schema),
        "{\n \
         /** ends *\\/ early /*\\/ too @default \"*\\/\" @pattern a*\\/b */ a?: string;\n \
         /** line one\n  * line two\n  *\n  * after a gap */ b?: string;\n}"
    );
}

#[test]
fn what_typescript_cannot_say_is_unknown_with_its_description() {
    let schema = json!({
        "type": "object",
        "properties": {
            "n": { "not": { "type": "string" }, "description": "Anything but a string." },
            "c": { "if": { "type": "string" }, "then": { "minLength": 1 } },
            "r": { "$ref": "other.json#/x", "description": "Remote." },
            "k": { "minimum": 3 }
        }
    });
    assert_eq!(
        ts(schema),
        "{\n /** Anything but a string. */ n?: unknown;\n c?: unknown;\n \
         /** Remote. */ r?: unknown;\n /** @minimum 3 */ k?: unknown;\n}"
    );
}

#[test]
fn long_objects_break_into_lines() {
    let mut props = Map::new();
    for i in 0..12 {
        props.insert(format!("property_{i}"), json!({ "type": "string" }));
    }
    let text = ts(json!({ "type": "object", "properties": props }));
    assert!(
        text.starts_with("{\n property_0?: string;\n property_1?: string;\n"),
        "{text}"
    );
    assert!(text.ends_with(" property_11?: string;\n}"), "{text}");
}

#[test]
fn deep_nesting_is_capped() {
    let mut schema = json!({ "type": "string" });
    for _ in 0..500 {
        schema = json!({ "type": "array", "items": schema });
    }
    let text = ts(schema);
    assert!(text.starts_with("unknown[]"), "{}", &text[..40]);
    assert_eq!(text.matches("[]").count(), MAX_DEPTH as usize + 1);
}

#[test]
fn exponential_refs_stay_bounded() {
    let mut defs = Map::new();
    for i in 0..40 {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(
            format!("d{i}"),
            json!({ "type": "array", "items": [{ "$ref": next }, { "$ref": next }] }),
        );
    }
    defs.insert("d40".into(), json!({ "type": "string" }));
    let text = ts(json!({ "$defs": defs, "$ref": "#/$defs/d0" }));
    assert!(text.len() < 10_000_000, "{} bytes", text.len());
    assert!(text.contains("unknown"));
}

#[test]
fn method_signatures() {
    let out = sdk(&[
        tool("echo", json!({ "type": "object", "properties": { "v": { "type": "string" } }, "required": ["v"] }))
            .description("Echo it.")
            .output(json!({ "type": "string", "description": "The same text." })),
        tool("github.create-issue", json!({ "type": "object", "properties": { "t": { "type": "string" } } }))
            .description("long text")
            .summary("Open an issue."),
        tool("new", json!({ "type": "object", "description": "Nothing needed." })).read_only(true),
        tool("x", json!({ "anyOf": [{ "type": "object" }] })),
    ]);
    assert_eq!(out.types, "");
    assert_eq!(
        out.methods,
        " /** Echo it. @returns The same text. */\n echo(args: { v: string }): Promise<string>;\n \
         /** Open an issue.\n  * Call: tools[\"github.create-issue\"](args) */\n \
         \"github.create-issue\"(args?: { t?: string }): Promise<unknown>;\n \
         /** Call: tools[\"new\"](args) @readonly @param args Nothing needed. */\n \
         \"new\"(args?: { [key: string]: unknown }): Promise<unknown>;\n \
         x(args: { [key: string]: unknown }): Promise<unknown>;\n"
    );
}

#[test]
fn multi_line_tool_descriptions_continue_the_comment() {
    let out = sdk(&[tool("t", json!({ "type": "object" })).description("First.\nSecond.\n")]);
    assert_eq!(
        out.methods,
        " /** First.\n  * Second. */\n t(args?: { [key: string]: unknown }): Promise<unknown>;\n"
    );
}

#[test]
fn refs_become_aliases_shared_between_tools() {
    let params = json!({
        "$defs": {
            "rich_text": { "type": "object", "description": "Some text.", "properties": { "content": { "type": "string" } }, "required": ["content"] }
        },
        "type": "object",
        "properties": { "title": { "type": "array", "items": { "$ref": "#/$defs/rich_text" } } },
        "required": ["title"]
    });
    let out = sdk(&[tool("a", params.clone()), tool("b", params)]);
    assert_eq!(
        out.types,
        "/** Some text. */\ntype RichText = { content: string };\n"
    );
    assert_eq!(
        out.methods,
        " a(args: { title: RichText[] }): Promise<unknown>;\n b(args: { title: RichText[] }): Promise<unknown>;\n"
    );
}

#[test]
fn threads_do_not_change_a_byte() {
    // Plain tools, with `$ref`s here and there: `Item` means a string in
    // some tools and a number in others, so its suffix depends on every
    // tool before it, across chunk boundaries.
    let tools: Vec<ToolDefinition> = (0..700)
        .map(|i| {
            let params = match i % 97 {
                13 => json!({
                    "$defs": { "item": { "type": "string" } },
                    "type": "object",
                    "properties": { "i": { "$ref": "#/$defs/item" } }
                }),
                41 => json!({
                    "$defs": { "item": { "type": "number", "description": format!("n{i}") } },
                    "type": "object",
                    "properties": { "i": { "$ref": "#/$defs/item" } }
                }),
                _ => json!({
                    "type": "object",
                    "properties": {
                        "q": { "type": "string", "description": format!("query {i}") },
                        "n": { "type": "integer", "minimum": i }
                    },
                    "required": ["q"]
                }),
            };
            tool(&format!("tool_{i}"), params)
        })
        .collect();
    let refs: Vec<&ToolDefinition> = tools.iter().collect();
    let frame = ["head\n", "middle\n", "tail\n"];
    let one = render_sdk_with(&refs, frame, 1);
    assert!(one.contains("type Item7 = number;"), "{one}");
    for workers in [2, 3, 8] {
        assert_eq!(
            render_sdk_with(&refs, frame, workers),
            one,
            "{workers} workers"
        );
    }
    // Without any `$ref`, every chunk is kept as the worker wrote it.
    let plain: Vec<&ToolDefinition> = refs
        .iter()
        .copied()
        .filter(|t| t.parameters.get("$defs").is_none())
        .collect();
    assert_eq!(
        render_sdk_with(&plain, frame, 4),
        render_sdk_with(&plain, frame, 1)
    );
    assert_eq!(workers_for(10), 1);
}

#[test]
fn different_defs_of_one_name_get_suffixes() {
    let with = |t: &str| {
        json!({
            "$defs": { "item": { "type": t } },
            "type": "object",
            "properties": { "i": { "$ref": "#/$defs/item" } },
            "required": ["i"]
        })
    };
    let out = sdk(&[
        tool("a", with("string")),
        tool("b", with("number")),
        tool("c", with("string")),
    ]);
    assert_eq!(out.types, "type Item = string;\ntype Item2 = number;\n");
    assert!(
        out.methods.contains(" a(args: { i: Item })"),
        "{}",
        out.methods
    );
    assert!(
        out.methods.contains(" b(args: { i: Item2 })"),
        "{}",
        out.methods
    );
    assert!(
        out.methods.contains(" c(args: { i: Item })"),
        "{}",
        out.methods
    );
}

#[test]
fn shared_names_depend_on_everything_they_reach() {
    // Same `outer`, but its `inner` differs: not the same type.
    let with = |t: &str| {
        json!({
            "$defs": {
                "outer": { "type": "object", "properties": { "x": { "$ref": "#/$defs/inner" } } },
                "inner": { "type": t }
            },
            "$ref": "#/$defs/outer"
        })
    };
    let out = sdk(&[tool("a", with("string")), tool("b", with("boolean"))]);
    assert_eq!(
        out.types,
        "type Outer = { x?: Inner };\ntype Outer2 = { x?: Inner2 };\ntype Inner = string;\ntype Inner2 = boolean;\n"
    );
}

#[test]
fn alias_names_avoid_builtins_and_the_frame() {
    let params = json!({
        "$defs": {
            "error": { "type": "string" },
            "ToolCallError": { "type": "number" },
            "promise": { "type": "boolean" },
            "9lives": { "type": "null" },
            "é": { "type": "string", "format": "x" },
            "tools": { "const": 1 }
        },
        "type": "object",
        "properties": {
            "a": { "$ref": "#/$defs/error" },
            "b": { "$ref": "#/$defs/ToolCallError" },
            "c": { "$ref": "#/$defs/promise" },
            "d": { "$ref": "#/$defs/9lives" },
            "e": { "$ref": "#/$defs/%C3%A9" },
            "f": { "$ref": "#/$defs/tools" }
        }
    });
    let out = sdk(&[tool("t", params)]);
    assert_eq!(
        out.types,
        "type Error2 = string;\ntype ToolCallError2 = number;\ntype Promise2 = boolean;\n\
         type T9lives = null;\n/** @format x */\ntype Type = string;\ntype Tools = 1;\n"
    );
}

#[test]
fn recursive_aliases_and_root_refs() {
    let params = json!({
        "$defs": {
            "node": {
                "type": "object",
                "properties": { "value": { "type": "integer" }, "children": { "type": "array", "items": { "$ref": "#/$defs/node" } } },
                "required": ["value"]
            }
        },
        "type": "object",
        "properties": { "tree": { "$ref": "#/$defs/node" }, "again": { "$ref": "#" } },
        "required": ["tree"]
    });
    let out = sdk(&[tool("walk.tree", params)]);
    assert_eq!(
        out.types,
        "type Node2 = { value: number; children?: Node2[] };\n\
         type WalkTreeArgs = { tree: Node2; again?: WalkTreeArgs };\n"
    );
    assert!(
        out.methods.contains(
            "\"walk.tree\"(args: { tree: Node2; again?: WalkTreeArgs }): Promise<unknown>;"
        ),
        "{}",
        out.methods
    );
}

#[test]
fn direct_alias_cycles_break_to_unknown() {
    let params = json!({
        "$defs": {
            "a": { "anyOf": [{ "type": "string" }, { "$ref": "#/$defs/b" }] },
            "b": { "allOf": [{ "$ref": "#/$defs/a" }] },
            "c": { "$ref": "#/$defs/c" }
        },
        "type": "object",
        "properties": { "x": { "$ref": "#/$defs/a" }, "y": { "$ref": "#/$defs/c" } }
    });
    let out = sdk(&[tool("t", params)]);
    assert_eq!(
        out.types,
        "type A = string | unknown;\ntype C = unknown;\ntype B = unknown;\n"
    );
}

#[test]
fn cycles_through_optional_or_rest_tuple_elements_break() {
    // TypeScript rejects `type A = string | [A[]?]` as circular but takes
    // `type A = string | [A[], ...unknown[]]` and `{ x?: A }[]`.
    let tuple = |min: u64| {
        json!({ "anyOf": [
            { "type": "string" },
            { "type": "array", "prefixItems": [{ "type": "array", "items": { "$ref": "#/$defs/a" } }], "minItems": min }
        ] })
    };
    for (min, expected) in [
        (
            0,
            "type A = string | /** @minItems 0 */ [unknown[]?, ...unknown[]];\n",
        ),
        (
            1,
            "type A = string | /** @minItems 1 */ [A[], ...unknown[]];\n",
        ),
    ] {
        let params = json!({
            "$defs": { "a": tuple(min) },
            "type": "object",
            "properties": { "x": { "$ref": "#/$defs/a" } }
        });
        assert_eq!(sdk(&[tool("t", params)]).types, expected, "minItems {min}");
    }
    // Through another alias, and through the rest element.
    let params = json!({
        "$defs": {
            "a": { "anyOf": [{ "type": "string" }, { "type": "array", "items": [true], "additionalItems": { "$ref": "#/$defs/b" } }] },
            "b": { "type": "array", "items": { "$ref": "#/$defs/a" } },
            "c": { "anyOf": [{ "type": "null" }, { "type": "array", "prefixItems": [{ "type": "object", "properties": { "c": { "$ref": "#/$defs/c" } } }] }] }
        },
        "type": "object",
        "properties": { "x": { "$ref": "#/$defs/a" }, "y": { "$ref": "#/$defs/c" } }
    });
    assert_eq!(
        sdk(&[tool("t", params)]).types,
        "type A = string | [unknown?, ...unknown[]];\ntype C = null | [{ c?: C }?, ...unknown[]];\ntype B = A[];\n"
    );
}

#[test]
fn an_untyped_mcp_tool_says_what_it_returns() {
    let untyped = json!({ "description": crate::sources::mcp::UNTYPED_OUTPUT });
    let out = sdk(&[tool("fetch", json!({ "type": "object" })).output(untyped)]);
    assert_eq!(
        out.methods,
        " /** @returns The server's JSON value, or its text as a string */\n \
         fetch(args?: { [key: string]: unknown }): Promise<unknown>;\n"
    );
}
