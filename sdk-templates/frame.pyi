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


{{types}}class _Tools:
    def __getitem__(self, name: str) -> Callable[..., Awaitable[Any]]:
        """Any tool by its exact name, for names that are not identifiers: `await tools["my-tool"](arg=1)`."""
{{methods}}

tools: _Tools
"""Every tool, as an async method; optional arguments left as None are not sent."""
{{namespaces}}
