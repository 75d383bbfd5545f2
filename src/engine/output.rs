//! What the model gets back (contracts §7): bounded console capture and the
//! output cap.

use std::collections::VecDeque;

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
    pub(crate) fn push(&mut self, line: String) -> bool {
        let bytes = line.len();
        self.push_started(line, bytes)
    }

    /// Adds a line of `bytes` bytes of which only the start, `line`, was
    /// kept (at least the cap's worth when it is longer); `true` while it
    /// lands in the head.
    pub(crate) fn push_started(&mut self, mut line: String, bytes: usize) -> bool {
        if bytes >= self.cap {
            cut_line(&mut line, bytes, self.cap);
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

    /// Appends the captured text to `out`, one line per console call, and
    /// returns where the lines the capture dropped belong (for [`cap_text`],
    /// which marks them).
    pub(crate) fn render(&self, out: &mut String) -> Option<Gap> {
        for line in &self.head {
            out.push_str(line);
            out.push('\n');
        }
        let gap = (self.omitted_lines > 0).then_some(Gap {
            at: out.len(),
            bytes: self.omitted_bytes,
            lines: self.omitted_lines,
        });
        for line in &self.tail {
            out.push_str(line);
            out.push('\n');
        }
        gap
    }
}

/// Cuts a console line of `bytes` (at least `cap`) bytes, of which `line`
/// is the start, to fit under the cap, saying at its end how many bytes of
/// it were left out.
fn cut_line(line: &mut String, bytes: usize, cap: usize) {
    let longest_note = note_for_line(bytes).len();
    let keep = floor_char_boundary(line, cap.saturating_sub(1 + longest_note));
    let note = note_for_line(bytes - keep);
    line.truncate(keep);
    line.push_str(&note);
    if line.len() >= cap {
        // A cap too small for the note: what fits of the line.
        let end = floor_char_boundary(line, cap.saturating_sub(1));
        line.truncate(end);
    }
}

fn note_for_line(left_out: usize) -> String {
    format!(" [… {left_out} more bytes of this line left out …]")
}

/// Output the capture left out: `bytes` (line breaks included) in `lines`
/// lines, between the text before byte `at` and the text after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Gap {
    pub(crate) at: usize,
    pub(crate) bytes: usize,
    pub(crate) lines: usize,
}

/// Cuts `text` to at most `cap` bytes, keeping the head and the tail around
/// one marker line that says how many bytes and lines were left out. `gap`,
/// output already left out at a line start of `text`, is marked there when
/// the rest fits; otherwise it falls inside the one cut, and its bytes and
/// lines are counted in the one marker.
pub(crate) fn cap_text(text: String, gap: Option<Gap>, cap: usize) -> String {
    if let Some(gap) = gap {
        let marker = marker(gap.bytes, gap.lines, false);
        if text.len() + marker.len() <= cap {
            let mut out = String::with_capacity(text.len() + marker.len());
            out.push_str(&text[..gap.at]);
            out.push_str(&marker);
            out.push_str(&text[gap.at..]);
            return out;
        }
    } else if text.len() <= cap {
        return text;
    }
    let (gap_bytes, gap_lines) = gap.map_or((0, 0), |g| (g.bytes, g.lines));
    // The marker's length depends on the numbers it carries: room is made
    // for the longest they can be (neither exceeds every byte there was).
    let most = text.len() + gap_bytes;
    let budget = cap.saturating_sub(marker(most, most, true).len());
    if budget == 0 {
        // Degenerate caps (smaller than the marker): keep what fits of the head.
        let end = floor_char_boundary(&text, cap);
        return text[..end].to_owned();
    }
    let len = text.len();
    let mut head = budget / 2;
    let mut tail = len.saturating_sub(budget - head);
    if let Some(gap) = gap {
        // The cut must hold the gap: one marker, one stretch left out.
        if head > gap.at {
            head = gap.at;
            tail = len.saturating_sub(budget - head).max(gap.at);
        }
        if tail < gap.at {
            tail = gap.at;
            head = gap.at.min(budget - (len - tail));
        }
    }
    let mut head = floor_char_boundary(&text, head);
    let mut tail = ceil_char_boundary(&text, tail.max(head));
    // Whole lines where a line ends in the outer half of what is kept.
    if let Some(end) = text[..head].rfind('\n')
        && end + 1 >= head / 2
    {
        head = end + 1;
    }
    if tail > 0
        && tail < len
        && text.as_bytes()[tail - 1] != b'\n'
        && let Some(start) = text[tail..].find('\n')
        && start < (len - tail) / 2
    {
        tail += start + 1;
    }
    let left_out = &text[head..tail];
    let bytes = left_out.len() + gap_bytes;
    let lines = left_out.bytes().filter(|&b| b == b'\n').count() + gap_lines;
    let mid_line = head > 0 && text.as_bytes()[head - 1] != b'\n';
    let marker = marker(bytes, lines, mid_line);
    let mut out = String::with_capacity(head + marker.len() + len - tail);
    out.push_str(&text[..head]);
    out.push_str(&marker);
    out.push_str(&text[tail..]);
    out
}

