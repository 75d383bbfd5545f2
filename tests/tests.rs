//! Integration tests, compiled as one binary: a module per area. The tests
//! that keep every core busy live in `heavy.rs`, a binary of their own: cargo
//! runs test binaries one after another, so they never run beside the tests
//! here that wait for events.

mod budgets;
mod cli;
mod common;
mod contract_rules;
mod deadline_and_time;
mod discovery;
mod engine;
mod escalation;
mod examples;
mod host_libraries;
mod host_tools;
mod inspect;
mod layout;
mod lean_context;
mod limits;
mod mcp_defaults;
mod mcp_doors;
mod mcp_http_bounds;
mod mcp_http_upstream;
mod mcp_protocol;
mod mcp_server;
mod mcp_sessions;
mod mcp_sources;
mod mcp_startup;
mod mcp_ts_client;
mod mcp_upstream;
mod noleaks;
mod pipeline;
mod presentation;
#[cfg(feature = "python")]
mod python_gate;
#[cfg(feature = "python")]
mod python_run;
mod registry;
mod rejections;
mod repair;
mod sdk;
mod sdk_python;
mod serve;
mod serve_approvals;
mod serve_protocol;
mod state;
mod titles;
mod tools1000;
