#![no_main]
//! See `ptc::fuzz::run_python` for what this target checks (feature `python`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| ptc::fuzz::run_python(data));
