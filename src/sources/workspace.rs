//! Workspace tools: read, write, list and search files inside one directory.
//!
//! Confinement works in two steps. First the path text alone is normalised
//! lexically against the root (`.` dropped, `..` applied); a `..` that would
//! climb above the root, or an absolute path that does not lie under it, is
//! `DENIED` before anything is looked up on disk. Then the normalised path is
//! resolved on disk (symlinks followed) and refused with `DENIED` when it
//! lands outside the root. All work then happens on the resolved path, never
//! on the text the model sent.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::{DirEntry, WalkBuilder};
use regex::Regex;
use schemars::transform::transform_subschemas;
use schemars::{JsonSchema, Schema};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::contract::call::{ErrorCode, ToolError};
use crate::tool::context::ToolContext;
use crate::tool::definition::ToolDefinition;
use crate::tool::handler::{Tool, TypedTool};

/// `read_file` returns at most this many bytes of text, then a note.
const READ_CAP: usize = 256 * 1024;
/// The first bytes of a file that `read_file` checks for NUL (binary).
const BINARY_SNIFF: usize = 8 * 1024;
/// `search_files` stops after this many matches.
const MAX_MATCHES: usize = 1000;
/// `search_files` cuts matched lines to this many characters.
const MAX_LINE_CHARS: usize = 500;
/// `search_files` skips files larger than this.
const MAX_SEARCH_FILE_BYTES: u64 = 1024 * 1024;

/// The four workspace tools, confined to `root`: `read_file`, `write_file`,
/// `list_dir` and `search_files`.
///
/// `root` is canonicalised once, here. Every path a tool receives is taken
/// relative to it (an absolute path is accepted only when it lies under the
/// root); a path that leaves the root — through `..`, as an absolute path or
/// through a symlink — is refused with `DENIED`, and nothing outside the root
/// is read or written. `write_file` is the only mutating tool; the others are
/// read-only, so keep only those with
/// `tools.retain(|t| t.definition().read_only)` for a read-only agent.
///
/// Pass the root to [`Registry::set_working_directory`] so that
/// `run_code`'s description names the directory the tools work in (`ptc`
/// gives the canonical path).
///
/// [`Registry::set_working_directory`]: crate::Registry::set_working_directory
///
/// Confinement guards against the paths a program sends, not against another
/// process swapping directories for symlinks inside the workspace while a call
/// runs.
///
/// ```
/// # fn main() -> std::io::Result<()> {
/// let dir = std::env::temp_dir();
/// let tools = ptc::workspace_tools(&dir)?;
/// let names: Vec<_> = tools.iter().map(|t| t.definition().name.as_str()).collect();
/// assert_eq!(names, ["read_file", "write_file", "list_dir", "search_files"]);
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// `root` does not exist, cannot be canonicalised, or is not a directory.
pub fn workspace_tools(root: impl Into<PathBuf>) -> io::Result<Vec<Tool>> {
    let workspace = Arc::new(Workspace::new(root.into())?);
    Ok(vec![
        WorkspaceTool::typed(&workspace, read_file_definition, Workspace::read_file),
        WorkspaceTool::typed(&workspace, write_file_definition, Workspace::write_file),
        WorkspaceTool::typed(&workspace, list_dir_definition, Workspace::list_dir),
        WorkspaceTool::typed(&workspace, search_files_definition, Workspace::search_files),
    ])
}

/// What a tool does, given its arguments as `A`, answering `O`.
type Operation<A, O> = fn(&Workspace, A, &CancellationToken) -> Result<O, ToolError>;

/// One workspace tool: a [`TypedTool`] reading its arguments as `A` and
/// answering `O` (its schemas are theirs), running `operation` on the
/// blocking pool.
struct WorkspaceTool<A, O> {
    workspace: Arc<Workspace>,
    definition: fn() -> ToolDefinition,
    operation: Operation<A, O>,
}

impl<A, O> WorkspaceTool<A, O>
where
    Self: TypedTool,
{
    fn typed(
        workspace: &Arc<Workspace>,
        definition: fn() -> ToolDefinition,
        operation: Operation<A, O>,
    ) -> Tool {
        Tool::typed(Self {
            workspace: Arc::clone(workspace),
            definition,
            operation,
        })
    }
}

impl<A, O> TypedTool for WorkspaceTool<A, O>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    O: Serialize + JsonSchema + Send + 'static,
{
    type Params = A;
    type Output = O;

    fn definition(&self) -> ToolDefinition {
        (self.definition)()
    }

