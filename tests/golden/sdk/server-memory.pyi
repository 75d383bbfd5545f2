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


class CreateEntitiesEntitiesItem(TypedDict):
    # The name of the entity
    name: str
    # The type of the entity
    entityType: str
    # An array of observation contents associated with the entity
    observations: list[str]


class CreateEntitiesOutputEntitiesItem(TypedDict):
    # The name of the entity
    name: str
    # The type of the entity
    entityType: str
    # An array of observation contents associated with the entity
    observations: list[str]


class CreateEntitiesOutput(TypedDict):
    entities: list[CreateEntitiesOutputEntitiesItem]


CreateRelationsRelationsItem = TypedDict("CreateRelationsRelationsItem", {
    # The name of the entity where the relation starts
    "from": str,
    # The name of the entity where the relation ends
    "to": str,
    # The type of the relation
    "relationType": str,
})


CreateRelationsOutputRelationsItem = TypedDict("CreateRelationsOutputRelationsItem", {
    # The name of the entity where the relation starts
    "from": str,
    # The name of the entity where the relation ends
    "to": str,
    # The type of the relation
    "relationType": str,
})


class CreateRelationsOutput(TypedDict):
    relations: list[CreateRelationsOutputRelationsItem]


class AddObservationsObservationsItem(TypedDict):
    # The name of the entity to add the observations to
    entityName: str
    # An array of observation contents to add
    contents: list[str]


class AddObservationsOutputResultsItem(TypedDict):
    entityName: str
    addedObservations: list[str]


class AddObservationsOutput(TypedDict):
    results: list[AddObservationsOutputResultsItem]


class DeleteEntitiesOutput(TypedDict):
    success: bool
    message: str


class DeleteObservationsDeletionsItem(TypedDict):
    # The name of the entity containing the observations
    entityName: str
    # An array of observations to delete
    observations: list[str]


class DeleteObservationsOutput(TypedDict):
    success: bool
    message: str


DeleteRelationsRelationsItem = TypedDict("DeleteRelationsRelationsItem", {
    # The name of the entity where the relation starts
    "from": str,
    # The name of the entity where the relation ends
    "to": str,
    # The type of the relation
    "relationType": str,
})


class DeleteRelationsOutput(TypedDict):
    success: bool
    message: str


class ReadGraphOutputEntitiesItem(TypedDict):
    # The name of the entity
    name: str
    # The type of the entity
    entityType: str
    # An array of observation contents associated with the entity
    observations: list[str]


ReadGraphOutputRelationsItem = TypedDict("ReadGraphOutputRelationsItem", {
    # The name of the entity where the relation starts
    "from": str,
    # The name of the entity where the relation ends
    "to": str,
    # The type of the relation
    "relationType": str,
})


class ReadGraphOutput(TypedDict):
    entities: list[ReadGraphOutputEntitiesItem]
    relations: list[ReadGraphOutputRelationsItem]


class SearchNodesOutputEntitiesItem(TypedDict):
    # The name of the entity
    name: str
    # The type of the entity
    entityType: str
    # An array of observation contents associated with the entity
    observations: list[str]


SearchNodesOutputRelationsItem = TypedDict("SearchNodesOutputRelationsItem", {
    # The name of the entity where the relation starts
    "from": str,
    # The name of the entity where the relation ends
    "to": str,
    # The type of the relation
    "relationType": str,
})


class SearchNodesOutput(TypedDict):
    entities: list[SearchNodesOutputEntitiesItem]
    relations: list[SearchNodesOutputRelationsItem]


class OpenNodesOutputEntitiesItem(TypedDict):
    # The name of the entity
    name: str
    # The type of the entity
    entityType: str
    # An array of observation contents associated with the entity
    observations: list[str]


OpenNodesOutputRelationsItem = TypedDict("OpenNodesOutputRelationsItem", {
    # The name of the entity where the relation starts
    "from": str,
    # The name of the entity where the relation ends
    "to": str,
    # The type of the relation
    "relationType": str,
})


class OpenNodesOutput(TypedDict):
    entities: list[OpenNodesOutputEntitiesItem]
    relations: list[OpenNodesOutputRelationsItem]


class _Tools:
    def __getitem__(self, name: str) -> Callable[..., Awaitable[Any]]:
        """Any tool by its exact name, for names that are not identifiers: `await tools["my-tool"](arg=1)`."""

    async def create_entities(
        self,
        *,
        entities: list[CreateEntitiesEntitiesItem],
    ) -> CreateEntitiesOutput:
        """Create multiple new entities in the knowledge graph"""

    async def create_relations(
        self,
        *,
        relations: list[CreateRelationsRelationsItem],
    ) -> CreateRelationsOutput:
        """Create multiple new relations between entities in the knowledge graph. Relations should be in active voice
        """

    async def add_observations(
        self,
        *,
        observations: list[AddObservationsObservationsItem],
    ) -> AddObservationsOutput:
        """Add new observations to existing entities in the knowledge graph"""

    async def delete_entities(self, *, entityNames: list[str]) -> DeleteEntitiesOutput:
        """Delete multiple entities and their associated relations from the knowledge graph

        Args:
            entityNames: An array of entity names to delete
        """

    async def delete_observations(
        self,
        *,
        deletions: list[DeleteObservationsDeletionsItem],
    ) -> DeleteObservationsOutput:
        """Delete specific observations from entities in the knowledge graph"""

    async def delete_relations(
        self,
        *,
        relations: list[DeleteRelationsRelationsItem],
    ) -> DeleteRelationsOutput:
        """Delete multiple relations from the knowledge graph

        Args:
            relations: An array of relations to delete
        """

    async def read_graph(self) -> ReadGraphOutput:
        """Read the entire knowledge graph

        Read-only.
        """

    async def search_nodes(self, *, query: str) -> SearchNodesOutput:
        """Search for nodes in the knowledge graph based on a query

        Read-only.

        Args:
            query: The search query to match against entity names, types, and observation content
        """

    async def open_nodes(self, *, names: list[str]) -> OpenNodesOutput:
        """Open specific nodes in the knowledge graph by their names

        Read-only.

        Args:
            names: An array of entity names to retrieve
        """


tools: _Tools
"""Every tool, as an async method; optional arguments left as None are not sent."""
