//! Newline-delimited messages read without holding more than a bound: a
//! line longer than the bound is passed over as it streams by, counted,
//! never kept, so a peer that never sends a newline costs nothing but the
//! reading. Every door that reads lines reads them here (`Lines` for MCP,
//! `ptc serve` for the host protocol).

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// What a line turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Read {
    /// A whole line is in [`LineReader::line`].
    Line,
    /// A line of this many bytes was passed over.
    TooLong(usize),
    /// The input ended. A last line without its newline is not a message.
    End,
}

/// Reads lines of at most `max_bytes` from `input`.
pub(crate) struct LineReader<In> {
    input: In,
    /// The line read so far.
    line: Vec<u8>,
    /// Bytes of a line too long to keep, passed over so far.
    skipped: Option<usize>,
    /// Whether `line` is a whole line already returned.
    whole: bool,
    max_bytes: usize,
}

impl<In: AsyncBufRead + Unpin> LineReader<In> {
    pub(crate) fn new(input: In, max_bytes: usize) -> Self {
        Self {
            input,
            line: Vec::new(),
            skipped: None,
            whole: false,
            max_bytes,
        }
    }

    /// The longest line kept.
    pub(crate) fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// Reads up to the next newline, keeping at most `max_bytes`;
    /// cancel-safe (what was read stays for the next call). The line read
    /// before is let go of first.
    pub(crate) async fn read(&mut self) -> std::io::Result<Read> {
        if self.whole {
            self.whole = false;
            self.recycle();
        }
        loop {
            let chunk = self.input.fill_buf().await?;
            if chunk.is_empty() {
                return Ok(Read::End);
            }
            let newline = chunk.iter().position(|&b| b == b'\n');
            let take = newline.unwrap_or(chunk.len());
            match &mut self.skipped {
                Some(bytes) => *bytes += take,
                None if self.line.len() + take > self.max_bytes => {
                    self.skipped = Some(self.line.len() + take);
                    self.line = Vec::new();
                }
                None => self.line.extend_from_slice(&chunk[..take]),
            }
            self.input.consume(take + usize::from(newline.is_some()));
            if newline.is_some() {
                return Ok(match self.skipped.take() {
                    Some(bytes) => Read::TooLong(bytes),
                    None => {
                        self.whole = true;
                        Read::Line
                    }
                });
            }
        }
    }

    /// The line just read ([`Read::Line`]), without its newline.
    pub(crate) fn line(&self) -> &[u8] {
        &self.line
    }

    /// Takes the line just read, to be given back when done with.
    pub(crate) fn take_line(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.line)
    }

    /// Gives back a taken line's buffer, for its room.
    pub(crate) fn give_back(&mut self, line: Vec<u8>) {
        if self.line.is_empty() {
            self.line = line;
            self.recycle();
        }
    }

    /// Empties the line, keeping its buffer's room unless it grew large.
    fn recycle(&mut self) {
        if self.line.capacity() <= 1 << 20 {
            self.line.clear();
        } else {
            self.line = Vec::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], max: usize) -> Vec<Result<String, Read>> {
        let mut reader = LineReader::new(input, max);
        let mut read = Vec::new();
        loop {
            match reader.read().await.unwrap() {
                Read::Line => read.push(Ok(String::from_utf8_lossy(reader.line()).into_owned())),
                Read::End => return read,
                other => read.push(Err(other)),
            }
        }
    }

    #[tokio::test]
    async fn lines_past_the_bound_are_counted_not_kept() {
        assert_eq!(LineReader::new(&b""[..], 5).max_bytes(), 5);
        let input = b"short\n0123456789\nok\nunfinished";
        assert_eq!(
            all(input, 5).await,
            [Ok("short".into()), Err(Read::TooLong(10)), Ok("ok".into()),]
        );
    }

    #[tokio::test]
    async fn a_line_split_across_reads_is_one_line() {
        // A one-byte buffer: every line arrives a byte at a time.
        let reader = tokio::io::BufReader::with_capacity(1, &b"abc\n\nabcdef\nx\n"[..]);
        let mut reader = LineReader::new(reader, 4);
        let mut read = Vec::new();
        while let Ok(r) = reader.read().await {
            match r {
                Read::End => break,
                Read::Line => read.push(String::from_utf8_lossy(reader.line()).into_owned()),
                Read::TooLong(n) => read.push(format!("({n})")),
            }
        }
        assert_eq!(read, ["abc", "", "(6)", "x"]);
    }

    #[tokio::test]
    async fn a_taken_line_is_whole_and_its_room_comes_back_unless_large() {
        let mut reader = LineReader::new(&b"first\nsecond\n"[..], 64);
        assert_eq!(reader.read().await.unwrap(), Read::Line);
        let line = reader.take_line();
        assert_eq!(line, b"first");
        assert!(reader.line().is_empty());
        let room = line.capacity();
        reader.give_back(line);
        assert_eq!(reader.line.capacity(), room, "its room kept");
        assert!(reader.line().is_empty());
        assert_eq!(reader.read().await.unwrap(), Read::Line);
        assert_eq!(reader.line(), b"second");
        // Given back while another line is held: the held line stays.
        reader.give_back(Vec::with_capacity(8));
        assert_eq!(reader.line(), b"second");
        // A buffer grown past 1 MiB is let go of, not kept for every line.
        drop(reader.take_line());
        reader.give_back(Vec::with_capacity(2 << 20));
        assert_eq!(reader.line.capacity(), 0);
    }

    /// A read dropped mid-line (a `select!` taking another branch) keeps
    /// what it read: the next read returns the whole line. Dropping that
    /// part made `ptc mcp` pass over the rest of a request as a line that
    /// is not JSON, and never answer it. (Paused time: the read takes
    /// `sec`, waits, and is dropped at the timeout, whatever the machine.)
    #[tokio::test(start_paused = true)]
    async fn a_read_dropped_mid_line_loses_nothing() {
        use tokio::io::AsyncWriteExt;
        let (mut peer, ours) = tokio::io::duplex(64);
        let mut reader = LineReader::new(tokio::io::BufReader::new(ours), 64);
        peer.write_all(b"first\nsec").await.unwrap();
        assert_eq!(reader.read().await.unwrap(), Read::Line);
        assert_eq!(reader.line(), b"first");
        let dropped = tokio::time::timeout(std::time::Duration::from_millis(50), reader.read());
        assert!(dropped.await.is_err(), "no newline yet");
        peer.write_all(b"ond\n").await.unwrap();
        assert_eq!(reader.read().await.unwrap(), Read::Line);
        assert_eq!(reader.line(), b"second");
    }
}
