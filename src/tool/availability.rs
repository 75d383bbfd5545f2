//! Tool sources the registry knows of before their tools arrive: their
//! order (a source's tools keep its place whatever order sources become
//! ready in) and, while their tools are absent, why (still starting, or
//! failed). `run_code`'s description and the unknown-tool error read it;
//! the sources (MCP servers) write it, so this layer never names them.

use std::time::Instant;

use super::title::escape_hostile;

/// The most characters of a reason a description line shows.
const REASON_CHARS: usize = 300;

/// Why a declared source's tools are absent for now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Absence {
    /// Its first start has not ended yet.
    Starting,
    /// It could not start: `why`, and when it is tried again (`None`: not
    /// planned, or being tried now).
    Failed {
        why: String,
        retry_at: Option<Instant>,
    },
}

/// One declared tool source.
#[derive(Debug, Clone)]
pub(crate) struct DeclaredSource {
    /// The owner name its tools are registered under.
    pub(crate) owner: String,
    /// How people and the model know it ("MCP server `gh`").
    pub(crate) label: String,
    /// What its tools' names start with (`gh.`).
    pub(crate) prefix: String,
    /// Why its tools are absent; `None` once it registered them.
    pub(crate) absence: Option<Absence>,
}

impl DeclaredSource {
    /// Whether `name` would be one of this source's tools.
    pub(crate) fn covers(&self, name: &str) -> bool {
        name.starts_with(&self.prefix)
    }

    /// `run_code`'s description line (without the `- ` and the newline):
    /// one line, control characters escaped, the reason cut.
    pub(crate) fn note(&self) -> Option<String> {
        let text = match self.absence.as_ref()? {
            Absence::Starting => format!(
                "{} is still starting: its tools (`{}*`) are not declared yet.",
                self.label, self.prefix
            ),
            Absence::Failed { why, .. } => format!(
                "{} failed to start, so its tools (`{}*`) are missing: {}",
                self.label,
                self.prefix,
                one_line(why, REASON_CHARS)
            ),
        };
        Some(escape_hostile(&text))
    }

    /// The error of a call to `name`, one of its absent tools.
    pub(crate) fn call_error(&self, name: &str) -> Option<String> {
        Some(match self.absence.as_ref()? {
            Absence::Starting => format!(
                "tool `{name}` is not available yet: {} is still starting (its tools are registered when it is ready)",
                self.label
            ),
            Absence::Failed { why, retry_at } => {
                let retry = match retry_at {
                    Some(at) => {
                        let left = at.saturating_duration_since(Instant::now());
                        format!("; it is retried in {} s", left.as_secs_f64().ceil())
                    }
                    None => String::new(),
                };
                // The server's own words (its stderr, often): one line, escaped.
                let why = escape_hostile(&one_line(why, REASON_CHARS));
                format!(
                    "tool `{name}` is not available: {} failed to start: {why}{retry}",
                    self.label
                )
            }
        })
    }
}

/// `text` on one line (its lines joined with ` / `), at most `chars`
/// characters (then ending with `…`).
fn one_line(text: &str, chars: usize) -> String {
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" / ");
    if joined.chars().count() <= chars {
        return joined;
    }
    let mut cut: String = joined.chars().take(chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn source(absence: Option<Absence>) -> DeclaredSource {
        DeclaredSource {
            owner: "mcp server `gh`".to_owned(),
            label: "MCP server `gh`".to_owned(),
            prefix: "gh.".to_owned(),
            absence,
        }
    }

    #[test]
    fn notes_are_one_escaped_line_with_the_reason_cut() {
        assert_eq!(source(None).note(), None);
        assert_eq!(
            source(Some(Absence::Starting)).note().unwrap(),
            "MCP server `gh` is still starting: its tools (`gh.*`) are not declared yet."
        );
        let why = format!(
            "it exited; its stderr:\nfirst\n\n\x1b[2Jsecond\n{}",
            "x".repeat(400)
        );
        let note = source(Some(Absence::Failed {
            why,
            retry_at: None,
        }))
        .note()
        .unwrap();
        assert!(
            note.starts_with(
                "MCP server `gh` failed to start, so its tools (`gh.*`) are missing: \
                 it exited; its stderr: / first / \\u{1b}[2Jsecond / xxx"
            ),
            "{note}"
        );
        assert!(!note.contains('\n') && note.ends_with('…'), "{note}");
    }

    #[test]
    fn call_errors_say_why_and_when_it_is_retried() {
        assert_eq!(
            source(Some(Absence::Starting)).call_error("gh.x").unwrap(),
            "tool `gh.x` is not available yet: MCP server `gh` is still starting \
             (its tools are registered when it is ready)"
        );
        let failed = source(Some(Absence::Failed {
            why: "cannot start `gh`: no such file".to_owned(),
            retry_at: Some(Instant::now() + Duration::from_millis(3500)),
        }));
        assert_eq!(
            failed.call_error("gh.x").unwrap(),
            "tool `gh.x` is not available: MCP server `gh` failed to start: \
             cannot start `gh`: no such file; it is retried in 4 s"
        );
        assert!(source(None).call_error("gh.x").is_none());
    }
}
