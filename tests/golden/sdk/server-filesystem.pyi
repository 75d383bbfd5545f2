"""The tools, as Python stubs: `await tools.<name>(arg=...)`, or `await tools.<server>.<name>(...)` for a tool named `<server>.<name>`."""

from collections.abc import Awaitable, Callable
from typing import Any, Literal, Never, NotRequired, TypeAlias, TypedDict


ToolCallError = RuntimeError
"""A failed `tools.*` call raises `ToolCallError`, which is `RuntimeError` (the sandbox's exceptions carry no attributes): `str(e)` reads `ToolCallError: <what went wrong> (code <CODE>, tool `<name>`)`. The codes: UNKNOWN_TOOL: no such tool. INVALID_ARGUMENTS: the arguments do not match its schema. DENIED: a policy refused the call. TOOL_ERROR: the tool failed. INVALID_OUTPUT: its result broke its output schema. TOOL_TIMEOUT: the tool ran out of time. ABORTED_BEFORE_DISPATCH / ABORTED: the call was cancelled before / after it started."""


StateError = RuntimeError
"""A failed `state` call raises `StateError`, which is `RuntimeError`: `str(e)` reads `StateError: <what went wrong> (code <CODE>)`. The codes: INVALID_KEY: not a str of 1 … 256 bytes without control characters. INVALID_VALUE: not plain data. QUOTA: past a quota of the value, the keys or the session (nothing was written). EXPIRED_SESSION / UNKNOWN_SESSION: the session is gone. UNAVAILABLE: the store could not be reached."""


class _State:
    async def get(self, key: str) -> Any:
        """The value set under `key`, or None."""

    async def set(self, key: str, value: Any) -> None:
        """Sets `key` to `value` (plain data: dict, list, str, int, float, bool, None)."""

    async def delete(self, key: str) -> bool:
        """Deletes `key`; whether it was set."""

    async def keys(self) -> list[str]:
        """Every key, sorted."""


state: _State
"""Values by key, kept between runs of a session: the result names its session; pass it as `session` to a later run."""


class ToolMatch(TypedDict):
    name: str
    summary: str
    score: float


def search_tools(query: str, *, limit: int = 10) -> list[ToolMatch]:
    """Finds the tools whose names, descriptions and parameters best match `query`, best first; `limit` is 1 … 50, by default 10. Answers at once, without calling a tool."""


def describe_tools(names: str | list[str]) -> str:
    """The declarations of these tools, as in this module, then a `# unknown: …` line naming any not found. Answers at once, without calling a tool."""


class ReadFileOutput(TypedDict):
    content: str


class ReadTextFileOutput(TypedDict):
    content: str


class ReadMediaFileOutputContentItem1(TypedDict):
    type: Literal["image", "audio"]
    data: str
    mimeType: str


class ReadMediaFileOutputContentItem2Resource(TypedDict):
    uri: str
    mimeType: NotRequired[str]
    blob: str


class ReadMediaFileOutputContentItem2(TypedDict):
    type: Literal["resource"]
    resource: ReadMediaFileOutputContentItem2Resource


class ReadMediaFileOutput(TypedDict):
    content: list[ReadMediaFileOutputContentItem1 | ReadMediaFileOutputContentItem2]


class ReadMultipleFilesOutput(TypedDict):
    content: str


class WriteFileOutput(TypedDict):
    content: str


class EditFileEditsItem(TypedDict):
    # Text to search for - must match exactly
    oldText: str
    # Text to replace with
    newText: str


class EditFileOutput(TypedDict):
    content: str


class CreateDirectoryOutput(TypedDict):
    content: str


class ListDirectoryOutput(TypedDict):
    content: str


class ListDirectoryWithSizesOutput(TypedDict):
    content: str


class DirectoryTreeOutput(TypedDict):
    content: str


class MoveFileOutput(TypedDict):
    content: str


class SearchFilesOutput(TypedDict):
    content: str


class GetFileInfoOutput(TypedDict):
    content: str


class ListAllowedDirectoriesOutput(TypedDict):
    content: str


