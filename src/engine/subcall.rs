//! What both languages' sub-calls share: their ids and the images their
//! results carry to the outcome.

use std::sync::Arc;

use crate::tool::call::ContentBlock;

/// An image to append after the text.
pub(crate) struct Image {
    pub(crate) tool: String,
    pub(crate) id: Arc<str>,
    pub(crate) block: ContentBlock,
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