    async fn call(&self, args: A, cx: ToolContext) -> Result<O, ToolError> {
        let workspace = Arc::clone(&self.workspace);
        let operation = self.operation;
        let cancel = cx.cancellation().clone();
        tokio::task::spawn_blocking(move || operation(&workspace, args, &cancel))
            .await
            .map_err(|e| {
                let name = (self.definition)().name;
                ToolError::tool(format!("tool `{name}` failed: {e}"))
            })?
    }
}

/// The workspace tools' schemas in the plain form every provider and
/// validator reads alike: each member's `type`, its choices, its bounds,
/// its description (in that order), then an object's members or an
/// array's items. Rust's integer widths are left out (`format`, and the
/// `minimum: 0` that only says "unsigned"), and an optional argument is
/// left out rather than `null`. Applied to every argument and result type
/// below with `#[schemars(transform = plain)]`.
fn plain(schema: &mut Schema) {
    transform_subschemas(&mut plain, schema);
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    let format = map.remove("format");
    let unsigned = format
        .as_ref()
        .and_then(Value::as_str)
        .is_some_and(|f| f.starts_with("uint"));
    if unsigned && map.get("minimum") == Some(&json!(0)) {
        map.remove("minimum");
    }
    let required: Vec<Value> = map
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        let optional = properties
            .iter_mut()
            .filter(|(name, _)| !required.contains(&json!(name)));
        for (_, property) in optional {
            if let Some(Value::Array(kinds)) = property.get_mut("type") {
                kinds.retain(|kind| kind != "null");
                if let [kind] = kinds.as_slice() {
                    property["type"] = kind.clone();
                }
            }
        }
    }
    const ORDER: [&str; 10] = [
        "type",
        "enum",
        "minimum",
        "maximum",
        "minLength",
        "description",
        "items",
        "properties",
        "required",
        "additionalProperties",
    ];
    let mut ordered = Map::new();
    for key in ORDER {
        if let Some(value) = map.remove(key) {
            ordered.insert(key.to_owned(), value);
        }
    }
    ordered.append(map);
    *map = ordered;
}

fn read_file_definition() -> ToolDefinition {
    ToolDefinition::new("read_file")
        .description(
            "Read a UTF-8 text file in the workspace and return its text, line endings kept. \
             The text is cut at 256 KiB, with a final note saying how many bytes were left \
             out; read further with offset/limit. Binary files are refused.",
        )
        .read_only(true)
        .call_title(|args| read_title(args, None))
        .result_title(|args, text| read_title(args, Some(text)))
}

// `read_file`'s arguments. (Comments, not docs, on the argument and result
// types themselves: schemars would show docs to the model.)
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = plain)]
struct ReadArgs {
    /// The file, relative to the workspace root.
    #[schemars(length(min = 1))]
    path: String,
    /// 1-based number of the first line to return. Default 1.
    #[schemars(range(min = 1))]
    offset: Option<usize>,
    /// The most lines to return. Default: every line up to the 256 KiB cap.
    #[schemars(range(min = 1))]
    limit: Option<usize>,
}

/// The file's text.
#[derive(Serialize, JsonSchema)]
#[serde(transparent)]
#[schemars(transform = plain)]
struct FileText(String);

fn write_file_definition() -> ToolDefinition {
    ToolDefinition::new("write_file")
        .description(
            "Write a text file in the workspace, replacing it if it exists and creating \
             missing parent directories. The write is atomic: readers see the old or the \
             new content, never a mix.",
        )
        .read_only(false)
        .call_title_template("Write {path}")
        .result_title_template("Write {path} ({result.bytesWritten} bytes)")
}

// `write_file`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = plain)]
struct WriteArgs {
    /// The file, relative to the workspace root.
    #[schemars(length(min = 1))]
    path: String,
    /// The file's complete new text.
    content: String,
}

// What `write_file` answers.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = plain)]
struct Written {
    /// The size of the file written, in bytes (UTF-8).
    bytes_written: usize,
}

fn list_dir_definition() -> ToolDefinition {
    ToolDefinition::new("list_dir")
        .description(
            "List a directory of the workspace: one entry per file, directory or symlink, \
             sorted by name. Symlinks are listed, not followed.",
        )
        .read_only(true)
        .call_title(|args| list_title(args, None))
        .result_title(|args, entries| list_title(args, Some(entries)))
}

// `list_dir`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = plain)]
struct ListArgs {
    /// The directory, relative to the workspace root. Default "." (the root).
    path: Option<String>,
}

