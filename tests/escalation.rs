//! Escalation (contracts §6): a run that asks for `sandboxPermissions:
//! "require_escalated"` goes to the approver before it starts; approved, it
//! may call escalation-only tools and gets the escalated limits, for that run
//! only; refused, nothing runs.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ptc::{
    Approval, ApprovalLimits, ApprovalRequest, Approver, BoxFuture, Call, Denial, Engine,
    ErrorCode, EscalationRequest, FailureKind, Invocation, Limits, Mode, Policy, Registry,
    RunEvent, RunOptions, RunRequest, SandboxPermissions, Tool, ToolContext, ToolDefinition,
    ToolError,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::cli::ptc;
use crate::mcp_server::{drive, texts};
use crate::sdk::check_golden;
use crate::serve::Host;

/// What the test approver saw and how it answers.
#[derive(Default)]
struct Seen {
    escalations: Mutex<Vec<EscalationRequest>>,
    asked: Mutex<Vec<String>>,
    /// `Some(reason)`: refuse escalations with it.
    refuse_escalation: Option<String>,
    /// Refuse `ask` calls.
    refuse_calls: bool,
}

#[derive(Clone)]
struct TestApprover(Arc<Seen>);

impl Approver for TestApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<Approval> {
        let seen = Arc::clone(&self.0);
        Box::pin(async move {
            seen.asked.lock().unwrap().push(request.call.name.clone());
            match seen.refuse_calls {
                true => Approval::Refused(Denial::new("the user said no to the call")),
                false => Approval::Approved,
            }
        })
    }

    fn escalate(&self, request: EscalationRequest) -> BoxFuture<Approval> {
        let seen = Arc::clone(&self.0);
        Box::pin(async move {
            seen.escalations.lock().unwrap().push(request);
            match &seen.refuse_escalation {
                Some(reason) => Approval::Refused(Denial::new(reason.clone())),
                None => Approval::Approved,
            }
        })
    }
}

/// A tool that counts its calls and returns `name`.
fn counted(definition: ToolDefinition, calls: &Arc<AtomicUsize>) -> Tool {
    let calls = Arc::clone(calls);
    let name = definition.name.clone();
    Tool::new(definition, move |_args: Value, _cx: ToolContext| {
        calls.fetch_add(1, Ordering::SeqCst);
        let name = name.clone();
        async move { Ok::<_, ToolError>(json!(name)) }
    })
}

/// Small standard limits, larger escalated ones.
fn limits() -> Limits {
    Limits {
        max_timeout_ms: 1_000,
        default_timeout_ms: 1_000,
        memory_limit_bytes: 8 << 20,
        output_cap_bytes: 1_024,
        escalated_max_timeout_ms: 60_000,
        escalated_memory_limit_bytes: 64 << 20,
        escalated_output_cap_bytes: 64 << 10,
        ..Limits::default()
    }
}

struct Fixture {
    engine: Engine,
    seen: Arc<Seen>,
    deploys: Arc<AtomicUsize>,
    reads: Arc<AtomicUsize>,
}

fn fixture(seen: Seen) -> Fixture {
    let registry = Registry::new();
    let (deploys, reads) = (Arc::default(), Arc::default());
    registry
        .add(counted(
            ToolDefinition::new("deploy").escalation_only(true),
            &deploys,
        ))
        .unwrap();
    registry
        .add(counted(ToolDefinition::new("read").read_only(true), &reads))
        .unwrap();
    let seen = Arc::new(seen);
    registry.set_approver(TestApprover(Arc::clone(&seen)));
    Fixture {
        engine: Engine::new(registry, limits()).unwrap(),
        seen,
        deploys,
        reads,
    }
}

fn escalated(code: &str) -> RunRequest {
    RunRequest::new(code)
        .description("ships it")
        .sandbox_permissions(SandboxPermissions::RequireEscalated)
        .justification("the user asked to deploy the release")
}

/// Calls `deploy`, then holds ~20 MiB (over the standard 8 MiB heap), then
/// prints ~4 KiB (over the standard 1 KiB cap).
const NEEDS_MORE: &str = r#"
const deployed = await tools.deploy({})
const big = 'x'.repeat(20 << 20)
console.log('y'.repeat(4096))
return `${deployed} ${big.length}`
"#;

