//! Unit tests of the Python stubs: one per schema shape.

use serde_json::{Value, json};

use super::render_module;
use crate::tool::definition::ToolDefinition;

/// The stubs of one tool `t` with these parameters (and output).
fn stubs(parameters: Value, output: Option<Value>) -> String {
    let mut tool = ToolDefinition::new("t").parameters(parameters);
    if let Some(output) = output {
        tool = tool.output(output);
    }
    render_module(&[&tool])
}

/// The part of the module after the frame's fixed head.
fn generated(module: &str) -> &str {
    let at = module.find("def describe_tools").expect("the frame");
    &module[at..]
}

fn assert_has(module: &str, needles: &[&str]) {
    for needle in needles {
        assert!(
            generated(module).contains(needle),
            "missing {needle:?} in:\n{}",
            generated(module)
        );
    }
}

#[test]
fn required_and_optional_properties_are_keyword_arguments() {
    let m = stubs(
        json!({ "type": "object", "properties": {
            "a": { "type": "string" }, "b": { "type": "integer" }, "c": { "type": "number" },
            "d": { "type": "boolean" }, "e": { "type": "null" } }, "required": ["a"] }),
        None,
    );
    assert_has(
        &m,
        &[
            "async def t(\n        self,\n        *,\n        a: str,\n        b: int | None = None,\n        c: float | None = None,\n        d: bool | None = None,\n        e: None = None,\n    ) -> Any:",
        ],
    );
}

#[test]
fn no_arguments_and_no_output() {
    assert_has(
        &stubs(json!({ "type": "object" }), None),
        &["async def t(self) -> Any:"],
    );
}

#[test]
fn nested_objects_become_typed_dicts() {
    let m = stubs(
        json!({ "properties": { "user": { "type": "object", "description": "Who.",
            "properties": { "name": { "type": "string" }, "age": { "type": "integer", "minimum": 0 } },
            "required": ["name"] } }, "required": ["user"] }),
        None,
    );
    assert_has(
        &m,
        &[
            "class TUser(TypedDict):\n    \"\"\"Who.\"\"\"\n    name: str\n    # (minimum: 0)\n    age: NotRequired[int]\n",
            "user: TUser",
        ],
    );
}

#[test]
fn enums_and_consts_are_literals() {
    let m = stubs(
        json!({ "properties": {
            "s": { "enum": ["a", "b\"c", 1, true, null, 1.5, [1]] },
            "k": { "const": "only" } }, "required": ["s", "k"] }),
        None,
    );
    assert_has(
        &m,
        &[
            r#"s: Literal["a", "b\"c", 1, True] | None | float | list[Any]"#,
            r#"k: Literal["only"]"#,
        ],
    );
}

#[test]
fn any_of_and_one_of_are_unions() {
    let m = stubs(
        json!({ "properties": {
            "u": { "anyOf": [{ "type": "string" }, { "type": "integer" }, { "type": "string" }] },
            "o": { "oneOf": [{ "type": "object", "properties": { "x": { "type": "string" } } }, { "type": "array", "items": { "type": "string" } }] },
            "any": { "anyOf": [{ "type": "string" }, {}] } }, "required": ["u", "o", "any"] }),
        None,
    );
    assert_has(
        &m,
        &[
            "u: str | int,",
            "o: TO1 | list[str],",
            "any: Any)",
            "class TO1(TypedDict):",
        ],
    );
}

#[test]
fn arrays_tuples_and_type_arrays() {
    let m = stubs(
        json!({ "properties": {
            "l": { "type": "array", "items": { "type": "integer" } },
            "t": { "type": "array", "prefixItems": [{ "type": "string" }, { "type": "integer" }], "items": false },
            "open": { "type": "array" },
            "none": { "type": "array", "items": false },
            "multi": { "type": ["string", "null"] } },
            "required": ["l", "t", "open", "none", "multi"] }),
        None,
    );
    assert_has(
        &m,
        &[
            "l: list[int],",
            "t: list[str | int],",
            "open: list[Any],",
            "none: list[Never],",
            "multi: str | None,",
        ],
    );
}

#[test]
fn nullable_adds_none_once() {
    let m = stubs(
        json!({ "properties": {
            "n": { "type": "string", "nullable": true },
            "m": { "type": ["string", "null"], "nullable": true } }, "required": ["n", "m"] }),
        None,
    );
    assert_has(&m, &["*, n: str | None, m: str | None"]);
}

