//! The MCP servers' configuration, in the format desktop MCP clients use:
//! `{ "mcpServers": { "<name>": { "command", "args", "env", "cwd" } | { "url", "headers" } } }`,
//! plus ptc's own optional per-server keys. Reading collects every problem,
//! one line each, naming the server and the key.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::deadline::MAX_DEADLINE_MS;
use crate::json::json_type;

/// How long a server may take to start (spawn or connect, `initialize`, the
/// first `tools/list`) when its config says nothing.
pub const DEFAULT_STARTUP_TIMEOUT_MS: u64 = 30_000;

/// The keys a server entry may have.
const SERVER_KEYS: [&str; 10] = [
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "startupTimeoutMs",
    "callTimeoutMs",
    "askDestructive",
    "policy",
];

/// The MCP servers a registry's tools come from, in the file's order.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct McpConfig {
    /// Each server by its name (`[A-Za-z0-9_-]{1,32}`), the prefix of its tools.
    pub servers: IndexMap<String, McpServerConfig>,
}

/// One server's entry.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpServerConfig {
    /// How ptc reaches the server.
    pub transport: McpTransport,
    /// `startupTimeoutMs`: how long starting may take. By default,
    /// [`DEFAULT_STARTUP_TIMEOUT_MS`].
    pub startup_timeout_ms: u64,
    /// `callTimeoutMs`: every tool's `timeoutMs`. By default, none (the
    /// run's deadline still holds).
    pub call_timeout_ms: Option<u64>,
    /// `askDestructive`: tools whose `destructiveHint` is `true` get policy
    /// `ask`. By default, `false`.
    pub ask_destructive: bool,
    /// `policy`: each of the server's tools (by its name on the server, or
    /// a pattern where `*` stands for any characters) and what ptc does
    /// with its calls, in the order written; see [`policy_of`](Self::policy_of).
    /// By default, none.
    pub policies: Vec<(String, ToolPolicy)>,
}

/// What an MCP config's `policy` says of a server's tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolPolicy {
    /// `"allow"`: calls run, whatever the tool's hints say.
    Allow,
    /// `"ask"`: the user approves each call.
    Ask,
    /// `"deny"`: the tool is left out: the model never sees it.
    Deny,
}

impl McpServerConfig {
    /// A server reached through `transport`, with the default timeouts and
    /// `askDestructive` off; for hosts that build a config in code
    /// (`McpConfig::default()`, then insert into
    /// [`servers`](McpConfig::servers)).
    pub fn new(transport: McpTransport) -> Self {
        Self {
            transport,
            startup_timeout_ms: DEFAULT_STARTUP_TIMEOUT_MS,
            call_timeout_ms: None,
            ask_destructive: false,
            policies: Vec::new(),
        }
    }

    /// What `policy` says of the tool named `tool` on the server: the entry
    /// of that exact name, else the first pattern that matches it, else
    /// nothing (then `askDestructive` decides).
    pub fn policy_of(&self, tool: &str) -> Option<ToolPolicy> {
        let exact = self.policies.iter().find(|(name, _)| name == tool);
        exact
            .or_else(|| self.policies.iter().find(|(entry, _)| covers(entry, tool)))
            .map(|(_, policy)| *policy)
    }
}

/// Whether the `policy` entry `entry` (a name, or a pattern with `*`)
/// covers the tool named `tool`.
pub(crate) fn covers(entry: &str, tool: &str) -> bool {
    entry == tool || (entry.contains('*') && matches(entry, tool))
}

/// Whether `name` matches `pattern`, where `*` stands for any characters.
fn matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let mut parts: Vec<&str> = parts.collect();
    let Some(last) = parts.pop() else {
        return rest.is_empty();
    };
    for part in parts {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// How ptc reaches one server.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum McpTransport {
    /// A child process speaking MCP on its stdin/stdout.
    Stdio {
        /// The program: a path, or a name looked up in `PATH`.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to ptc's environment.
        env: BTreeMap<String, String>,
        /// Its working directory; by default, ptc's.
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint's URL.
        url: String,
        /// Headers sent with every request (such as `Authorization`).
        headers: BTreeMap<String, String>,
    },
}

/// Why a config cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpConfigError {
    /// The file cannot be read.
    #[error("cannot read MCP config {}: {source}", path.display())]
    Read {
        /// The file's path.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The text is not a valid config: one line per problem.
    #[error("{}", problems.join("\n"))]
    Invalid {
        /// What is wrong, one problem a line, each naming the server and key.
        problems: Vec<String>,
    },
}

