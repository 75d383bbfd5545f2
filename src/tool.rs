//! Tools: definitions, the registry and the call pipeline.

pub mod definition;
