//! Running a program: strip, sandbox, bridge.

pub(crate) mod strip;