#[tokio::test]
async fn an_approved_escalation_grants_its_run_and_only_that_run() {
    let f = fixture(Seen::default());
    let request = escalated(NEEDS_MORE).timeout_ms(30_000);
    let outcome = f
        .engine
        .run_code(request, RunOptions::default())
        .await
        .unwrap();
    assert!(!outcome.is_error, "{}", outcome.text());
    assert!(
        outcome.text().ends_with("deploy 20971520"),
        "{}",
        outcome.text()
    );
    assert!(
        outcome.text().len() > 4096,
        "the escalated output cap holds it"
    );
    assert_eq!(f.deploys.load(Ordering::SeqCst), 1);

    let asked = f.seen.escalations.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    let asked = &asked[0];
    assert_eq!(asked.code, NEEDS_MORE);
    assert_eq!(asked.description, "ships it");
    assert_eq!(asked.justification, "the user asked to deploy the release");
    assert_eq!(asked.grant.tools, ["deploy"]);
    assert_eq!(asked.run_id, outcome.run_id);
    assert_eq!(asked.context.run_id(), Some(outcome.run_id.as_str()));
    assert_eq!(
        (
            asked.grant.timeout_ms,
            asked.grant.memory_limit_bytes,
            asked.grant.output_cap_bytes
        ),
        (30_000, 64 << 20, 64 << 10)
    );

    // The next run is a standard one: none of it carries over.
    standard_runs_follow(&f).await;
    assert_eq!(
        f.seen.escalations.lock().unwrap().len(),
        1,
        "only asked once"
    );
}

