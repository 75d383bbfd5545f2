use serde_json::{Value, json};

use super::{MAX_EVALUATIONS, META_SCHEMA_WEIGHT, TooCostly, check, worst_case};

/// The red team's schema: `$defs` a0..a{depth-1}, each an `anyOf` of
/// `fanout` `$ref`s to the next, the first under `properties.p`.
fn ref_ladder(depth: usize, fanout: usize) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..depth {
        let next = if i + 1 == depth {
            json!({ "type": "string" })
        } else {
            let refs = vec![json!({ "$ref": format!("#/$defs/a{}", i + 1) }); fanout];
            json!({ "anyOf": refs })
        };
        defs.insert(format!("a{i}"), next);
    }
    json!({ "type": "object", "properties": { "p": { "$ref": "#/$defs/a0" } }, "$defs": defs })
}

#[test]
fn the_anyof_ladder_is_refused() {
    let Err(TooCostly::Fanout { evaluations, depth }) = check(&ref_ladder(10, 6)) else {
        panic!("6^10 evaluations must be refused");
    };
    assert_eq!((evaluations, depth), (MAX_EVALUATIONS + 1, 1));
    // A short ladder is fine: under `p`, each rung is the `anyOf`, then six
    // `{ "$ref" }` subschemas each applying the next rung.
    let rung = |next: u64| 1 + 6 * (1 + next);
    assert_eq!(
        worst_case(&ref_ladder(4, 6)),
        Ok((1 + rung(rung(rung(1))), 1))
    );
}

#[test]
fn the_message_says_what_is_allowed() {
    let message = check(&ref_ladder(10, 6)).unwrap_err().to_string();
    assert!(
        message.contains("more than 1000 subschemas at one place (1 level in)")
            && message.contains("at most 1000 are allowed"),
        "{message}"
    );
}

/// The same blow-up spread over the value's depth: each level's member is
/// checked against six copies of the next level.
#[test]
fn fanout_compounds_through_nested_values() {
    let mut defs = serde_json::Map::new();
    for i in 0..8 {
        let refs = vec![json!({ "$ref": format!("#/$defs/l{}", i + 1) }); 6];
        defs.insert(
            format!("l{i}"),
            json!({ "properties": { "x": { "anyOf": refs } } }),
        );
    }
    defs.insert("l8".into(), json!({ "type": "number" }));
    let schema = json!({ "$ref": "#/$defs/l0", "$defs": defs });
    assert!(matches!(
        check(&schema),
        Err(TooCostly::Fanout { depth: 4, .. })
    ));
}

/// Recursion that doubles the subschemas per level is refused; the depth
/// it blows up at is where it passes the limit.
#[test]
fn doubling_recursion_is_refused() {
    let schema = json!({
        "$defs": { "n": { "properties": { "n": { "anyOf": [{ "$ref": "#/$defs/n" }, { "$ref": "#/$defs/n" }] } } } },
        "$ref": "#/$defs/n"
    });
    assert!(matches!(
        check(&schema),
        Err(TooCostly::Fanout { depth: 9, .. })
    ));
}

#[test]
fn recursive_trees_and_json_values_are_accepted() {
    let tree = json!({
        "$defs": { "node": { "type": "object", "properties": {
            "value": { "type": "number" },
            "children": { "type": "array", "items": { "$ref": "#/$defs/node" } }
        } } },
        "$ref": "#/$defs/node"
    });
    assert_eq!(worst_case(&tree), Ok((2, 0)));
    // Members and elements never meet at one place: the two recursive
    // branches do not add up.
    let json_value = json!({ "anyOf": [
        { "type": ["string", "number", "boolean", "null"] },
        { "type": "array", "items": { "$ref": "#" } },
        { "type": "object", "additionalProperties": { "$ref": "#" } }
    ] });
    assert_eq!(worst_case(&json_value), Ok((5, 1)));
}

