//! How the library's warnings read on stderr: as every other line ptc
//! writes for people, `ptc: warning: …` (`ptc: error: …`), one a line.

use std::fmt;

use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// The format of one warning line.
pub(crate) struct Line;

impl<S, N> FormatEvent<S, N> for Line
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let level = match *event.metadata().level() {
            Level::ERROR => "error",
            _ => "warning",
        };
        let mut text = String::new();
        ctx.field_format()
            .format_fields(Writer::new(&mut text), event)?;
        writeln!(writer, "ptc: {level}: {}", one_line(&text))
    }
}

/// Prints `warning` as its one line on stderr.
pub(crate) fn warn(warning: impl fmt::Display) {
    eprintln!("ptc: warning: {}", one_line(&warning.to_string()));
}

/// `text` as one line, whatever a tool server wrote into it (its stderr is
/// quoted in some warnings): line breaks, escape sequences and the
/// bidirectional controls escaped, so no line of ptc's can be forged.
fn one_line(text: &str) -> String {
    ptc::__private::escape_line(text)
}
