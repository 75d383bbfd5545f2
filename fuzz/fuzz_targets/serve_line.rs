#![no_main]
//! See `ptc::fuzz::serve_line` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| ptc::fuzz::serve_line(data));
