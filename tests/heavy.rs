//! The CPU-heavy integration tests: the adversarial corpus, the soak test and
//! the fuzz corpora. A binary of their own, so they never run beside the
//! tests in `tests.rs` that wait for events (cargo runs test binaries one
//! after another).

#[allow(dead_code, unused_imports)]
mod common;
mod fuzz_corpus;
mod hostile;
mod soak;
