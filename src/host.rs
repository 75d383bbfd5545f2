//! Built-in host tools: ready-made [`Tool`](crate::Tool)s a host can register.
//!
//! - [`workspace_tools`](crate::workspace_tools): `read_file`, `write_file`,
//!   `list_dir` and `search_files`, confined to one directory.

pub(crate) mod workspace;
