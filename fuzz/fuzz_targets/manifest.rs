#![no_main]
//! See `ptc::fuzz::manifest` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| ptc::fuzz::manifest(data));