#[test]
fn a_reference_to_itself_is_a_cycle() {
    assert_eq!(
        check(&json!({ "$ref": "#" })),
        Err(TooCostly::Cycle {
            pointer: String::new()
        })
    );
    let mutual = json!({
        "$defs": { "a": { "allOf": [{ "$ref": "#/$defs/b" }] }, "b": { "$ref": "#/$defs/a" } },
        "properties": { "x": { "$ref": "#/$defs/a" } }
    });
    let message = check(&mutual).unwrap_err().to_string();
    assert!(message.contains("leads back to itself"), "{message}");
}

#[test]
fn anchors_ids_and_escaped_pointers_are_followed() {
    let ladder = |target: &str| {
        let refs = vec![json!({ "$ref": target }); 40];
        json!({
            "properties": { "p": { "anyOf": refs.clone() }, "q": { "anyOf": refs } },
            "$defs": {
                "a/b": { "$anchor": "wide", "$id": "wide.json", "anyOf": vec![json!({ "type": "string" }); 40] }
            }
        })
    };
    for target in ["#wide", "wide.json", "#/$defs/a~1b", "#/%24defs/a~1b"] {
        assert!(
            matches!(check(&ladder(target)), Err(TooCostly::Fanout { .. })),
            "{target}"
        );
    }
    // A reference out of the document accepts anything: it costs one.
    assert_eq!(
        worst_case(&json!({ "$ref": "https://example.com/s.json" })),
        Ok((1, 0))
    );
}

#[test]
fn dynamic_references_count_every_anchor() {
    let schema = json!({
        "$dynamicAnchor": "node",
        "anyOf": vec![json!({ "properties": { "x": { "$dynamicRef": "#node" } } }); 2]
    });
    assert!(matches!(check(&schema), Err(TooCostly::Fanout { .. })));
}

#[test]
fn unevaluated_keywords_count_their_siblings_twice() {
    let wide = vec![json!({ "type": "string" }); 300];
    assert!(check(&json!({ "anyOf": wide.clone() })).is_ok());
    let schema = json!({ "anyOf": wide.clone(), "allOf": wide, "unevaluatedProperties": false });
    assert!(matches!(
        check(&schema),
        Err(TooCostly::Fanout { depth: 0, .. })
    ));
}

/// Positions take the widest one, keys the widest property; every-member
/// keywords add up.
#[test]
fn members_and_positions_take_the_widest() {
    let wide = |n| json!({ "anyOf": vec![json!({ "type": "string" }); n] });
    let schema = json!({
        "properties": { "a": wide(10), "b": wide(20) },
        "patternProperties": { "^x": wide(5) },
        "additionalProperties": wide(3),
        "prefixItems": [wide(50)],
        "items": wide(7)
    });
    assert_eq!(worst_case(&schema), Ok((50 + 1 + 7 + 1, 1)));
}

/// The rungs of a ladder as `$defs`: `a{i}` is an `anyOf` of six
/// `{ "$ref": link(i + 1) }`, the last one a string.
fn rungs(depth: usize, link: &dyn Fn(usize) -> String) -> serde_json::Map<String, Value> {
    (0..depth)
        .map(|i| {
            let rung = if i + 1 == depth {
                json!({ "type": "string" })
            } else {
                json!({ "anyOf": vec![json!({ "$ref": link(i + 1) }); 6] })
            };
            (format!("a{i}"), rung)
        })
        .collect()
}

/// Each rung of `rungs` with `{ key: value(i) }` added.
fn marked(
    mut rungs: serde_json::Map<String, Value>,
    key: &str,
    value: &dyn Fn(usize) -> String,
) -> serde_json::Map<String, Value> {
    for (i, rung) in rungs.values_mut().enumerate() {
        rung[key] = json!(value(i));
    }
    rungs
}