/// The marker line for `bytes` (in `lines` line breaks) left out; after a
/// cut inside a line it starts a line of its own.
fn marker(bytes: usize, lines: usize, mid_line: bool) -> String {
    let lines = if lines == 1 {
        "1 line".to_owned()
    } else {
        format!("{lines} lines")
    };
    let start = if mid_line { "\n" } else { "" };
    format!("{start}[… {bytes} bytes left out ({lines}) …]\n")
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

    /// The numbers of the one marker in `out`: bytes and lines left out.
    fn marked(out: &str) -> (usize, usize) {
        let rest = out.split("[… ").nth(1).expect("a marker");
        let bytes = rest.split(' ').next().unwrap().parse().unwrap();
        let lines = rest
            .split(" bytes left out (")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .unwrap()
            .parse()
            .unwrap();
        (bytes, lines)
    }

    /// The text of `out` without its marker line.
    fn kept(out: &str) -> String {
        let start = out.find("[… ").unwrap();
        let end = start + out[start..].find("…]\n").unwrap() + "…]\n".len();
        format!("{}{}", &out[..start], &out[end..])
    }

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(cap_text("hello".into(), None, 5), "hello");
    }

    #[test]
    fn cut_text_keeps_head_and_tail_and_never_exceeds_the_cap() {
        let text: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        for cap in [100, 1000, 4096] {
            let out = cap_text(text.clone(), None, cap);
            assert!(out.len() <= cap, "{} > {cap}", out.len());
            assert!(out.starts_with("line 0\n"), "{out}");
            assert!(out.ends_with("line 1999\n"), "{out}");
            let (bytes, lines) = marked(&out);
            let kept = kept(&out);
            assert_eq!(kept.len() + bytes, text.len(), "the marker tells the truth");
            assert_eq!(
                kept.lines().count() + lines,
                2000,
                "whole lines are cut: {out}"
            );
        }
    }

    /// Whatever the text, the gap and the cap, the outcome is at most the
    /// cap: an empty or one-byte text with a gap too, where the marker
    /// alone would pass a small cap.
    #[test]
    fn a_gap_never_takes_the_text_past_the_cap() {
        for len in 0..=80 {
            let text = "x".repeat(len);
            for cap in 1..=120 {
                let gap = Gap {
                    at: 0,
                    bytes: 1000,
                    lines: 10,
                };
                let out = cap_text(text.clone(), Some(gap), cap);
                assert!(out.len() <= cap, "{len} bytes, cap {cap}: {out:?}");
            }
        }
    }

    #[test]
    fn a_cut_inside_one_line_starts_the_marker_on_a_line_of_its_own() {
        let out = cap_text("x".repeat(1000), None, 100);
        assert!(out.len() <= 100);
        assert!(out.contains("x\n[… "), "{out}");
        let (bytes, lines) = marked(&out);
        assert_eq!((out.matches('x').count() + bytes, lines), (1000, 0));
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        let text = "é".repeat(1000);
        let out = cap_text(text, None, 101);
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
        let gap = c.render(&mut out);
        let out = cap_text(out, gap, 1000);
        assert!(out.len() < 300, "{}", out.len());
        assert!(out.starts_with("line 0\n"));
        assert!(out.ends_with("line 9999\n"));
        assert_eq!(
            streamed,
            out.lines().take_while(|l| !l.starts_with("[…")).count()
        );
        let (_, lines) = marked(&out);
        assert_eq!(kept(&out).lines().count() + lines, 10_000);
    }

    #[test]
    fn head_and_tail_each_hold_exactly_the_cap() {
        let mut c = Capture::new(6);
        let streamed: Vec<bool> = ["aa", "bb", "cc", "dd"]
            .into_iter()
            .map(|l| c.push(l.to_owned()))
            .collect();
        assert_eq!(streamed, [true, true, false, false]);
        let mut out = String::new();
        assert!(c.render(&mut out).is_none(), "nothing dropped: {out}");
        assert_eq!(out, "aa\nbb\ncc\ndd\n");
    }

    /// The capture drops lines, then the output cap cuts what is left:
    /// one marker counts both (a run printing 300,000 bytes was told of
    /// only the cap's share).
    #[test]
    fn the_marker_counts_what_the_capture_dropped_too() {
        let lines: Vec<String> = (0..30_000).map(|i| format!("line {i:05}")).collect();
        let total: usize = lines.iter().map(|l| l.len() + 1).sum();
        for (cap, prefix) in [(32_768, ""), (1000, "Error: boom\nCaptured output:\n")] {
            let mut c = Capture::new(cap);
            for line in &lines {
                c.push(line.clone());
            }
            let mut out = prefix.to_owned();
            let gap = c.render(&mut out);
            let out = cap_text(out, gap, cap);
            assert!(out.len() <= cap, "{}", out.len());
            assert_eq!(out.matches("[… ").count(), 1, "one marker");
            let (bytes, left) = marked(&out);
            let kept = kept(&out);
            assert_eq!(kept.len() - prefix.len() + bytes, total, "bytes: {cap}");
            assert_eq!(
                kept.lines().count() - prefix.lines().count() + left,
                30_000,
                "lines: {cap}"
            );
            assert!(kept.ends_with("line 29999\n"));
            assert!(kept.starts_with(&format!("{prefix}line 00000\n")));
        }
    }

    #[test]
    fn a_gap_that_fits_is_marked_where_it_is() {
        let mut c = Capture::new(20);
        for i in 0..10 {
            c.push(format!("line {i}"));
        }
        let mut out = String::new();
        let gap = c.render(&mut out);
        let out = cap_text(out, gap, 1000);
        assert_eq!(
            out,
            "line 0\nline 1\n[… 42 bytes left out (6 lines) …]\nline 8\nline 9\n"
        );
    }

    #[test]
    fn one_huge_line_is_cut_and_says_how_much() {
        let mut c = Capture::new(100);
        assert!(c.push("x".repeat(1000)));
        let mut out = String::new();
        assert_eq!(c.render(&mut out), None);
        assert!(out.len() <= 100, "{out}");
        let xs = out.matches('x').count();
        assert!(
            out.ends_with(&format!(
                " [… {} more bytes of this line left out …]\n",
                1000 - xs
            )),
            "{out}"
        );
        let mut tiny = Capture::new(10);
        assert!(tiny.push("x".repeat(100)));
        let mut out = String::new();
        tiny.render(&mut out);
        assert!(out.len() <= 10, "{out}");
    }

    /// Texts of every shape the cap meets: whole lines, a cut line, no
    /// newline at all, two- and three-byte characters everywhere.
    fn shapes() -> Vec<String> {
        let lines = |f: &dyn Fn(usize) -> String| (0..30).map(f).collect::<String>();
        vec![
            lines(&|i| format!("{}\n", "é".repeat(i % 7))),
            lines(&|i| format!("{}{}\n", "x".repeat(i % 13), "日".repeat(i % 3)))
                + "tail without newline",
            "日本語".repeat(40),
            lines(&|i| {
                if i == 12 {
                    format!("{}\n", "y".repeat(90))
                } else {
                    "ab\n".to_owned()
                }
            }),
        ]
    }

    /// `out` as `text[..head] + marker + text[tail..]`: the head and tail
    /// and the marker's numbers, if `out` reads so with a truthful marker
    /// that starts a line of its own where the head ends mid-line.
    fn reading(text: &str, out: &str, gap: (usize, usize)) -> Option<(usize, usize)> {
        let start = out.find("[… ")?;
        let end = start + out[start..].find("…]\n")? + "…]\n".len();
        let (bytes, lines) = marked(&out[start..]);
        let kept_tail = &out[end..];
        let tail = text.len().checked_sub(kept_tail.len())?;
        let ends_line = |head: usize| head == 0 || text.as_bytes()[head - 1] == b'\n';
        let candidates = [(start, false), (start.wrapping_sub(1), true)];
        candidates.into_iter().find_map(|(head, mid_line)| {
            let left_out = text.get(head..tail)?;
            let fits = text.get(..head) == out.get(..head)
                && text.ends_with(kept_tail)
                && mid_line != ends_line(head)
                && (!mid_line || out.as_bytes()[head] == b'\n');
            let counted =
                left_out.len() + gap.0 == bytes && left_out.matches('\n').count() + gap.1 == lines;
            (fits && counted).then_some((head, tail))
        })
    }

    /// Every shape, every gap at a line start, every cap: the outcome fits
    /// the cap, is the text's head and tail around one truthful marker that
    /// holds the gap, and keeps at least half of what the cap allows.
    #[test]
    fn the_cap_keeps_a_head_and_a_tail_around_one_truthful_marker() {
        for text in shapes() {
            let len = text.len();
            let starts = (0..=len).filter(|&i| i == 0 || text.as_bytes()[i - 1] == b'\n');
            let gaps = starts.flat_map(|at| [(at, 1, 1), (at, 5000, 3)].map(Some));
            for gap in gaps.chain([None]) {
                let gap = gap.map(|(at, bytes, lines)| Gap { at, bytes, lines });
                let (gap_bytes, gap_lines) = gap.map_or((0, 0), |g| (g.bytes, g.lines));
                for cap in 1..=len + 80 {
                    let out = cap_text(text.clone(), gap, cap);
                    let case = format!("cap {cap}, gap {gap:?}, text {text:?}: {out:?}");
                    assert!(out.len() <= cap, "{case}");
                    let marker_len = marker(len + gap_bytes, len + gap_bytes, true).len();
                    let budget = cap.saturating_sub(marker_len);
                    if let Some(g) =
                        gap.filter(|_| len + marker(gap_bytes, gap_lines, false).len() <= cap)
                    {
                        let whole = format!(
                            "{}{}{}",
                            &text[..g.at],
                            marker(g.bytes, g.lines, false),
                            &text[g.at..]
                        );
                        assert_eq!(out, whole, "{case}");
                    } else if gap.is_none() && len <= cap {
                        assert_eq!(out, text, "{case}");
                    } else if budget == 0 {
                        assert!(
                            text.starts_with(&out) && out.len() + 3 > cap.min(len),
                            "{case}"
                        );
                    } else {
                        let (head, tail) =
                            reading(&text, &out, (gap_bytes, gap_lines)).expect(&case);
                        if let Some(g) = gap {
                            assert!(head <= g.at && g.at <= tail, "{case}");
                        }
                        let kept = head + len - tail;
                        assert!(
                            2 * (kept + 6) >= budget.min(len),
                            "kept {kept} of {budget}: {case}"
                        );
                    }
                }
            }
        }
    }

    /// The cap that leaves `budget` bytes of `text` around the marker.
    fn cap_for(text: &str, budget: usize) -> usize {
        budget + marker(text.len(), text.len(), true).len()
    }

    /// The head ends at a line's end when that end is in its outer half
    /// (here the head is `budget / 2` bytes, the line ends after 21).
    #[test]
    fn the_head_ends_at_a_line_end_in_its_outer_half() {
        let text = format!("{}\n{}", "x".repeat(20), "y".repeat(500));
        let out = cap_text(text.clone(), None, cap_for(&text, 84));
        assert!(
            out.starts_with(&format!("{}\n[… ", "x".repeat(20))),
            "{out}"
        );
        let out = cap_text(text.clone(), None, cap_for(&text, 88));
        let cut_mid_line = format!("{}\n{}\n[… ", "x".repeat(20), "y".repeat(23));
        assert!(out.starts_with(&cut_mid_line), "{out}");
    }

    /// The tail starts at a line's start when that start is in its outer
    /// half; a tail that starts a line already is left as it is.
    #[test]
    fn the_tail_starts_at_a_line_start_in_its_outer_half() {
        let text = format!("{}\n{}", "y".repeat(500), "z".repeat(10));
        // 20 bytes of tail: the line starts 10 in, 9 bytes past the cut.
        let out = cap_text(text.clone(), None, cap_for(&text, 40));
        assert!(out.ends_with(&format!("…]\n{}", "z".repeat(10))), "{out}");
        assert_eq!(marked(&out), (481, 1), "{out}");
        // 21 bytes: 10 past the cut, not in the outer half.
        let out = cap_text(text.clone(), None, cap_for(&text, 42));
        let whole = format!("…]\n{}\n{}", "y".repeat(10), "z".repeat(10));
        assert!(out.ends_with(&whole), "{out}");
        let at_a_start = format!("{}\n{}\n{}", "y".repeat(500), "z".repeat(5), "z".repeat(14));
        let out = cap_text(at_a_start.clone(), None, cap_for(&at_a_start, 40));
        let whole = format!("…]\n{}\n{}", "z".repeat(5), "z".repeat(14));
        assert!(out.ends_with(&whole), "{out}");
    }

    /// A cut line's note is whole whatever its numbers' widths (the note
    /// for 160 bytes is as wide as the one for the 108 left out).
    #[test]
    fn a_cut_line_keeps_its_note_whole() {
        for len in [160, 1000, 100_000] {
            let mut line = "x".repeat(len);
            cut_line(&mut line, len, 100);
            let xs = line.matches('x').count();
            assert!(line.len() < 100, "{line}");
            assert!(line.ends_with(&note_for_line(len - xs)), "{line}");
        }
    }

    /// A line known only by its start (a Python program's endless
    /// unfinished line) is cut as the whole line would be: the same text,
    /// the same count of bytes left out.
    #[test]
    fn a_line_known_by_its_start_is_cut_as_the_whole() {
        let whole = "é".repeat(5_000);
        let mut by_whole = Capture::new(100);
        by_whole.push(whole.clone());
        let mut by_start = Capture::new(100);
        by_start.push_started(whole[..100].to_owned(), whole.len());
        let (mut a, mut b) = (String::new(), String::new());
        by_whole.render(&mut a);
        by_start.render(&mut b);
        assert_eq!(a, b);
        assert!(
            a.ends_with(&format!(
                "{}\n",
                note_for_line(10_000 - a.matches('é').count() * 2)
            )),
            "{a}"
        );
    }

    /// A cut inside a character leaves the whole character out: keeping it
    /// would pass the cap where the marker's numbers are nearly as wide as
    /// they can be (here 600 bytes and 50 lines of 702, one digit short).
    #[test]
    fn a_cut_inside_a_character_leaves_it_out() {
        let text = format!(
            "{}{}bb{}",
            "日".repeat(100),
            "a\n".repeat(50),
            "日".repeat(100)
        );
        let cap = cap_for(&text, 103);
        let out = cap_text(text, None, cap);
        assert_eq!(marked(&out), (600, 50), "{out}");
        assert_eq!(out.len(), cap - 2, "{out}");
        assert!(out.ends_with(&format!("…]\n{}", "日".repeat(17))), "{out}");
    }
}
