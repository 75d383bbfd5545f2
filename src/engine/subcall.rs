//! A sub-call's life, the same in both languages: submitted (numbered,
//! its `started` event, queued), admitted by the scheduler and started
//! through the pipeline, settled (its `settled` event, its images), or cut
//! off when the run closes (queued ones never start). Each language keeps
//! what only it has beside a call (`L`: TypeScript its task once spawned,
//! Python the program's future), moves values in and out of its runtime,
//! and delivers results to the program.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use super::progress::Progress;
use super::request::Language;
use super::scheduler::Scheduler;
use super::setup::RunSetup;
use crate::contract::call::{Call, ContentBlock, ToolError, ToolResult};
use crate::contract::events::RunEventKind;
use crate::tool::pipeline::aborted;
use crate::tool::registry::RegisteredTool;
use crate::tool::title::default_title;

/// An image to append after the text.
pub(crate) struct Image {
    pub(crate) tool: String,
    pub(crate) id: Arc<str>,
    pub(crate) block: ContentBlock,
}

/// A sub-call waiting for the scheduler.
struct Queued<L> {
    call: Started<L>,
    /// Looked up once, at submission: it decides scheduling and runs.
    tool: Option<Arc<RegisteredTool>>,
    arguments: Json,
}

/// A sub-call admitted and handed to the pipeline, until it settles.
pub(crate) struct Started<L> {
    /// Its number in the run (1, 2, …): its id's and its order.
    pub(crate) n: u32,
    pub(crate) id: Arc<str>,
    pub(crate) name: String,
    /// Bytes of the arguments' copy, charged to the run until it settles.
    pub(crate) charged: usize,
    /// What its events are titled from, when the run has an event sink.
    titled: Option<Titled>,
    /// What the language keeps beside it.
    pub(crate) local: L,
}

/// What a settled call leaves for the language to deliver.
pub(crate) struct Landed {
    pub(crate) n: u32,
    pub(crate) name: String,
}

/// The sub-calls of one run.
pub(crate) struct Calls<L> {
    scheduler: Scheduler<Queued<L>>,
    /// Started calls not yet settled, by number (a TypeScript call answered
    /// on its first poll is never here).
    in_flight: HashMap<u32, Started<L>>,
    submitted: u32,
    /// The tool of the last call made (for a limit's failure text); the
    /// buffer is reused, not reallocated.
    last_tool: String,
    /// The images of settled calls' results, for the outcome.
    pub(crate) images: Vec<Image>,
}

impl<L> Calls<L> {
    pub(crate) fn new(max_parallel: usize) -> Self {
        Self {
            scheduler: Scheduler::new(max_parallel),
            in_flight: HashMap::new(),
            submitted: 0,
            last_tool: String::new(),
            images: Vec::new(),
        }
    }

    /// Calls made so far.
    pub(crate) fn made(&self) -> u32 {
        self.submitted
    }

    /// Whether a started call has yet to settle.
    pub(crate) fn any_in_flight(&self) -> bool {
        !self.in_flight.is_empty()
    }

    /// A call the gate let through: numbered, announced (`started`, when
    /// someone watches) and queued; its number. Past the run's sub-call
    /// budget it is refused instead, and never made.
    pub(crate) fn submit(
        &mut self,
        setup: &RunSetup,
        name: String,
        arguments: Json,
        charged: usize,
        local: L,
    ) -> Result<u32, ToolError> {
        if let Some(refused) = setup.budget.refuse_call(self.submitted) {
            return Err(refused);
        }
        self.submitted += 1;
        self.last_tool.clear();
        self.last_tool.push_str(&name);
        let n = self.submitted;
        let id = sub_call_id(&setup.run_id, n);
        let tool = setup.scope.lookup(&name);
        // Titles are made only for someone to read them.
        let titled = setup.events.is_some().then(|| {
            let titled = Titled::new(tool.as_ref(), &name, &arguments);
            let title = titled.call.clone();
            let started = RunEventKind::started(Arc::clone(&id), name.clone(), title, &arguments);
            setup.emit(started);
            titled
        });
        let read_only = setup.scope.schedules_as_read_only(tool.as_ref(), &name);
        let call = Started {
            n,
            id,
            name,
            charged,
            titled,
            local,
        };
        let queued = Queued {
            call,
            tool,
            arguments,
        };
        self.scheduler.submit(read_only, queued);
        Ok(n)
    }

    /// The next call the scheduler admits, with the pipeline's future for
    /// it (not yet polled), cancelled with `cancel`.
    pub(crate) fn start(
        &mut self,
        setup: &RunSetup,
        cancel: &CancellationToken,
    ) -> Option<(
        Started<L>,
        impl Future<Output = ToolResult> + Send + 'static,
    )> {
        let Queued {
            call,
            tool,
            arguments,
        } = self.scheduler.admit()?;
        let options = setup.call_options(&call.name, cancel.child_token());
        let request = Call::new(&*call.id, call.name.clone(), arguments);
        let future = setup.scope.call_resolved(tool, request, options);
        Some((call, future))
    }

