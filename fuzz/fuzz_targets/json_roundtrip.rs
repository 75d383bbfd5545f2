#![no_main]
//! See `ptc::fuzz::json_roundtrip` for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| ptc::fuzz::json_roundtrip(data));
