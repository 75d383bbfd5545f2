//! The parallel speculation: with many tools, later chunks of methods are
//! rendered ahead on other threads, and kept up to their first `$ref`.

use super::BYTES_PER_TOOL;
use super::render::Renderer;
use crate::tool::definition::ToolDefinition;

/// Below this many tools per thread, a thread costs more than it saves.
const TOOLS_PER_WORKER: usize = 128;

/// How many threads render `tools` methods.
pub(super) fn workers_for(tools: usize) -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    cores.min(tools / TOOLS_PER_WORKER).clamp(1, 8)
}

/// Methods rendered ahead on another thread by a renderer of their own.
struct Speculation {
    out: String,
    /// How many of the tools `out` holds: it stops before the first tool that
    /// names an alias, since alias names depend on every tool before it.
    clean: usize,
}

impl Speculation {
    fn render(tools: &[&ToolDefinition]) -> Self {
        let mut r = Renderer::for_sdk();
        r.out.reserve(tools.len() * BYTES_PER_TOOL);
        for (i, tool) in tools.iter().enumerate() {
            let mark = r.out.len();
            r.warm_method(tool);
            if r.looked_up_aliases() {
                r.out.truncate(mark);
                return Self {
                    out: r.out,
                    clean: i,
                };
            }
        }
        Self {
            out: r.out,
            clean: tools.len(),
        }
    }
}

impl<'a> Renderer<'a> {
    /// One method per tool, in order. With more than one worker, later
    /// chunks are rendered ahead on scoped threads; a method's text depends on
    /// the renderer only through the aliases, so a chunk rendered alone is
    /// byte-identical up to its first `$ref`, and this renderer carries on from there.
    pub(super) fn methods(&mut self, tools: &'a [&'a ToolDefinition], workers: usize) {
        if workers <= 1 {
            for tool in tools {
                self.warm_method(tool);
            }
            return;
        }
        let size = tools.len().div_ceil(workers);
        let (first, rest) = tools.split_at(size);
        std::thread::scope(|s| {
            let ahead: Vec<_> = rest
                .chunks(size)
                .map(|chunk| (chunk, s.spawn(|| Speculation::render(chunk))))
                .collect();
            for tool in first {
                self.warm_method(tool);
            }
            for (chunk, worker) in ahead {
                // A worker that panicked left nothing usable: redo its chunk here.
                let done = worker.join().unwrap_or(Speculation {
                    out: String::new(),
                    clean: 0,
                });
                self.out.push_str(&done.out);
                for tool in &chunk[done.clean..] {
                    self.warm_method(tool);
                }
            }
        });
    }
}
