//! Sessions are sealed (issue 39): one upstream connection serves every MCP
//! session of `ptc mcp --http` and every run of a stdio session, and what
//! the upstream server says about one call (its log lines, its questions)
//! reaches that call's client only. A line tied to no call reaches nobody
//! while calls of several runs listen.
//!
//! The upstream server (`tests/data/sessions_mcp_server.mjs`, the official
//! TypeScript SDK) holds its calls until all of them are in flight, says
//! each call's secret in a log line tied to the call and in one tied to
//! nothing, sends `logged` for the call's progress token, and answers when
//! the test creates the release file. The clients are rmcp's, over ptc's
//! real binary.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    FormElicitationCapability, Implementation, ProgressNotificationParam, ProgressToken,
    ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::common::{NoLeaks, Spawned};

/// A liveness bound for anything a test waits on: never a measure of speed.
const LIVENESS: Duration = Duration::from_secs(60);

/// What one client heard: each progress notification's token and message,
/// and the messages of the forms it was asked to fill.
#[derive(Clone, Default)]
struct Client {
    heard: Arc<Mutex<Vec<(ProgressToken, String)>>>,
    asked: Arc<Mutex<Vec<String>>>,
    elicits: bool,
}

impl Client {
    fn eliciting() -> Self {
        Self {
            elicits: true,
            ..Self::default()
        }
    }

    /// The messages of the progress notifications of the call `token`.
    fn heard(&self, token: &ProgressToken) -> Vec<String> {
        let heard = self.heard.lock().unwrap();
        heard
            .iter()
            .filter(|(t, _)| t == token)
            .map(|(_, message)| message.clone())
            .collect()
    }
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.elicits {
            let mut elicitation = ElicitationCapability::default();
            elicitation.form = Some(FormElicitationCapability::default());
            capabilities.elicitation = Some(elicitation);
        }
        ClientConfig::new(capabilities, Implementation::new("sessions-test", "1"))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let message = params.message.unwrap_or_default();
        self.heard
            .lock()
            .unwrap()
            .push((params.progress_token, message));
    }

    /// Accepts, answering with the message it was shown: the program can
    /// tell whose form reached it.
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            return Err(ErrorData::invalid_request("form only", None));
        };
        self.asked.lock().unwrap().push(message.clone());
        let mut answer = ElicitResult::new(ElicitationAction::Accept);
        answer.content = Some(json!({ "branch": message }));
        Ok(answer)
    }
}

type Session = RunningService<RoleClient, Client>;

/// The upstream server's script.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sessions_mcp_server.mjs")
}

/// A fresh directory with `mcp.json` naming `upstream` as `up`.
fn config(upstream: Value) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    let servers = crate::common::tag_servers(json!({ "up": upstream }));
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    (dir, path)
}

fn stdio_upstream() -> Value {
    json!({ "command": "node", "args": [script(), "stdio"] })
}

/// The upstream server over streamable HTTP, and its config entry.
fn http_upstream() -> (Spawned, Value) {
    let mut child = crate::common::spawn(
        Command::new("node")
            .arg(script())
            .arg("http")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit()),
    );
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line
        .trim()
        .strip_prefix("port ")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("the upstream server did not start: {line:?}"));
    (
        child,
        json!({ "url": format!("http://127.0.0.1:{port}/mcp") }),
    )
}

