//! Integration tests, compiled as one binary: a module per area.

mod cli;
mod common;
mod contract_rules;
mod deadline_and_time;
mod engine;
mod fuzz_corpus;
mod host_tools;
mod hostile;
mod inspect;
mod pipeline;
mod presentation;
mod registry;
mod sdk;
mod serve;
mod soak;
mod tools1000;
