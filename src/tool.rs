//! Tools: definitions and their JSON, handlers, the registry and the call
//! pipeline.

pub(crate) mod approval;
pub(crate) mod approval_text;
pub(crate) mod approvals;
pub(crate) mod availability;
pub(crate) mod context;
pub(crate) mod definition;
pub(crate) mod handler;
pub(crate) mod pipeline;
pub(crate) mod registered;
pub(crate) mod registry;
pub(crate) mod search;
pub(crate) mod title;
pub(crate) mod wire;