/// A ladder `ladder(depth)` reached from the property `p`: the validator
/// follows it (with three rungs a number under `p` fails, a string passes,
/// and nothing is left unchecked), and the bound counts it (ten rungs, 6^9
/// evaluations, are refused).
#[track_caller]
fn assert_followed_and_counted(ladder: &dyn Fn(usize) -> Value) {
    let short = ladder(3);
    let (compiled, warning) = crate::schema::CompiledSchema::compile(&short).unwrap();
    assert_eq!(warning, None, "{short}");
    assert!(compiled.check(&json!({ "p": 5 })).is_err(), "{short}");
    assert!(compiled.check(&json!({ "p": "x" })).is_ok(), "{short}");
    let long = ladder(10);
    assert!(
        matches!(check(&long), Err(TooCostly::Fanout { .. })),
        "{long}"
    );
}

/// The validator resolves a reference by the document's own `$id`, takes
/// an id's fragment for an anchor (drafts 4 to 7), and resolves a relative
/// id against the document's: all are counted.
#[test]
fn references_by_ids_and_legacy_anchors_are_followed() {
    let root = "https://example.com/schemas/root.json";
    assert_followed_and_counted(&|depth| {
        let link = |i| format!("{root}#/$defs/a{i}");
        json!({ "$id": root, "properties": { "p": { "$ref": link(0) } }, "$defs": rungs(depth, &link) })
    });
    for (id_key, draft) in [
        ("$id", "http://json-schema.org/draft-07/schema#"),
        ("id", "http://json-schema.org/draft-04/schema#"),
    ] {
        assert_followed_and_counted(&|depth| {
            let name = |i| format!("#a{i}");
            let definitions = marked(rungs(depth, &name), id_key, &name);
            json!({ "$schema": draft, "properties": { "p": { "$ref": name(0) } }, "definitions": definitions })
        });
    }
    // `r1.json` is https://example.com/schemas/r1.json; `%72` is `r`.
    assert_followed_and_counted(&|depth| {
        let link = |i| format!("https://example.com/schemas/%72{i}.json");
        let defs = marked(rungs(depth, &link), "$id", &|i| format!("r{i}.json"));
        json!({ "$id": root, "properties": { "p": { "$ref": link(0) } }, "$defs": defs })
    });
}

/// A pointer is followed from wherever the validator may take it: its
/// base need not be where the bound would place it.
#[test]
fn pointers_are_followed_from_every_place() {
    // Two resources with one `$id`: the last one wins, and `X`'s pointer
    // leads into `Y`.
    assert_followed_and_counted(&|depth| {
        let link = |i| format!("#/$defs/a{i}");
        json!({
            "properties": { "p": { "$ref": "#/$defs/X" } },
            "$defs": {
                "X": { "$id": "https://example.com/s", "$ref": link(0) },
                "Y": { "$id": "https://example.com/s", "$defs": rungs(depth, &link) }
            }
        })
    });
    // An `$id` under a key that is no keyword is not a resource.
    assert_followed_and_counted(&|depth| {
        let link = |i| format!("#/x/a{i}");
        let x = marked(rungs(depth, &link), "$id", &|i| {
            format!("https://example.com/a{i}")
        });
        json!({ "properties": { "p": { "$ref": link(0) } }, "x": x })
    });
    // Draft 7 ignores an `$id` beside a `$ref`.
    assert_followed_and_counted(&|depth| {
        let link = |i| format!("#/definitions/a{i}");
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "properties": { "p": { "$id": "https://example.com/x", "$ref": link(0) } },
            "definitions": rungs(depth, &link)
        })
    });
    // The validator reads an index `01` as 1.
    assert_followed_and_counted(&|depth| {
        let link = |i| format!("#/$defs/L/allOf/0{i}");
        let all_of: Vec<Value> = rungs(depth, &link)
            .into_iter()
            .map(|(_, rung)| rung)
            .collect();
        json!({ "properties": { "p": { "$ref": link(0) } }, "$defs": { "L": { "allOf": all_of } } })
    });
}

