//! What the model gets back (contracts §7): bounded console capture and the
//! output cap.

use std::collections::VecDeque;

/// A console level, as the prelude numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// `console.log`
    Log,
    /// `console.info`
    Info,
    /// `console.warn`, captured with a `[warn] ` prefix.
    Warn,
    /// `console.error`, captured with an `[error] ` prefix.
    Error,
    /// `console.debug`
    Debug,
}

impl LogLevel {
    pub(crate) fn from_index(i: i32) -> Self {
        match i {
            1 => Self::Info,
            2 => Self::Warn,
            3 => Self::Error,
            4 => Self::Debug,
            _ => Self::Log,
        }
    }

    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Self::Warn => "[warn] ",
            Self::Error => "[error] ",
            _ => "",
        }
    }
}

/// Console lines of one run, bounded: the head is kept up to the cap, then a
/// ring buffer keeps the most recent lines up to the cap, so a program that
/// prints forever holds at most about twice the cap.
#[derive(Debug)]
pub(crate) struct Capture {
    cap: usize,
    head: Vec<String>,
    head_bytes: usize,
    head_closed: bool,
    tail: VecDeque<String>,
    tail_bytes: usize,
    omitted_lines: usize,
    omitted_bytes: usize,
}

impl Capture {
    pub(crate) fn new(cap: usize) -> Self {
        Self {
            cap,
            head: Vec::new(),
            head_bytes: 0,
            head_closed: false,
            tail: VecDeque::new(),
            tail_bytes: 0,
            omitted_lines: 0,
            omitted_bytes: 0,
        }
    }

    /// Adds a line; `true` while the line lands in the head (it may be streamed).
    pub(crate) fn push(&mut self, mut line: String) -> bool {
        if line.len() >= self.cap {
            let cut = floor_char_boundary(&line, self.cap.saturating_sub(1));
            line.truncate(cut);
        }
        let size = line.len() + 1;
        if !self.head_closed && self.head_bytes + size <= self.cap {
            self.head_bytes += size;
            self.head.push(line);
            return true;
        }
        self.head_closed = true;
        self.tail_bytes += size;
        self.tail.push_back(line);
        while self.tail_bytes > self.cap {
            match self.tail.pop_front() {
                Some(old) => {
                    self.tail_bytes -= old.len() + 1;
                    self.omitted_lines += 1;
                    self.omitted_bytes += old.len() + 1;
                }
                None => break,
            }
        }
        false
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.head.is_empty() && self.tail.is_empty() && self.omitted_lines == 0
    }

    /// The captured text, one line per console call, with a marker where
    /// lines were dropped.
    pub(crate) fn render(&self, out: &mut String) {
        for line in &self.head {
            out.push_str(line);
            out.push('\n');
        }
        if self.omitted_lines > 0 {
            out.push_str(&format!(
                "[… {} lines ({} bytes) of output left out …]\n",
                self.omitted_lines, self.omitted_bytes
            ));
        }
        for line in &self.tail {
            out.push_str(line);
            out.push('\n');
        }
    }
}

/// Cuts `text` to at most `cap` bytes, keeping the head and the tail around
/// one marker line that says how many bytes were left out.
pub(crate) fn cap_text(text: String, cap: usize) -> String {
    if text.len() <= cap {
        return text;
    }
    // The marker's length depends on the number it carries; iterate to a fixed point.
    let mut omitted = text.len() - cap;
    for _ in 0..4 {
        let marker = marker(omitted);
        let budget = cap.saturating_sub(marker.len());
        let head_end = floor_char_boundary(&text, budget / 2);
        let tail_start = ceil_char_boundary(&text, text.len() - (budget - budget / 2));
        let now_omitted = tail_start - head_end;
        if now_omitted == omitted {
            let mut out = String::with_capacity(cap);
            out.push_str(&text[..head_end]);
            out.push_str(&marker);
            out.push_str(&text[tail_start..]);
            if out.len() <= cap {
                return out;
            }
        }
        omitted = now_omitted;
    }
    // Degenerate caps (smaller than the marker): keep what fits of the head.
    let end = floor_char_boundary(&text, cap);
    text[..end].to_owned()
}

fn marker(omitted: usize) -> String {
    format!("\n[… {omitted} bytes left out …]\n")
}

pub(crate) fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(cap_text("hello".into(), 5), "hello");
    }

    #[test]
    fn cut_text_keeps_head_and_tail_and_never_exceeds_the_cap() {
        let text: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        for cap in [60, 100, 1000, 4096] {
            let out = cap_text(text.clone(), cap);
            assert!(out.len() <= cap, "{} > {cap}", out.len());
            assert!(out.starts_with("line 0\n"), "{out}");
            assert!(out.ends_with("line 1999\n"), "{out}");
            let omitted: usize = out
                .split("[… ")
                .nth(1)
                .and_then(|s| s.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap();
            let kept = out.len() - marker(omitted).len();
            assert_eq!(kept + omitted, text.len(), "the marker tells the truth");
        }
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        let text = "é".repeat(1000);
        let out = cap_text(text, 101);
        assert!(out.len() <= 101);
        assert!(out.starts_with('é') && out.ends_with('é'));
    }

    #[test]
    fn capture_is_bounded_and_marks_the_gap() {
        let mut c = Capture::new(100);
        let mut streamed = 0;
        for i in 0..10_000 {
            if c.push(format!("line {i}")) {
                streamed += 1;
            }
        }
        let mut out = String::new();
        c.render(&mut out);
        assert!(out.len() < 300, "{}", out.len());
        assert!(out.starts_with("line 0\n"));
        assert!(out.ends_with("line 9999\n"));
        assert!(out.contains("lines ("), "{out}");
        assert_eq!(
            streamed,
            out.lines().take_while(|l| !l.starts_with("[…")).count()
        );
    }

    #[test]
    fn one_huge_line_is_cut_to_the_cap() {
        let mut c = Capture::new(10);
        assert!(c.push("x".repeat(100)));
        let mut out = String::new();
        c.render(&mut out);
        assert_eq!(out, format!("{}\n", "x".repeat(9)));
    }
}
