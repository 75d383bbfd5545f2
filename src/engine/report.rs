//! The model-facing text of a run's outcome (contracts §7): failures,
//! results, the notice of work cut off, and the images.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::budget::RunBudget;
use super::output::{Capture, Gap, cap_text};
use super::progress::Progress;
use super::request::Language;
use super::session::RunSession;
use super::subcall::Image;
use crate::contract::call::ContentBlock;
use crate::contract::outcome::{FailureKind, Outcome};
use crate::limits::{Limits, Tier, size};

/// Why the host's copies of a run's values ended it as `memory` (both
/// languages): what it holds for the program counts toward the run's limit.
pub(crate) const HELD_VALUES: &str =
    "tool arguments and results waiting or in flight count toward it";

/// Why a run that stopped waiting for anything failed (both languages):
/// what it awaits can never settle (contracts §7).
pub(crate) fn never_finished(language: Language) -> String {
    let awaited = match language {
        Language::TypeScript => "a promise",
        Language::Python => "a call",
    };
    format!("the program never finished: it awaited {awaited} that can never settle")
}

/// A failure found before the program ran.
pub(super) struct StartFailure {
    pub(super) kind: FailureKind,
    pub(super) message: String,
    pub(super) position: Option<(u32, u32)>,
}

/// Where a runtime error happened, and what the code says about it.
pub(super) struct Located {
    pub(super) position: Option<(u32, u32)>,
    /// What the error most likely came from (a known slip).
    pub(super) hint: Option<String>,
    /// The failing line with a caret under what failed.
    pub(super) excerpt: Option<String>,
}

/// Renders outcomes for one run.
pub(super) struct Report {
    run_id: Arc<str>,
    budget: Arc<RunBudget>,
    max_cpu_time_ms: u64,
    started: Instant,
    timeout: Duration,
    memory_limit: usize,
    output_cap: usize,
    max_images: usize,
    max_image_bytes: usize,
}

impl Report {
    pub(super) fn new(
        run_id: &Arc<str>,
        started: Instant,
        timeout: Duration,
        limits: &Limits,
        tier: &Tier,
        budget: &Arc<RunBudget>,
    ) -> Self {
        Self {
            run_id: Arc::clone(run_id),
            budget: Arc::clone(budget),
            max_cpu_time_ms: limits.max_cpu_time_ms,
            started,
            timeout,
            memory_limit: tier.memory_limit_bytes,
            output_cap: tier.output_cap_bytes,
            max_images: limits.max_images,
            max_image_bytes: limits.max_image_bytes,
        }
    }

    fn outcome(
        &self,
        kind: Option<FailureKind>,
        text: String,
        gap: Option<Gap>,
        sub_calls: u32,
    ) -> Outcome {
        let elapsed = self.started.elapsed();
        let mut text = cap_text(text, gap, self.output_cap);
        if let Some(note) = self.budget.refused_note() {
            text.push('\n');
            text.push_str(&note);
        }
        Outcome {
            run_id: self.run_id.to_string(),
            is_error: kind.is_some(),
            kind,
            content: vec![ContentBlock::text(text)],
            sub_calls,
            session: None,
            elapsed,
            // A Python worker's CPU is counted in ticks: never past the wall.
            cpu: self.budget.cpu_used().min(elapsed),
        }
    }

    pub(super) fn failure(
        &self,
        kind: FailureKind,
        message: Option<String>,
        position: Option<(u32, u32)>,
        sub_calls: u32,
    ) -> Outcome {
        self.render_failure(kind, message, position, &Capture::new(0), sub_calls)
    }

    pub(super) fn render_failure(
        &self,
        kind: FailureKind,
        message: Option<String>,
        position: Option<(u32, u32)>,
        capture: &Capture,
        sub_calls: u32,
    ) -> Outcome {
        self.limit_failure(kind, message, None, capture, sub_calls, position)
    }

    /// A failure, saying for a deadline or memory limit how far the run
    /// got (`progress`).
    pub(super) fn limit_failure(
        &self,
        kind: FailureKind,
        message: Option<String>,
        progress: Option<&Progress>,
        capture: &Capture,
        sub_calls: u32,
        position: Option<(u32, u32)>,
    ) -> Outcome {
        let how_far = progress.map(ToString::to_string).unwrap_or_default();
        let message = match kind {
            FailureKind::Timeout if self.budget.cpu_spent() => self.cpu_budget_text(&how_far),
            FailureKind::Timeout => format!(
                "the run exceeded its {} ms deadline.{how_far}",
                self.timeout.as_millis()
            ),
            FailureKind::Memory => {
                let mut m = format!(
                    "the run exceeded its memory limit of {}",
                    size(self.memory_limit as u64)
                );
                if let Some(why) = message {
                    m.push_str(&format!(" ({why})"));
                }
                m.push('.');
                m.push_str(&how_far);
                m
            }
            FailureKind::Cancelled => "the run was cancelled".into(),
            FailureKind::Denied => format!(
                "escalation refused: {}. Nothing ran. Go on without sandboxPermissions \"require_escalated\" (escalation-only tools and the larger limits stay unavailable), or explain to the user why the task needs escalation and what you will do with it",
                message
                    .as_deref()
                    .unwrap_or("the approver said no")
                    .trim_end_matches('.')
            ),
            FailureKind::Syntax | FailureKind::Runtime => {
                let mut m = message.unwrap_or_else(|| "unknown error".into());
                if let Some((line, column)) = position {
                    m.push_str(&format!(" (line {line}, column {column})"));
                }
                m
            }
        };
        let mut text = format!("Error: code run failed ({}): {message}", kind.as_str());
        let mut gap = None;
        if !capture.is_empty() {
            text.push_str("\nCaptured output:\n");
            gap = capture.render(&mut text);
            trim_end(&mut text, gap);
        }
        self.outcome(Some(kind), text, gap, sub_calls)
    }

