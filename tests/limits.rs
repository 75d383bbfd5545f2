//! Each limit a host sets is defined, defaulted and range-checked once: the
//! command line, `initialize` and the Rust API refuse the same out-of-range
//! value with the same message, each naming the limit as its user wrote it
//! (the config key, the flag).

use ptc::{Engine, Limits, Registry};
use serde_json::{Value, json};

use crate::cli::ptc;
use crate::serve::Host;

/// One out-of-range value, as each front end spells it.
struct Case {
    flags: &'static [&'static str],
    config: Value,
    set: fn(&mut Limits),
    message: &'static str,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            flags: &["--max-parallel", "0"],
            config: json!({ "maxParallelSubCalls": 0 }),
            set: |l| l.max_parallel_sub_calls = 0,
            message: "maxParallelSubCalls must be from 1 to 65536, got 0",
        },
        Case {
            flags: &["--max-parallel", "65537"],
            config: json!({ "maxParallelSubCalls": 65537 }),
            set: |l| l.max_parallel_sub_calls = 65537,
            message: "maxParallelSubCalls must be from 1 to 65536, got 65537",
        },
        Case {
            flags: &["--timeout-ms", "0"],
            config: json!({ "defaultTimeoutMs": 0 }),
            set: |l| l.default_timeout_ms = 0,
            message: "defaultTimeoutMs must be from 1 to 2147483647, got 0",
        },
        Case {
            flags: &["--timeout-ms", "2147483648"],
            config: json!({ "defaultTimeoutMs": 2147483648u64, "maxTimeoutMs": 2147483648u64 }),
            set: |l| (l.default_timeout_ms, l.max_timeout_ms) = (2147483648, 2147483648),
            message: "defaultTimeoutMs must be from 1 to 2147483647, got 2147483648",
        },
        Case {
            flags: &["--memory-limit", "1KiB"],
            config: json!({ "memoryLimitBytes": 1024 }),
            set: |l| l.memory_limit_bytes = 1024,
            message: "memoryLimitBytes must be at least 1 MiB, got 1 KiB",
        },
        Case {
            flags: &["--output-cap", "10"],
            config: json!({ "outputCapBytes": 10 }),
            set: |l| l.output_cap_bytes = 10,
            message: "outputCapBytes must be at least 64 bytes, got 10 bytes",
        },
        Case {
            flags: &["--description-budget", "4KiB"],
            config: json!({ "descriptionBudgetBytes": 4096 }),
            set: |l| l.description_budget_bytes = 4096,
            message: "descriptionBudgetBytes must be at least 8 KiB, got 4 KiB",
        },
        Case {
            flags: &["--escalated-max-timeout-ms", "0"],
            config: json!({ "escalatedMaxTimeoutMs": 0 }),
            set: |l| l.escalated_max_timeout_ms = 0,
            message: "escalatedMaxTimeoutMs must be from 1 to 2147483647, got 0",
        },
        Case {
            flags: &["--escalated-memory-limit", "1KiB"],
            config: json!({ "escalatedMemoryLimitBytes": 1024 }),
            set: |l| l.escalated_memory_limit_bytes = 1024,
            message: "escalatedMemoryLimitBytes must be at least 1 MiB, got 1 KiB",
        },
        Case {
            flags: &["--escalated-output-cap", "10"],
            config: json!({ "escalatedOutputCapBytes": 10 }),
            set: |l| l.escalated_output_cap_bytes = 10,
            message: "escalatedOutputCapBytes must be at least 64 bytes, got 10 bytes",
        },
    ]
}

#[tokio::test]
async fn every_front_end_refuses_a_limit_out_of_range_with_the_same_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::start();
    for case in cases() {
        let mut limits = Limits::default();
        (case.set)(&mut limits);
        let error = Engine::new(Registry::new(), limits).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("invalid limit: {}", case.message)
        );

        let error = host
            .call_error("initialize", json!({ "config": case.config }))
            .await;
        assert_eq!(error["code"], -32602);
        assert_eq!(
            error["message"],
            format!(
                "invalid params for `initialize`: config: invalid limit: {}",
                case.message
            )
        );

        let mut args = vec!["run"];
        args.extend(case.flags);
        args.extend(["-e", "1"]);
        let out = ptc(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2));
        let flag = case.flags[0];
        let key = case.message.split(' ').next().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "ptc: invalid limit: {}\n",
                case.message.replacen(key, flag, 1)
            )
        );
    }
}

/// The budget a host sets through `initialize` decides the description's
/// form, as the command line's flag does for `ptc sdk`.
#[test]
fn limit_flags_show_their_defaults_in_help() {
    let dir = tempfile::tempdir().unwrap();
    let out = ptc(dir.path(), &["run", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let limits = Limits::default();
    for shown in [
        format!(
            "--max-parallel <N> Sub-calls in flight at once; 1 is strictly serial [default: {}]",
            limits.max_parallel_sub_calls
        ),
        format!(
            "Deadline of the run in milliseconds [default: {}; ptc mcp: 55000]",
            limits.default_timeout_ms
        ),
    ] {
        assert!(help.contains(&shown), "{shown} in {help}");
    }
    assert!(!help.contains("{default}"), "{help}");
}

#[tokio::test]
async fn the_description_budget_chooses_the_form() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = crate::common::fixture("workloads/tools50.json");
    let manifest = manifest.to_str().unwrap();
    let sdk = |budget: &str| {
        let out = ptc(
            dir.path(),
            &["sdk", "--tools", manifest, "--description-budget", budget],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(sdk("64KiB").contains("Every tool is declared below."));
    let index = sdk("32KiB");
    assert!(
        index.contains("There are 50 tools, too many to declare here"),
        "{index}"
    );
    assert!(index.len() <= 32 << 10);

    let mut host = Host::start();
    let description = |result: &Value| {
        result["tools"][0]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    host.call(
        "initialize",
        json!({ "config": { "descriptionBudgetBytes": 8192 } }),
    )
    .await;
    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "a", "description": "Does a." }] }),
    )
    .await;
    let shown = host.call("presentation", json!({})).await;
    assert!(description(&shown).contains("Every tool is declared below."));
    let many: Vec<Value> = (0..200)
        .map(|i| json!({ "name": format!("ns{}.tool_{i}", i % 4), "description": "Does a numbered thing." }))
        .collect();
    host.call("tools/register", json!({ "tools": many })).await;
    let shown = description(&host.call("presentation", json!({})).await);
    assert!(shown.len() <= 8192, "{} bytes", shown.len());
    assert!(
        shown.contains("ns0: 50 tools, ns0.tool_0, ns0.tool_4"),
        "{shown}"
    );
}

/// contracts §6: a stack limit must leave 2 MiB of headroom below the
/// sandbox threads' 16 MiB stack: 14 MiB is accepted, a byte more is not.
#[test]
fn a_stack_limit_may_take_all_but_the_headroom() {
    let with_stack = |stack_limit_bytes| Limits {
        stack_limit_bytes,
        ..Limits::default()
    };
    assert!(with_stack(14 << 20).validate().is_ok());
    assert!(Engine::new(Registry::new(), with_stack(14 << 20)).is_ok());
    assert!(matches!(
        with_stack((14 << 20) + 1).validate(),
        Err(ptc::ConfigError::StackLimit { .. })
    ));
}