/// A meta-schema checks a schema given as a value: it is bundled with the
/// validator, counts as [`META_SCHEMA_WEIGHT`] at every place, and its
/// dynamic references can come back to the document's anchors.
#[test]
fn meta_schemas_are_counted() {
    let meta = json!({ "$ref": "https://json-schema.org/draft/2020-12/schema" });
    let schema = json!({ "properties": { "s": meta } });
    assert_eq!(worst_case(&schema), Ok((1 + META_SCHEMA_WEIGHT, 1)));
    let (compiled, warning) = crate::schema::CompiledSchema::compile(&schema).unwrap();
    assert_eq!(warning, None);
    assert!(compiled.check(&json!({ "s": { "type": 5 } })).is_err());
    assert!(
        compiled
            .check(&json!({ "s": { "type": "string" } }))
            .is_ok()
    );
    // The meta-schema's `$dynamicRef: "#meta"` takes the outermost anchor
    // in scope: this document, six times per level of the value.
    let taken_over = json!({ "$dynamicAnchor": "meta", "anyOf": vec![meta; 6] });
    assert!(matches!(check(&taken_over), Err(TooCostly::Fanout { .. })));
}

#[test]
fn the_message_names_the_place_and_the_reference() {
    let too_wide = wide(1000);
    let message = check(&too_wide).unwrap_err().to_string();
    assert!(
        message.contains("more than 1000 subschemas at one place (the value itself)"),
        "{message}"
    );
    let nested = json!({ "properties": { "a": { "items": too_wide } } });
    let message = check(&nested).unwrap_err().to_string();
    assert!(message.contains("(2 levels in)"), "{message}");
    let message = check(&json!({ "$ref": "#" })).unwrap_err().to_string();
    assert_eq!(
        message,
        "the $ref at the root leads back to itself without going into the value"
    );
    // The first reference to `x` is off the cycle; the one named is on it.
    let shared = json!({
        "anyOf": [{ "allOf": [{ "$ref": "#/anyOf/0" }] }],
        "properties": { "b": { "$ref": "#/anyOf/0" } }
    });
    let message = check(&shared).unwrap_err().to_string();
    assert!(
        message.starts_with("the $ref at /anyOf/0/allOf/0 leads back"),
        "{message}"
    );
    // The walk comes back through an `allOf` of a schema without a `$ref`:
    // the reference named is the one that led there.
    let through_all_of = json!({
        "properties": { "p": { "$ref": "#/$defs/S/allOf/0" } },
        "$defs": { "S": { "allOf": [{ "$ref": "#/$defs/S" }] } }
    });
    let message = check(&through_all_of).unwrap_err().to_string();
    assert!(
        message.starts_with("the $ref at /$defs/S/allOf/0 leads back"),
        "{message}"
    );
    let inner = json!({ "properties": { "x": { "$ref": "#/properties/x" } } });
    let message = check(&inner).unwrap_err().to_string();
    assert!(
        message.starts_with("the $ref at /properties/x leads back"),
        "{message}"
    );
}

/// `anyOf` of `n` plain subschemas: `n + 1` apply where it does.
fn wide(n: usize) -> Value {
    json!({ "anyOf": vec![json!({ "type": "string" }); n] })
}

/// The limit is 1,000 inclusive, at the value itself and inside it.
#[test]
fn exactly_the_limit_is_accepted() {
    assert_eq!(worst_case(&wide(999)), Ok((1000, 0)));
    assert!(check(&wide(1000)).is_err());
    let inside = |n| json!({ "properties": { "a": wide(n) } });
    assert_eq!(worst_case(&inside(999)), Ok((1000, 1)));
    assert!(check(&inside(1000)).is_err());
}

/// Every applicator is read: in place, per member, per element.
#[test]
fn every_applicator_counts() {
    let w = wide(10); // 11 where it applies
    let cases = [
        (json!({ "allOf": [w], "oneOf": [w, w] }), (34, 0)),
        (json!({ "not": w }), (12, 0)),
        (json!({ "if": w, "then": w, "else": w }), (34, 0)),
        (json!({ "dependentSchemas": { "a": w, "b": w } }), (23, 0)),
        (json!({ "dependencies": { "a": w, "b": ["a"] } }), (12, 0)),
        (json!({ "allOf": [w], "unevaluatedItems": false }), (23, 0)),
        (json!({ "patternProperties": { "a": w, "b": w } }), (22, 1)),
        (
            json!({ "propertyNames": w, "unevaluatedProperties": w }),
            (22, 1),
        ),
        (
            json!({ "items": [w, wide(3)], "additionalItems": w }),
            (22, 1),
        ),
        (json!({ "items": w, "contains": w }), (22, 1)),
    ];
    for (schema, expected) in cases {
        assert_eq!(worst_case(&schema), Ok(expected), "{schema}");
    }
}