/// `ptc mcp --mcp-config <config> --http localhost:0`, its address, and
/// what it writes on stderr (read as it comes, so it never blocks).
fn ptc_http(config: &Path) -> (Spawned, SocketAddr, Arc<Mutex<String>>) {
    let mut child = crate::common::spawn(
        Command::new(env!("CARGO_BIN_EXE_ptc"))
            .args(["mcp", "--mcp-config"])
            .arg(config)
            .args(["--http", "localhost:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped()),
    );
    let stderr = child.stderr.take().unwrap();
    let log = Arc::new(Mutex::new(String::new()));
    let (tx, rx) = std::sync::mpsc::channel();
    let kept = Arc::clone(&log);
    std::thread::spawn(move || {
        let mut lines = BufReader::new(stderr).lines();
        let mut tx = Some(tx);
        while let Some(Ok(line)) = lines.next() {
            if let Some(addr) = line
                .strip_prefix("ptc: MCP endpoint http://")
                .and_then(|s| s.strip_suffix("/mcp"))
                .and_then(|s| s.parse::<SocketAddr>().ok())
                && let Some(tx) = tx.take()
            {
                let _ = tx.send(addr);
            }
            kept.lock().unwrap().push_str(&(line + "\n"));
        }
    });
    let addr = rx
        .recv_timeout(LIVENESS)
        .expect("ptc announces its endpoint");
    (child, addr, log)
}

async fn over_http(addr: SocketAddr, client: Client) -> Session {
    let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    client
        .serve(transport)
        .await
        .expect("the handshake succeeds")
}

/// `ptc mcp --mcp-config <config>` on stdio, as `client`'s server.
async fn over_stdio(
    config: &Path,
    no_leaks: &NoLeaks,
    client: Client,
) -> (Session, tokio::process::Child) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_ptc"));
    command
        .args(["mcp", "--mcp-config"])
        .arg(config)
        .env(crate::common::TAG_VAR, no_leaks.tag())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    let mut child = command.spawn().expect("ptc starts");
    let (stdin, stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
    let session = client
        .serve((stdout, stdin))
        .await
        .expect("the handshake succeeds");
    (session, child)
}

/// Waits until `session`'s `run_code` offers `tool`.
async fn until_listed(session: &Session, tool: &str) {
    let listed = async {
        loop {
            let tools = session.list_all_tools().await.unwrap();
            let description = tools
                .iter()
                .map(|t| t.description.as_deref().unwrap_or_default().to_owned())
                .collect::<String>();
            if description.contains(tool) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(LIVENESS, listed)
        .await
        .unwrap_or_else(|_| panic!("`{tool}` was never listed"));
}

/// A `run_code` call of `code` in flight: its progress token, and its
/// answer to come.
async fn run(
    session: &Session,
    code: &str,
) -> (
    ProgressToken,
    tokio::task::JoinHandle<Result<ServerResult, rmcp::ServiceError>>,
) {
    let arguments = json!({ "code": code, "description": "test", "timeoutMs": 50_000 });
    let Value::Object(arguments) = arguments else {
        unreachable!()
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("run_code").with_arguments(arguments),
    ));
    let handle = session
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .expect("the call goes out");
    let token = handle.progress_token.clone();
    (token, tokio::spawn(handle.await_response()))
}

/// The text of a call's answer.
async fn answered(
    answer: tokio::task::JoinHandle<Result<ServerResult, rmcp::ServiceError>>,
) -> String {
    let answer = tokio::time::timeout(LIVENESS, answer)
        .await
        .expect("the call answers")
        .unwrap()
        .expect("a result");
    let ServerResult::CallToolResult(result) = answer else {
        panic!("not a tool result: {answer:?}");
    };
    assert_ne!(result.is_error, Some(true), "{result:?}");
    serde_json::to_value(&result.content).unwrap()[0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The program calling `up.secret` with `secret`, once `together` calls
/// of it are in flight, released by `release`.
fn secret_code(secret: &str, together: u32, release: &Path) -> String {
    format!(
        "return await tools[\"up.secret\"]({})",
        json!({ "secret": secret, "together": together, "release": release })
    )
}

/// Waits until `client` heard `logged` for the call `token`: its log lines
/// went out before.
async fn until_logged(client: &Client, token: &ProgressToken) {
    let logged = async {
        while !client.heard(token).iter().any(|m| m == "up.secret: logged") {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(LIVENESS, logged)
        .await
        .expect("the upstream server said `logged`");
}

/// The log lines a call heard (`up.secret: [info] …`).
fn log_lines(client: &Client, token: &ProgressToken) -> Vec<String> {
    client
        .heard(token)
        .into_iter()
        .filter(|m| m.contains("[info]"))
        .collect()
}

/// Two calls, one per `(session, client, secret)`, in flight together;
/// released once each has heard `logged`. The log lines each heard.
async fn two_calls(calls: [(&Session, &Client, &str); 2], dir: &Path) -> [Vec<String>; 2] {
    let release = dir.join("release");
    let mut running = Vec::new();
    for (session, _, secret) in calls {
        running.push(run(session, &secret_code(secret, 2, &release)).await);
    }
    for ((_, client, _), (token, _)) in calls.iter().zip(&running) {
        until_logged(client, token).await;
    }
    std::fs::write(&release, "").unwrap();
    let mut heard = Vec::new();
    for ((_, client, secret), (token, answer)) in calls.iter().zip(running) {
        assert_eq!(answered(answer).await, *secret);
        heard.push(log_lines(client, &token));
    }
    std::fs::remove_file(&release).unwrap();
    [heard.remove(0), heard.remove(0)]
}

fn tied(secret: &str) -> String {
    format!("up.secret: [info] tied: {{\"secret\":\"{secret}\"}}")
}

fn untied(secret: &str) -> String {
    format!("up.secret: [info] untied: {{\"secret\":\"{secret}\"}}")
}

/// `ptc mcp --http`, two sessions, an upstream server on stdio: a log line
/// can be tied to no call, so while both sessions' calls listen, neither
/// hears the other's (nor its own); a session alone hears its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_sessions_never_hear_each_others_calls_from_a_stdio_server() {
    let _no_leaks = NoLeaks::for_this_test();
    let (dir, config) = config(stdio_upstream());
    let (mut ptc, addr, _log) = ptc_http(&config);
    let (alice, bob) = (Client::default(), Client::default());
    let a = over_http(addr, alice.clone()).await;
    let b = over_http(addr, bob.clone()).await;
    until_listed(&a, "up.secret").await;

    let [heard_a, heard_b] = two_calls(
        [(&a, &alice, "alice-secret"), (&b, &bob, "bob-secret")],
        dir.path(),
    )
    .await;
    assert!(
        !heard_a.iter().any(|m| m.contains("bob-secret")),
        "session A heard B's call: {heard_a:?}"
    );
    assert!(
        !heard_b.iter().any(|m| m.contains("alice-secret")),
        "session B heard A's call: {heard_b:?}"
    );
    assert_eq!(
        (heard_a.len(), heard_b.len()),
        (0, 0),
        "{heard_a:?} {heard_b:?}"
    );

    // One call listening: its lines, tied to nothing, are its own.
    let release = dir.path().join("release-alone");
    let (token, answer) = run(&a, &secret_code("alice-alone", 1, &release)).await;
    until_logged(&alice, &token).await;
    std::fs::write(&release, "").unwrap();
    assert_eq!(answered(answer).await, "alice-alone");
    assert_eq!(
        log_lines(&alice, &token),
        [tied("alice-alone"), untied("alice-alone")]
    );
    let _ = (a.cancel().await, b.cancel().await);
    let _ = ptc.kill();
    let _ = ptc.wait();
}

/// `ptc mcp --http`, two sessions, an upstream server over streamable
/// HTTP: a line the server sends on a call's response stream is that
/// call's and reaches its session alone, while both listen; one it sends
/// on the stream ptc opens with `GET` is tied to no call, and reaches
/// nobody.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_sessions_hear_only_their_own_calls_from_an_http_server() {
    let _no_leaks = NoLeaks::for_this_test();
    let (mut upstream, entry) = http_upstream();
    let (dir, config) = config(entry);
    let (mut ptc, addr, log) = ptc_http(&config);
    let (alice, bob) = (Client::default(), Client::default());
    let a = over_http(addr, alice.clone()).await;
    let b = over_http(addr, bob.clone()).await;
    until_listed(&a, "up.secret").await;

    let [heard_a, heard_b] = two_calls(
        [(&a, &alice, "alice-secret"), (&b, &bob, "bob-secret")],
        dir.path(),
    )
    .await;
    assert_eq!(heard_a, [tied("alice-secret")], "{}", log.lock().unwrap());
    assert_eq!(heard_b, [tied("bob-secret")]);
    let _ = (a.cancel().await, b.cancel().await);
    let _ = ptc.kill();
    let _ = ptc.wait();
    let _ = upstream.kill();
    let _ = upstream.wait();
}

/// An upstream server that wrote about session A's call on stderr and then
/// dies during session B's: B's error does not quote it (it goes to ptc's
/// log), where a server that served one caller's calls only is quoted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_stderr_about_one_session_is_not_told_to_another() {
    let _no_leaks = NoLeaks::for_this_test();
    let (_dir, config) = config(stdio_upstream());
    let (mut ptc, addr, log) = ptc_http(&config);
    let (a, b) = (
        over_http(addr, Client::default()).await,
        over_http(addr, Client::default()).await,
    );
    until_listed(&a, "up.crash").await;
    let crash = |secret: &str, exit: bool| {
        format!(
            "try {{ return await tools[\"up.crash\"]({}) }} catch (e) {{ return String(e.message) }}",
            json!({ "secret": secret, "exit": exit })
        )
    };
    let (_, answer) = run(&a, &crash("alice-secret", false)).await;
    assert_eq!(answered(answer).await, "alice-secret");
    let (_, answer) = run(&b, &crash("bob-secret", true)).await;
    let error = answered(answer).await;
    assert!(
        error.starts_with("mcp server `up` failed during the call (")
            && error.ends_with(
                "; what it printed is in ptc's log, not here: it also served calls of other MCP sessions"
            ),
        "{error}"
    );
    assert!(!error.contains("alice-secret"), "{error}");
    // The operator reads it in ptc's log.
    let logged = async {
        while !log.lock().unwrap().contains("working for alice-secret") {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(LIVENESS, logged)
        .await
        .expect("ptc logs what the server printed");

    // The restarted server has served B alone: its words are B's to read.
    let (_, answer) = run(&b, &crash("bob-again", true)).await;
    let error = answered(answer).await;
    assert!(
        error.contains("its stderr:\nworking for bob-again"),
        "{error}"
    );
    let _ = (a.cancel().await, b.cancel().await);
    let _ = ptc.kill();
    let _ = ptc.wait();
}

/// Two runs of one stdio session, in flight together against a stdio
/// server: neither run's progress carries the other's lines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_runs_of_a_stdio_session_never_hear_each_other() {
    let no_leaks = NoLeaks::for_this_test();
    let (dir, config) = config(stdio_upstream());
    let client = Client::default();
    let (session, mut ptc) = over_stdio(&config, &no_leaks, client.clone()).await;
    until_listed(&session, "up.secret").await;
    let [one, two] = two_calls(
        [
            (&session, &client, "first-run"),
            (&session, &client, "second-run"),
        ],
        dir.path(),
    )
    .await;
    assert!(!one.iter().any(|m| m.contains("second-run")), "{one:?}");
    assert!(!two.iter().any(|m| m.contains("first-run")), "{two:?}");
    let _ = session.cancel().await;
    let _ = ptc.kill().await;
}

/// Over stdio to a client that can elicit, two runs ask through an
/// upstream server over HTTP at once: each form came on its call's
/// response stream, so each reaches its own run, where before both were
/// refused (ptc could not tell whose they were).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_question_goes_to_the_run_whose_call_asked() {
    let no_leaks = NoLeaks::for_this_test();
    let (mut upstream, entry) = http_upstream();
    let (_dir, config) = config(entry);
    let client = Client::eliciting();
    let (session, mut ptc) = over_stdio(&config, &no_leaks, client.clone()).await;
    until_listed(&session, "up.ask").await;
    let code = |secret: &str| {
        format!("return await tools[\"up.ask\"]({{ secret: \"{secret}\", together: 2 }})")
    };
    let (_, first) = run(&session, &code("first-run")).await;
    let (_, second) = run(&session, &code("second-run")).await;
    for (answer, secret) in [(first, "first-run"), (second, "second-run")] {
        let text = answered(answer).await;
        let said: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{text}"));
        assert_eq!(said["secret"], secret, "{said}");
        assert_eq!(said["reply"]["action"], "accept", "{said}");
        let branch = said["reply"]["content"]["branch"].as_str().unwrap();
        assert!(
            branch.ends_with(&format!("│ Which branch for {secret}?")),
            "{branch}"
        );
    }
    assert_eq!(client.asked.lock().unwrap().len(), 2);
    let _ = session.cancel().await;
    let _ = ptc.kill().await;
    let _ = upstream.kill();
    let _ = upstream.wait();
}
