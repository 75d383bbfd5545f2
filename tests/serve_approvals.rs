//! Approvals through `ptc serve`'s host (host-protocol.md, `tools/approve`):
//! only `{"approved": true}` approves, a call or an escalation, and a
//! seventeenth approval waiting at once is refused without asking.

use serde_json::{Value, json};

use crate::serve::Host;

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

/// host-protocol, Answering `tools/approve`: at most 16 approvals wait at
/// once per session; one more is refused as `DENIED` without a
/// `tools/approve` being sent.
#[tokio::test]
async fn a_seventeenth_approval_is_refused_without_asking_the_host() {
    let mut host = Host::start();
    host.call(
        "initialize",
        json!({ "config": { "maxParallelSubCalls": 32 } }),
    )
    .await;
    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "ask", "policy": "ask", "readOnly": true }] }),
    )
    .await;
    // Read-only, so the 17 calls are in flight together (a mutating call
    // runs alone).
    let run = host
        .request(
            "run_code",
            json!({ "code": "const r = await Promise.allSettled(Array.from({ length: 17 }, (_, i) => tools.ask({ i })))\nreturn r.map((x: any) => x.reason.code + ': ' + x.reason.message)", "description": "d" }),
        )
        .await;
    let mut approvals = Vec::new();
    for _ in 0..16 {
        approvals.push(host.incoming_request("tools/approve").await);
    }
    // The seventeenth settles while the sixteen still wait.
    let refused = host
        .expect("the seventeenth call refused", |m| {
            m["method"] == "run/event"
                && m["params"]["event"] == "settled"
                && m["params"]["error"]["code"] == "DENIED"
        })
        .await;
    assert!(
        refused["params"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("16 approvals are already waiting for an answer"),
        "{refused}"
    );
    for approval in &approvals {
        host.reply(approval, json!({ "approved": false, "reason": "no" }))
            .await;
    }
    let response = host.response(run).await;
    let reasons: Vec<String> =
        serde_json::from_str(response["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        reasons.iter().filter(|r| *r == "DENIED: no").count(),
        16,
        "{reasons:?}"
    );
    assert_eq!(
        host.seen
            .iter()
            .filter(|m| m["method"] == "tools/approve")
            .count(),
        16,
        "one tools/approve per waiting approval, none for the refused one"
    );
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}
