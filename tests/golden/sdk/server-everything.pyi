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


class GetStructuredContentOutput(TypedDict):
    # Temperature in celsius
    temperature: float
    # Weather conditions description
    conditions: str
    # Humidity percentage
    humidity: float


class _Tools:
    def __getitem__(self, name: str) -> Callable[..., Awaitable[Any]]:
        """Any tool by its exact name, for names that are not identifiers: `await tools["my-tool"](arg=1)`."""

    async def echo(self, *, message: str) -> Any:
        """Echoes back the input string

        Read-only.

        Args:
            message: Message to echo
        """

    async def get_annotated_message(
        self,
        *,
        messageType: Literal["error", "success", "debug"],
        includeImage: bool | None = None,
    ) -> Any:
        """Demonstrates how annotations can be used to provide metadata about content.

        The tool "get-annotated-message": also tools["get-annotated-message"](...).

        Read-only.

        Args:
            messageType: Type of message to demonstrate different annotation patterns
            includeImage: Whether to include an example image (default: false)
        """

    async def get_env(self) -> Any:
        """Returns all environment variables, helpful for debugging MCP server configuration

        The tool "get-env": also tools["get-env"](...).

        Read-only.
        """

    async def get_resource_links(self, *, count: float | None = None) -> Any:
        """Returns up to ten resource links that reference different types of resources

        The tool "get-resource-links": also tools["get-resource-links"](...).

        Read-only.

        Args:
            count: Number of resource links to return (1-10) (default: 3; minimum: 1; maximum: 10)
        """

    async def get_resource_reference(
        self,
        *,
        resourceType: Literal["Text", "Blob"] | None = None,
        resourceId: float | None = None,
    ) -> Any:
        """Returns a resource reference that can be used by MCP clients

        The tool "get-resource-reference": also tools["get-resource-reference"](...).

        Read-only.

        Args:
            resourceType: (default: "Text")
            resourceId: ID of the text resource to fetch (default: 1)
        """

    async def get_structured_content(
        self,
        *,
        location: Literal["New York", "Chicago", "Los Angeles"],
    ) -> GetStructuredContentOutput:
        """Returns structured content along with an output schema for client data validation

        The tool "get-structured-content": also tools["get-structured-content"](...).

        Read-only.

        Args:
            location: Choose city
        """

    async def get_sum(self, *, a: float, b: float) -> Any:
        """Returns the sum of two numbers

        The tool "get-sum": also tools["get-sum"](...).

        Read-only.

        Args:
            a: First number
            b: Second number
        """

    async def get_tiny_image(self) -> Any:
        """Returns a tiny MCP logo image.

        The tool "get-tiny-image": also tools["get-tiny-image"](...).

        Read-only.
        """

    async def gzip_file_as_resource(
        self,
        *,
        name: str | None = None,
        data: str | None = None,
        outputType: Literal["resourceLink", "resource"] | None = None,
    ) -> Any:
        """Compresses a single file using gzip compression. Depending upon the selected output type, returns either the compressed data as a gzipped resource or a resource link, allowing it to be downloaded in a subsequent request during the current session.

        The tool "gzip-file-as-resource": also tools["gzip-file-as-resource"](...).

        Args:
            name: Name of the output file (default: "README.md.gz")
            data: URL or data URI of the file content to compress (default: "https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md"; format: uri)
            outputType: How the resulting gzipped file should be returned. 'resourceLink' returns a link to a resource that can be read later, 'resource' returns a full resource object. (default: "resourceLink")
        """

    async def toggle_simulated_logging(self) -> Any:
        """Toggles simulated, random-leveled logging on or off.

        The tool "toggle-simulated-logging": also tools["toggle-simulated-logging"](...).
        """

    async def toggle_subscriber_updates(self) -> Any:
        """Toggles simulated resource subscription updates on or off.

        The tool "toggle-subscriber-updates": also tools["toggle-subscriber-updates"](...).
        """

    async def trigger_long_running_operation(
        self,
        *,
        duration: float | None = None,
        steps: float | None = None,
    ) -> Any:
        """Demonstrates a long running operation with progress updates.

        The tool "trigger-long-running-operation": also tools["trigger-long-running-operation"](...).

        Read-only.

        Args:
            duration: Duration of the operation in seconds (default: 10)
            steps: Number of steps in the operation (default: 5)
        """

    async def simulate_research_query(
        self,
        *,
        topic: str,
        ambiguous: bool | None = None,
    ) -> Any:
        """Simulates a deep research operation that gathers, analyzes, and synthesizes information. Demonstrates MCP task-based operations with progress through multiple stages. If 'ambiguous' is true and client supports elicitation, sends an elicitation request for clarification.

        The tool "simulate-research-query": also tools["simulate-research-query"](...).

        Args:
            topic: The research topic to investigate
            ambiguous: Simulate an ambiguous query that requires clarification (triggers input_required status) (default: false)
        """


tools: _Tools
"""Every tool, as an async method; optional arguments left as None are not sent."""