// `list_dir`'s answer. (The transform on the whole: on `Entry` alone it
// runs before its members' descriptions are added.)
#[derive(Serialize, JsonSchema)]
#[serde(transparent)]
#[schemars(transform = plain)]
struct Listing(Vec<Entry>);

// One entry of `list_dir`'s answer.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(inline, transform = plain)]
struct Entry {
    /// The entry's file name.
    name: String,
    /// What the entry is; a symlink is not followed.
    #[serde(rename = "type")]
    kind: EntryKind,
    /// A file's size in bytes; null for directories and symlinks.
    size: Option<u64>,
}

// What a listed entry is.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(inline)]
enum EntryKind {
    File,
    Dir,
    Symlink,
}

fn search_files_definition() -> ToolDefinition {
    ToolDefinition::new("search_files")
        .description(
            "Search the text files under a workspace path for lines matching a regular \
             expression (Rust regex syntax). Honours .gitignore and .ignore files and skips \
             hidden files, binary files, symlinks and files over 1 MiB. Returns matches \
             sorted by path, then line; at most 1000 (exactly 1000 means there may be more: \
             narrow the pattern or the path). Lines are cut at 500 characters.",
        )
        .read_only(true)
        .call_title(|args| search_title(args, None))
        .result_title(|args, matches| search_title(args, Some(matches)))
}

// `search_files`'s arguments.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = plain)]
struct SearchArgs {
    /// The regular expression, matched against each line (Rust regex syntax, e.g. "fn \\w+\\("; "(?i)" for case-insensitive).
    #[schemars(length(min = 1))]
    pattern: String,
    /// A directory or file to search, relative to the workspace root. Default "." (everything).
    path: Option<String>,
}

// `search_files`'s answer.
#[derive(Serialize, JsonSchema)]
#[serde(transparent)]
#[schemars(transform = plain)]
struct Matches(Vec<Match>);

// One match of `search_files`'s answer.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(inline, transform = plain)]
struct Match {
    /// The file, relative to the workspace root, with / separators.
    path: String,
    /// 1-based line number.
    line: usize,
    /// The matching line, without its line ending.
    text: String,
}

/// `Read src/lib.rs`, from a line when an offset is given, and with the
/// lines read once the text is back. Empty (the default title) without a
/// path.
fn read_title(args: &Value, text: Option<&Value>) -> String {
    let Some(path) = args["path"].as_str() else {
        return String::new();
    };
    let mut title = format!("Read {path}");
    if let Some(offset) = args["offset"].as_u64() {
        title.push_str(&format!(" from line {offset}"));
    }
    if let Some(text) = text.and_then(Value::as_str) {
        title.push_str(&format!(
            " ({})",
            counted(text.lines().count(), "line", "lines")
        ));
    }
    title
}

/// `List src`, with the entries once the listing is back.
fn list_title(args: &Value, entries: Option<&Value>) -> String {
    let path = args["path"].as_str().unwrap_or(".");
    let mut title = format!("List {path}");
    if let Some(entries) = entries.and_then(Value::as_array) {
        title.push_str(&format!(
            " ({})",
            counted(entries.len(), "entry", "entries")
        ));
    }
    title
}

/// `Search "fn main" in src`, with the matches once they are back. Empty
/// (the default title) without a pattern.
fn search_title(args: &Value, matches: Option<&Value>) -> String {
    let Value::String(_) = &args["pattern"] else {
        return String::new();
    };
    let path = args["path"].as_str().unwrap_or(".");
    let mut title = format!("Search {} in {path}", args["pattern"]);
    if let Some(matches) = matches.and_then(Value::as_array) {
        title.push_str(&format!(
            " ({})",
            counted(matches.len(), "match", "matches")
        ));
    }
    title
}

fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn denied(path: &str, why: &str) -> ToolError {
    ToolError::denied(format!("path {path:?} {why}"))
}

fn io_failure(path: &str, e: &io::Error) -> ToolError {
    ToolError::tool(format!("{path}: {e}"))
}

fn cancelled() -> ToolError {
    ToolError::new(ErrorCode::Aborted, "the call was cancelled")
}

/// A path on disk: its longest existing prefix, canonical and inside the
/// root, and the components below it that do not exist yet.
struct Resolved {
    existing: PathBuf,
    missing: PathBuf,
}

struct Workspace {
    /// Canonical.
    root: PathBuf,
    /// The root as the host spelled it (made absolute), when that differs:
    /// absolute paths under it are accepted too.
    alias: Option<PathBuf>,
}

