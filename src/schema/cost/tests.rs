use serde_json::{Value, json};

use super::{MAX_EVALUATIONS, TooCostly, check, worst_case};

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
