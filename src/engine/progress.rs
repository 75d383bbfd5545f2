//! How far a run got when its deadline or memory limit stopped it
//! (contracts §7): the sub-calls it made, the last one and where the code
//! calls it, and whether the program was running JavaScript or waiting,
//! on what. Gathered only when a limit strikes; the success path pays for
//! nothing but the last tool's name.

use std::fmt;

use crate::tool::definition::quoted_name;

use super::request::Language;

/// What a run had done when a limit stopped it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Progress {
    /// Sub-calls made.
    pub(crate) made: u32,
    /// The tools of the sub-calls in flight, in the order they were made.
    pub(crate) in_flight: Vec<String>,
    /// Sub-calls made but not yet started (the run's parallel limit).
    pub(crate) queued: usize,
    /// Timers pending.
    pub(crate) timers: usize,
    /// The tool of the last sub-call, and the lines that call it.
    pub(crate) last: Option<(String, Vec<u32>)>,
    /// The program's language: what "running …" names.
    pub(crate) language: Language,
    /// The limit struck while the program's JavaScript was running.
    pub(crate) running: bool,
}

/// How many tool names "waiting on" lists before it counts the rest.
const NAMES_SHOWN: usize = 3;

impl fmt::Display for Progress {
    /// ` By then it had made 3 sub-calls (2 settled, 1 in flight), the
    /// last to `list_dir` (line 4); it was waiting on `list_dir`.`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.made {
            0 => f.write_str(" By then it had made no sub-call")?,
            made => {
                write!(
                    f,
                    " By then it had made {}",
                    plural(made as usize, "sub-call")
                )?;
                let open = self.in_flight.len() + self.queued;
                if open > 0 {
                    let settled = (made as usize).saturating_sub(open);
                    write!(f, " ({settled} settled")?;
                    if !self.in_flight.is_empty() {
                        write!(f, ", {} in flight", self.in_flight.len())?;
                    }
                    if self.queued > 0 {
                        write!(f, ", {} not yet started", self.queued)?;
                    }
                    f.write_str(")")?;
                }
                if let Some((tool, lines)) = &self.last {
                    write!(f, ", the last to {}", quoted_name(tool))?;
                    write_lines(f, lines)?;
                }
            }
        }
        f.write_str("; ")?;
        self.write_state(f)?;
        f.write_str(".")
    }
}

impl Progress {
    /// Running, or what it was waiting on.
    fn write_state(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.running {
            let running = match self.language {
                Language::Python => "Python",
                _ => "JavaScript",
            };
            return write!(f, "it was running {running} when the limit struck");
        }
        let mut waits = Vec::new();
        if !self.in_flight.is_empty() {
            let mut names: Vec<&str> = Vec::new();
            for name in &self.in_flight {
                if !names.contains(&name.as_str()) {
                    names.push(name);
                }
            }
            let mut shown: Vec<String> = names
                .iter()
                .take(NAMES_SHOWN)
                .map(|name| quoted_name(name))
                .collect();
            if names.len() > NAMES_SHOWN {
                shown.push(format!("{} more tools", names.len() - NAMES_SHOWN));
            }
            waits.push(shown.join(", "));
        }
        if self.queued > 0 {
            waits.push(plural(self.queued, "sub-call") + " not yet started");
        }
        if self.timers > 0 {
            waits.push(if self.timers == 1 {
                "a timer".to_owned()
            } else {
                format!("{} timers", self.timers)
            });
        }
        if waits.is_empty() {
            f.write_str("it was waiting")
        } else {
            write!(f, "it was waiting on {}", waits.join(" and "))
        }
    }
}

/// ` (line 4)`, ` (lines 4 and 9)`, ` (lines 4, 9 and 12)`; nothing when the
/// code names the tool nowhere (a computed name).
fn write_lines(f: &mut fmt::Formatter<'_>, lines: &[u32]) -> fmt::Result {
    match lines {
        [] => Ok(()),
        [line] => write!(f, " (line {line})"),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(u32::to_string).collect();
            write!(f, " (lines {} and {last})", init.join(", "))
        }
    }
}

/// `1 sub-call`, `3 sub-calls`.
pub(super) fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

#[cfg(test)]
mod tests {
    use super::Progress;

    #[test]
    fn a_run_waiting_on_a_sub_call_says_which() {
        let progress = Progress {
            made: 37,
            in_flight: vec!["list_dir".into()],
            last: Some(("list_dir".into(), vec![1])),
            ..Progress::default()
        };
        assert_eq!(
            progress.to_string(),
            " By then it had made 37 sub-calls (36 settled, 1 in flight), the last to \
             `list_dir` (line 1); it was waiting on `list_dir`."
        );
    }

    #[test]
    fn a_run_stopped_in_javascript_says_so() {
        let progress = Progress {
            running: true,
            ..Progress::default()
        };
        assert_eq!(
            progress.to_string(),
            " By then it had made no sub-call; it was running JavaScript when the limit struck."
        );
        let progress = Progress {
            made: 2,
            last: Some(("read_file".into(), vec![3, 8])),
            running: true,
            ..Progress::default()
        };
        assert_eq!(
            progress.to_string(),
            " By then it had made 2 sub-calls, the last to `read_file` (lines 3 and 8); \
             it was running JavaScript when the limit struck."
        );
    }

    #[test]
    fn many_waits_are_counted_not_listed() {
        let progress = Progress {
            made: 9,
            in_flight: ["a", "b", "a", "c", "d", "e"].map(String::from).to_vec(),
            queued: 2,
            timers: 1,
            last: Some(("e".into(), vec![])),
            running: false,
            language: crate::Language::TypeScript,
        };
        assert_eq!(
            progress.to_string(),
            " By then it had made 9 sub-calls (1 settled, 6 in flight, 2 not yet started), \
             the last to `e`; it was waiting on `a`, `b`, `c`, 2 more tools and 2 sub-calls \
             not yet started and a timer."
        );
    }
}
