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
    fn render(tools: &[&ToolDefinition], headers: &[Option<String>]) -> Self {
        let mut r = Renderer::for_sdk();
        r.out.reserve(tools.len() * BYTES_PER_TOOL);
        for (i, (tool, header)) in tools.iter().zip(headers).enumerate() {
            let mark = r.out.len();
            r.warm_method(tool, header.as_deref());
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
    /// `headers` (one per tool) go before their tools' methods.
    pub(super) fn methods(
        &mut self,
        tools: &'a [&'a ToolDefinition],
        headers: &[Option<String>],
        workers: usize,
    ) {
        if workers <= 1 {
            for (tool, header) in tools.iter().zip(headers) {
                self.warm_method(tool, header.as_deref());
            }
            return;
        }
        let size = tools.len().div_ceil(workers);
        let (first, rest) = tools.split_at(size);
        let (first_headers, rest_headers) = headers.split_at(size);
        std::thread::scope(|s| {
            let ahead: Vec<_> = rest
                .chunks(size)
                .zip(rest_headers.chunks(size))
                .map(|(chunk, heads)| (chunk, heads, s.spawn(|| Speculation::render(chunk, heads))))
                .collect();
            for (tool, header) in first.iter().zip(first_headers) {
                self.warm_method(tool, header.as_deref());
            }
            for (chunk, heads, worker) in ahead {
                // A worker that panicked left nothing usable: redo its chunk here.
                let done = worker.join().unwrap_or(Speculation {
                    out: String::new(),
                    clean: 0,
                });
                self.out.push_str(&done.out);
                for (tool, header) in chunk[done.clean..].iter().zip(&heads[done.clean..]) {
                    self.warm_method(tool, header.as_deref());
                }
            }
        });
    }
}