/// What follows an escalated run is standard: escalation-only tools refused,
/// the standard heap, output cap and deadline bound.
async fn standard_runs_follow(f: &Fixture) {
    let next = f
        .engine
        .run_code(
            RunRequest::new(
                "try { await tools.deploy({}) } catch (e: any) { console.log(e.code, e.message) }\nreturn 'x'.repeat(20 << 20).length",
            ),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(next.kind, Some(FailureKind::Memory), "{}", next.text());
    assert!(
        next.text().contains(
            "DENIED tool `deploy` is available only in an escalated run: call run_code again with sandboxPermissions \"require_escalated\" and a justification"
        ),
        "{}",
        next.text()
    );
    assert_eq!(f.deploys.load(Ordering::SeqCst), 1);
    let printed = f
        .engine
        .run_code(
            RunRequest::new("console.log('y'.repeat(4096))"),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert!(printed.text().len() <= 1_024, "the standard cap is back");
    let long = f
        .engine
        .run_code(
            RunRequest::new("return 1").timeout_ms(30_000),
            RunOptions::default(),
        )
        .await;
    let Err(ptc::RunError::InvalidArguments(message)) = long else {
        panic!("a standard run may not have the escalated deadline: {long:?}");
    };
    assert!(
        message.contains("up to 60000 with sandboxPermissions"),
        "{message}"
    );
}

/// Approves escalations after registering `wipe`, an escalation-only tool
/// the request it was shown did not name.
struct RegisteringApprover {
    registry: Registry,
    wipes: Arc<AtomicUsize>,
}

impl Approver for RegisteringApprover {
    fn approve(&self, _request: ApprovalRequest) -> BoxFuture<Approval> {
        Box::pin(async { Approval::Approved })
    }

    fn escalate(&self, request: EscalationRequest) -> BoxFuture<Approval> {
        assert_eq!(request.grant.tools, ["deploy"]);
        self.registry
            .add(counted(
                ToolDefinition::new("wipe").escalation_only(true),
                &self.wipes,
            ))
            .unwrap();
        Box::pin(async { Approval::Approved })
    }
}

/// The person approves the escalation-only tools they were shown: one
/// registered while they decided (or later in the run) stays refused.
#[tokio::test]
async fn an_escalation_grants_only_the_tools_the_approver_was_shown() {
    let registry = Registry::new();
    let (deploys, wipes) = (Arc::default(), Arc::default());
    registry
        .add(counted(
            ToolDefinition::new("deploy").escalation_only(true),
            &deploys,
        ))
        .unwrap();
    registry.set_approver(RegisteringApprover {
        registry: registry.clone(),
        wipes: Arc::clone(&wipes),
    });
    let engine = Engine::new(registry, limits()).unwrap();
    let code = "const d = await tools.deploy({})\ntry { await tools.wipe({}) } catch (e: any) { return `${d} ${e.code}` }\nreturn 'wiped'";
    let outcome = engine
        .run_code(escalated(code), RunOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.text(), "deploy DENIED");
    assert_eq!(deploys.load(Ordering::SeqCst), 1);
    assert_eq!(wipes.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_refused_escalation_runs_nothing_and_says_what_to_do() {
    let f = fixture(Seen {
        refuse_escalation: Some("not on a Friday".into()),
        ..Seen::default()
    });
    let events = Arc::new(Mutex::new(Vec::<RunEvent>::new()));
    let sink = Arc::clone(&events);
    let code = "await tools.read({}); console.log('started'); return await tools.deploy({})";
    let outcome = f
        .engine
        .run_code(
            escalated(code),
            RunOptions::default().events(move |e: RunEvent| sink.lock().unwrap().push(e)),
        )
        .await
        .unwrap();
    assert_eq!(outcome.kind, Some(FailureKind::Denied));
    assert_eq!(
        outcome.text(),
        "Error: code run failed (denied): escalation refused: not on a Friday. Nothing ran. Go on without sandboxPermissions \"require_escalated\" (escalation-only tools and the larger limits stay unavailable), or explain to the user why the task needs escalation and what you will do with it"
    );
    assert_eq!(outcome.sub_calls, 0);
    assert_eq!(f.reads.load(Ordering::SeqCst), 0, "nothing ran");
    assert_eq!(f.deploys.load(Ordering::SeqCst), 0);
    assert!(events.lock().unwrap().is_empty(), "no events");
    assert_eq!(f.seen.escalations.lock().unwrap().len(), 1, "no replay");
}

#[tokio::test]
async fn an_escalation_without_a_justification_is_invalid_arguments() {
    let f = fixture(Seen::default());
    for arguments in [
        json!({ "code": "return 1", "description": "d", "sandboxPermissions": "require_escalated" }),
        json!({ "code": "return 1", "description": "d", "sandboxPermissions": "require_escalated", "justification": " " }),
    ] {
        let invocation = f
            .engine
            .invoke(Call::new("c", "run_code", arguments), RunOptions::default())
            .await;
        let Invocation::Tool(Err(error)) = invocation else {
            panic!("refused before the run: {invocation:?}");
        };
        assert_eq!(error.code, ErrorCode::InvalidArguments);
        assert!(
            error.message.starts_with(
                "invalid arguments for `run_code`: justification is required with sandboxPermissions \"require_escalated\""
            ),
            "{}",
            error.message
        );
    }
    let bad = f
        .engine
        .invoke(
            Call::new(
                "c",
                "run_code",
                json!({ "code": "return 1", "description": "d", "sandboxPermissions": "always" }),
            ),
            RunOptions::default(),
        )
        .await;
    let Invocation::Tool(Err(error)) = bad else {
        panic!("{bad:?}")
    };
    assert!(error.message.contains("use_default"), "{}", error.message);
    assert!(f.seen.escalations.lock().unwrap().is_empty());
    // With `use_default` a justification is allowed and ignored.
    let plain = f
        .engine
        .invoke(
            Call::new(
                "c",
                "run_code",
                json!({ "code": "return 1", "description": "d", "sandboxPermissions": "use_default", "justification": "" }),
            ),
            RunOptions::default(),
        )
        .await;
    assert!(!plain.is_error(), "{plain:?}");
}

#[tokio::test]
async fn ask_and_deny_policies_still_hold_inside_an_escalated_run() {
    let registry = Registry::new();
    let calls = Arc::new(AtomicUsize::new(0));
    for (name, policy) in [("gated", Policy::Ask), ("never", Policy::Deny)] {
        let definition = ToolDefinition::new(name)
            .escalation_only(true)
            .policy(policy);
        registry.add(counted(definition, &calls)).unwrap();
    }
    let seen = Arc::new(Seen {
        refuse_calls: true,
        ..Seen::default()
    });
    registry.set_approver(TestApprover(Arc::clone(&seen)));
    let engine = Engine::new(registry, limits()).unwrap();
    let code = r#"
const out = []
for (const t of ['gated', 'never']) {
  try { await tools[t]({}) } catch (e: any) { out.push(`${t}: ${e.code} ${e.message}`) }
}
return out.join('\n')
"#;
    let outcome = engine
        .run_code(escalated(code), RunOptions::default())
        .await
        .unwrap();
    assert_eq!(
        outcome.text(),
        "gated: DENIED the user said no to the call\nnever: DENIED tool `never` is not allowed"
    );
    assert_eq!(*seen.asked.lock().unwrap(), ["gated"], "the ask tool asked");
    assert_eq!(
        seen.escalations.lock().unwrap()[0].grant.tools,
        ["gated", "never"]
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn approvers_that_do_not_decide_escalations_refuse_them() {
    let registry = Registry::new();
    let no_approver = Engine::new(registry.clone(), limits()).unwrap();
    let outcome = no_approver
        .run_code(escalated("return 1"), RunOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.kind, Some(FailureKind::Denied));
    assert!(
        outcome
            .text()
            .contains("escalation refused: escalation needs approval and no approver is available. Nothing ran."),
        "{}",
        outcome.text()
    );
    // A closure approves `ask` calls only.
    registry.set_approver(|_request: ApprovalRequest| async { Approval::Approved });
    let outcome = no_approver
        .run_code(escalated("return 1"), RunOptions::default())
        .await
        .unwrap();
    assert!(
        outcome
            .text()
            .contains("this host's approver does not decide escalations"),
        "{}",
        outcome.text()
    );
}

#[tokio::test]
async fn code_too_large_to_run_is_refused_without_asking() {
    let f = fixture(Seen::default());
    let engine = Engine::new(
        f.engine.registry().clone(),
        Limits {
            max_code_bytes: 64,
            ..limits()
        },
    )
    .unwrap();
    let code = format!("return '{}'", "x".repeat(100));
    let outcome = engine
        .run_code(escalated(&code), RunOptions::default())
        .await
        .unwrap();
    assert_eq!(
        outcome.kind,
        Some(FailureKind::Syntax),
        "{}",
        outcome.text()
    );
    assert!(f.seen.escalations.lock().unwrap().is_empty());
}

/// What cannot be shown to a person in full is refused without asking: an
/// escalation whose program is over 64 KiB, an `ask` call whose arguments
/// are over 16 KiB of JSON (a form or prompt that cut them would let the
/// model hide what is approved past the cut).
#[tokio::test]
async fn what_cannot_be_shown_in_full_is_refused_without_asking() {
    let f = fixture(Seen::default());
    f.engine
        .registry()
        .add(counted(
            ToolDefinition::new("send").policy(Policy::Ask),
            &Arc::default(),
        ))
        .unwrap();
    let code = format!("return 1 // {}", "x".repeat(64 * 1024));
    let outcome = f
        .engine
        .run_code(escalated(&code), RunOptions::default())
        .await
        .unwrap();
    assert!(
        outcome.text().starts_with(&format!(
            "Error: code run failed (denied): escalation refused: escalation needs approval and the program ({} bytes) is too long to show a person in full (at most 64 KiB): make it shorter.",
            code.len()
        )),
        "{}",
        outcome.text()
    );
    assert!(f.seen.escalations.lock().unwrap().is_empty());
    let code = "try { await tools.send({ to: 'a@example.com', body: 'x'.repeat(20000) }) } catch (e) { return e.code + ': ' + e.message }";
    let outcome = f
        .engine
        .run_code(RunRequest::new(code), RunOptions::default())
        .await
        .unwrap();
    assert_eq!(
        outcome.text(),
        "DENIED: tool `send` needs approval and its arguments (20032 bytes of JSON) are too long to show a person in full (at most 16 KiB): make them shorter, or split the work into smaller calls"
    );
    assert!(f.seen.asked.lock().unwrap().is_empty());
}

/// An approver that never answers escalations; keeps the signal it got.
struct Undecided(Arc<Mutex<Option<CancellationToken>>>);

impl Approver for Undecided {
    fn approve(&self, _request: ApprovalRequest) -> BoxFuture<Approval> {
        Box::pin(std::future::pending())
    }

    fn escalate(&self, request: EscalationRequest) -> BoxFuture<Approval> {
        *self.0.lock().unwrap() = Some(request.context.cancellation().clone());
        Box::pin(std::future::pending())
    }
}

#[tokio::test]
async fn cancelling_a_run_that_waits_for_escalation_ends_it_as_cancelled() {
    let registry = Registry::new();
    let signal = Arc::new(Mutex::new(None));
    registry.set_approver(Undecided(Arc::clone(&signal)));
    // A deadline shorter than the wait: the approval does not count against it.
    let engine = Engine::new(registry, limits()).unwrap();
    let cancel = CancellationToken::new();
    let canceller = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
        canceller.cancel();
    });
    let outcome = engine
        .run_code(
            escalated("return 1").timeout_ms(100),
            RunOptions::default().cancel(cancel),
        )
        .await
        .unwrap();
    assert_eq!(
        outcome.kind,
        Some(FailureKind::Cancelled),
        "{}",
        outcome.text()
    );
    let signal = signal
        .lock()
        .unwrap()
        .clone()
        .expect("the approver was asked");
    assert!(signal.is_cancelled(), "the approver's signal fired");
}

/// Approvals waiting for a person are bounded in count and in time: one
/// more than the most at once is denied without asking, and one that gets
/// no answer within the wait limit is denied saying so — escalations and
/// `ask` calls alike.
#[tokio::test]
async fn unanswered_approvals_are_bounded_in_count_and_time() {
    let registry = Registry::new();
    registry
        .add(counted(
            ToolDefinition::new("send").policy(Policy::Ask),
            &Arc::default(),
        ))
        .unwrap();
    let asked = Arc::new(Mutex::new(None));
    registry.set_approver(Undecided(Arc::clone(&asked)));
    let mut approvals = ApprovalLimits::default();
    approvals.max_pending = 1;
    approvals.wait_ms = 300;
    registry.set_approval_limits(approvals);
    let engine = Engine::new(registry, limits()).unwrap();
    let waiting = {
        let engine = engine.clone();
        tokio::spawn(async move {
            let request = escalated("return 1");
            engine.run_code(request, RunOptions::default()).await
        })
    };
    crate::common::eventually("the first escalation to wait", || {
        asked.lock().unwrap().is_some()
    })
    .await;
    let second = engine
        .run_code(escalated("return 2"), RunOptions::default())
        .await
        .unwrap();
    let refused =
        "Error: code run failed (denied): escalation refused: escalation needs approval and ";
    let full = "1 approval is already waiting for an answer (the most at once): wait for their answers before asking for another. Nothing ran.";
    assert!(
        second.text().starts_with(&format!("{refused}{full}")),
        "{}",
        second.text()
    );
    let first = waiting.await.unwrap().unwrap();
    let expired = "no answer came within 300 ms (the approval wait limit). Nothing ran.";
    assert!(
        first.text().starts_with(&format!("{refused}{expired}")),
        "{}",
        first.text()
    );
    let ask = engine
        .run_code(
            RunRequest::new(
                "try { await tools.send({}) } catch (e) { return e.code + ': ' + e.message }",
            ),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        ask.text(),
        "DENIED: tool `send` needs approval and no answer came within 300 ms (the approval wait limit)"
    );
}

#[tokio::test]
async fn escalation_only_tools_are_noted_in_the_sdk_and_refused_natively() {
    let f = fixture(Seen::default());
    let scope = f.engine.registry().scope();
    let sdk = f.engine.presentation(&scope, Some(Mode::Ptc)).sdk;
    assert!(
        sdk.contains(
            " /** Needs an escalated run: call run_code with sandboxPermissions \"require_escalated\" and a justification. */\n deploy(args?: { [key: string]: unknown }): Promise<unknown>;"
        ),
        "{sdk}"
    );
    assert!(
        !sdk.contains("read(args?: { [key: string]: unknown }): Promise<unknown>;\n /** Needs")
    );
    for (mode, reason) in [
        (Mode::Both, "call run_code again with sandboxPermissions"),
        (Mode::Native, "which this host does not offer (native mode)"),
    ] {
        scope.set_mode(Some(mode));
        let invocation = f
            .engine
            .invoke(
                Call::new("c", "deploy", json!({})),
                RunOptions::default().scope(scope.clone()),
            )
            .await;
        let Invocation::Tool(Err(error)) = invocation else {
            panic!("{invocation:?}")
        };
        assert_eq!(error.code, ErrorCode::Denied);
        assert!(error.message.contains(reason), "{}", error.message);
    }
    assert_eq!(f.deploys.load(Ordering::SeqCst), 0);
}

/// A manifest: `deploy` (escalation-only, prints `"deployed"`), `risky`
/// (escalation-only and `ask`) and `read` (a plain read-only tool).
fn cli_tools(dir: &Path) {
    let manifest = json!([
        { "name": "deploy", "requiresEscalation": true, "description": "Ships the release.",
          "command": ["sh", "-c", "echo '\"deployed\"'"] },
        { "name": "risky", "requiresEscalation": true, "policy": "ask",
          "command": ["sh", "-c", "echo '\"risked\"'"] },
        { "name": "read", "readOnly": true, "command": ["sh", "-c", "echo '\"read\"'"] }
    ]);
    std::fs::write(dir.join("tools.json"), manifest.to_string()).unwrap();
}

/// Deploys, holds ~20 MiB (over `--memory-limit 8MiB`) and tries `risky`.
const CLI_PROGRAM: &str = r#"
const deployed = await tools.deploy({})
const big = 'x'.repeat(20 << 20).length
let risky
try { risky = await tools.risky({}) } catch (e: any) { risky = `${e.code}: ${e.message}` }
return `${deployed} ${big} ${risky}`
"#;

fn cli_run(escalate: Option<&str>) -> Vec<String> {
    let mut args = vec!["run", "--tools", "tools.json", "--memory-limit", "8MiB"];
    args.extend(["--escalated-memory-limit", "64MiB"]);
    if let Some(justification) = escalate {
        args.extend(["--escalate", justification]);
    }
    args.extend(["-e", CLI_PROGRAM]);
    args.into_iter().map(str::to_owned).collect()
}

#[test]
fn ptc_sdk_shows_the_escalation_parameters_and_notes() {
    let dir = tempfile::tempdir().unwrap();
    cli_tools(dir.path());
    let out = ptc(
        dir.path(),
        &["sdk", "--format", "json", "--tools", "tools.json"],
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    check_golden("escalation.presentation.json", &text);
    let presentation: Value = serde_json::from_str(&text).unwrap();
    let parameters = &presentation["tools"][0]["parameters"]["properties"];
    assert_eq!(
        parameters["sandboxPermissions"]["enum"],
        json!(["use_default", "require_escalated"])
    );
    assert!(parameters["justification"].is_object());
    let sdk = presentation["sdk"].as_str().unwrap();
    assert!(
        sdk.contains(" /** Ships the release.\n  * Needs an escalated run:"),
        "{sdk}"
    );
}

#[test]
fn ptc_run_without_a_terminal_refuses_an_escalation() {
    let dir = tempfile::tempdir().unwrap();
    cli_tools(dir.path());
    let args = cli_run(Some("ship the release"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ptc(dir.path(), &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.starts_with(
            "Error: code run failed (denied): escalation refused: escalation needs approval and no terminal was available to ask. Nothing ran."
        ),
        "{stdout}"
    );
    // Without --escalate the tool is refused and the standard heap holds.
    let args = cli_run(None);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ptc(dir.path(), &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("tool `deploy` is available only in an escalated run"),
        "{stdout}"
    );
}

#[test]
fn ptc_run_with_a_terminal_asks_for_the_escalation_then_for_ask_tools() {
    let dir = tempfile::tempdir().unwrap();
    cli_tools(dir.path());
    let args = cli_run(Some("ship the \u{1b}[2Jrelease"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // Yes to the escalation, no to `risky`.
    let out = ptc_with_terminal(dir.path(), &args, "y\nn\n");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(
        stdout,
        "deployed 20971520 DENIED: the user refused the call to `risky`\n"
    );
    assert!(
        stderr.starts_with(
            "ptc: The program asks for an escalated run. It would get the tools deploy, risky, a deadline of 120000 ms, 64 MiB of memory and 128 KiB of output.\nptc: The model's justification (one line, escaped): ship the \\u{1b}[2Jrelease\nptc: The model's description (one line, escaped): ptc run -e\nptc: The program, in full (7 lines, 219 bytes, each marked │):\nptc: │ \nptc: │ const deployed = await tools.deploy({})\n"
        ),
        "{stderr:?}"
    );
    assert!(
        stderr.contains(
            "ptc: The program asks to call the tool `risky` (needs approval).\nptc: Its title (the model's, escaped): risky()\nptc: Its arguments, in full (1 line, each marked │):\nptc: │ {}\nptc: allow this call? [y/N] "
        ),
        "{stderr:?}"
    );
    // No to the escalation: nothing runs.
    let out = ptc_with_terminal(dir.path(), &args, "n\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout.starts_with(
            "Error: code run failed (denied): escalation refused: the user refused the escalation. Nothing ran."
        ),
        "{stdout}"
    );
}

/// `ptc` with these arguments, its stdin a terminal (a pseudo-terminal
/// whose other side gets `answers`), in a session of its own so that
/// `/dev/tty` cannot be opened.
fn ptc_with_terminal(dir: &Path, args: &[&str], answers: &str) -> std::process::Output {
    use std::io::Write;
    use std::os::fd::FromRawFd;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};

    let (mut leader, mut follower) = (0, 0);
    // SAFETY: openpty writes two descriptors; the name, termios and window
    // size are optional and left null.
    let opened = unsafe {
        libc::openpty(
            &mut leader,
            &mut follower,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(opened, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned here only.
    let (mut leader, follower) = unsafe {
        (
            std::fs::File::from_raw_fd(leader),
            std::fs::File::from_raw_fd(follower),
        )
    };
    let mut command = Command::new(env!("CARGO_BIN_EXE_ptc"));
    command
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::from(follower))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setsid is async-signal-safe and touches no memory.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    let child = crate::common::spawn(&mut command);
    drop(command);
    leader.write_all(answers.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    drop(leader);
    output
}

/// A `ptc serve` session with small standard limits, larger escalated ones,
/// and `deploy` (escalation-only), `risky` (escalation-only, `ask`) and
/// `read`.
async fn serve_session() -> Host {
    let mut host = Host::start();
    host.call(
        "initialize",
        json!({ "config": {
            "memoryLimitBytes": 8 << 20,
            "escalatedMemoryLimitBytes": 64 << 20,
            "maxTimeoutMs": 1_000,
            "defaultTimeoutMs": 1_000,
            "escalatedMaxTimeoutMs": 60_000
        } }),
    )
    .await;
    host.call(
        "tools/register",
        json!({ "tools": [
            { "name": "deploy", "requiresEscalation": true },
            { "name": "risky", "requiresEscalation": true, "policy": "ask" },
            { "name": "read", "readOnly": true }
        ] }),
    )
    .await;
    host
}

fn escalated_params(code: &str, run_id: &str) -> Value {
    json!({
        "code": code, "description": "ships it", "runId": run_id, "timeoutMs": 30_000,
        "sandboxPermissions": "require_escalated", "justification": "the user asked to ship it"
    })
}

#[tokio::test]
async fn serve_asks_the_host_with_tools_approve_before_the_run() {
    let mut host = serve_session().await;
    let listed = host.call("tools/list", json!({})).await;
    assert_eq!(listed["tools"][0]["requiresEscalation"], true);
    assert_eq!(listed["tools"][2].get("requiresEscalation"), None);

    let code = "const big = 'x'.repeat(20 << 20).length\nconst d = await tools.deploy({})\nconst r = await tools.risky({})\nreturn `${d} ${r} ${big}`";
    let run = host.request("run_code", escalated_params(code, "e1")).await;
    let approve = host.incoming_request("tools/approve").await;
    assert_eq!(
        approve["params"],
        json!({
            "runId": "e1", "kind": "escalation", "code": code, "description": "ships it",
            "justification": "the user asked to ship it",
            "grant": { "tools": ["deploy", "risky"], "timeoutMs": 30_000,
                       "memoryLimitBytes": 64 << 20, "outputCapBytes": 128 << 10 }
        })
    );
    host.reply(&approve, json!({ "approved": true })).await;
    let call = host.incoming_request("tools/call").await;
    assert_eq!(call["params"]["name"], "deploy");
    host.reply(&call, json!({ "value": "deployed" })).await;
    // `ask` still asks inside the escalated run.
    let approve = host.incoming_request("tools/approve").await;
    assert_eq!(approve["params"]["kind"], "call");
    assert_eq!(approve["params"]["name"], "risky");
    host.reply(&approve, json!({ "approved": true })).await;
    let call = host.incoming_request("tools/call").await;
    host.reply(&call, json!({ "value": "risked" })).await;
    let result = host.response(run).await["result"].clone();
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["content"][0]["text"], "deployed risked 20971520");

    // The next run is standard again.
    let result = host
        .call(
            "run_code",
            json!({ "code": "try { await tools.deploy({}) } catch (e: any) { return e.code }", "description": "d" }),
        )
        .await;
    assert_eq!(result["content"][0]["text"], "DENIED");
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn serve_refusals_and_bad_escalations() {
    let mut host = serve_session().await;
    let run = host
        .request(
            "run_code",
            escalated_params("return await tools.deploy({})", "e2"),
        )
        .await;
    let approve = host.incoming_request("tools/approve").await;
    host.reply(
        &approve,
        json!({ "approved": false, "reason": "not today" }),
    )
    .await;
    let result = host.response(run).await["result"].clone();
    assert_eq!(
        (&result["isError"], &result["kind"]),
        (&json!(true), &json!("denied"))
    );
    assert_eq!(
        (&result["subCalls"], &result["runId"]),
        (&json!(0), &json!("e2"))
    );
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with(
            "Error: code run failed (denied): escalation refused: not today. Nothing ran."
        ),
        "{text}"
    );

    let mut missing = escalated_params("return 1", "e3");
    missing.as_object_mut().unwrap().remove("justification");
    let error = host.call_error("run_code", missing).await;
    assert_eq!(error["code"], -32602);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("justification is required with sandboxPermissions \"require_escalated\""),
        "{error}"
    );
    let mut wrong = escalated_params("return 1", "e4");
    wrong["sandboxPermissions"] = json!("all");
    let error = host.call_error("run_code", wrong).await;
    assert_eq!(
        error["message"],
        "invalid params for `run_code`: `sandboxPermissions` must be \"use_default\" or \"require_escalated\", got \"all\""
    );

    // Cancelled while the host decides: ptc stops asking, the run is cancelled.
    let run = host
        .request("run_code", escalated_params("return 1", "e5"))
        .await;
    let approve = host.incoming_request("tools/approve").await;
    host.notify("$/cancel", json!({ "id": run })).await;
    let cancel = host
        .expect("ptc's $/cancel", |m| m["method"] == "$/cancel")
        .await;
    assert_eq!(cancel["params"]["id"], approve["id"]);
    let result = host.response(run).await["result"].clone();
    assert_eq!(result["kind"], "cancelled", "{result}");
    assert!(
        !host.seen_any(|m| m["method"] == "tools/call"),
        "nothing of a refused or cancelled escalation ran"
    );
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

/// `ptc mcp` over stdio with the CLI tools in `dir`, driven by the Python
/// client answering elicitations with `answer`.
fn mcp_escalation(dir: &Path, answer: Option<Value>) -> Value {
    let code =
        "const d = await tools.deploy({})\nconst r = await tools.risky({})\nreturn `${d} ${r}`";
    let mut plan = json!({
        "scenario": "elicit",
        "name": "run_code",
        "arguments": {
            "code": code, "description": "ships it",
            "sandboxPermissions": "require_escalated", "justification": "the user asked to ship it"
        },
        "stdio": {
            "command": env!("CARGO_BIN_EXE_ptc"),
            "args": ["mcp", "--tools", "tools.json"],
            "cwd": dir.to_str().unwrap()
        }
    });
    if let Some(answer) = answer {
        plan["answer"] = answer;
    }
    drive(plan)
}

#[test]
fn mcp_clients_approve_escalations_through_elicitation() {
    let dir = tempfile::tempdir().unwrap();
    cli_tools(dir.path());
    let answered = mcp_escalation(dir.path(), Some(json!(["accept", "accept"])));
    assert_eq!(answered["result"]["isError"], false, "{answered}");
    assert_eq!(texts(&answered["result"]), ["deployed risked"]);
    let asked = answered["elicitations"].as_array().unwrap();
    assert_eq!(asked.len(), 2, "the escalation, then the `ask` tool");
    let message = asked[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "The program asks for an escalated run. It would get the tools deploy, risky, a deadline of 55000 ms, 256 MiB of memory and 128 KiB of output.\nThe model's justification (one line, escaped): the user asked to ship it\nThe model's description (one line, escaped): ships it\nThe program, in full (3 lines, 83 bytes, each marked │):\n│ const d = await tools.deploy({})\n"
        ),
        "{message}"
    );
    assert_eq!(
        asked[0]["schema"],
        json!({ "type": "object", "properties": {} })
    );
    assert!(asked[1]["message"].as_str().unwrap().contains("`risky`"));
}

#[test]
fn mcp_refusals_of_escalations_run_nothing() {
    let dir = tempfile::tempdir().unwrap();
    cli_tools(dir.path());
    for (answer, reason) in [
        (Some(json!("decline")), "the user declined the escalation"),
        (
            Some(json!("cancel")),
            "the user cancelled the approval of the escalation",
        ),
        (
            None,
            "escalation needs approval, which is not available from this MCP client (it does not support elicitation)",
        ),
    ] {
        let answered = mcp_escalation(dir.path(), answer.clone());
        assert_eq!(answered["result"]["isError"], true, "{answered}");
        assert_eq!(answered["result"]["structuredContent"]["kind"], "denied");
        assert_eq!(answered["result"]["structuredContent"]["subCalls"], 0);
        let text = texts(&answered["result"])[0];
        assert!(
            text.starts_with(&format!(
                "Error: code run failed (denied): escalation refused: {reason}. Nothing ran."
            )),
            "{text}"
        );
        let asked = answered
            .get("elicitations")
            .map_or(0, |e| e.as_array().unwrap().len());
        assert_eq!(
            asked,
            usize::from(answer.is_some()),
            "asked once, no replay"
        );
    }
}

/// Python runs (contracts §6.1) get the same escalation and approvals: an
/// approved escalated run calls an escalation-only tool, a refused one runs
/// nothing, and an `ask` call waits for the approver while the program
/// stays suspended.
#[cfg(feature = "python")]
#[tokio::test]
async fn python_runs_are_escalated_and_approved_as_typescript_ones() {
    let no_leaks = crate::common::NoLeaks::new();
    let python = |request: RunRequest| request.language(ptc::Language::Python);
    let mut f = fixture(Seen::default());
    f.engine = f.engine.python_worker(no_leaks.python_worker());
    let asks = Arc::new(AtomicUsize::new(0));
    let ask = ToolDefinition::new("confirm").policy(Policy::Ask);
    f.engine.registry().add(counted(ask, &asks)).unwrap();
    let code = "d = await tools.deploy()\nc = await tools.confirm()\nf'{d} {c}'";
    let outcome = f
        .engine
        .run_code(python(escalated(code)), RunOptions::default())
        .await
        .unwrap();
    assert!(!outcome.is_error, "{}", outcome.text());
    assert_eq!(outcome.text(), "deploy confirm");
    assert_eq!(f.seen.escalations.lock().unwrap().len(), 1);
    assert_eq!(*f.seen.asked.lock().unwrap(), ["confirm"]);
    assert_eq!(asks.load(Ordering::SeqCst), 1);

    let mut refused = fixture(Seen {
        refuse_escalation: Some("not today".into()),
        refuse_calls: true,
        ..Seen::default()
    });
    refused.engine = refused.engine.python_worker(no_leaks.python_worker());
    let outcome = refused
        .engine
        .run_code(
            python(escalated("await tools.read()\nawait tools.deploy()")),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert!(outcome.is_error);
    assert!(outcome.text().contains("not today"), "{}", outcome.text());
    assert_eq!(refused.reads.load(Ordering::SeqCst), 0, "nothing ran");
    assert_eq!(refused.deploys.load(Ordering::SeqCst), 0);
}

// ----------------------------------------------- escalations that must refuse

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