#[test]
fn refs_become_declarations_and_recursion_is_fine() {
    let m = stubs(
        json!({ "type": "object", "properties": {
            "node": { "$ref": "#/$defs/node" }, "json": { "$ref": "#/$defs/json" },
            "loop": { "$ref": "#/$defs/a" }, "remote": { "$ref": "https://x/y" } },
            "required": ["node", "json", "loop", "remote"],
            "$defs": {
                "node": { "type": "object", "properties": { "children": { "type": "array", "items": { "$ref": "#/$defs/node" } } } },
                "json": { "anyOf": [{ "type": "string" }, { "type": "array", "items": { "$ref": "#/$defs/json" } }] },
                "a": { "anyOf": [{ "$ref": "#/$defs/b" }, { "type": "integer" }] },
                "b": { "anyOf": [{ "$ref": "#/$defs/a" }, { "type": "string" }] } } }),
        None,
    );
    assert_has(
        &m,
        &[
            "class Node(TypedDict):\n    children: NotRequired[list[Node]]\n",
            "Json: TypeAlias = str | list[Json]\n",
            // `a` names `b`, whose body would name `a` again outside a container.
            "B: TypeAlias = Any\n",
            "A: TypeAlias = B | int\n",
            "node: Node, json: Json, loop: A, remote: Any",
        ],
    );
}

#[test]
fn additional_properties_are_dicts_and_more_keywords() {
    let m = stubs(
        json!({ "type": "object", "properties": {
            "map": { "type": "object", "additionalProperties": { "type": "integer" } },
            "free": { "type": "object" } },
            "required": ["map", "free"], "additionalProperties": { "type": "string" } }),
        None,
    );
    assert_has(
        &m,
        &[
            "        map: dict[str, int],\n        free: dict[str, Any],\n        **other: str,\n    ) -> Any:",
        ],
    );
    let closed = stubs(
        json!({ "type": "object", "additionalProperties": false }),
        None,
    );
    assert_has(&closed, &["async def t(self) -> Any:"]);
}

#[test]
fn keywords_and_non_identifiers_are_mangled() {
    let m = stubs(
        json!({ "type": "object", "properties": {
            "class": { "type": "string" }, "my-key": { "type": "string" }, "my_key": { "type": "string" },
            "2x": { "type": "string" }, "self": { "type": "string" },
            "obj": { "type": "object", "properties": { "from": { "type": "string" }, "ok": { "type": "string" } } } } }),
        None,
    );
    assert_has(
        &m,
        &[
            "class_: str | None = None",
            "my_key: str | None = None",
            "my_key_: str | None = None",
            "_2x: str | None = None",
            "self_: str | None = None",
            "class_: (the argument \"class\")",
            "TObj = TypedDict(\"TObj\", {\n    \"from\": NotRequired[str],\n    \"ok\": NotRequired[str],\n})\n",
        ],
    );
}

#[test]
fn output_schema_is_the_return_type() {
    let m = stubs(
        json!({}),
        Some(
            json!({ "type": "object", "description": "The result.", "properties": { "n": { "type": "integer" } }, "required": ["n"] }),
        ),
    );
    assert_has(
        &m,
        &[
            "class TOutput(TypedDict):\n    \"\"\"The result.\"\"\"\n    n: int\n",
            "-> TOutput:",
            "Returns:\n            The result.",
        ],
    );
    let list = stubs(
        json!({}),
        Some(json!({ "type": "array", "items": { "type": "string" } })),
    );
    assert_has(&list, &["async def t(self) -> list[str]:"]);
}

#[test]
fn non_object_arguments_are_one_positional_argument() {
    let m = stubs(
        json!({ "anyOf": [{ "type": "string" }, { "type": "integer" }] }),
        None,
    );
    assert_has(&m, &["async def t(self, args: str | int, /) -> Any:"]);
    let m = stubs(json!(true), None);
    assert_has(&m, &["async def t(self, args: Any = None, /) -> Any:"]);
    let m = stubs(
        json!({ "properties": { "x": false }, "required": ["x"] }),
        None,
    );
    assert_has(&m, &["x: Never"]);
}

#[test]
fn namespaces_and_exotic_tool_names() {
    let tools: Vec<ToolDefinition> = [
        "gh.create-issue",
        "plain",
        "my-tool",
        "gh.list",
        "class",
        "gh",
        "__init__",
        "fs.read",
    ]
    .into_iter()
    .map(ToolDefinition::new)
    .collect();
    let refs: Vec<&ToolDefinition> = tools.iter().collect();
    let m = render_module(&refs);
    assert_has(
        &m,
        &[
            "    gh: _Tools_gh\n    \"\"\"The 2 tools named gh.*\"\"\"\n",
            "    async def plain(self) -> Any:",
            "    async def my_tool(self) -> Any:\n        \"\"\"The tool \"my-tool\": also tools[\"my-tool\"](...).\"\"\"",
            "    async def class_(self) -> Any:",
            "    async def gh_(self) -> Any:",
            "    async def __init___(self) -> Any:",
            "    fs: _Tools_fs\n",
            "class _Tools_gh:\n    async def create_issue(self) -> Any:",
            "    async def list_(self) -> Any:",
            "class _Tools_fs:\n    async def read(self) -> Any:\n        ...\n",
        ],
    );
}