impl McpConfig {
    /// Reads and parses the config file at `path`.
    ///
    /// # Errors
    /// The file cannot be read, or [`parse`](Self::parse) refuses it.
    pub fn from_file(path: &Path) -> Result<Self, McpConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| McpConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text)
    }

    /// Parses a config's text.
    ///
    /// ```
    /// let config = ptc::McpConfig::parse(r#"{ "mcpServers": {
    ///     "memory": { "command": "mcp-server-memory" },
    ///     "docs": { "url": "http://127.0.0.1:8080/mcp", "unknown": 1 }
    /// } }"#);
    /// assert_eq!(
    ///     config.unwrap_err().to_string(),
    ///     "mcp config: server `docs`: unknown key `unknown`"
    /// );
    /// ```
    ///
    /// # Errors
    /// [`McpConfigError::Invalid`] with every problem found.
    pub fn parse(text: &str) -> Result<Self, McpConfigError> {
        let mut problems = Vec::new();
        let config = match serde_json::from_str::<Value>(text) {
            Ok(value) => read_config(value, &mut problems),
            Err(e) => {
                problems.push(format!("mcp config: not JSON: {e}"));
                McpConfig::default()
            }
        };
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(McpConfigError::Invalid { problems })
        }
    }
}

/// Whether `name` can name a server: 1–32 characters of `A-Z a-z 0-9 _ -`.
pub fn is_valid_server_name(name: &str) -> bool {
    (1..=32).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
}

fn read_config(value: Value, problems: &mut Vec<String>) -> McpConfig {
    let mut config = McpConfig::default();
    let Value::Object(root) = value else {
        problems.push(format!(
            "mcp config: expected an object with `mcpServers`, got {}",
            json_type(&value)
        ));
        return config;
    };
    for key in root.keys().filter(|k| *k != "mcpServers") {
        problems.push(format!("mcp config: unknown key `{key}`"));
    }
    let servers = match root.get("mcpServers") {
        Some(Value::Object(servers)) => servers,
        Some(other) => {
            problems.push(format!(
                "mcp config: `mcpServers` must be an object, got {}",
                json_type(other)
            ));
            return config;
        }
        None => {
            problems.push("mcp config: no `mcpServers`".to_owned());
            return config;
        }
    };
    for (name, entry) in servers {
        let mut say = |problem: String| {
            problems.push(format!("mcp config: server `{name}`: {problem}"));
        };
        if !is_valid_server_name(name) {
            say("the name must be 1-32 characters of A-Z a-z 0-9 _ -".to_owned());
        }
        if let Some(server) = read_server(entry, &mut say) {
            config.servers.insert(name.clone(), server);
        }
    }
    config
}

fn read_server(entry: &Value, say: &mut impl FnMut(String)) -> Option<McpServerConfig> {
    let Value::Object(entry) = entry else {
        say(format!("expected an object, got {}", json_type(entry)));
        return None;
    };
    for key in entry.keys().filter(|k| !SERVER_KEYS.contains(&k.as_str())) {
        say(format!("unknown key `{key}`"));
    }
    let mut fields = Fields { entry, say };
    let transport = fields.transport();
    let startup_timeout_ms = fields.millis("startupTimeoutMs");
    let call_timeout_ms = fields.millis("callTimeoutMs");
    let ask_destructive = fields.boolean("askDestructive");
    let policies = fields.policies("policy");
    let mut server = McpServerConfig::new(transport?);
    server.startup_timeout_ms = startup_timeout_ms.unwrap_or(DEFAULT_STARTUP_TIMEOUT_MS);
    server.call_timeout_ms = call_timeout_ms;
    server.ask_destructive = ask_destructive.unwrap_or(false);
    server.policies = policies.unwrap_or_default();
    Some(server)
}

/// One server entry's members, read with every mistake reported.
struct Fields<'a, F> {
    entry: &'a Map<String, Value>,
    say: &'a mut F,
}

