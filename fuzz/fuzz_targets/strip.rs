#![no_main]
//! See `ptc::fuzz::strip` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| ptc::fuzz::strip(data));