#[test]
fn type_names_never_shadow_methods_or_builtins() {
    let tools = [
        ToolDefinition::new("TOutput"),
        ToolDefinition::new("t").output(json!({ "properties": { "a": {} } })),
        ToolDefinition::new("Any").output(json!({ "properties": { "a": {} } })),
    ];
    let refs: Vec<&ToolDefinition> = tools.iter().collect();
    let m = render_module(&refs);
    assert_has(
        &m,
        &[
            "class TOutput2(TypedDict):",
            "-> TOutput2:",
            "async def Any_(self) -> AnyOutput:",
        ],
    );
}

#[test]
fn docstrings_and_comments_cannot_break_out() {
    let tool = ToolDefinition::new("t")
        .description("Ends with a quote \"\"\" and \\ backslash \u{0}\"")
        .parameters(json!({ "properties": { "o": { "type": "object", "description": "line one\nline two\r\n\u{7}",
            "properties": { "k": { "type": "string", "description": "a \u{1b}[2J comment" } } } } }));
    let last = ToolDefinition::new("u").description("ends with \"");
    assert_has(&render_module(&[&last]), &[r#""""ends with \"""""#]);
    let m = render_module(&[&tool]);
    assert_has(
        &m,
        &[
            r#""""Ends with a quote "\"\" and \\ backslash \x00"

        Args:"#,
            "class TO(TypedDict):\n    \"\"\"line one\n    line two\n    \\x07\n    \"\"\"\n    # a \\x1b[2J comment\n    k: NotRequired[str]\n",
        ],
    );
}

#[test]
fn rendering_is_deterministic_and_bounded() {
    let mut deep = json!({ "type": "string" });
    for _ in 0..200 {
        deep = json!({ "type": "object", "properties": { "a": deep } });
    }
    let tool = ToolDefinition::new("t").parameters(deep);
    let one = render_module(&[&tool]);
    assert_eq!(one, render_module(&[&tool]));
    assert!(one.contains(": NotRequired[Any]"));
}

#[test]
fn many_tools_with_one_ref_name_get_numbered_types() {
    let tools: Vec<ToolDefinition> = (0..300)
        .map(|i| {
            ToolDefinition::new(format!("t{i}")).parameters(json!({
                "properties": { "n": { "$ref": "#/$defs/node" } },
                "$defs": { "node": { "type": "object", "properties": { "v": { "const": i } } } } }))
        })
        .collect();
    let refs: Vec<&ToolDefinition> = tools.iter().collect();
    let m = render_module(&refs);
    assert_has(
        &m,
        &[
            "class Node(TypedDict):",
            "class Node2(TypedDict):",
            "class Node300(TypedDict):",
            "async def t299(self, *, n: Node300 | None = None)",
        ],
    );
    assert!(!m.contains("class Node301("));
}

#[test]
fn identical_ref_graphs_are_declared_once() {
    let params = json!({ "properties": { "n": { "$ref": "#/$defs/node" } },
        "$defs": { "node": { "type": "object", "properties": { "kids": { "type": "array", "items": { "$ref": "#/$defs/node" } } } } } });
    let other = json!({ "properties": { "n": { "$ref": "#/$defs/node" } },
        "$defs": { "node": { "type": "object", "properties": { "v": { "type": "string" } } } } });
    let tools = [
        ToolDefinition::new("a").parameters(params.clone()),
        ToolDefinition::new("b").parameters(params),
        ToolDefinition::new("c").parameters(other),
    ];
    let refs: Vec<&ToolDefinition> = tools.iter().collect();
    let m = render_module(&refs);
    assert_eq!(m.matches("class Node(TypedDict):").count(), 1);
    assert_has(
        &m,
        &[
            "async def a(self, *, n: Node | None = None)",
            "async def b(self, *, n: Node | None = None)",
            "class Node2(TypedDict):\n    v: NotRequired[str]",
            "async def c(self, *, n: Node2 | None = None)",
        ],
    );
}

#[test]
fn an_untyped_mcp_tool_says_what_it_returns() {
    let untyped = json!({ "description": crate::sources::mcp::UNTYPED_OUTPUT });
    let m = stubs(json!({ "type": "object" }), Some(untyped));
    assert_has(
        &m,
        &[
            "async def t(self) -> Any:",
            "The server's JSON value, or its text as a string",
        ],
    );
}
