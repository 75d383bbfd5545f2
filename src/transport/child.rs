//! An MCP server's process: started in a process group of its own, so
//! that ending it ends whatever it started too (`sh -c "… &"`, `npx`
//! wrappers), and spoken to through [`Lines`].
//!
//! Ending: a clean close shuts its stdin, waits, then sends the group
//! SIGTERM, waits, then SIGKILL; dropping the transport sends the group
//! SIGKILL at once. Every group still alive is listed, so that ptc's own
//! exit on a signal can end them all ([`end_all`]).

use std::collections::BTreeSet;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{CustomResult, JsonRpcMessage, ServerResult};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

use super::lines::{Lines, StrayLine};
use crate::limits;

/// How long each step of a clean close waits for the process to exit
/// (twice that fits in the servers' shutdown grace).
const EXIT_WAIT: Duration = Duration::from_secs(2);

/// The process groups of the servers running now, and whether the
/// process is ending (then no server starts).
static GROUPS: Mutex<Groups> = Mutex::new(Groups {
    running: BTreeSet::new(),
    ending: false,
});

struct Groups {
    running: BTreeSet<i32>,
    ending: bool,
}

fn groups() -> std::sync::MutexGuard<'static, Groups> {
    GROUPS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sends SIGKILL to the process group of every MCP server ptc started and
/// that is still running, and starts no more: for a process about to exit
/// (on a signal, or past a shutdown's grace) without waiting for its
/// servers.
pub fn end_all() {
    let mut groups = groups();
    groups.ending = true;
    for group in std::mem::take(&mut groups.running) {
        signal(group, libc::SIGKILL);
    }
}

fn signal(group: i32, signal: i32) {
    // SAFETY: killpg has no memory effects; a group that is gone is ESRCH.
    unsafe { libc::killpg(group, signal) };
}

/// A process group led by a child; SIGKILLed when dropped.
struct Group {
    id: Option<i32>,
}

impl Group {
    /// Spawns `command` as a group's leader, listed before anyone can end
    /// all groups (or refused once they have been).
    fn spawn(command: &mut Command) -> std::io::Result<(Child, Self)> {
        let mut groups = groups();
        if groups.ending {
            return Err(std::io::Error::other("ptc is exiting"));
        }
        let child = command.spawn()?;
        let id = child.id().and_then(|pid| i32::try_from(pid).ok());
        if let Some(id) = id {
            groups.running.insert(id);
        }
        Ok((child, Self { id }))
    }

    fn signal(&self, sig: i32) {
        if let Some(id) = self.id {
            signal(id, sig);
        }
    }

    /// SIGKILL to what is left of the group; it is no longer listed.
    fn end(&mut self) {
        if let Some(id) = self.id.take() {
            signal(id, libc::SIGKILL);
            groups().running.remove(&id);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.end();
    }
}

/// The client side of a session with a server process.
pub(crate) struct ChildTransport {
    lines: Lines<RoleClient, ChildStdout, ChildStdin>,
    child: Child,
    group: Group,
}

/// Starts `command` (its stdin and stdout piped for the protocol, its
/// stderr piped for the caller) as the leader of a new process group; the
/// first line of its stdout that is not a message goes to `stray`.
///
/// # Errors
/// The process cannot be started.
pub(crate) fn spawn(
    mut command: Command,
    stray: Arc<StrayLine>,
) -> std::io::Result<(ChildTransport, Option<ChildStderr>)> {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let (mut child, group) = Group::spawn(&mut command)?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(std::io::Error::other("the child's pipes were not made"));
    };
    let stderr = child.stderr.take();
    let lines = Lines::client(stdout, stdin, limits::ANSWER)
        .noting_stray_lines(stray)
        .rereading(raw_tool_lists);
    Ok((
        ChildTransport {
            lines,
            child,
            group,
        },
        stderr,
    ))
}

/// A `tools/list` answer as the server sent it (a custom result), not as
/// rmcp's typed `Tool`s read it: they drop members rmcp does not know,
/// such as `execution.taskSupport`, which the tool source reads.
fn raw_tool_lists(
    line: &[u8],
    message: RxJsonRpcMessage<RoleClient>,
) -> RxJsonRpcMessage<RoleClient> {
    #[derive(serde::Deserialize)]
    struct Answer {
        result: serde_json::Value,
    }
    match message {
        JsonRpcMessage::Response(mut response)
            if matches!(response.result, ServerResult::ListToolsResult(_)) =>
        {
            if let Ok(Answer { result }) = serde_json::from_slice(line) {
                response.result = ServerResult::CustomResult(CustomResult(result));
            }
            JsonRpcMessage::Response(response)
        }
        other => other,
    }
}

impl ChildTransport {
    /// Whether the leader exited within `wait`.
    async fn exited_within(&mut self, wait: Duration) -> bool {
        tokio::time::timeout(wait, self.child.wait()).await.is_ok()
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn name() -> std::borrow::Cow<'static, str> {
        "ptc child process".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.lines.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.lines.receive()
    }

    /// Stdin closed, then SIGTERM to the group, then SIGKILL; whatever of
    /// the group is left when the leader exits is killed too.
    async fn close(&mut self) -> Result<(), Self::Error> {
        let _ = self.lines.close().await;
        if !self.exited_within(EXIT_WAIT).await {
            self.group.signal(libc::SIGTERM);
            if !self.exited_within(EXIT_WAIT).await {
                self.group.signal(libc::SIGKILL);
            }
        }
        self.group.end();
        let _ = self.child.wait().await;
        Ok(())
    }
}