/// A `#/...` reference inside a resource (an `$id`) points into that
/// resource, not into the document.
#[test]
fn fragments_resolve_in_the_enclosing_resource() {
    let schema = json!({
        "properties": { "s": { "$ref": "sub.json" } },
        "$defs": {
            "sub": {
                "$id": "sub.json",
                "properties": { "x": { "$ref": "#/$defs/w" } },
                "$defs": { "w": wide(20) }
            },
            "another-resource": { "$id": "other.json", "$defs": { "w": true } }
        }
    });
    assert_eq!(worst_case(&schema), Ok((22, 2)));
}

/// `$recursiveRef` lands on the outermost `$recursiveAnchor: true`, or
/// the resource it is in; `$dynamicRef` on the dynamic anchors of its
/// name. Where several can be, the largest counts.
#[test]
fn dynamic_references_take_only_their_anchors() {
    let recursive = json!({
        "$recursiveAnchor": true,
        "anyOf": vec![json!({ "type": "string" }); 4],
        "properties": { "i": { "$ref": "item.json" } },
        "$defs": { "item": { "$id": "item.json", "properties": { "x": { "$recursiveRef": "#" } } } }
    });
    // Under `x` (two levels in) the root: `x` and five.
    assert_eq!(worst_case(&recursive), Ok((6, 2)));
    let dynamic = json!({
        "$dynamicAnchor": "node",
        "anyOf": vec![json!({ "type": "string" }); 4],
        "properties": { "x": { "$dynamicRef": "#node" } },
        "$defs": { "other": { "$recursiveAnchor": true, "anyOf": vec![json!(true); 20] } }
    });
    assert_eq!(worst_case(&dynamic), Ok((6, 1)));
}

/// The real MCP tool lists the tests register (and the workloads' tool
/// sets) stay far below the limit: the widest is notion's, 9 subschemas two
/// levels in (docs/contracts.md says so).
#[test]
fn real_tool_schemas_stay_far_below_the_limit() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let lists = [
        "github",
        "notion",
        "server-everything",
        "server-filesystem",
        "server-memory",
    ];
    let files = lists.map(|name| format!("mcp-tools/{name}.json"));
    let files = files
        .iter()
        .map(String::as_str)
        .chain(["workloads/tools1000.json", "workloads/tools50.json"]);
    let mut widest = (0, 0);
    for file in files {
        let text = std::fs::read_to_string(fixtures.join(file)).unwrap();
        let list: Value = serde_json::from_str(&text).unwrap();
        let tools = list.get("tools").unwrap_or(&list).as_array().unwrap();
        let mut schemas = 0;
        for tool in tools {
            let keys = ["inputSchema", "outputSchema", "parameters", "output"];
            for schema in keys.iter().filter_map(|key| tool.get(key)) {
                widest = widest.max(worst_case(schema).unwrap());
                schemas += 1;
            }
        }
        assert!(schemas >= tools.len(), "{file}: {schemas} schemas");
    }
    assert_eq!(widest, (9, 2));
}

/// A reference to `.` may name any resource and the root; an id ending in
/// `..` may be what any named reference resolves to.
#[test]
fn directories_may_be_any_resource() {
    let to_the_root =
        json!({ "properties": { "p": { "$ref": "." } }, "anyOf": vec![json!(true); 5] });
    assert_eq!(worst_case(&to_the_root), Ok((7, 1)));
    let up = json!({
        "properties": { "p": { "$ref": "sub.json" } },
        "$defs": { "s": { "$id": "https://example.com/a/..", "anyOf": vec![json!(true); 20] } }
    });
    assert_eq!(worst_case(&up), Ok((22, 1)));
}
