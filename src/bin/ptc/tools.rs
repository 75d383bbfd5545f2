//! The tools the command line's flags name: the built-in workspace tools,
//! a manifest's tools and MCP servers' tools.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use ptc::{
    ManifestError, McpConfig, McpConfigError, McpOptions, McpProblem, McpServers, McpTransport,
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
/// no tool flag is given; `ptc mcp` never does. With a workspace, the
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
/// With `skip_self`, an entry that would start this same `ptc mcp` again
/// (its command is this executable, its first argument `mcp`) is left out.
/// With `client_elicits`, the servers start once it tells whether the
/// front end's client can elicit ([`McpServers::start_for_client`]).
/// Returns the servers and the warnings about entries left out.
///
/// # Errors
/// The config cannot be read or is not valid.
pub(crate) fn mcp_servers(
    path: &Path,
    registry: &Registry,
    skip_self: bool,
    client_elicits: Option<ptc::BoxFuture<bool>>,
) -> Result<(McpServers, Vec<String>), McpConfigError> {
    let mut config = McpConfig::from_file(path)?;
    let mut warnings = Vec::new();
    if skip_self && let Ok(this) = std::env::current_exe().and_then(std::fs::canonicalize) {
        config.servers.retain(|name, server| {
            let nested = starts_this_mcp(&server.transport, &this);
            if nested {
                warnings.push(format!(
                    "mcp config: server `{name}`: skipped: it would start this same `ptc mcp` ({}) again",
                    this.display()
                ));
            }
            !nested
        });
    }
    let servers = match client_elicits {
        Some(elicits) => {
            McpServers::start_for_client(&config, registry, McpOptions::default(), elicits)
        }
        None => McpServers::start(&config, registry, McpOptions::default()),
    };
    Ok((servers, warnings))
}

/// Prints the problems of the MCP servers' first starts as warnings.
pub(crate) fn warn_about(problems: Vec<McpProblem>) {
    for problem in problems {
        crate::warnings::warn(problem);
    }
}

/// Whether a server entry runs `this` executable (canonical) as `ptc mcp`.
fn starts_this_mcp(transport: &McpTransport, this: &Path) -> bool {
    let McpTransport::Stdio {
        command,
        args,
        env,
        cwd,
    } = transport
    else {
        return false;
    };
    args.first().is_some_and(|first| first == "mcp")
        && program(command, env.get("PATH"), cwd.as_deref()).is_some_and(|program| program == this)
}

/// The executable `command` names, canonical, found as spawning it would:
/// a name with a slash is a path (relative to ptc's directory or, failing
/// that, the entry's `cwd`); a bare name is the first executable file of
/// that name in `PATH` (the entry's own `PATH`, if it sets one).
fn program(command: &str, path: Option<&String>, cwd: Option<&Path>) -> Option<PathBuf> {
    if command.contains('/') {
        let command = Path::new(command);
        let relative = cwd
            .filter(|_| command.is_relative())
            .map(|cwd| cwd.join(command));
        return std::iter::once(command.to_owned())
            .chain(relative)
            .find_map(|candidate| std::fs::canonicalize(candidate).ok());
    }
    let path = path
        .map(OsString::from)
        .or_else(|| std::env::var_os("PATH"))?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(command))
        .find(|candidate| is_executable(candidate))
        .and_then(|found| std::fs::canonicalize(found).ok())
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