class _Tools:
    def __getitem__(self, name: str) -> Callable[..., Awaitable[Any]]:
        """Any tool by its exact name, for names that are not identifiers: `await tools["my-tool"](arg=1)`."""

    async def read_file(
        self,
        *,
        path: str,
        tail: float | None = None,
        head: float | None = None,
    ) -> ReadFileOutput:
        """Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.

        Read-only.

        Args:
            tail: If provided, returns only the last N lines of the file
            head: If provided, returns only the first N lines of the file
        """

    async def read_text_file(
        self,
        *,
        path: str,
        tail: float | None = None,
        head: float | None = None,
    ) -> ReadTextFileOutput:
        """Read the complete contents of a file from the file system as text. Handles various text encodings and provides detailed error messages if the file cannot be read. Use this tool when you need to examine the contents of a single file. Use the 'head' parameter to read only the first N lines of a file, or the 'tail' parameter to read only the last N lines of a file. Operates on the file as text regardless of extension. Only works within allowed directories.

        Read-only.

        Args:
            tail: If provided, returns only the last N lines of the file
            head: If provided, returns only the first N lines of the file
        """

    async def read_media_file(self, *, path: str) -> ReadMediaFileOutput:
        """Read a file and return it as a base64-encoded content block with its MIME type. Image and audio files are returned as image/audio content; any other file type is returned as an embedded resource. Only works within allowed directories.

        Read-only.
        """

    async def read_multiple_files(self, *, paths: list[str]) -> ReadMultipleFilesOutput:
        """Read the contents of multiple files simultaneously. This is more efficient than reading files one by one when you need to analyze or compare multiple files. Each file's content is returned with its path as a reference. Failed reads for individual files won't stop the entire operation. Only works within allowed directories.

        Read-only.

        Args:
            paths: Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories. (minItems: 1)
        """

    async def write_file(self, *, path: str, content: str) -> WriteFileOutput:
        """Create a new file or completely overwrite an existing file with new content. Use with caution as it will overwrite existing files without warning. Handles text content with proper encoding. Only works within allowed directories.
        """

    async def edit_file(
        self,
        *,
        path: str,
        edits: list[EditFileEditsItem],
        dryRun: bool | None = None,
    ) -> EditFileOutput:
        """Make line-based edits to a text file. Each edit replaces exact line sequences with new content. Returns a git-style diff showing the changes made. Only works within allowed directories.

        Args:
            dryRun: Preview changes using git-style diff format (default: false)
        """

    async def create_directory(self, *, path: str) -> CreateDirectoryOutput:
        """Create a new directory or ensure a directory exists. Can create multiple nested directories in one operation. If the directory already exists, this operation will succeed silently. Perfect for setting up directory structures for projects or ensuring required paths exist. Only works within allowed directories.
        """

    async def list_directory(self, *, path: str) -> ListDirectoryOutput:
        """Get a detailed listing of all files and directories in a specified path. Results clearly distinguish between files and directories with [FILE] and [DIR] prefixes. This tool is essential for understanding directory structure and finding specific files within a directory. Only works within allowed directories.

        Read-only.
        """

    async def list_directory_with_sizes(
        self,
        *,
        path: str,
        sortBy: Literal["name", "size"] | None = None,
    ) -> ListDirectoryWithSizesOutput:
        """Get a detailed listing of all files and directories in a specified path, including sizes. Results clearly distinguish between files and directories with [FILE] and [DIR] prefixes. This tool is useful for understanding directory structure and finding specific files within a directory. Only works within allowed directories.

        Read-only.

        Args:
            sortBy: Sort entries by name or size (default: "name")
        """

    async def directory_tree(
        self,
        *,
        path: str,
        excludePatterns: list[str] | None = None,
    ) -> DirectoryTreeOutput:
        """Get a recursive tree view of files and directories as a JSON structure. Each entry includes 'name', 'type' (file/directory), and 'children' for directories. Files have no children array, while directories always have a children array (which may be empty). The output is formatted with 2-space indentation for readability. Only works within allowed directories.

        Read-only.

        Args:
            excludePatterns: (default: [])
        """

    async def move_file(self, *, source: str, destination: str) -> MoveFileOutput:
        """Move or rename files and directories. Can move files between directories and rename them in a single operation. If the destination exists, the operation will fail. Works across different directories and can be used for simple renaming within the same directory. Both source and destination must be within allowed directories.
        """

    async def search_files(
        self,
        *,
        path: str,
        pattern: str,
        excludePatterns: list[str] | None = None,
    ) -> SearchFilesOutput:
        """Recursively search for files and directories matching a pattern. The patterns should be glob-style patterns that match paths relative to the working directory. Use pattern like '*.ext' to match files in current directory, and '**/*.ext' to match files in all subdirectories. Returns full paths to all matching items. Great for finding files when you don't know their exact location. Only searches within allowed directories.

        Read-only.

        Args:
            excludePatterns: (default: [])
        """

    async def get_file_info(self, *, path: str) -> GetFileInfoOutput:
        """Retrieve detailed metadata about a file or directory. Returns comprehensive information including size, creation time, last modified time, permissions, and type. This tool is perfect for understanding file characteristics without reading the actual content. Only works within allowed directories.

        Read-only.
        """

    async def list_allowed_directories(self) -> ListAllowedDirectoriesOutput:
        """Returns the list of directories that this server is allowed to access. Subdirectories within these allowed directories are also accessible. Use this to understand which directories and their nested paths are available before trying to access files.

        Read-only.
        """


tools: _Tools
"""Every tool, as an async method; optional arguments left as None are not sent."""
