//! The paths that grant, each tested where it must refuse (issue 23): an
//! approval answer that is not `approved: true`, a panicking escalation
//! approver, escalated limits below the standard ones, a rejection handled
//! late, and a rejection too long to show. Each test here failed with its
//! rule broken on purpose (see docs/testing.md, "Grants").

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ptc::{
    Approval, ApprovalRequest, Approver, BoxFuture, Engine, EscalationRequest, FailureKind, Limits,
    Registry, RunOptions, RunRequest, SandboxPermissions, Tool, ToolContext, ToolDefinition,
    ToolError,
};
use serde_json::{Value, json};

use crate::serve::Host;

/// An escalation approver that panics: before its future (`early`) or
/// inside it.
struct Panicking {
    early: bool,
}

impl Approver for Panicking {
    fn approve(&self, _request: ApprovalRequest) -> BoxFuture<Approval> {
        Box::pin(async { Approval::Approved })
    }

    fn escalate(&self, _request: EscalationRequest) -> BoxFuture<Approval> {
        assert!(!self.early, "the approver panics before its future");
        Box::pin(async { panic!("the approver panics inside its future") })
    }
}

/// Grants every escalation, keeping what it was asked.
#[derive(Clone, Default)]
struct Granting(Arc<Mutex<Vec<EscalationRequest>>>);

impl Approver for Granting {
    fn approve(&self, _request: ApprovalRequest) -> BoxFuture<Approval> {
        Box::pin(async { Approval::Approved })
    }

    fn escalate(&self, request: EscalationRequest) -> BoxFuture<Approval> {
        self.0.lock().unwrap().push(request);
        Box::pin(async { Approval::Approved })
    }
}

/// A registry with `deploy` (escalation-only), counting its calls.
fn deploy_registry(calls: &Arc<AtomicUsize>) -> Registry {
    let registry = Registry::new();
    let calls = Arc::clone(calls);
    registry
        .add(Tool::new(
            ToolDefinition::new("deploy").escalation_only(true),
            move |_args: Value, _cx: ToolContext| {
                calls.fetch_add(1, Ordering::SeqCst);
                async { Ok::<_, ToolError>(json!("deployed")) }
            },
        ))
        .unwrap();
    registry
}

fn escalated(code: &str) -> RunRequest {
    RunRequest::new(code)
        .description("ships it")
        .sandbox_permissions(SandboxPermissions::RequireEscalated)
        .justification("the user asked to deploy")
}

#[tokio::test]
async fn a_panicking_escalation_approver_means_denied() {
    for early in [true, false] {
        let calls = Arc::new(AtomicUsize::new(0));
        let registry = deploy_registry(&calls);
        registry.set_approver(Panicking { early });
        let engine = Engine::new(registry, Limits::default()).unwrap();
        let outcome = engine
            .run_code(
                escalated("return await tools.deploy({})"),
                RunOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(
            outcome.kind,
            Some(FailureKind::Denied),
            "early {early}: {}",
            outcome.text()
        );
        assert!(outcome.text().contains("panicked"), "{}", outcome.text());
        assert_eq!(calls.load(Ordering::SeqCst), 0, "nothing ran");
    }
}

#[tokio::test]
async fn escalated_limits_are_never_below_the_standard_ones() {
    let standard = Limits {
        max_timeout_ms: 20_000,
        default_timeout_ms: 10_000,
        memory_limit_bytes: 64 << 20,
        output_cap_bytes: 64 << 10,
        escalated_max_timeout_ms: 100,
        escalated_memory_limit_bytes: 1 << 20,
        escalated_output_cap_bytes: 1_024,
        ..Limits::default()
    };
    let approver = Granting::default();
    let registry = deploy_registry(&Arc::default());
    registry.set_approver(approver.clone());
    let engine = Engine::new(registry, standard.clone()).unwrap();
    // 8 MiB held, 4 KiB printed: over each escalated value, under each
    // standard one.
    let code = "const big = 'x'.repeat(8 << 20)\nconsole.log('y'.repeat(4096))\nreturn big.length";
    let outcome = engine
        .run_code(escalated(code).timeout_ms(5_000), RunOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.kind, None, "{}", outcome.text());
    assert!(outcome.text().ends_with("8388608"), "{}", outcome.text());
    assert!(outcome.text().contains(&"y".repeat(4096)));
    let asked = approver.0.lock().unwrap();
    assert_eq!(
        (
            asked[0].grant.memory_limit_bytes,
            asked[0].grant.output_cap_bytes
        ),
        (standard.memory_limit_bytes, standard.output_cap_bytes),
        "the grant shown is the standard floor"
    );
    assert_eq!(
        asked[0].grant.timeout_ms, 5_000,
        "5 s is within the standard 20 s"
    );
}

async fn run(code: &str) -> String {
    let limits = Limits {
        output_cap_bytes: 1 << 20,
        ..Limits::default()
    };
    let engine = Engine::new(Registry::new(), limits).unwrap();
    let outcome = engine
        .run_code(RunRequest::new(code), RunOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.kind, None, "{}", outcome.text());
    outcome.text().to_string()
}

#[tokio::test]
async fn a_rejection_handled_later_is_not_reported() {
    let late = run("const p = Promise.reject(new Error('late'))\nawait null\nawait new Promise(r => setTimeout(r, 5))\np.catch(() => {})\nreturn 'done'").await;
    assert_eq!(late, "done");
    // The same rejection left unhandled is reported: the test can fail.
    let never = run("const p = Promise.reject(new Error('late'))\nawait null\nreturn 'done'").await;
    assert!(
        never.contains("[warn] unhandled rejection: Error: late"),
        "{never}"
    );
}

#[tokio::test]
async fn a_rejection_is_described_in_at_most_1_kib() {
    let text = run("Promise.reject(new Error('x'.repeat(5000)))\nreturn 'done'").await;
    let line = text
        .lines()
        .find(|l| l.contains("unhandled rejection"))
        .unwrap_or_else(|| panic!("reported: {text}"));
    let described = line
        .strip_prefix("[warn] unhandled rejection: ")
        .expect(line);
    assert_eq!(described, format!("Error: {}…", "x".repeat(1024 - 7)));
    // Exactly 1 KiB is whole; an empty message leaves the name alone.
    let whole = run("Promise.reject(new Error('x'.repeat(1017)))\nreturn 'done'").await;
    let line = format!("[warn] unhandled rejection: Error: {}\n", "x".repeat(1017));
    assert!(whole.contains(&line), "{whole}");
    let bare = run("Promise.reject(new Error(''))\nreturn 'done'").await;
    assert_eq!(bare, "[warn] unhandled rejection: Error\ndone");
}

#[tokio::test]
async fn past_sixteen_rejections_are_counted() {
    let rejecting = |n: usize| {
        format!(
            "for (let i = 0; i < {n}; i++) Promise.reject(new Error('r' + i))\nawait null\nreturn 'done'"
        )
    };
    let text = run(&rejecting(18)).await;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 18, "{text}");
    assert_eq!(lines[15], "[warn] unhandled rejection: Error: r15");
    assert_eq!(lines[16], "[warn] … and 2 more unhandled rejections");
    let text = run(&rejecting(17)).await;
    assert!(
        text.ends_with("[warn] … and 1 more unhandled rejection\ndone"),
        "{text}"
    );
    let text = run(&rejecting(16)).await;
    assert!(!text.contains("more unhandled"), "{text}");
}