    /// Keeps a started call until it settles ([`land`](Self::land)).
    pub(crate) fn fly(&mut self, call: Started<L>) {
        self.in_flight.insert(call.n, call);
    }

    /// Call `n`, which was flying, has an answer.
    pub(crate) fn land(&mut self, n: u32) -> Option<Started<L>> {
        self.in_flight.remove(&n)
    }

    /// A call settled: the scheduler may admit more, its `settled` event
    /// goes out, its images are kept for the outcome.
    pub(crate) fn settle(
        &mut self,
        setup: &RunSetup,
        call: Started<L>,
        result: &ToolResult,
    ) -> Landed {
        self.scheduler.settled();
        if let Some(titled) = call.titled {
            let value = result.as_ref().map(|output| &output.value);
            let settled =
                RunEventKind::settled(Arc::clone(&call.id), titled.settled(result), value);
            setup.emit(settled);
        }
        if let Ok(output) = result {
            for block in &output.content {
                if matches!(block, ContentBlock::Image { .. }) {
                    self.images.push(Image {
                        tool: call.name.clone(),
                        id: Arc::clone(&call.id),
                        block: block.clone(),
                    });
                }
            }
        }
        Landed {
            n: call.n,
            name: call.name,
        }
    }

    /// The run is closing: the queued calls never start (each settles
    /// `ABORTED_BEFORE_DISPATCH`); what is still in flight (for the
    /// language to cancel and await), and how many calls were cut off.
    pub(crate) fn close_queue(&mut self, setup: &RunSetup) -> usize {
        let mut cut = 0;
        for Queued { call, .. } in self.scheduler.drain_queue() {
            cut += 1;
            if let Some(titled) = call.titled {
                let error = aborted(&call.name, false);
                setup.emit(RunEventKind::Settled {
                    id: call.id,
                    title: titled.call,
                    ok: false,
                    value: None,
                    error: Some(error),
                });
            }
        }
        cut + self.in_flight.len()
    }

    /// How far the calls got, for a limit's failure text; `lines` finds
    /// where the program calls a tool.
    pub(crate) fn progress(
        &self,
        language: Language,
        lines: impl FnOnce(&str) -> Vec<u32>,
    ) -> Progress {
        let mut in_flight: Vec<&Started<L>> = self.in_flight.values().collect();
        in_flight.sort_unstable_by_key(|call| call.n);
        Progress {
            made: self.submitted,
            in_flight: in_flight
                .into_iter()
                .map(|call| call.name.clone())
                .collect(),
            queued: self.scheduler.queued(),
            timers: 0,
            last: (!self.last_tool.is_empty())
                .then(|| (self.last_tool.clone(), lines(&self.last_tool))),
            running: false,
            language,
        }
    }

    /// The in-flight calls' own parts (TypeScript: their tasks, to abort).
    pub(crate) fn locals(&self) -> impl Iterator<Item = &L> {
        self.in_flight.values().map(|call| &call.local)
    }
}

/// What a sub-call's events are titled from (made only when the run has
/// an event sink).
struct Titled {
    /// The call's title.
    call: String,
    /// The tool and the arguments, kept when the tool titles its results.
    result: Option<(Arc<RegisteredTool>, Json)>,
}

impl Titled {
    fn new(tool: Option<&Arc<RegisteredTool>>, name: &str, arguments: &Json) -> Self {
        let Some(tool) = tool else {
            return Self {
                call: default_title(name, arguments),
                result: None,
            };
        };
        let definition = &tool.definition;
        Self {
            call: definition.title_of_call(arguments),
            result: definition
                .titles
                .titles_results()
                .then(|| (Arc::clone(tool), arguments.clone())),
        }
    }

    /// The `settled` event's title: a success's result title, else the
    /// call's.
    fn settled(self, result: &ToolResult) -> String {
        match (self.result, result) {
            (Some((tool, arguments)), Ok(output)) => {
                tool.definition.title_of_result(&arguments, &output.value)
            }
            _ => self.call,
        }
    }
}

/// `{run_id}:ptc:{n}`, without `format!`: it cost a thousand instructions a
/// sub-call (a tenth of W2's dispatch).
pub(crate) fn sub_call_id(run_id: &str, n: u32) -> Arc<str> {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(n);
    let mut id = String::with_capacity(run_id.len() + 5 + digits.len());
    id.push_str(run_id);
    id.push_str(":ptc:");
    id.push_str(digits);
    id.into()
}

#[cfg(test)]
mod tests {
    #[test]
    fn sub_call_ids_read_as_formatted() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, u32::MAX] {
            assert_eq!(&*super::sub_call_id("run-7", n), format!("run-7:ptc:{n}"));
        }
    }
}