    /// Why a run that used its CPU budget ended: how much it computed and
    /// how much it waited, and what to do.
    fn cpu_budget_text(&self, how_far: &str) -> String {
        let elapsed = self.started.elapsed();
        let budget = self.budget.cpu_budget();
        // As `cpuMs` says it: a Python worker's ticks never past the wall.
        let used = self.budget.cpu_used().min(elapsed);
        let waited = elapsed.saturating_sub(used);
        let budget_ms = budget.as_millis();
        let what_next = match u64::try_from(budget_ms).unwrap_or(u64::MAX) < self.max_cpu_time_ms {
            true => format!(
                "do less work in the program, or pass a larger cpuTimeMs (at most {})",
                self.max_cpu_time_ms
            ),
            false => "no run may compute longer: split the work into runs that each return what the next needs".to_owned(),
        };
        format!(
            "the program used its CPU budget of {budget_ms} ms ({} ms computing, {} ms waiting on tools, timers or a free core): {what_next}.{how_far}",
            used.as_millis(),
            waited.as_millis()
        )
    }

    /// The program threw: the message, where, then what the code shows
    /// it most likely came from.
    pub(super) fn runtime_failure(
        &self,
        message: Option<String>,
        located: Located,
        capture: &Capture,
        sub_calls: u32,
    ) -> Outcome {
        let mut message = message.unwrap_or_else(|| "unknown error".into());
        if let Some((line, column)) = located.position {
            message.push_str(&format!(" (line {line}, column {column})"));
        }
        if let Some(hint) = located.hint {
            message.push_str(". ");
            message.push_str(&hint);
        }
        if let Some(excerpt) = located.excerpt {
            message.push('\n');
            message.push_str(&excerpt);
        }
        self.render_failure(
            FailureKind::Runtime,
            Some(message),
            None,
            capture,
            sub_calls,
        )
    }

    pub(super) fn render_success(
        &self,
        value: Option<String>,
        capture: &Capture,
        cut_calls: usize,
        cut_timers: usize,
        sub_calls: u32,
    ) -> Outcome {
        let mut text = String::new();
        let gap = capture.render(&mut text);
        if let Some(value) = value {
            text.push_str(&value);
        }
        trim_end(&mut text, gap);
        if cut_calls > 0 || cut_timers > 0 {
            let mut parts = Vec::new();
            if cut_calls > 0 {
                parts.push(
                    plural(cut_calls, "sub-call", "sub-calls") + " still running (cancelled)",
                );
            }
            if cut_timers > 0 {
                parts.push(plural(cut_timers, "timer", "timers") + " pending (dropped)");
            }
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!(
                "[run_code: the program returned with {}; did you forget an `await`?]",
                parts.join(" and ")
            ));
        }
        if text.is_empty() {
            text.push_str("(run_code completed with no output)");
        }
        self.outcome(None, text, gap, sub_calls)
    }

    /// Names the run's session in its outcome; a session the run opened
    /// gets a line of its text too, the model's only way to learn it.
    pub(super) fn session(&self, outcome: &mut Outcome, session: &RunSession) {
        let Some(handle) = session.handle() else {
            return;
        };
        outcome.session = Some(handle.to_owned());
        if !session.minted() {
            return;
        }
        // Every outcome's first block is its text (`outcome` above).
        if let Some(ContentBlock::Text { text }) = outcome.content.first_mut() {
            text.push_str(&format!(
                "\nvalues kept in session `{handle}`: pass session \"{handle}\" to use them"
            ));
        }
    }

    pub(super) fn append_images(&self, outcome: &mut Outcome, images: Vec<Image>) {
        let mut count = 0usize;
        let mut bytes = 0usize;
        let mut left_out = 0usize;
        for image in images {
            let size = match &image.block {
                ContentBlock::Image { data, .. } => data.len() / 4 * 3,
                _ => 0,
            };
            if count >= self.max_images || bytes + size > self.max_image_bytes {
                left_out += 1;
                continue;
            }
            count += 1;
            bytes += size;
            outcome.content.push(ContentBlock::text(format!(
                "Image from `{}` (sub-call {}):",
                image.tool, image.id
            )));
            outcome.content.push(image.block);
        }
        if left_out > 0 {
            outcome.content.push(ContentBlock::text(format!(
                "[{} left out: at most {} images and {} per run]",
                plural(left_out, "image", "images"),
                self.max_images,
                size(self.max_image_bytes as u64)
            )));
        }
    }
}

/// Drops the line breaks that end `text`, down to where the capture's gap
/// is (whose marker ends its own line).
fn trim_end(text: &mut String, gap: Option<Gap>) {
    let floor = gap.map_or(0, |g| g.at);
    while text.len() > floor && text.ends_with('\n') {
        text.pop();
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
