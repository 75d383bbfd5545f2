#![no_main]
//! See `ptc::fuzz::manifest` for what this target checks.

libfuzzer_sys::fuzz_target!(
    init: ptc::fuzz::tolerate_caught_parser_panics(),
    |data: &[u8]| ptc::fuzz::manifest(data)
);
