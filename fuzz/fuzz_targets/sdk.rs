#![no_main]
//! See `ptc::fuzz::sdk` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| ptc::fuzz::sdk(data));