impl Workspace {
    fn new(given: PathBuf) -> io::Result<Self> {
        let root = fs::canonicalize(&given)?;
        if !root.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("workspace root {} is not a directory", given.display()),
            ));
        }
        // Only an alias without `..` names the same directory lexically.
        let alias = std::path::absolute(&given)
            .ok()
            .filter(|a| !a.components().any(|c| c == Component::ParentDir))
            .map(|a| a.components().collect::<PathBuf>())
            .filter(|a| *a != root);
        Ok(Self { root, alias })
    }

    /// Step one: the path text alone, normalised into components below the
    /// root. Nothing is looked up on disk.
    fn confine(&self, path: &str) -> Result<PathBuf, ToolError> {
        let given = Path::new(path);
        if given.has_root() {
            let absolute = normalize_absolute(given);
            let inside = absolute
                .strip_prefix(&self.root)
                .ok()
                .or_else(|| {
                    self.alias
                        .as_ref()
                        .and_then(|alias| absolute.strip_prefix(alias).ok())
                })
                .ok_or_else(|| denied(path, "is outside the workspace"))?;
            return Ok(inside.to_path_buf());
        }
        let mut parts: Vec<&OsStr> = Vec::new();
        for component in given.components() {
            match component {
                Component::CurDir => {}
                Component::Normal(part) => parts.push(part),
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        return Err(denied(path, "leaves the workspace"));
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(denied(path, "is outside the workspace"));
                }
            }
        }
        Ok(parts.into_iter().collect())
    }

    /// Step two: follows the confined path on disk. The longest existing
    /// prefix is canonicalised (symlinks resolved) and must stay in the root.
    fn resolve(&self, path: &str, inside: &Path) -> Result<Resolved, ToolError> {
        let parts: Vec<&OsStr> = inside.iter().collect();
        for keep in (0..=parts.len()).rev() {
            let candidate: PathBuf = self.root.join(parts[..keep].iter().collect::<PathBuf>());
            match fs::canonicalize(&candidate) {
                Ok(real) => {
                    if !real.starts_with(&self.root) {
                        return Err(denied(
                            path,
                            "leads outside the workspace through a symlink",
                        ));
                    }
                    return Ok(Resolved {
                        existing: real,
                        missing: parts[keep..].iter().collect(),
                    });
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                    ) =>
                {
                    // A symlink that exists but points nowhere cannot be checked.
                    if fs::symlink_metadata(&candidate).is_ok_and(|m| m.file_type().is_symlink()) {
                        return Err(denied(
                            path,
                            "goes through a broken symlink, which cannot be checked",
                        ));
                    }
                }
                Err(e) => return Err(io_failure(path, &e)),
            }
        }
        Err(ToolError::tool("the workspace root no longer exists"))
    }

    /// Confines and resolves a path that must exist.
    fn existing(&self, path: &str, what: &str) -> Result<PathBuf, ToolError> {
        let inside = self.confine(path)?;
        let resolved = self.resolve(path, &inside)?;
        if resolved.missing.as_os_str().is_empty() {
            Ok(resolved.existing)
        } else {
            Err(ToolError::tool(format!("no such {what}: {path}")))
        }
    }

    fn read_file(&self, args: ReadArgs, cancel: &CancellationToken) -> Result<FileText, ToolError> {
        let real = self.existing(&args.path, "file")?;
        if cancel.is_cancelled() {
            return Err(cancelled());
        }
        if real.is_dir() {
            return Err(ToolError::tool(format!(
                "{} is a directory; use list_dir",
                args.path
            )));
        }
        read_text(
            &real,
            &args.path,
            args.offset.unwrap_or(1).max(1),
            args.limit,
        )
        .map(FileText)
    }

    fn write_file(
        &self,
        args: WriteArgs,
        cancel: &CancellationToken,
    ) -> Result<Written, ToolError> {
        let path = args.path.as_str();
        if path.ends_with(['/', '\\']) {
            return Err(ToolError::tool(format!(
                "{path} names a directory; write_file needs a file path"
            )));
        }
        let inside = self.confine(path)?;
        if inside.as_os_str().is_empty() {
            return Err(ToolError::tool(format!(
                "{path} is the workspace root, not a file"
            )));
        }
        let resolved = self.resolve(path, &inside)?;
        let target = if resolved.missing.as_os_str().is_empty() {
            if resolved.existing.is_dir() {
                return Err(ToolError::tool(format!("{path} is a directory")));
            }
            resolved.existing
        } else {
            if !resolved.existing.is_dir() {
                let blocker = resolved
                    .existing
                    .strip_prefix(&self.root)
                    .map(slash_path)
                    .unwrap_or_default();
                return Err(ToolError::tool(format!(
                    "cannot write {path}: {blocker} is not a directory"
                )));
            }
            let target = resolved.existing.join(&resolved.missing);
            if let Some(parent) = target.parent() {
                fs::create_dir_all(parent).map_err(|e| io_failure(path, &e))?;
            }
            target
        };
        let bytes = args.content.as_bytes();
        match write_atomically(&target, bytes, cancel) {
            Ok(true) => Ok(Written {
                bytes_written: bytes.len(),
            }),
            Ok(false) => Err(cancelled()),
            Err(e) => Err(io_failure(path, &e)),
        }
    }

    fn list_dir(&self, args: ListArgs, cancel: &CancellationToken) -> Result<Listing, ToolError> {
        let path = args.path.as_deref().unwrap_or(".");
        let real = self.existing(path, "directory")?;
        if !real.is_dir() {
            return Err(ToolError::tool(format!("{path} is not a directory")));
        }
        let mut entries = Vec::new();
        for entry in fs::read_dir(&real).map_err(|e| io_failure(path, &e))? {
            if cancel.is_cancelled() {
                return Err(cancelled());
            }
            let entry = entry.map_err(|e| io_failure(path, &e))?;
            let file_type = entry.file_type().map_err(|e| io_failure(path, &e))?;
            let (kind, size) = if file_type.is_symlink() {
                (EntryKind::Symlink, None)
            } else if file_type.is_dir() {
                (EntryKind::Dir, None)
            } else {
                let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                (EntryKind::File, Some(size))
            };
            let name = entry.file_name().to_string_lossy().into_owned();
            entries.push(Entry { name, kind, size });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Listing(entries))
    }

    fn search_files(
        &self,
        args: SearchArgs,
        cancel: &CancellationToken,
    ) -> Result<Matches, ToolError> {
        let regex = Regex::new(&args.pattern).map_err(|e| {
            ToolError::new(
                ErrorCode::InvalidArguments,
                format!("invalid regex {:?}: {e}", args.pattern),
            )
        })?;
        let path = args.path.as_deref().unwrap_or(".");
        let target = self.existing(path, "file or directory")?;

        let mut walk = WalkBuilder::new(&target);
        walk.parents(false)
            .require_git(false)
            .git_global(false)
            .follow_links(false)
            .max_filesize(Some(MAX_SEARCH_FILE_BYTES))
            .sort_by_file_name(Ord::cmp);
        // `parents(false)` keeps the walk from reading ignore files above the
        // workspace; those between the root and the target are applied here.
        let above = self.ignores_above(&target);
        if !above.is_empty() {
            walk.filter_entry(move |entry| !ignored_by(&above, entry));
        }

        let mut matches: Vec<(PathBuf, usize, String)> = Vec::new();
        'files: for entry in walk.build() {
            if cancel.is_cancelled() {
                return Err(cancelled());
            }
            let Ok(entry) = entry else { continue };
            // Symlinks are reported as such (never followed) and skipped.
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let Ok(bytes) = fs::read(entry.path()) else {
                continue;
            };
            if bytes.len() as u64 > MAX_SEARCH_FILE_BYTES || bytes.contains(&0) {
                continue;
            }
            let Ok(text) = std::str::from_utf8(&bytes) else {
                continue;
            };
            let Ok(relative) = entry.path().strip_prefix(&self.root) else {
                continue;
            };
            for (index, line) in text.lines().enumerate() {
                if regex.is_match(line) {
                    matches.push((relative.to_path_buf(), index + 1, cut_chars(line)));
                    if matches.len() >= MAX_MATCHES {
                        break 'files;
                    }
                }
            }
        }
        matches.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
        Ok(Matches(
            matches
                .into_iter()
                .map(|(path, line, text)| Match {
                    path: slash_path(&path),
                    line,
                    text,
                })
                .collect(),
        ))
    }

    /// The ignore rules of the directories from the root down to `target`'s
    /// parent, innermost first (`.ignore` before `.gitignore`), then the
    /// root's `.git/info/exclude`.
    fn ignores_above(&self, target: &Path) -> Vec<Gitignore> {
        let Ok(inside) = target.strip_prefix(&self.root) else {
            return Vec::new();
        };
        if inside.as_os_str().is_empty() {
            return Vec::new();
        }
        let mut dirs = vec![self.root.clone()];
        let mut dir = self.root.clone();
        for part in inside.parent().into_iter().flat_map(Path::iter) {
            dir.push(part);
            dirs.push(dir.clone());
        }
        let mut matchers = Vec::new();
        for dir in dirs.iter().rev() {
            for name in [".ignore", ".gitignore"] {
                matchers.extend(ignore_file(dir, &dir.join(name)));
            }
        }
        matchers.extend(ignore_file(
            &self.root,
            &self.root.join(".git").join("info").join("exclude"),
        ));
        matchers
    }
}