impl<F: FnMut(String)> Fields<'_, F> {
    fn transport(&mut self) -> Option<McpTransport> {
        let has = |key| self.entry.contains_key(key);
        match (has("command"), has("url")) {
            (true, true) => {
                (self.say)("give either `command` or `url`, not both".to_owned());
                None
            }
            (false, false) => {
                (self.say)("give `command` (a stdio server) or `url` (an HTTP one)".to_owned());
                None
            }
            (true, false) => {
                self.refuse_all(&["url", "headers"], "`url` servers");
                let command = self.string("command");
                let args = self.strings("args");
                let env = self.string_map("env");
                let cwd = self.string("cwd").map(PathBuf::from);
                Some(McpTransport::Stdio {
                    command: command?,
                    args: args.unwrap_or_default(),
                    env: env.unwrap_or_default(),
                    cwd,
                })
            }
            (false, true) => {
                self.refuse_all(&["args", "env", "cwd"], "`command` servers");
                let url = self.string("url");
                let headers = self.string_map("headers");
                Some(McpTransport::Http {
                    url: url?,
                    headers: headers.unwrap_or_default(),
                })
            }
        }
    }

    fn refuse_all(&mut self, keys: &[&str], only_for: &str) {
        for key in keys.iter().filter(|k| self.entry.contains_key(**k)) {
            (self.say)(format!("key `{key}` is only for {only_for}"));
        }
    }

    fn mistyped(&mut self, key: &str, wanted: &str, got: &Value) {
        (self.say)(format!(
            "key `{key}` must be {wanted}, got {}",
            json_type(got)
        ));
    }

    fn string(&mut self, key: &str) -> Option<String> {
        match self.entry.get(key)? {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            got => {
                self.mistyped(key, "a non-empty string", got);
                None
            }
        }
    }

    fn strings(&mut self, key: &str) -> Option<Vec<String>> {
        let got = self.entry.get(key)?;
        let items = got.as_array().and_then(|items| {
            items
                .iter()
                .map(|i| i.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
        });
        if items.is_none() {
            self.mistyped(key, "an array of strings", got);
        }
        items
    }

    fn string_map(&mut self, key: &str) -> Option<BTreeMap<String, String>> {
        let got = self.entry.get(key)?;
        let map = got.as_object().and_then(|map| {
            map.iter()
                .map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                .collect::<Option<BTreeMap<_, _>>>()
        });
        if map.is_none() {
            self.mistyped(key, "an object of strings", got);
        }
        map
    }

    fn millis(&mut self, key: &str) -> Option<u64> {
        let got = self.entry.get(key)?;
        match got.as_u64() {
            Some(ms) if (1..=MAX_DEADLINE_MS).contains(&ms) => Some(ms),
            _ => {
                (self.say)(format!(
                    "key `{key}` must be an integer from 1 to {MAX_DEADLINE_MS}, got {got}"
                ));
                None
            }
        }
    }

    /// `{ "<tool or pattern>": "allow" | "ask" | "deny", … }`, in order.
    fn policies(&mut self, key: &str) -> Option<Vec<(String, ToolPolicy)>> {
        let got = self.entry.get(key)?;
        let Value::Object(entries) = got else {
            self.mistyped(key, "an object of tool names and policies", got);
            return None;
        };
        let mut policies = Vec::with_capacity(entries.len());
        for (tool, policy) in entries {
            let policy = match policy.as_str() {
                Some("allow") => ToolPolicy::Allow,
                Some("ask") => ToolPolicy::Ask,
                Some("deny") => ToolPolicy::Deny,
                _ => {
                    (self.say)(format!(
                        "key `{key}`: `{}` must be \"allow\", \"ask\" or \"deny\", got {policy}",
                        tool.escape_debug()
                    ));
                    continue;
                }
            };
            if tool.is_empty() {
                (self.say)(format!("key `{key}`: a tool name may not be empty"));
                continue;
            }
            policies.push((tool.clone(), policy));
        }
        Some(policies)
    }

    fn boolean(&mut self, key: &str) -> Option<bool> {
        let got = self.entry.get(key)?;
        if got.as_bool().is_none() {
            self.mistyped(key, "a boolean", got);
        }
        got.as_bool()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str) -> Vec<String> {
        match McpConfig::parse(text) {
            Err(McpConfigError::Invalid { problems }) => problems,
            other => panic!("expected problems, got {other:?}"),
        }
    }

    #[test]
    fn both_transports_read_with_their_options() {
        let config = McpConfig::parse(
            r#"{ "mcpServers": {
                "fs": { "command": "srv", "args": ["-x"], "env": { "A": "1" }, "cwd": "/tmp",
                        "callTimeoutMs": 500, "askDestructive": true },
                "web": { "url": "http://127.0.0.1:1/mcp", "headers": { "Authorization": "t" },
                         "startupTimeoutMs": 10 }
            } }"#,
        )
        .unwrap();
        let names: Vec<&str> = config.servers.keys().map(String::as_str).collect();
        assert_eq!(names, ["fs", "web"], "the file's order");
        let fs = &config.servers["fs"];
        assert!(fs.ask_destructive);
        assert_eq!(fs.call_timeout_ms, Some(500));
        assert_eq!(fs.startup_timeout_ms, DEFAULT_STARTUP_TIMEOUT_MS);
        assert!(
            matches!(&fs.transport, McpTransport::Stdio { command, args, env, cwd }
            if command == "srv" && args == &["-x"] && env["A"] == "1" && cwd.as_deref() == Some(Path::new("/tmp")))
        );
        let web = &config.servers["web"];
        assert_eq!(web.startup_timeout_ms, 10);
        assert!(
            matches!(&web.transport, McpTransport::Http { url, headers } if url.ends_with("/mcp") && headers["Authorization"] == "t")
        );
    }

    #[test]
    fn every_problem_is_one_line_naming_server_and_key() {
        let got = problems(
            r#"{ "mcpServers": {
                "both": { "command": "a", "url": "b" },
                "neither": { "args": [] },
                "bad name!": { "command": "a" },
                "typed": { "command": 5, "args": "x", "env": { "A": 1 }, "extra": true,
                           "headers": {}, "callTimeoutMs": 0, "askDestructive": "yes" }
            }, "other": 1 }"#,
        );
        assert_eq!(
            got,
            [
                "mcp config: unknown key `other`",
                "mcp config: server `both`: give either `command` or `url`, not both",
                "mcp config: server `neither`: give `command` (a stdio server) or `url` (an HTTP one)",
                "mcp config: server `bad name!`: the name must be 1-32 characters of A-Z a-z 0-9 _ -",
                "mcp config: server `typed`: unknown key `extra`",
                "mcp config: server `typed`: key `headers` is only for `url` servers",
                "mcp config: server `typed`: key `command` must be a non-empty string, got a number",
                "mcp config: server `typed`: key `args` must be an array of strings, got a string",
                "mcp config: server `typed`: key `env` must be an object of strings, got an object",
                "mcp config: server `typed`: key `callTimeoutMs` must be an integer from 1 to 2147483647, got 0",
                "mcp config: server `typed`: key `askDestructive` must be a boolean, got a string",
            ]
        );
    }

    #[test]
    fn documents_that_are_not_configs_say_so() {
        assert!(problems("{")[0].starts_with("mcp config: not JSON: "));
        assert_eq!(
            problems("[]"),
            ["mcp config: expected an object with `mcpServers`, got an array"]
        );
        assert_eq!(problems("{}"), ["mcp config: no `mcpServers`"]);
        assert_eq!(
            problems(r#"{ "mcpServers": { "a": 1 } }"#),
            ["mcp config: server `a`: expected an object, got a number"]
        );
        assert!(McpConfig::parse(r#"{ "mcpServers": {} }"#).is_ok());
    }

    #[test]
    fn policies_name_tools_exactly_or_by_pattern_in_order() {
        let config = McpConfig::parse(
            r#"{ "mcpServers": { "m": { "command": "srv", "policy": {
                "create_*": "ask", "read_graph": "allow", "*_entities": "deny",
                "delete_entities": "ask", "*": "allow"
            } } } }"#,
        )
        .unwrap();
        let m = &config.servers["m"];
        let of = |tool| m.policy_of(tool);
        assert_eq!(
            of("create_entities"),
            Some(ToolPolicy::Ask),
            "first pattern"
        );
        assert_eq!(of("delete_entities"), Some(ToolPolicy::Ask), "exact first");
        assert_eq!(of("open_entities"), Some(ToolPolicy::Deny));
        assert_eq!(of("read_graph"), Some(ToolPolicy::Allow));
        assert_eq!(of("search"), Some(ToolPolicy::Allow), "`*` matches all");
        assert_eq!(
            McpServerConfig::new(m.transport.clone()).policy_of("x"),
            None
        );

        for (pattern, name, expected) in [
            ("a*b", "ab", true),
            ("a*b", "axxb", true),
            ("a*b", "axxbc", false),
            ("a*b*c", "abc", true),
            ("a*b*c", "acb", false),
            ("*x", "x", true),
            ("x*", "xy", true),
            ("x*", "yx", false),
            ("ab*ba", "aba", false),
            ("plain", "plain", true),
            ("plain", "plainer", false),
        ] {
            assert_eq!(matches(pattern, name), expected, "{pattern} ~ {name}");
        }
        assert_eq!(
            problems(
                r#"{ "mcpServers": { "m": { "command": "srv", "policy": { "x": "never", "": "ask" } },
                     "n": { "command": "srv", "policy": ["x"] } } }"#
            ),
            [
                "mcp config: server `m`: key `policy`: `x` must be \"allow\", \"ask\" or \"deny\", got \"never\"",
                "mcp config: server `m`: key `policy`: a tool name may not be empty",
                "mcp config: server `n`: key `policy` must be an object of tool names and policies, got an array",
            ]
        );
    }

    #[test]
    fn server_names_are_short_identifiers() {
        assert!(is_valid_server_name("github_2-x"));
        assert!(is_valid_server_name(&"s".repeat(32)));
        assert!(!is_valid_server_name(&"s".repeat(33)));
        assert!(!is_valid_server_name(""));
        assert!(!is_valid_server_name("a.b"));
    }
}