/// A `ptc serve` session with `risky` (policy `ask`) and `deploy`
/// (escalation-only).
async fn approving_session() -> Host {
    let mut host = Host::start();
    host.call(
        "tools/register",
        json!({ "tools": [
            { "name": "risky", "policy": "ask" },
            { "name": "deploy", "requiresEscalation": true }
        ] }),
    )
    .await;
    host
}

/// Every `tools/approve` answer but `{"approved": true}` refuses, for a call
/// and for an escalation: nothing reaches `tools/call`.
#[tokio::test]
async fn serve_refuses_unless_the_host_answers_approved_true() {
    let answers = [
        json!({ "error": { "code": -32000, "message": "the host broke" } }),
        json!({ "result": {} }),
        json!({ "result": { "approved": "true" } }),
        json!({ "result": { "approved": 1 } }),
        json!({ "result": null }),
    ];
    let mut host = approving_session().await;
    for answer in &answers {
        let run = host
            .request(
                "run_code",
                json!({ "code": "try { return await tools.risky({}) } catch (e: any) { return e.code }", "description": "d" }),
            )
            .await;
        let approve = host.incoming_request("tools/approve").await;
        let mut reply = json!({ "jsonrpc": "2.0", "id": approve["id"] });
        reply
            .as_object_mut()
            .unwrap()
            .extend(answer.as_object().unwrap().clone());
        host.send(reply).await;
        let result = answer_or_call(&mut host, run, answer).await;
        assert_eq!(result["content"][0]["text"], "DENIED", "{answer}: {result}");

        let run = host
            .request(
                "run_code",
                json!({ "code": "return await tools.deploy({})", "description": "d",
                        "sandboxPermissions": "require_escalated", "justification": "j" }),
            )
            .await;
        let approve = host.incoming_request("tools/approve").await;
        assert_eq!(approve["params"]["kind"], "escalation");
        let mut reply = json!({ "jsonrpc": "2.0", "id": approve["id"] });
        reply
            .as_object_mut()
            .unwrap()
            .extend(answer.as_object().unwrap().clone());
        host.send(reply).await;
        let result = answer_or_call(&mut host, run, answer).await;
        assert_eq!(result["kind"], "denied", "{answer}: {result}");
    }
    assert!(
        !host.seen_any(|m| m["method"] == "tools/call"),
        "nothing refused ran"
    );
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

/// The result of run `run`, failing at once if ptc calls a tool instead
/// (an approval that granted).
async fn answer_or_call(host: &mut Host, run: u64, answer: &Value) -> Value {
    let next = host
        .expect("the run's answer or a tool call", |m| {
            m["method"] == "tools/call" || (m["id"] == run && m.get("method").is_none())
        })
        .await;
    assert_ne!(next["method"], "tools/call", "{answer} approved: {next}");
    next["result"].clone()
}