/// A matcher for one ignore file, if it exists and parses.
fn ignore_file(dir: &Path, file: &Path) -> Option<Gitignore> {
    if !file.is_file() {
        return None;
    }
    let mut builder = GitignoreBuilder::new(dir);
    if builder.add(file).is_some() {
        return None;
    }
    builder.build().ok().filter(|g| !g.is_empty())
}

/// Whether the innermost matcher with an opinion ignores `entry`.
fn ignored_by(matchers: &[Gitignore], entry: &DirEntry) -> bool {
    if entry.depth() == 0 {
        return false;
    }
    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
    for matcher in matchers {
        let found = matcher.matched(entry.path(), is_dir);
        if found.is_ignore() {
            return true;
        }
        if found.is_whitelist() {
            return false;
        }
    }
    false
}

/// Applies `.` and `..` to an absolute path without touching the disk
/// (`..` at the file-system root stays there, as POSIX says).
fn normalize_absolute(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A relative path with `/` separators.
fn slash_path(path: &Path) -> String {
    path.iter()
        .map(|part| part.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The line cut to [`MAX_LINE_CHARS`] characters, `…` marking a cut.
fn cut_chars(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_owned(),
    }
}

/// The largest char boundary of `s` at or below `index`.
fn floor_boundary(s: &str, index: usize) -> usize {
    if index >= s.len() {
        return s.len();
    }
    (0..=index)
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0)
}

fn not_text(path: &str) -> ToolError {
    ToolError::tool(format!(
        "{path} is a binary file (not UTF-8 text); read_file only returns text"
    ))
}

/// Lines `offset..offset+limit` of a UTF-8 file, cut at [`READ_CAP`] bytes.
fn read_text(
    real: &Path,
    path: &str,
    offset: usize,
    limit: Option<usize>,
) -> Result<String, ToolError> {
    let failure = |e: io::Error| io_failure(path, &e);
    let file = File::open(real).map_err(failure)?;
    let size = file.metadata().map_err(failure)?.len();
    let mut reader = BufReader::with_capacity(BINARY_SNIFF, file);
    if reader.fill_buf().map_err(failure)?.contains(&0) {
        return Err(not_text(path));
    }

    let mut text = String::new();
    let mut line = Vec::new();
    let mut consumed: u64 = 0;
    let mut lines_seen = 0usize;
    let mut taken = 0usize;
    loop {
        if limit.is_some_and(|limit| taken >= limit) {
            break;
        }
        // Lines before `offset` are counted, not kept; a kept line is kept
        // only up to the room left under the cap (a file may be one huge line).
        let keep = if lines_seen + 1 < offset {
            0
        } else {
            READ_CAP + 1 - text.len()
        };
        let read = read_line(&mut reader, &mut line, keep).map_err(failure)?;
        if read == 0 {
            break;
        }
        lines_seen += 1;
        let current = utf8_prefix(&line, read > line.len()).ok_or_else(|| not_text(path))?;
        if lines_seen < offset {
            consumed += read as u64;
            continue;
        }
        if text.len() + current.len() > READ_CAP || read > line.len() {
            let room = floor_boundary(current, READ_CAP - text.len());
            text.push_str(&current[..room]);
            consumed += room as u64;
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!(
                "… [truncated: file has {} more bytes; use offset/limit]",
                size.saturating_sub(consumed)
            ));
            return Ok(text);
        }
        text.push_str(current);
        consumed += read as u64;
        taken += 1;
    }
    if offset > 1 && lines_seen < offset {
        return Err(ToolError::tool(format!(
            "offset {offset} is past the end of {path}, which has {lines_seen} lines"
        )));
    }
    Ok(text)
}

