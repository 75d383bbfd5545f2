//! The tools the command line's flags name: the built-in workspace tools,
//! a manifest's tools and MCP servers' tools.

use std::io;
use std::path::{Path, PathBuf};

use ptc::{
    ManifestError, McpConfig, McpConfigError, McpOptions, McpProblem, McpServers,
    RegistrationError, Registry, load_manifest, workspace_tools,
};

/// Why the tools named on the command line could not be set up.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ToolSetupError {
    /// The workspace directory cannot be used.
    #[error("workspace {}: {source}", path.display())]
    Workspace {
        /// The directory given.
        path: PathBuf,
        /// Why it cannot be used.
        source: io::Error,
    },
    /// The manifest cannot be read or parsed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// A tool cannot be registered (a bad schema in a manifest).
    #[error("{}: {source}", path.display())]
    Registration {
        /// The manifest's path (or the workspace's).
        path: PathBuf,
        /// What is wrong with the tool.
        source: RegistrationError,
    },
}

/// A registry with the built-in workspace tools confined to `workspace` (when
/// given), then the tools of the manifest at `manifest` (when given; a
/// manifest tool with the name of a workspace tool replaces it in place).
/// Returns the registry and the registration warnings (schema parts that
/// cannot be checked here).
///
/// `ptc run` and `ptc sdk` pass the current directory as `workspace` when
/// neither `--workspace` nor `--tools` is given. With a workspace, the
/// registry's working directory is its canonical path, so `run_code`'s
/// description names it.
///
/// # Errors
/// The workspace is not a directory, the manifest cannot be loaded, or one
/// of its tools cannot be registered.
pub(crate) fn tools_registry(
    workspace: Option<&Path>,
    manifest: Option<&Path>,
) -> Result<(Registry, Vec<String>), ToolSetupError> {
    let registry = Registry::new();
    let mut warnings = Vec::new();
    if let Some(root) = workspace {
        let tools = workspace_tools(root).map_err(|source| ToolSetupError::Workspace {
            path: root.to_owned(),
            source,
        })?;
        let added = registry
            .add_all(tools)
            .map_err(|source| ToolSetupError::Registration {
                path: root.to_owned(),
                source,
            })?;
        warnings.extend(added);
        // As the tools see it: canonical, like their root.
        let canonical =
            std::fs::canonicalize(root).map_err(|source| ToolSetupError::Workspace {
                path: root.to_owned(),
                source,
            })?;
        registry.set_working_directory(Some(canonical.display().to_string()));
    }
    if let Some(path) = manifest {
        let tools = load_manifest(path)?;
        let added = registry
            .add_all(tools)
            .map_err(|source| ToolSetupError::Registration {
                path: path.to_owned(),
                source,
            })?;
        warnings.extend(added);
    }
    Ok((registry, warnings))
}

/// Starts the MCP servers of the config file at `path` in the background;
/// their tools join `registry` as each is ready ([`McpServers::ready`]
/// waits for them). A server that cannot start is a problem, not an error.
///
/// # Errors
/// The config cannot be read or is not valid.
pub(crate) fn mcp_servers(path: &Path, registry: &Registry) -> Result<McpServers, McpConfigError> {
    let config = McpConfig::from_file(path)?;
    Ok(McpServers::start(&config, registry, McpOptions::default()))
}

/// Prints the problems of the MCP servers' first starts as warnings.
pub(crate) fn warn_about(problems: Vec<McpProblem>) {
    for problem in problems {
        eprintln!("ptc: warning: {problem}");
    }
}