/// Reads one line (through its `\n`) into `line`, keeping at most `keep`
/// bytes of it; returns the whole line's length (0 at the end of the file).
fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>, keep: usize) -> io::Result<usize> {
    line.clear();
    let mut total = 0;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(total);
        }
        let (used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = keep.saturating_sub(line.len()).min(used);
        line.extend_from_slice(&chunk[..room]);
        reader.consume(used);
        total += used;
        if done {
            return Ok(total);
        }
    }
}

/// The text of a line, `None` if it is not UTF-8; a line that was cut may
/// end inside a character, which is then left out.
fn utf8_prefix(line: &[u8], cut: bool) -> Option<&str> {
    match std::str::from_utf8(line) {
        Ok(text) => Some(text),
        Err(e) if cut && e.error_len().is_none() => {
            std::str::from_utf8(&line[..e.valid_up_to()]).ok()
        }
        Err(_) => None,
    }
}

/// Writes through a temporary file in the same directory, then renames it
/// over `target`. `Ok(false)` when cancelled before the rename: nothing changed.
fn write_atomically(target: &Path, bytes: &[u8], cancel: &CancellationToken) -> io::Result<bool> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = target.parent().unwrap_or(Path::new("."));
    // Not derived from the target's name, which may already be as long as a
    // name can be.
    let temp = dir.join(format!(
        ".ptc-write-{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = File::options().write(true).create_new(true).open(&temp)?;
        file.write_all(bytes)?;
        if let Ok(existing) = fs::metadata(target) {
            file.set_permissions(existing.permissions())?;
        }
        file.sync_all()?;
        drop(file);
        if cancel.is_cancelled() {
            return Ok(false);
        }
        fs::rename(&temp, target)?;
        Ok(true)
    })();
    if !matches!(result, Ok(true)) {
        let _ = fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::new(dir.path().to_path_buf()).unwrap();
        (dir, ws)
    }

    /// The derived schemas are plain (see [`plain`]): nothing of schemars'
    /// own (`$schema`, `title`, `$ref`, `$defs`) or of Rust's integer
    /// widths (`format`), and no argument takes `null`.
    #[test]
    fn derived_schemas_are_plain() {
        let (dir, _ws) = workspace();
        for tool in workspace_tools(dir.path()).unwrap() {
            let definition = tool.definition();
            let parameters = definition.parameters.to_string();
            let output = definition.output.as_ref().unwrap().to_string();
            for key in ["$schema", "title", "$ref", "$defs", "format"] {
                let key = format!("\"{key}\"");
                assert!(!parameters.contains(&key), "{parameters}");
                assert!(!output.contains(&key), "{output}");
            }
            assert!(!parameters.contains("null"), "{parameters}");
            assert!(parameters.starts_with(r#"{"type":"object","properties":"#));
        }
    }

    #[test]
    fn relative_paths_are_normalised_lexically() {
        let (_dir, ws) = workspace();
        assert_eq!(ws.confine(".").unwrap(), PathBuf::new());
        assert_eq!(ws.confine("a/./b/../c").unwrap(), PathBuf::from("a/c"));
        assert_eq!(ws.confine("a/..").unwrap(), PathBuf::new());
        assert_eq!(ws.confine("a//b/").unwrap(), PathBuf::from("a/b"));
    }

    #[test]
    fn dot_dot_above_the_root_is_denied_from_the_text() {
        let (_dir, ws) = workspace();
        for path in ["..", "../x", "a/../../x", "./a/b/../../../x"] {
            let err = ws.confine(path).unwrap_err();
            assert_eq!(err.code, ErrorCode::Denied, "{path}");
            assert_eq!(err.message, format!("path {path:?} leaves the workspace"));
        }
        // Even when the named directories do not exist: nothing is looked up.
        assert!(ws.confine("no/such/../../../x").is_err());
    }

    #[test]
    fn absolute_paths_must_lie_under_the_root() {
        let (_dir, ws) = workspace();
        let inside = ws.root.join("a/b");
        assert_eq!(
            ws.confine(inside.to_str().unwrap()).unwrap(),
            PathBuf::from("a/b")
        );
        let sneaky = format!("{}/../x", ws.root.display());
        let err = ws.confine(&sneaky).unwrap_err();
        assert_eq!(err.code, ErrorCode::Denied);
        assert!(err.message.ends_with("is outside the workspace"));
        assert_eq!(
            ws.confine("/etc/passwd").unwrap_err().code,
            ErrorCode::Denied
        );
        // A root-prefix lookalike is not inside.
        let lookalike = format!("{}-other/x", ws.root.display());
        assert_eq!(ws.confine(&lookalike).unwrap_err().code, ErrorCode::Denied);
    }

    #[cfg(unix)]
    #[test]
    fn the_root_as_spelled_by_the_host_is_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let ws = Workspace::new(link.clone()).unwrap();
        assert_eq!(ws.root, fs::canonicalize(&real).unwrap());
        let spelled = link.join("f.txt");
        assert_eq!(
            ws.confine(spelled.to_str().unwrap()).unwrap(),
            PathBuf::from("f.txt")
        );
    }

    #[test]
    fn a_file_is_not_a_workspace_root() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        fs::write(&file, "x").unwrap();
        assert!(Workspace::new(file).is_err());
        assert!(Workspace::new(dir.path().join("missing")).is_err());
    }

    #[test]
    fn lines_are_cut_at_500_characters() {
        assert_eq!(cut_chars("short"), "short");
        let long = "é".repeat(600);
        let cut = cut_chars(&long);
        assert_eq!(cut.chars().count(), MAX_LINE_CHARS + 1);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn a_huge_line_is_counted_not_kept() {
        let huge = "é".repeat(5 << 20) + "\nnext\n";
        let mut reader = BufReader::new(huge.as_bytes());
        let mut line = Vec::new();
        assert_eq!(
            read_line(&mut reader, &mut line, 101).unwrap(),
            (10 << 20) + 1
        );
        assert_eq!(line.len(), 101);
        // The cut falls inside a character, which is left out.
        assert_eq!(utf8_prefix(&line, true), Some("é".repeat(50).as_str()));
        assert_eq!(utf8_prefix(&line, false), None);
        assert_eq!(read_line(&mut reader, &mut line, 99).unwrap(), 5);
        assert_eq!(line, b"next\n");
        let (_dir, ws) = workspace();
        let file = ws.root.join("one-line.txt");
        fs::write(&file, &huge).unwrap();
        let text = read_text(&file, "one-line.txt", 1, None).unwrap();
        assert!(text.len() < READ_CAP + 100, "{}", text.len());
        assert!(
            text.ends_with("more bytes; use offset/limit]"),
            "{}",
            &text[text.len() - 80..]
        );
        assert_eq!(read_text(&file, "one-line.txt", 2, None).unwrap(), "next\n");
    }

    #[test]
    fn floor_boundary_never_splits_a_character() {
        let s = "aé";
        assert_eq!(floor_boundary(s, 2), 1);
        assert_eq!(floor_boundary(s, 3), 3);
        assert_eq!(floor_boundary(s, 99), 3);
    }

    #[test]
    fn reading_pages_by_line_and_caps_the_text() {
        let (_dir, ws) = workspace();
        let file = ws.root.join("f.txt");
        fs::write(&file, "one\ntwo\r\nthree").unwrap();
        assert_eq!(
            read_text(&file, "f.txt", 1, None).unwrap(),
            "one\ntwo\r\nthree"
        );
        assert_eq!(read_text(&file, "f.txt", 2, Some(1)).unwrap(), "two\r\n");
        assert_eq!(read_text(&file, "f.txt", 3, Some(5)).unwrap(), "three");
        let err = read_text(&file, "f.txt", 5, None).unwrap_err();
        assert_eq!(
            err.message,
            "offset 5 is past the end of f.txt, which has 3 lines"
        );

        let big = "x".repeat(1000) + "\n";
        fs::write(&file, big.repeat(300)).unwrap();
        let text = read_text(&file, "f.txt", 1, None).unwrap();
        let (head, note) = text.rsplit_once('\n').unwrap();
        assert_eq!(head.len(), READ_CAP);
        let left = 300 * 1001 - READ_CAP;
        assert_eq!(
            note,
            format!("… [truncated: file has {left} more bytes; use offset/limit]")
        );
    }

    #[test]
    fn atomic_writes_leave_no_temporary_files() {
        let (_dir, ws) = workspace();
        let target = ws.root.join("f.txt");
        assert!(write_atomically(&target, b"v1", &CancellationToken::new()).unwrap());
        assert!(write_atomically(&target, b"v2", &CancellationToken::new()).unwrap());
        assert_eq!(fs::read_to_string(&target).unwrap(), "v2");
        let cancel = CancellationToken::new();
        cancel.cancel();
        assert!(!write_atomically(&target, b"v3", &cancel).unwrap());
        assert_eq!(fs::read_to_string(&target).unwrap(), "v2");
        let names: Vec<_> = fs::read_dir(&ws.root)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["f.txt"]);
    }
}
