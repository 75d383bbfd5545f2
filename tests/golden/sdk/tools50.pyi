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


class EchoOutput(TypedDict):
    # The value that was sent.
    value: Any


class SleepOutput(TypedDict):
    slept: int


class GetRowsOutputItem(TypedDict):
    id: int
    name: str
    score: float
    # (minItems: 3; maxItems: 3)
    tags: list[str]


class DeleteBucketStatus2(TypedDict):
    kind: Literal["ref"]
    id: str


class DeleteBucketStatus3Value(TypedDict):
    # The reason to use (see the service docs for allowed values).
    reason: list[str]
    account: NotRequired[str]


class DeleteBucketStatus3(TypedDict):
    kind: Literal["inline"]
    value: DeleteBucketStatus3Value


class DeleteBucketPathBranch(TypedDict):
    """The branch to use."""
    # The branch to use (see the service docs for allowed values).
    branch: str | None
    # The version to use. (maxItems: 36)
    version: NotRequired[list[str]]


class DeleteBucketPath(TypedDict):
    """The path to use (see the service docs for allowed values)."""
    # The path to use. (default: "created")
    path: Literal["created", "updated", "popularity", "long-running"]
    # The status to use. (maxItems: 28)
    status: NotRequired[list[str]]
    # The owner to use. (minimum: 0; maximum: 1)
    owner: float
    # The offset to use.
    offset: NotRequired[str]
    # The branch to use.
    branch: NotRequired[DeleteBucketPathBranch]


class DeleteBucketTimezoneItemPath2(TypedDict):
    kind: Literal["ref"]
    id: str


class DeleteBucketTimezoneItemPath3Value(TypedDict):
    # The path to use.
    path: Literal["public", "private", "internal"]
    # The format to use.
    format: NotRequired[str | None]


class DeleteBucketTimezoneItemPath3(TypedDict):
    kind: Literal["inline"]
    value: DeleteBucketTimezoneItemPath3Value


class DeleteBucketTimezoneItemLabel2(TypedDict):
    kind: Literal["ref"]
    id: str


class DeleteBucketTimezoneItemLabel3Value(TypedDict):
    # The color to use.
    color: Literal["USD", "EUR", "GBP", "JPY", "CHF"]
    # The query to use (see the service docs for allowed values). (default: true)
    query: NotRequired[bool]


class DeleteBucketTimezoneItemLabel3(TypedDict):
    kind: Literal["inline"]
    value: DeleteBucketTimezoneItemLabel3Value


class DeleteBucketTimezoneItem(TypedDict):
    path: str | DeleteBucketTimezoneItemPath2 | DeleteBucketTimezoneItemPath3
    # The label to use.
    label: str | DeleteBucketTimezoneItemLabel2 | DeleteBucketTimezoneItemLabel3
    # The currency to use (see the service docs for allowed values). (minimum: 0)
    currency: NotRequired[float]


class DeleteBucketOutput(TypedDict):
    """The result."""
    # The email to use.
    email: str | None
    # The color to use.
    color: NotRequired[str]


class SalesforceMergeTaskPath2(TypedDict):
    kind: Literal["ref"]
    id: str


class SalesforceMergeTaskPath3ValuePrimaryItem(TypedDict):
    # The format to use (see the service docs for allowed values). (minimum: -100; maximum: 81129)
    format: int
    # The reason to use. (minimum: 0; maximum: 11088)
    reason: NotRequired[int]
    # The until to use. (default: "low")
    until: NotRequired[Literal["low", "medium", "high", "urgent"]]


class SalesforceMergeTaskPath3Value(TypedDict):
    # The primary to use (see the service docs for allowed values).
    primary: list[SalesforceMergeTaskPath3ValuePrimaryItem]
    # The path to use (see the service docs for allowed values).
    path: NotRequired[list[str]]


class SalesforceMergeTaskPath3(TypedDict):
    kind: Literal["inline"]
    value: SalesforceMergeTaskPath3Value


class SalesforceMergeTaskSince2(TypedDict):
    kind: Literal["ref"]
    id: str


class SalesforceMergeTaskSince3ValueOwnerItem(TypedDict):
    # The offset to use (see the service docs for allowed values).
    offset: str | None
    # (default: "public")
    visibility: NotRequired[Literal["public", "private", "internal"]]


class SalesforceMergeTaskSince3Value(TypedDict):
    # The offset to use. (default: "open")
    offset: Literal["open", "closed", "all"]
    # The owner to use.
    owner: list[SalesforceMergeTaskSince3ValueOwnerItem]


class SalesforceMergeTaskSince3(TypedDict):
    kind: Literal["inline"]
    value: SalesforceMergeTaskSince3Value


class GmailRefundTeamLimitItem(TypedDict):
    # The body to use. (minLength: 1; maxLength: 3008)
    body: str
    # The email to use.
    email: NotRequired[str | None]
    # (minLength: 1; maxLength: 828)
    primary: str
    # The amount to use.
    amount: NotRequired[str | None]


class GmailRefundTeamOffset2(TypedDict):
    kind: Literal["ref"]
    id: str


class GmailRefundTeamOffset3Value(TypedDict):
    # The path to use. (minLength: 1; maxLength: 2051)
    path: str
    # The visibility to use. (format: uri; minLength: 1; maxLength: 4035)
    visibility: NotRequired[str]


class GmailRefundTeamOffset3(TypedDict):
    kind: Literal["inline"]
    value: GmailRefundTeamOffset3Value


class GmailRefundTeamOutputWorkspace(TypedDict):
    """The workspace to use."""
    # (minimum: 1; maximum: 30515)
    notes: int
    # The body to use.
    body: NotRequired[str]
    # The workspace to use (see the service docs for allowed values). (default: true)
    workspace: bool


class GmailRefundTeamOutput(TypedDict):
    """The result."""
    # The priority to use. (minimum: 1; maximum: 56075)
    priority: int
    label: NotRequired[str | None]
    # (format: uri)
    body: str
    # The workspace to use.
    workspace: NotRequired[GmailRefundTeamOutputWorkspace]


class DeleteBucket6PathItemBodyItem(TypedDict):
    # The region to use.
    region: list[str]
    # The locale to use.
    locale: list[str]


class DeleteBucket6PathItemQuery(TypedDict):
    # The priority to use (see the service docs for allowed values). (minimum: -100; maximum: 87835)
    priority: int
    # The since to use.
    since: str | None


class DeleteBucket6PathItem(TypedDict):
    # The body to use.
    body: list[DeleteBucket6PathItemBodyItem]
    # The timezone to use (see the service docs for allowed values). (default: "public")
    timezone: NotRequired[Literal["public", "private", "internal"]]
    query: DeleteBucket6PathItemQuery


class DeleteBucket6OutputItemTitle2(TypedDict):
    kind: Literal["ref"]
    id: str


class DeleteBucket6OutputItemTitle3Value(TypedDict):
    # The timezone to use. (minimum: 1; maximum: 2135)
    timezone: int
    # The priority to use. (maxItems: 29)
    priority: NotRequired[list[str]]


class DeleteBucket6OutputItemTitle3(TypedDict):
    kind: Literal["inline"]
    value: DeleteBucket6OutputItemTitle3Value


class DeleteBucket6OutputItem(TypedDict):
    # The cursor to use. (minLength: 1; maxLength: 3583)
    cursor: str
    # The color to use. (default: false)
    color: NotRequired[bool]
    title: NotRequired[str | DeleteBucket6OutputItemTitle2 | DeleteBucket6OutputItemTitle3]


class CloudflareRefundUserVersionItem(TypedDict):
    # (default: false)
    timezone: bool
    # The title to use. (minimum: 0)
    title: NotRequired[float]


class CloudflareRefundUserOutputStatusItem(TypedDict):
    # The primary to use.
    primary: str | None
    # The limit to use. (minimum: 1; maximum: 53936)
    limit: NotRequired[int]
    # The version to use.
    version: Literal["open", "closed", "all"]


class CloudflareRefundUserOutputUntil2(TypedDict):
    kind: Literal["ref"]
    id: str


class CloudflareRefundUserOutputUntil3Value(TypedDict):
    # The timezone to use (see the service docs for allowed values).
    timezone: str | None
    title: NotRequired[Literal["json", "csv", "xml", "yaml"]]


class CloudflareRefundUserOutputUntil3(TypedDict):
    kind: Literal["inline"]
    value: CloudflareRefundUserOutputUntil3Value


class CloudflareRefundUserOutput(TypedDict):
    """The result."""
    # The reason to use. (default: "asc")
    reason: Literal["asc", "desc"]
    # The amount to use (see the service docs for allowed values). (minLength: 1; maxLength: 2085)
    amount: str
    # The status to use.
    status: list[CloudflareRefundUserOutputStatusItem]
    # The until to use.
    until: NotRequired[str | CloudflareRefundUserOutputUntil2 | CloudflareRefundUserOutputUntil3]
    # The locale to use (see the service docs for allowed values).
    locale: NotRequired[str | None]


class ShopifySearchWebhookFormatItemQueryItem(TypedDict):
    # The path to use (see the service docs for allowed values).
    path: Literal["USD", "EUR", "GBP", "JPY", "CHF"]
    # (default: "created")
    limit: NotRequired[Literal["created", "updated", "popularity", "long-running"]]


class ShopifySearchWebhookFormatItem(TypedDict):
    # The color to use. (minimum: 0)
    color: float
    # The query to use.
    query: NotRequired[list[ShopifySearchWebhookFormatItemQueryItem]]
    # (minimum: 0; maximum: 53666)
    branch: NotRequired[int]


class ShopifySearchWebhookStatus2(TypedDict):
    kind: Literal["ref"]
    id: str


class ShopifySearchWebhookStatus3ValueCurrencyItem(TypedDict):
    # The body to use. (minimum: 1; maximum: 8910)
    body: int
    url: NotRequired[str]
    # The account to use.
    account: Literal["public", "private", "internal"]


class ShopifySearchWebhookStatus3Value(TypedDict):
    # The label to use (see the service docs for allowed values).
    label: str
    # The currency to use.
    currency: NotRequired[list[ShopifySearchWebhookStatus3ValueCurrencyItem]]


class ShopifySearchWebhookStatus3(TypedDict):
    kind: Literal["inline"]
    value: ShopifySearchWebhookStatus3Value


class RefundBoardOwner2(TypedDict):
    kind: Literal["ref"]
    id: str


class RefundBoardOwner3Value(TypedDict):
    # The email to use.
    email: str | None
    # The label to use (see the service docs for allowed values). (default: "public")
    label: NotRequired[Literal["public", "private", "internal"]]


class RefundBoardOwner3(TypedDict):
    kind: Literal["inline"]
    value: RefundBoardOwner3Value


class RefundBoardOutputItemUntil2(TypedDict):
    kind: Literal["ref"]
    id: str


class RefundBoardOutputItemUntil3Value(TypedDict):
    # The body to use. (minLength: 1; maxLength: 2566)
    body: str
    # The label to use (see the service docs for allowed values).
    label: NotRequired[str | None]


class RefundBoardOutputItemUntil3(TypedDict):
    kind: Literal["inline"]
    value: RefundBoardOutputItemUntil3Value


class RefundBoardOutputItem(TypedDict):
    # The branch to use.
    branch: list[str]
    # The until to use (see the service docs for allowed values).
    until: str | RefundBoardOutputItemUntil2 | RefundBoardOutputItemUntil3
    # The cursor to use.
    cursor: NotRequired[list[str]]


class ShopifyMergePullRequestUntilItemCursor(TypedDict):
    region: list[str]
    # The timezone to use (see the service docs for allowed values).
    timezone: NotRequired[str | None]
    # The format to use.
    format: NotRequired[Literal["draft", "published", "archived", "deleted"]]
    # The since to use.
    since: NotRequired[list[str]]


class ShopifyMergePullRequestUntilItem(TypedDict):
    cursor: ShopifyMergePullRequestUntilItemCursor
    # The label to use. (default: false)
    label: bool


class SyncOrderCursor(TypedDict):
    """The cursor to use (see the service docs for allowed values)."""
    # The visibility to use. (format: email)
    visibility: str
    # The branch to use.
    branch: str | None
    # The offset to use.
    offset: NotRequired[str | None]


class SyncOrderColor(TypedDict):
    """The color to use."""
    # The branch to use.
    branch: str | None
    # The limit to use. (default: false)
    limit: NotRequired[bool]
    # The cursor to use (see the service docs for allowed values).
    cursor: NotRequired[str | None]


class SyncOrderStatusItemUrl(TypedDict):
    """The url to use."""
    # The account to use.
    account: str | None
    # The limit to use. (default: true)
    limit: NotRequired[bool]
    # The cursor to use (see the service docs for allowed values). (default: "public")
    cursor: NotRequired[Literal["public", "private", "internal"]]
    # (minimum: -100; maximum: 53791)
    label: NotRequired[int]


class SyncOrderStatusItem(TypedDict):
    # The url to use.
    url: SyncOrderStatusItemUrl
    # The path to use.
    path: NotRequired[str]


class SyncOrderPath2(TypedDict):
    kind: Literal["ref"]
    id: str


class SyncOrderPath3ValueColor2(TypedDict):
    kind: Literal["ref"]
    id: str


class SyncOrderPath3ValueColor3Value(TypedDict):
    # The since to use. (minimum: 0; maximum: 81976)
    since: int
    # (minimum: 1; maximum: 82497)
    title: NotRequired[int]


class SyncOrderPath3ValueColor3(TypedDict):
    kind: Literal["inline"]
    value: SyncOrderPath3ValueColor3Value


class SyncOrderPath3ValueLocale(TypedDict):
    """The locale to use."""
    # The body to use (see the service docs for allowed values).
    body: Literal["low", "medium", "high", "urgent"]
    # The locale to use. (minimum: -100; maximum: 47340)
    locale: int
    # The email to use. (format: email)
    email: NotRequired[str]
    # The workspace to use. (format: uri)
    workspace: NotRequired[str]
    # The notes to use.
    notes: NotRequired[str | None]


class SyncOrderPath3Value(TypedDict):
    # The color to use.
    color: str | SyncOrderPath3ValueColor2 | SyncOrderPath3ValueColor3
    # The locale to use.
    locale: NotRequired[SyncOrderPath3ValueLocale]


class SyncOrderPath3(TypedDict):
    kind: Literal["inline"]
    value: SyncOrderPath3Value


class SyncOrderOutputReason(TypedDict):
    """The reason to use."""
    # The format to use. (maxItems: 43)
    format: list[str]
    # The until to use (see the service docs for allowed values). (default: false)
    until: NotRequired[bool]
    # The limit to use.
    limit: str | None
    # The priority to use. (minLength: 1; maxLength: 1050)
    priority: NotRequired[str]
    primary: NotRequired[list[str]]


class SyncOrderOutput(TypedDict):
    """The result."""
    # The reason to use.
    reason: SyncOrderOutputReason
    # The visibility to use (see the service docs for allowed values). (minimum: 1; maximum: 84797)
    visibility: NotRequired[int]
    # (format: uuid)
    color: NotRequired[str]
    # (minimum: 0)
    label: NotRequired[float]


class K8sCancelProjectOwner2(TypedDict):
    kind: Literal["ref"]
    id: str


class K8sCancelProjectOwner3ValueLimitItem(TypedDict):
    # (default: true)
    workspace: bool
    # The cursor to use.
    cursor: str | None
    # The query to use.
    query: NotRequired[str | None]
    # The body to use.
    body: NotRequired[Literal["USD", "EUR", "GBP", "JPY", "CHF"]]


class K8sCancelProjectOwner3Value(TypedDict):
    # The limit to use (see the service docs for allowed values).
    limit: list[K8sCancelProjectOwner3ValueLimitItem]
    # The cursor to use (see the service docs for allowed values).
    cursor: str | None


class K8sCancelProjectOwner3(TypedDict):
    kind: Literal["inline"]
    value: K8sCancelProjectOwner3Value


class K8sCancelProjectUntilPath2(TypedDict):
    kind: Literal["ref"]
    id: str


class K8sCancelProjectUntilPath3Value(TypedDict):
    # The owner to use.
    owner: str | None
    # The region to use. (default: true)
    region: NotRequired[bool]


class K8sCancelProjectUntilPath3(TypedDict):
    kind: Literal["inline"]
    value: K8sCancelProjectUntilPath3Value


class K8sCancelProjectUntilUrl2(TypedDict):
    kind: Literal["ref"]
    id: str


class K8sCancelProjectUntilUrl3Value(TypedDict):
    # The body to use (see the service docs for allowed values). (minimum: 1; maximum: 93948)
    body: int
    # The until to use.
    until: Literal["open", "closed", "all"]


class K8sCancelProjectUntilUrl3(TypedDict):
    kind: Literal["inline"]
    value: K8sCancelProjectUntilUrl3Value


class K8sCancelProjectUntil(TypedDict):
    """The until to use."""
    # The status to use. (maxItems: 35)
    status: list[str]
    # (default: false)
    title: NotRequired[bool]
    # The path to use (see the service docs for allowed values).
    path: NotRequired[str | K8sCancelProjectUntilPath2 | K8sCancelProjectUntilPath3]
    # The url to use.
    url: str | K8sCancelProjectUntilUrl2 | K8sCancelProjectUntilUrl3


class K8sCancelProjectPriority2(TypedDict):
    kind: Literal["ref"]
    id: str


class K8sCancelProjectPriority3Value(TypedDict):
    # (default: "public")
    region: Literal["public", "private", "internal"]
    # The currency to use. (minimum: 0; maximum: 1)
    currency: float


class K8sCancelProjectPriority3(TypedDict):
    kind: Literal["inline"]
    value: K8sCancelProjectPriority3Value


class K8sCancelProjectSinceRegion(TypedDict):
    """The region to use."""
    # The body to use (see the service docs for allowed values). (format: email)
    body: str
    # (maxItems: 4)
    offset: NotRequired[list[str]]
    # The branch to use. (default: true)
    branch: NotRequired[bool]


class K8sCancelProjectSince(TypedDict):
    """The since to use."""
    # The region to use.
    region: K8sCancelProjectSinceRegion
    # The version to use.
    version: NotRequired[str]
    # The query to use (see the service docs for allowed values). (minimum: -100; maximum: 34095)
    query: int


class K8sCancelProjectOutput(TypedDict):
    """The result."""
    # The format to use. (format: uuid)
    format: str
    # The url to use.
    url: NotRequired[str]


class K8sArchiveWebhookOutputLocale(TypedDict):
    """The locale to use (see the service docs for allowed values)."""
    # The locale to use (see the service docs for allowed values). (minLength: 1; maxLength: 3029)
    locale: str
    # The notes to use. (format: date)
    notes: NotRequired[str]
    # (default: "created")
    priority: NotRequired[Literal["created", "updated", "popularity", "long-running"]]
    # The timezone to use. (default: true)
    timezone: bool
    # The format to use.
    format: NotRequired[list[str]]


class K8sArchiveWebhookOutput(TypedDict):
    """The result."""
    # The url to use (see the service docs for allowed values).
    url: str | None
    # The visibility to use (see the service docs for allowed values). (minimum: 0; maximum: 1)
    visibility: NotRequired[float]
    # The branch to use (see the service docs for allowed values). (maxItems: 44)
    branch: NotRequired[list[str]]
    # The format to use. (default: false)
    format: bool
    # The locale to use (see the service docs for allowed values).
    locale: NotRequired[K8sArchiveWebhookOutputLocale]


class UpdateProjectLabel2(TypedDict):
    kind: Literal["ref"]
    id: str


class UpdateProjectLabel3Value(TypedDict):
    # The currency to use.
    currency: str
    # The workspace to use. (maxItems: 45)
    workspace: NotRequired[list[str]]


class UpdateProjectLabel3(TypedDict):
    kind: Literal["inline"]
    value: UpdateProjectLabel3Value


class UpdateProjectQuery2(TypedDict):
    kind: Literal["ref"]
    id: str


class UpdateProjectQuery3ValueVisibilityItem(TypedDict):
    # The body to use. (minimum: -100; maximum: 1633)
    body: int
    # (default: "draft")
    primary: NotRequired[Literal["draft", "published", "archived", "deleted"]]


class UpdateProjectQuery3Value(TypedDict):
    visibility: list[UpdateProjectQuery3ValueVisibilityItem]
    # The offset to use. (minimum: 0)
    offset: float


class UpdateProjectQuery3(TypedDict):
    kind: Literal["inline"]
    value: UpdateProjectQuery3Value


class UpdateProjectOutputEmail(TypedDict):
    """The email to use."""
    # The until to use.
    until: Literal["created", "updated", "popularity", "long-running"]
    # The email to use. (default: false)
    email: NotRequired[bool]


class UpdateProjectOutputVersionItem(TypedDict):
    # The workspace to use.
    workspace: str | None
    # The label to use. (default: true)
    label: bool
    region: NotRequired[str]


class UpdateProjectOutputReason2(TypedDict):
    kind: Literal["ref"]
    id: str


class UpdateProjectOutputReason3Value(TypedDict):
    # (minimum: 1; maximum: 82768)
    path: int
    label: NotRequired[str | None]


class UpdateProjectOutputReason3(TypedDict):
    kind: Literal["inline"]
    value: UpdateProjectOutputReason3Value


class UpdateProjectOutput(TypedDict):
    """The result."""
    # The email to use.
    email: UpdateProjectOutputEmail
    # The cursor to use (see the service docs for allowed values).
    cursor: NotRequired[str | None]
    # The currency to use. (default: true)
    currency: NotRequired[bool]
    # The version to use.
    version: list[UpdateProjectOutputVersionItem]
    # The reason to use (see the service docs for allowed values).
    reason: str | UpdateProjectOutputReason2 | UpdateProjectOutputReason3


class FigmaSendTicketFormatItemBranchItem(TypedDict):
    # The title to use (see the service docs for allowed values).
    title: list[str]
    # (default: true)
    cursor: bool


class FigmaSendTicketFormatItem(TypedDict):
    branch: list[FigmaSendTicketFormatItemBranchItem]
    # The version to use. (minimum: 0; maximum: 27630)
    version: int
    # The label to use. (minimum: -100; maximum: 57125)
    label: int


class FigmaSendTicketTitle(TypedDict):
    """The title to use (see the service docs for allowed values)."""
    # The region to use. (minimum: -100; maximum: 37356)
    region: int
    # The limit to use.
    limit: NotRequired[Literal["created", "updated", "popularity", "long-running"]]
    # The until to use (see the service docs for allowed values). (minimum: 1; maximum: 92126)
    until: NotRequired[int]
    # (minimum: 0; maximum: 17184)
    body: NotRequired[int]


class FigmaSendTicketOutputItemPath(TypedDict):
    """The path to use."""
    # The priority to use. (minimum: 1; maximum: 15578)
    priority: int
    # The version to use (see the service docs for allowed values). (minimum: 1; maximum: 67849)
    version: NotRequired[int]
    # The timezone to use (see the service docs for allowed values).
    timezone: NotRequired[str | None]
    # The limit to use.
    limit: NotRequired[Literal["open", "closed", "all"]]


class FigmaSendTicketOutputItem(TypedDict):
    # The version to use. (minimum: -100; maximum: 73705)
    version: int
    # The region to use.
    region: NotRequired[str | None]
    # The path to use.
    path: NotRequired[FigmaSendTicketOutputItemPath]
    # The body to use.
    body: str | None


class ShopifyCloseBoardCurrency2(TypedDict):
    kind: Literal["ref"]
    id: str


class ShopifyCloseBoardCurrency3ValuePriority2(TypedDict):
    kind: Literal["ref"]
    id: str


class ShopifyCloseBoardCurrency3ValuePriority3Value(TypedDict):
    # The workspace to use (see the service docs for allowed values). (format: date-time)
    workspace: str
    # The query to use.
    query: str


class ShopifyCloseBoardCurrency3ValuePriority3(TypedDict):
    kind: Literal["inline"]
    value: ShopifyCloseBoardCurrency3ValuePriority3Value


class ShopifyCloseBoardCurrency3Value(TypedDict):
    # The title to use. (format: uuid)
    title: str
    # The priority to use (see the service docs for allowed values).
    priority: str | ShopifyCloseBoardCurrency3ValuePriority2 | ShopifyCloseBoardCurrency3ValuePriority3


class ShopifyCloseBoardCurrency3(TypedDict):
    kind: Literal["inline"]
    value: ShopifyCloseBoardCurrency3Value


class ShopifyCloseBoardPrimaryItem(TypedDict):
    region: list[str]
    # The format to use.
    format: NotRequired[str | None]
    # The branch to use (see the service docs for allowed values). (minimum: 1; maximum: 94918)
    branch: NotRequired[int]


class DeleteEventNotes2(TypedDict):
    kind: Literal["ref"]
    id: str


class DeleteEventNotes3ValueLabelItem(TypedDict):
    # (default: true)
    version: bool
    # The label to use.
    label: NotRequired[str | None]
    # The account to use.
    account: NotRequired[list[str]]


class DeleteEventNotes3Value(TypedDict):
    # The cursor to use. (minimum: 0; maximum: 1)
    cursor: float
    # The label to use.
    label: NotRequired[list[DeleteEventNotes3ValueLabelItem]]


class DeleteEventNotes3(TypedDict):
    kind: Literal["inline"]
    value: DeleteEventNotes3Value


class DeleteEventAmount2(TypedDict):
    kind: Literal["ref"]
    id: str


class DeleteEventAmount3Value(TypedDict):
    # (minimum: 0; maximum: 1)
    primary: float
    # The body to use. (format: uuid)
    body: NotRequired[str]


class DeleteEventAmount3(TypedDict):
    kind: Literal["inline"]
    value: DeleteEventAmount3Value


class DeleteEventOutput(TypedDict):
    """The result."""
    # The priority to use. (maxItems: 24)
    priority: list[str]
    # The query to use (see the service docs for allowed values).
    query: NotRequired[list[str]]
    # The amount to use (see the service docs for allowed values). (minimum: 0)
    amount: NotRequired[float]


class ResolveTeamWorkspace2(TypedDict):
    kind: Literal["ref"]
    id: str


class ResolveTeamWorkspace3Value(TypedDict):
    # The color to use.
    color: str
    # The title to use. (default: false)
    title: bool


class ResolveTeamWorkspace3(TypedDict):
    kind: Literal["inline"]
    value: ResolveTeamWorkspace3Value


class ResolveTeamPrimaryItemLimitItem(TypedDict):
    # The email to use. (default: "draft")
    email: Literal["draft", "published", "archived", "deleted"]
    # The currency to use. (default: true)
    currency: NotRequired[bool]
    format: str
    # The reason to use. (minimum: 1; maximum: 37775)
    reason: NotRequired[int]


class ResolveTeamPrimaryItem(TypedDict):
    # The version to use.
    version: str
    limit: NotRequired[list[ResolveTeamPrimaryItemLimitItem]]
    # The title to use. (default: false)
    title: NotRequired[bool]


class CloudflareImportDomainTitle(TypedDict):
    """The title to use."""
    # The format to use. (minLength: 1; maxLength: 791)
    format: str
    # The offset to use (see the service docs for allowed values). (minimum: 0; maximum: 1)
    offset: NotRequired[float]


class PagerdutySyncUserSinceItem(TypedDict):
    format: str
    # The notes to use. (format: date; minLength: 1; maxLength: 606)
    notes: str
    # The owner to use.
    owner: NotRequired[str | None]


class PagerdutySyncUserVersion2(TypedDict):
    kind: Literal["ref"]
    id: str


class PagerdutySyncUserVersion3ValueWorkspace2(TypedDict):
    kind: Literal["ref"]
    id: str


class PagerdutySyncUserVersion3ValueWorkspace3Value(TypedDict):
    # The url to use.
    url: str
    # The visibility to use. (minimum: -100; maximum: 67253)
    visibility: NotRequired[int]


class PagerdutySyncUserVersion3ValueWorkspace3(TypedDict):
    kind: Literal["inline"]
    value: PagerdutySyncUserVersion3ValueWorkspace3Value


class PagerdutySyncUserVersion3Value(TypedDict):
    # (default: false)
    since: bool
    # The workspace to use.
    workspace: NotRequired[str | PagerdutySyncUserVersion3ValueWorkspace2 | PagerdutySyncUserVersion3ValueWorkspace3]


class PagerdutySyncUserVersion3(TypedDict):
    kind: Literal["inline"]
    value: PagerdutySyncUserVersion3Value


class PagerdutySyncUserCursor(TypedDict):
    """The cursor to use."""
    # The visibility to use (see the service docs for allowed values). (minLength: 1; maxLength: 2900)
    visibility: str
    # The priority to use.
    priority: str


class PagerdutySyncUserOutputOffsetItem(TypedDict):
    # The cursor to use. (minLength: 1; maxLength: 579)
    cursor: str
    # (default: false)
    priority: NotRequired[bool]


class PagerdutySyncUserOutput(TypedDict):
    """The result."""
    # The since to use (see the service docs for allowed values). (minLength: 1; maxLength: 2958)
    since: str
    offset: list[PagerdutySyncUserOutputOffsetItem]
    # The currency to use. (default: "created")
    currency: NotRequired[Literal["created", "updated", "popularity", "long-running"]]


class ClosePageTitle2(TypedDict):
    kind: Literal["ref"]
    id: str


class ClosePageTitle3ValuePath(TypedDict):
    """The path to use."""
    # The region to use.
    region: Literal["created", "updated", "popularity", "long-running"]
    # (minimum: 1; maximum: 96475)
    locale: int
    # The notes to use.
    notes: NotRequired[str]
    # The color to use (see the service docs for allowed values).
    color: str | None


class ClosePageTitle3Value(TypedDict):
    # The path to use.
    path: ClosePageTitle3ValuePath
    # The branch to use (see the service docs for allowed values).
    branch: list[str]


class ClosePageTitle3(TypedDict):
    kind: Literal["inline"]
    value: ClosePageTitle3Value


class ClosePageOutputItem(TypedDict):
    # (default: true)
    owner: bool
    # (minimum: 1; maximum: 73494)
    email: NotRequired[int]
    # The reason to use (see the service docs for allowed values).
    reason: Literal["json", "csv", "xml", "yaml"]
    # The body to use.
    body: NotRequired[list[str]]


class NotionAssignProductUntil2(TypedDict):
    kind: Literal["ref"]
    id: str


class NotionAssignProductUntil3ValueVersion2(TypedDict):
    kind: Literal["ref"]
    id: str


class NotionAssignProductUntil3ValueVersion3Value(TypedDict):
    # The locale to use (see the service docs for allowed values). (default: false)
    locale: bool
    # The currency to use (see the service docs for allowed values). (default: true)
    currency: NotRequired[bool]


class NotionAssignProductUntil3ValueVersion3(TypedDict):
    kind: Literal["inline"]
    value: NotionAssignProductUntil3ValueVersion3Value


class NotionAssignProductUntil3ValueLabel(TypedDict):
    """The label to use."""
    # The account to use.
    account: str | None
    # The path to use (see the service docs for allowed values).
    path: Literal["low", "medium", "high", "urgent"]
    # The version to use. (format: email)
    version: NotRequired[str]


class NotionAssignProductUntil3Value(TypedDict):
    version: str | NotionAssignProductUntil3ValueVersion2 | NotionAssignProductUntil3ValueVersion3
    # The label to use.
    label: NotRequired[NotionAssignProductUntil3ValueLabel]


class NotionAssignProductUntil3(TypedDict):
    kind: Literal["inline"]
    value: NotionAssignProductUntil3Value


class NotionAssignProductVisibility2(TypedDict):
    kind: Literal["ref"]
    id: str


class NotionAssignProductVisibility3ValueRegion(TypedDict):
    # The currency to use. (minimum: 1; maximum: 42505)
    currency: int
    # The owner to use (see the service docs for allowed values). (minimum: 1; maximum: 82221)
    owner: NotRequired[int]
    # The primary to use. (default: "open")
    primary: NotRequired[Literal["open", "closed", "all"]]
    # The amount to use. (default: true)
    amount: bool


class NotionAssignProductVisibility3Value(TypedDict):
    region: NotionAssignProductVisibility3ValueRegion
    # The workspace to use.
    workspace: str


class NotionAssignProductVisibility3(TypedDict):
    kind: Literal["inline"]
    value: NotionAssignProductVisibility3Value


class NotionAssignProductLimitCurrency(TypedDict):
    """The currency to use."""
    priority: str
    # The offset to use (see the service docs for allowed values).
    offset: NotRequired[str]
    visibility: NotRequired[str | None]
    # The currency to use.
    currency: NotRequired[str | None]


class NotionAssignProductLimitWorkspace(TypedDict):
    """The workspace to use."""
    # The limit to use (see the service docs for allowed values). (maxItems: 9)
    limit: list[str]
    # The since to use.
    since: NotRequired[str | None]
    # The visibility to use.
    visibility: NotRequired[Literal["low", "medium", "high", "urgent"]]
    # The status to use. (maxItems: 11)
    status: list[str]


class NotionAssignProductLimit(TypedDict):
    """The limit to use (see the service docs for allowed values)."""
    # The offset to use (see the service docs for allowed values). (default: "open")
    offset: Literal["open", "closed", "all"]
    # The priority to use (see the service docs for allowed values).
    priority: NotRequired[str | None]
    # The currency to use.
    currency: NotRequired[NotionAssignProductLimitCurrency]
    # The workspace to use.
    workspace: NotionAssignProductLimitWorkspace


class NotionAssignProductRegion2(TypedDict):
    kind: Literal["ref"]
    id: str


class NotionAssignProductRegion3ValueEmail(TypedDict):
    """The email to use."""
    # The title to use. (format: date-time)
    title: str
    # The workspace to use (see the service docs for allowed values).
    workspace: Literal["open", "closed", "all"]


class NotionAssignProductRegion3Value(TypedDict):
    # The label to use (see the service docs for allowed values). (minimum: 1; maximum: 4188)
    label: int
    # The email to use.
    email: NotionAssignProductRegion3ValueEmail


class NotionAssignProductRegion3(TypedDict):
    kind: Literal["inline"]
    value: NotionAssignProductRegion3Value


class NotionAssignProductOutputAmount(TypedDict):
    """The amount to use."""
    # (minimum: 0; maximum: 86934)
    visibility: int
    # The currency to use (see the service docs for allowed values). (default: true)
    currency: bool


class NotionAssignProductOutput(TypedDict):
    """The result."""
    # (minimum: 0)
    query: float
    # The body to use (see the service docs for allowed values). (format: date-time)
    body: NotRequired[str]
    # The cursor to use. (minimum: 1; maximum: 31066)
    cursor: NotRequired[int]
    # The email to use.
    email: NotRequired[str | None]
    # The amount to use.
    amount: NotRequired[NotionAssignProductOutputAmount]


class LinearDeleteDeploymentQuery2(TypedDict):
    kind: Literal["ref"]
    id: str


class LinearDeleteDeploymentQuery3Value(TypedDict):
    # The amount to use. (minimum: 0; maximum: 18703)
    amount: int
    # The offset to use.
    offset: NotRequired[Literal["public", "private", "internal"]]


class LinearDeleteDeploymentQuery3(TypedDict):
    kind: Literal["inline"]
    value: LinearDeleteDeploymentQuery3Value


class LinearDeleteDeploymentLabelItem(TypedDict):
    # The format to use. (minLength: 1; maxLength: 2662)
    format: str
    # The account to use.
    account: NotRequired[str]
    body: NotRequired[list[str]]
    # The locale to use.
    locale: NotRequired[str]


class LinearDeleteDeploymentOwnerLabel(TypedDict):
    """The label to use."""
    format: str
    # The status to use. (default: true)
    status: NotRequired[bool]
    # The locale to use.
    locale: NotRequired[str | None]


class LinearDeleteDeploymentOwnerLimit(TypedDict):
    """The limit to use."""
    # The limit to use (see the service docs for allowed values).
    limit: str | None
    # The visibility to use.
    visibility: str | None
    # (minimum: 1; maximum: 6594)
    until: int


class LinearDeleteDeploymentOwner(TypedDict):
    """The owner to use (see the service docs for allowed values)."""
    # The label to use.
    label: LinearDeleteDeploymentOwnerLabel
    # The body to use. (default: true)
    body: NotRequired[bool]
    # The priority to use (see the service docs for allowed values).
    priority: NotRequired[Literal["json", "csv", "xml", "yaml"]]
    # The limit to use.
    limit: LinearDeleteDeploymentOwnerLimit
    email: Literal["asc", "desc"]


class AssignIssueLimitItemTimezone(TypedDict):
    """The timezone to use."""
    # The title to use. (minimum: -100; maximum: 54018)
    title: int
    # (minimum: 1; maximum: 5411)
    email: NotRequired[int]
    # The status to use.
    status: NotRequired[str | None]


class AssignIssueLimitItem(TypedDict):
    # The currency to use. (minLength: 1; maxLength: 3515)
    currency: str
    # The timezone to use.
    timezone: NotRequired[AssignIssueLimitItemTimezone]
    # The reason to use. (minimum: 1; maximum: 30628)
    reason: NotRequired[int]
    # The account to use (see the service docs for allowed values). (minimum: 0; maximum: 1)
    account: NotRequired[float]


class AssignIssueQuery2(TypedDict):
    kind: Literal["ref"]
    id: str


class AssignIssueQuery3Value(TypedDict):
    # The email to use.
    email: str | None
    # The format to use (see the service docs for allowed values).
    format: NotRequired[Literal["public", "private", "internal"]]


class AssignIssueQuery3(TypedDict):
    kind: Literal["inline"]
    value: AssignIssueQuery3Value


class AssignIssuePriorityItemSince(TypedDict):
    """The since to use."""
    # The visibility to use. (maxItems: 49)
    visibility: list[str]
    # The version to use. (default: "open")
    version: Literal["open", "closed", "all"]
    # The format to use.
    format: NotRequired[Literal["json", "csv", "xml", "yaml"]]


class AssignIssuePriorityItem(TypedDict):
    # The account to use (see the service docs for allowed values).
    account: list[str]
    # The region to use. (minimum: 0)
    region: NotRequired[float]
    # The primary to use. (minimum: 0; maximum: 54733)
    primary: int
    # The since to use.
    since: AssignIssuePriorityItemSince


class AssignIssueOutputItemQueryItem(TypedDict):
    # The notes to use (see the service docs for allowed values). (maxItems: 5)
    notes: list[str]
    # (minimum: 1; maximum: 31393)
    label: NotRequired[int]
    timezone: str | None
    # The status to use.
    status: NotRequired[str | None]


class AssignIssueOutputItemBranchItem(TypedDict):
    # (default: "created")
    url: Literal["created", "updated", "popularity", "long-running"]
    color: NotRequired[str | None]
    # The reason to use (see the service docs for allowed values).
    reason: NotRequired[str | None]


class AssignIssueOutputItem(TypedDict):
    # The currency to use. (default: true)
    currency: bool
    # The path to use.
    path: str | None
    # The query to use.
    query: NotRequired[list[AssignIssueOutputItemQueryItem]]
    branch: NotRequired[list[AssignIssueOutputItemBranchItem]]


class ShopifySyncPodVersionColor(TypedDict):
    """The color to use."""
    # The locale to use.
    locale: str
    version: NotRequired[str | None]
    # The url to use (see the service docs for allowed values). (minimum: -100; maximum: 89584)
    url: int


class ShopifySyncPodVersionVersion2(TypedDict):
    kind: Literal["ref"]
    id: str


class ShopifySyncPodVersionVersion3Value(TypedDict):
    # The offset to use. (default: false)
    offset: bool
    # The title to use. (default: "USD")
    title: Literal["USD", "EUR", "GBP", "JPY", "CHF"]


class ShopifySyncPodVersionVersion3(TypedDict):
    kind: Literal["inline"]
    value: ShopifySyncPodVersionVersion3Value


class ShopifySyncPodVersion(TypedDict):
    """The version to use."""
    # The color to use.
    color: ShopifySyncPodVersionColor
    # The amount to use.
    amount: NotRequired[list[str]]
    # The branch to use.
    branch: NotRequired[str]
    priority: NotRequired[list[str]]
    # The version to use.
    version: NotRequired[str | ShopifySyncPodVersionVersion2 | ShopifySyncPodVersionVersion3]


class ShopifySyncPodOutput(TypedDict):
    """The result."""
    # The account to use (see the service docs for allowed values). (minimum: 0; maximum: 1)
    account: float
    # The offset to use.
    offset: NotRequired[str | None]
    # The currency to use.
    currency: NotRequired[str | None]


class StripeGetFileVersionSince2(TypedDict):
    kind: Literal["ref"]
    id: str


class StripeGetFileVersionSince3Value(TypedDict):
    # The limit to use.
    limit: list[str]
    # The owner to use. (minimum: 1; maximum: 5677)
    owner: int


class StripeGetFileVersionSince3(TypedDict):
    kind: Literal["inline"]
    value: StripeGetFileVersionSince3Value


class StripeGetFileVersion(TypedDict):
    """The version to use."""
    # The since to use (see the service docs for allowed values).
    since: str | StripeGetFileVersionSince2 | StripeGetFileVersionSince3
    # The amount to use (see the service docs for allowed values).
    amount: NotRequired[list[str]]
    # The locale to use. (default: true)
    locale: NotRequired[bool]
    # (minimum: 0)
    account: NotRequired[float]


class StripeGetFileOutput(TypedDict):
    """The result."""
    # The amount to use (see the service docs for allowed values).
    amount: Literal["draft", "published", "archived", "deleted"]
    label: str
    # The reason to use (see the service docs for allowed values).
    reason: NotRequired[Literal["draft", "published", "archived", "deleted"]]


class GithubCreateIssueAssigneesItem(TypedDict):
    login: str
    role: NotRequired[Literal["owner", "reviewer"]]


class GithubCreateIssueOutput(TypedDict):
    number: int
    # (format: uri)
    url: str


class GithubSearchPodAccount2(TypedDict):
    kind: Literal["ref"]
    id: str


class GithubSearchPodAccount3ValueBranchItem(TypedDict):
    # The locale to use.
    locale: str | None
    # The region to use. (default: false)
    region: bool
    # The amount to use (see the service docs for allowed values).
    amount: NotRequired[str | None]
    # The cursor to use. (default: false)
    cursor: NotRequired[bool]


class GithubSearchPodAccount3Value(TypedDict):
    branch: list[GithubSearchPodAccount3ValueBranchItem]
    # The color to use. (minimum: 1; maximum: 62553)
    color: NotRequired[int]


class GithubSearchPodAccount3(TypedDict):
    kind: Literal["inline"]
    value: GithubSearchPodAccount3Value


class GithubSearchPodLabelVisibilityItem(TypedDict):
    locale: list[str]
    # The status to use. (format: email)
    status: NotRequired[str]
    # The until to use. (minimum: 1; maximum: 33642)
    until: NotRequired[int]


class GithubSearchPodLabel(TypedDict):
    """The label to use."""
    # The visibility to use.
    visibility: list[GithubSearchPodLabelVisibilityItem]
    # The offset to use. (format: uuid)
    offset: NotRequired[str]
    # The title to use. (minimum: 0; maximum: 11456)
    title: NotRequired[int]
    # The path to use.
    path: NotRequired[Literal["low", "medium", "high", "urgent"]]
    # The status to use (see the service docs for allowed values). (default: "public")
    status: Literal["public", "private", "internal"]


class GithubSearchPodStatusReason(TypedDict):
    """The reason to use."""
    # The until to use (see the service docs for allowed values). (minimum: 1; maximum: 15658)
    until: int
    # The account to use.
    account: str
    # The locale to use (see the service docs for allowed values). (default: false)
    locale: bool


class GithubSearchPodStatusPriorityItem(TypedDict):
    # The cursor to use (see the service docs for allowed values).
    cursor: str | None
    # The body to use. (format: uri)
    body: NotRequired[str]


class GithubSearchPodStatusCursor2(TypedDict):
    kind: Literal["ref"]
    id: str


class GithubSearchPodStatusCursor3Value(TypedDict):
    # The label to use. (format: date-time)
    label: str
    # The version to use (see the service docs for allowed values). (format: date; minLength: 1; maxLength: 3639)
    version: NotRequired[str]


class GithubSearchPodStatusCursor3(TypedDict):
    kind: Literal["inline"]
    value: GithubSearchPodStatusCursor3Value


class GithubSearchPodStatus(TypedDict):
    """The status to use."""
    # The reason to use.
    reason: GithubSearchPodStatusReason
    # The branch to use. (default: false)
    branch: NotRequired[bool]
    priority: NotRequired[list[GithubSearchPodStatusPriorityItem]]
    cursor: NotRequired[str | GithubSearchPodStatusCursor2 | GithubSearchPodStatusCursor3]


class GithubSearchPodOutput(TypedDict):
    """The result."""
    # The format to use (see the service docs for allowed values). (default: true)
    format: bool
    # The region to use.
    region: NotRequired[list[str]]
    # The offset to use (see the service docs for allowed values).
    offset: NotRequired[Literal["draft", "published", "archived", "deleted"]]


class SlackChatPostMessageThread(TypedDict):
    """Reply in a thread."""
    ts: str
    # (default: false)
    broadcast: NotRequired[bool]


class PagerdutyTicketDeleteBody2(TypedDict):
    kind: Literal["ref"]
    id: str


class PagerdutyTicketDeleteBody3Value(TypedDict):
    # The body to use.
    body: str | None
    # The timezone to use. (minimum: 0; maximum: 1)
    timezone: NotRequired[float]


class PagerdutyTicketDeleteBody3(TypedDict):
    kind: Literal["inline"]
    value: PagerdutyTicketDeleteBody3Value


class PagerdutyTicketDeleteOutputItemUntilItem(TypedDict):
    # The until to use.
    until: str | None
    # The email to use. (minimum: 0; maximum: 88795)
    email: NotRequired[int]
    # The url to use. (minimum: 0; maximum: 18096)
    url: NotRequired[int]


class PagerdutyTicketDeleteOutputItem(TypedDict):
    # The query to use.
    query: str | None
    until: list[PagerdutyTicketDeleteOutputItemUntilItem]
    # The since to use. (minimum: 0; maximum: 1)
    since: float


class GitlabSearchMetricPrimary2(TypedDict):
    kind: Literal["ref"]
    id: str


class GitlabSearchMetricPrimary3Value(TypedDict):
    # The region to use.
    region: str | None
    # The notes to use.
    notes: NotRequired[Literal["draft", "published", "archived", "deleted"]]


class GitlabSearchMetricPrimary3(TypedDict):
    kind: Literal["inline"]
    value: GitlabSearchMetricPrimary3Value


class GitlabSearchMetricTimezoneItem(TypedDict):
    # The path to use.
    path: Literal["json", "csv", "xml", "yaml"]
    # The since to use.
    since: NotRequired[str | None]


class GitlabOrderResolveUrlItemQuery(TypedDict):
    """The query to use."""
    # The since to use (see the service docs for allowed values). (default: "draft")
    since: Literal["draft", "published", "archived", "deleted"]
    # The version to use. (default: "created")
    version: NotRequired[Literal["created", "updated", "popularity", "long-running"]]
    # (minimum: 0; maximum: 78523)
    limit: NotRequired[int]
    # The branch to use. (minimum: -100; maximum: 48548)
    branch: NotRequired[int]


class GitlabOrderResolveUrlItem(TypedDict):
    # The branch to use. (minLength: 1; maxLength: 4020)
    branch: str
    # The query to use.
    query: GitlabOrderResolveUrlItemQuery
    # The format to use (see the service docs for allowed values). (default: true)
    format: bool


class OpenaiAssignWebhookAccountRegionItem(TypedDict):
    # The primary to use. (minLength: 1; maxLength: 1346)
    primary: str
    branch: NotRequired[str]
    # The currency to use. (format: date)
    currency: NotRequired[str]
    # (minimum: 1; maximum: 32933)
    path: NotRequired[int]


class OpenaiAssignWebhookAccountCurrencyItem(TypedDict):
    # The currency to use (see the service docs for allowed values).
    currency: str | None
    # The body to use (see the service docs for allowed values). (minimum: -100; maximum: 54415)
    body: int
    # The reason to use (see the service docs for allowed values).
    reason: NotRequired[list[str]]
    # The cursor to use. (minimum: 1; maximum: 34880)
    cursor: NotRequired[int]


class OpenaiAssignWebhookAccount(TypedDict):
    """The account to use (see the service docs for allowed values)."""
    # The region to use.
    region: list[OpenaiAssignWebhookAccountRegionItem]
    # The color to use. (minLength: 1; maxLength: 1750)
    color: NotRequired[str]
    # The currency to use.
    currency: list[OpenaiAssignWebhookAccountCurrencyItem]


class OpenaiAssignWebhookPath2(TypedDict):
    kind: Literal["ref"]
    id: str


class OpenaiAssignWebhookPath3Value(TypedDict):
    # (minimum: -100; maximum: 20452)
    since: int
    # (minimum: 0; maximum: 30992)
    branch: NotRequired[int]


class OpenaiAssignWebhookPath3(TypedDict):
    kind: Literal["inline"]
    value: OpenaiAssignWebhookPath3Value


class OpenaiChannelRefundPrimary2(TypedDict):
    kind: Literal["ref"]
    id: str


class OpenaiChannelRefundPrimary3Value(TypedDict):
    # The notes to use (see the service docs for allowed values).
    notes: str
    # (default: false)
    status: NotRequired[bool]


class OpenaiChannelRefundPrimary3(TypedDict):
    kind: Literal["inline"]
    value: OpenaiChannelRefundPrimary3Value


class OpenaiChannelRefundOutput(TypedDict):
    """The result."""
    # The cursor to use.
    cursor: list[str]
    # (minimum: 0)
    query: NotRequired[float]
    # The format to use (see the service docs for allowed values). (minimum: -100; maximum: 81466)
    format: int
    # The currency to use.
    currency: Literal["USD", "EUR", "GBP", "JPY", "CHF"]
    # (format: date; minLength: 1; maxLength: 1604)
    primary: NotRequired[str]


class AsanaDealResolvePriority2(TypedDict):
    kind: Literal["ref"]
    id: str


class AsanaDealResolvePriority3Value(TypedDict):
    # The format to use (see the service docs for allowed values). (maxItems: 14)
    format: list[str]
    # The limit to use.
    limit: NotRequired[list[str]]


class AsanaDealResolvePriority3(TypedDict):
    kind: Literal["inline"]
    value: AsanaDealResolvePriority3Value


class AsanaResolveMetricLocaleItem(TypedDict):
    # (minimum: 1; maximum: 22560)
    query: int
    # The url to use (see the service docs for allowed values).
    url: NotRequired[str]


class AsanaResolveMetricEmail2(TypedDict):
    kind: Literal["ref"]
    id: str


class AsanaResolveMetricEmail3Value(TypedDict):
    # The region to use.
    region: list[str]
    currency: NotRequired[str | None]


class AsanaResolveMetricEmail3(TypedDict):
    kind: Literal["inline"]
    value: AsanaResolveMetricEmail3Value


class AsanaResolveMetricOutputUntilItem(TypedDict):
    # The workspace to use. (format: email)
    workspace: str
    # The path to use (see the service docs for allowed values).
    path: NotRequired[Literal["json", "csv", "xml", "yaml"]]


class AsanaResolveMetricOutput(TypedDict):
    """The result."""
    # The until to use.
    until: list[AsanaResolveMetricOutputUntilItem]
    # The reason to use.
    reason: str
    # The url to use (see the service docs for allowed values). (format: date)
    url: str
    # The color to use (see the service docs for allowed values). (maxItems: 16)
    color: NotRequired[list[str]]


class PostgresSearchInvoiceOutput(TypedDict):
    """The result."""
    # The label to use (see the service docs for allowed values). (minLength: 1; maxLength: 2349)
    label: str
    # The notes to use. (format: uuid)
    notes: NotRequired[str]


class NotionMessageExportLocaleReason2(TypedDict):
    kind: Literal["ref"]
    id: str


class NotionMessageExportLocaleReason3Value(TypedDict):
    # The branch to use. (maxItems: 34)
    branch: list[str]
    # The status to use.
    status: NotRequired[Literal["USD", "EUR", "GBP", "JPY", "CHF"]]


class NotionMessageExportLocaleReason3(TypedDict):
    kind: Literal["inline"]
    value: NotionMessageExportLocaleReason3Value


class NotionMessageExportLocale(TypedDict):
    """The locale to use (see the service docs for allowed values)."""
    # The color to use (see the service docs for allowed values).
    color: str
    # The priority to use (see the service docs for allowed values). (default: "USD")
    priority: NotRequired[Literal["USD", "EUR", "GBP", "JPY", "CHF"]]
    # The reason to use.
    reason: NotRequired[str | NotionMessageExportLocaleReason2 | NotionMessageExportLocaleReason3]
    # The label to use.
    label: NotRequired[Literal["created", "updated", "popularity", "long-running"]]


class NotionMessageExportUrl2(TypedDict):
    kind: Literal["ref"]
    id: str


class NotionMessageExportUrl3ValueOffsetItem(TypedDict):
    # (default: true)
    limit: bool
    # The status to use (see the service docs for allowed values). (default: true)
    status: NotRequired[bool]
    # The format to use (see the service docs for allowed values). (default: false)
    format: NotRequired[bool]


class NotionMessageExportUrl3Value(TypedDict):
    # The owner to use. (minimum: 0; maximum: 1)
    owner: float
    # The offset to use.
    offset: list[NotionMessageExportUrl3ValueOffsetItem]


class NotionMessageExportUrl3(TypedDict):
    kind: Literal["inline"]
    value: NotionMessageExportUrl3Value


class NotionMessageExportOutput(TypedDict):
    """The result."""
    # The limit to use.
    limit: Literal["asc", "desc"]
    # The format to use. (default: true)
    format: bool
    # (minimum: 0)
    account: NotRequired[float]
    # The primary to use. (default: false)
    primary: NotRequired[bool]
    # The timezone to use. (maxItems: 14)
    timezone: NotRequired[list[str]]


class S3PageExportOwnerLabelItem(TypedDict):
    # (format: uuid; minLength: 1; maxLength: 1401)
    until: str
    # The label to use (see the service docs for allowed values). (minimum: -100; maximum: 29022)
    label: NotRequired[int]


class S3PageExportOwner(TypedDict):
    """The owner to use."""
    # The locale to use. (minLength: 1; maxLength: 774)
    locale: str
    # (maxItems: 44)
    cursor: NotRequired[list[str]]
    # The label to use (see the service docs for allowed values).
    label: NotRequired[list[S3PageExportOwnerLabelItem]]


class S3PageExportAccountItemCursor(TypedDict):
    """The cursor to use."""
    # The branch to use.
    branch: str | None
    # The account to use. (minimum: 1; maximum: 61385)
    account: int
    # The query to use. (minimum: -100; maximum: 20804)
    query: NotRequired[int]
    # The until to use.
    until: str | None
    # The format to use (see the service docs for allowed values).
    format: NotRequired[str | None]


class S3PageExportAccountItem(TypedDict):
    # The status to use. (format: uuid; minLength: 1; maxLength: 2042)
    status: str
    # The until to use. (default: false)
    until: NotRequired[bool]
    # The offset to use. (minLength: 1; maxLength: 1947)
    offset: str
    # The cursor to use.
    cursor: S3PageExportAccountItemCursor


class S3PageExportOutput(TypedDict):
    """The result."""
    # The primary to use. (default: "created")
    primary: Literal["created", "updated", "popularity", "long-running"]
    # The owner to use.
    owner: list[str]


class FigmaIssueGetTitleItem(TypedDict):
    # The priority to use. (minimum: 1; maximum: 2098)
    priority: int
    # The currency to use.
    currency: list[str]
    # The body to use. (format: date)
    body: str
    # The reason to use. (default: true)
    reason: NotRequired[bool]


class TwilioApproveEventOutputCurrencyItem(TypedDict):
    # The limit to use.
    limit: str | None
    # The url to use. (minimum: 0; maximum: 52864)
    url: int
    # The title to use (see the service docs for allowed values). (default: "created")
    title: NotRequired[Literal["created", "updated", "popularity", "long-running"]]


class TwilioApproveEventOutput(TypedDict):
    """The result."""
    # The currency to use.
    currency: list[TwilioApproveEventOutputCurrencyItem]
    # The limit to use (see the service docs for allowed values). (format: date)
    limit: NotRequired[str]
    # The url to use. (minimum: 0)
    url: NotRequired[float]
    # The query to use. (minimum: 0)
    query: NotRequired[float]


class JiraEventSearchTitleFormat(TypedDict):
    """The format to use (see the service docs for allowed values)."""
    # The since to use. (minimum: -100; maximum: 87878)
    since: int
    # The path to use. (default: false)
    path: NotRequired[bool]
    # The until to use.
    until: NotRequired[str | None]
    # The branch to use (see the service docs for allowed values). (format: uri)
    branch: str


class JiraEventSearchTitleSinceItem(TypedDict):
    # The visibility to use. (minLength: 1; maxLength: 821)
    visibility: str
    # (minLength: 1; maxLength: 2517)
    owner: NotRequired[str]
    # The region to use. (maxItems: 26)
    region: list[str]


class JiraEventSearchTitle(TypedDict):
    """The title to use."""
    # The currency to use (see the service docs for allowed values). (minimum: -100; maximum: 58298)
    currency: int
    # The format to use (see the service docs for allowed values).
    format: NotRequired[JiraEventSearchTitleFormat]
    # The since to use.
    since: NotRequired[list[JiraEventSearchTitleSinceItem]]
    # The url to use.
    url: str
    # The email to use.
    email: NotRequired[str | None]


class JiraEventSearchPrimaryItem(TypedDict):
    # The reason to use. (minLength: 1; maxLength: 4037)
    reason: str
    # The version to use (see the service docs for allowed values).
    version: Literal["json", "csv", "xml", "yaml"]
    color: NotRequired[str]


class CloudflareMergeUserOutputUntilItem(TypedDict):
    # The query to use. (default: true)
    query: bool
    # The account to use. (default: "USD")
    account: NotRequired[Literal["USD", "EUR", "GBP", "JPY", "CHF"]]
    # The status to use. (minimum: 1; maximum: 89226)
    status: int


class CloudflareMergeUserOutput(TypedDict):
    """The result."""
    # The until to use.
    until: list[CloudflareMergeUserOutputUntilItem]
    # The reason to use (see the service docs for allowed values). (minimum: -100; maximum: 40622)
    reason: int


class SalesforceReleaseApproveOutputTimezoneItem(TypedDict):
    # The path to use. (default: true)
    path: bool
    # The amount to use.
    amount: NotRequired[Literal["json", "csv", "xml", "yaml"]]


class SalesforceReleaseApproveOutput(TypedDict):
    """The result."""
    # The region to use (see the service docs for allowed values). (format: uuid)
    region: str
    until: NotRequired[list[str]]
    # The timezone to use.
    timezone: list[SalesforceReleaseApproveOutputTimezoneItem]


class _Tools:
    def __getitem__(self, name: str) -> Callable[..., Awaitable[Any]]:
        """Any tool by its exact name, for names that are not identifiers: `await tools["my-tool"](arg=1)`."""

    async def echo(self, *, value: Any) -> EchoOutput:
        """Return the arguments unchanged.

        Args:
            value: Any JSON value; echoed back as-is.
        """

    async def sleep(self, *, ms: int, i: int | None = None) -> SleepOutput:
        """Wait for a number of milliseconds, then return.

        Args:
            ms: How long to wait, in milliseconds. (minimum: 0; maximum: 60000)
            i: Optional caller tag (ignored). (minimum: 0)
        """

    async def get_rows(self, *, limit: int | None = None) -> list[GetRowsOutputItem]:
        """Fetch rows of the demo table (10,000 rows).

        Args:
            limit: Maximum rows to return. (minimum: 1; maximum: 10000; default: 10000)
        """

    github: _Tools_github
    """The 2 tools named github.*"""

    slack: _Tools_slack
    """The 1 tool named slack.*"""

    gmail: _Tools_gmail
    """The 1 tool named gmail.*"""

    async def delete_bucket(
        self,
        *,
        version: str,
        query: int,
        status: str | DeleteBucketStatus2 | DeleteBucketStatus3,
        path: DeleteBucketPath | None = None,
        offset: str | None = None,
        timezone: list[DeleteBucketTimezoneItem] | None = None,
        reason: str,
        url: str | None = None,
    ) -> DeleteBucketOutput:
        """Delete bucket in delete. Read-only.

        Args:
            version: The version to use.
            query: (minimum: -100; maximum: 53299)
            status: The status to use (see the service docs for allowed values).
            path: The path to use (see the service docs for allowed values).
            offset: The offset to use (see the service docs for allowed values).
            timezone: The timezone to use.
            reason: The reason to use (see the service docs for allowed values).
            url: The url to use (see the service docs for allowed values).

        Returns:
            The result.
        """

    pagerduty: _Tools_pagerduty
    """The 2 tools named pagerduty.*"""

    async def salesforce_mergeTask(
        self,
        *,
        version: bool,
        timezone: int | None = None,
        path: str | SalesforceMergeTaskPath2 | SalesforceMergeTaskPath3 | None = None,
        since: str | SalesforceMergeTaskSince2 | SalesforceMergeTaskSince3 | None = None,
        primary: str | None = None,
        workspace: list[str] | None = None,
    ) -> Any:
        """Salesforce mergeTask in salesforce. Returns the affected records. Requires write scope.

        Args:
            version: The version to use. (default: false)
            timezone: The timezone to use. (minimum: 1; maximum: 42218)
            path: The path to use (see the service docs for allowed values).
            since: The since to use (see the service docs for allowed values).
            primary: The primary to use. (format: date-time)
            workspace: (maxItems: 36)
        """

    async def gmail_refund_team(
        self,
        *,
        limit: list[GmailRefundTeamLimitItem],
        visibility: int,
        offset: str | GmailRefundTeamOffset2 | GmailRefundTeamOffset3,
        region: str | None = None,
        account: str,
    ) -> GmailRefundTeamOutput:
        """Gmail refund team in gmail. Returns the affected records. Requires write scope.

        The tool "gmail-refund-team": also tools["gmail-refund-team"](...).

        Args:
            limit: The limit to use (see the service docs for allowed values).
            visibility: The visibility to use. (minimum: -100; maximum: 10486)
            offset: The offset to use.
            account: The account to use. (minLength: 1; maxLength: 2641)

        Returns:
            The result.
        """

    gitlab: _Tools_gitlab
    """The 2 tools named gitlab.*"""

    async def delete_bucket_6(
        self,
        *,
        owner: str,
        region: float | None = None,
        cursor: int,
        path: list[DeleteBucket6PathItem] | None = None,
        timezone: bool | None = None,
        amount: str | None = None,
    ) -> list[DeleteBucket6OutputItem]:
        """Delete bucket 6. Returns the affected records. Requires write scope.

        Args:
            owner: The owner to use. (format: uuid; minLength: 1; maxLength: 1150)
            region: (minimum: 0)
            cursor: (minimum: 1; maximum: 44618)
            timezone: The timezone to use. (default: true)
            amount: (format: uuid)

        Returns:
            Matching records.
        """

    async def cloudflare_refundUser(
        self,
        *,
        url: bool,
        email: bool | None = None,
        primary: str | None = None,
        version: list[CloudflareRefundUserVersionItem],
        path: str | None = None,
    ) -> CloudflareRefundUserOutput:
        """Cloudflare refundUser. Read-only.

        Args:
            url: (default: true)
            email: The email to use. (default: true)
            primary: The primary to use. (minLength: 1; maxLength: 2436)
            version: The version to use.
            path: The path to use. (minLength: 1; maxLength: 1789)

        Returns:
            The result.
        """

    async def shopify_search_webhook(
        self,
        *,
        amount: bool,
        format: list[ShopifySearchWebhookFormatItem],
        color: str | None = None,
        status: str | ShopifySearchWebhookStatus2 | ShopifySearchWebhookStatus3 | None = None,
    ) -> Any:
        """Shopify search webhook in shopify. Read-only.

        The tool "shopify-search-webhook": also tools["shopify-search-webhook"](...).

        Args:
            amount: The amount to use. (default: false)
            format: The format to use.
            status: The status to use.
        """

    openai: _Tools_openai
    """The 2 tools named openai.*"""

    async def refund_board(
        self,
        *,
        owner: str | RefundBoardOwner2 | RefundBoardOwner3,
        offset: Literal["created", "updated", "popularity", "long-running"],
        status: str,
        timezone: list[str] | None = None,
        x_request_id: str | None = None,
    ) -> list[RefundBoardOutputItem]:
        """Refund board in refund. Returns the affected records. Requires write scope.

        Args:
            owner: The owner to use.
            offset: The offset to use. (default: "created")
            timezone: The timezone to use (see the service docs for allowed values).
            x_request_id: (the argument "x-request-id") Idempotency key (HTTP header style name).

        Returns:
            Matching records.
        """

    asana: _Tools_asana
    """The 2 tools named asana.*"""

    async def gitlab_deleteInvoice(
        self,
        *,
        notes: str,
        until: str,
        reason: float,
        limit: list[str] | None = None,
        url: str | None = None,
    ) -> Any:
        """Gitlab deleteInvoice. Returns the affected records. Requires write scope.

        Args:
            notes: The notes to use. (format: email)
            until: The until to use. (minLength: 1; maxLength: 2160)
            reason: The reason to use. (minimum: 0; maximum: 1)
            limit: The limit to use. (maxItems: 15)
            url: The url to use (see the service docs for allowed values).
        """

    async def shopify_merge_pull_request(
        self,
        *,
        notes: str,
        until: list[ShopifyMergePullRequestUntilItem] | None = None,
        path: bool,
        color: bool | None = None,
        visibility: int | None = None,
    ) -> Any:
        """Shopify merge pull request. Read-only.

        The tool "shopify-merge-pull_request": also tools["shopify-merge-pull_request"](...).

        Args:
            until: The until to use (see the service docs for allowed values).
            path: (default: true)
            color: The color to use (see the service docs for allowed values). (default: false)
            visibility: The visibility to use (see the service docs for allowed values). (minimum: -100; maximum: 13065)
        """

    postgres: _Tools_postgres
    """The 1 tool named postgres.*"""

    async def sync_order(
        self,
        *,
        cursor: SyncOrderCursor,
        color: SyncOrderColor | None = None,
        query: str | None = None,
        status: list[SyncOrderStatusItem] | None = None,
        path: str | SyncOrderPath2 | SyncOrderPath3 | None = None,
        amount: float | None = None,
        title: float | None = None,
        until: bool | None = None,
    ) -> SyncOrderOutput:
        """Sync order. Returns the affected records. Requires write scope.

        Args:
            cursor: The cursor to use (see the service docs for allowed values).
            color: The color to use.
            query: The query to use.
            status: The status to use.
            path: The path to use.
            amount: The amount to use. (minimum: 0; maximum: 1)
            title: The title to use. (minimum: 0; maximum: 1)
            until: (default: false)

        Returns:
            The result.
        """

    notion: _Tools_notion
    """The 1 tool named notion.*"""

    async def k8s_cancelProject(
        self,
        *,
        email: list[str],
        owner: str | K8sCancelProjectOwner2 | K8sCancelProjectOwner3 | None = None,
        until: K8sCancelProjectUntil,
        visibility: list[str] | None = None,
        priority: str | K8sCancelProjectPriority2 | K8sCancelProjectPriority3 | None = None,
        timezone: bool | None = None,
        version: Literal["created", "updated", "popularity", "long-running"] | None = None,
        since: K8sCancelProjectSince,
    ) -> K8sCancelProjectOutput:
        """K8s cancelProject in k8s. Returns the affected records. Requires write scope.

        Args:
            email: The email to use.
            owner: The owner to use.
            until: The until to use.
            visibility: The visibility to use (see the service docs for allowed values).
            priority: The priority to use.
            timezone: The timezone to use. (default: true)
            since: The since to use.

        Returns:
            The result.
        """

    async def k8s_archive_webhook(
        self,
        *,
        query: str,
        limit: float | None = None,
        reason: int | None = None,
        path: str,
    ) -> K8sArchiveWebhookOutput:
        """K8s archive webhook in k8s. Returns the affected records. Requires write scope.

        The tool "k8s-archive-webhook": also tools["k8s-archive-webhook"](...).

        Args:
            limit: The limit to use. (minimum: 0; maximum: 1)
            reason: The reason to use. (minimum: -100; maximum: 71655)
            path: The path to use (see the service docs for allowed values). (format: uuid; minLength: 1; maxLength: 144)

        Returns:
            The result.
        """

    async def update_project(
        self,
        *,
        timezone: list[str],
        label: str | UpdateProjectLabel2 | UpdateProjectLabel3 | None = None,
        region: str | None = None,
        query: str | UpdateProjectQuery2 | UpdateProjectQuery3 | None = None,
        priority: str | None = None,
        cursor: bool,
        x_request_id: str | None = None,
    ) -> UpdateProjectOutput:
        """Update project. Read-only.

        Args:
            label: The label to use.
            region: The region to use (see the service docs for allowed values).
            query: The query to use (see the service docs for allowed values).
            priority: The priority to use. (minLength: 1; maxLength: 463)
            cursor: The cursor to use. (default: false)
            x_request_id: (the argument "x-request-id") Idempotency key (HTTP header style name).

        Returns:
            The result.
        """

    s3: _Tools_s3
    """The 1 tool named s3.*"""

    async def figma_sendTicket(
        self,
        *,
        visibility: Literal["created", "updated", "popularity", "long-running"],
        format: list[FigmaSendTicketFormatItem] | None = None,
        since: bool | None = None,
        path: str | None = None,
        limit: list[str],
        currency: str | None = None,
        color: str | None = None,
        title: FigmaSendTicketTitle | None = None,
    ) -> list[FigmaSendTicketOutputItem]:
        """Figma sendTicket. Returns the affected records. Requires write scope.

        Args:
            visibility: The visibility to use. (default: "created")
            format: The format to use (see the service docs for allowed values).
            since: (default: true)
            path: The path to use (see the service docs for allowed values).
            limit: The limit to use.
            currency: The currency to use.
            color: The color to use.
            title: The title to use (see the service docs for allowed values).

        Returns:
            Matching records.
        """

    async def shopify_close_board(
        self,
        *,
        color: str,
        currency: str | ShopifyCloseBoardCurrency2 | ShopifyCloseBoardCurrency3 | None = None,
        primary: list[ShopifyCloseBoardPrimaryItem] | None = None,
    ) -> Any:
        """Shopify close board. Returns the affected records. Requires write scope.

        The tool "shopify-close-board": also tools["shopify-close-board"](...).

        Args:
            color: (minLength: 1; maxLength: 1896)
            currency: The currency to use.
            primary: The primary to use.
        """

    async def delete_event(
        self,
        *,
        title: str | None,
        notes: str | DeleteEventNotes2 | DeleteEventNotes3 | None = None,
        label: str,
        amount: str | DeleteEventAmount2 | DeleteEventAmount3,
        x_request_id: str | None = None,
    ) -> DeleteEventOutput:
        """Delete event. Returns the affected records. Requires write scope.

        Args:
            title: The title to use.
            label: The label to use (see the service docs for allowed values).
            amount: The amount to use.
            x_request_id: (the argument "x-request-id") Idempotency key (HTTP header style name).

        Returns:
            The result.
        """

    figma: _Tools_figma
    """The 1 tool named figma.*"""

    async def stripe_refundPage(
        self,
        *,
        workspace: int,
        account: Literal["public", "private", "internal"] | None = None,
        limit: str | None = None,
        owner: str | None,
    ) -> Any:
        """Stripe refundPage in stripe. Returns the affected records. Requires write scope.

        Args:
            workspace: The workspace to use (see the service docs for allowed values). (minimum: -100; maximum: 98818)
            account: The account to use (see the service docs for allowed values).
            limit: The limit to use (see the service docs for allowed values).
            owner: The owner to use.
        """

    async def postgres_search_event(self, *, status: list[str]) -> Any:
        """Postgres search event. Returns the affected records. Requires write scope.

        The tool "postgres-search-event": also tools["postgres-search-event"](...).

        Args:
            status: The status to use.
        """

    twilio: _Tools_twilio
    """The 1 tool named twilio.*"""

    async def resolve_team(
        self,
        *,
        query: str,
        since: list[str] | None = None,
        notes: list[str] | None = None,
        workspace: str | ResolveTeamWorkspace2 | ResolveTeamWorkspace3,
        limit: list[str],
        primary: list[ResolveTeamPrimaryItem] | None = None,
    ) -> Any:
        """Resolve team. Read-only.

        Args:
            since: The since to use (see the service docs for allowed values).
            notes: The notes to use.
            workspace: The workspace to use.
            limit: The limit to use.
            primary: The primary to use.
        """

    jira: _Tools_jira
    """The 1 tool named jira.*"""

    async def cloudflare_importDomain(
        self,
        *,
        owner: str | None,
        visibility: float | None = None,
        amount: str | None = None,
        title: CloudflareImportDomainTitle | None = None,
        body: list[str],
    ) -> Any:
        """Cloudflare importDomain. Returns the affected records. Requires write scope.

        Args:
            owner: The owner to use (see the service docs for allowed values).
            visibility: (minimum: 0)
            amount: The amount to use.
            title: The title to use.
            body: The body to use.
        """

    async def pagerduty_sync_user(
        self,
        *,
        since: list[PagerdutySyncUserSinceItem],
        version: str | PagerdutySyncUserVersion2 | PagerdutySyncUserVersion3,
        region: str | None = None,
        color: float | None = None,
        offset: int,
        cursor: PagerdutySyncUserCursor,
        url: str | None = None,
    ) -> PagerdutySyncUserOutput:
        """Pagerduty sync user. Read-only.

        The tool "pagerduty-sync-user": also tools["pagerduty-sync-user"](...).

        Args:
            since: The since to use (see the service docs for allowed values).
            version: The version to use.
            region: The region to use. (format: date-time; minLength: 1; maxLength: 2594)
            color: (minimum: 0)
            offset: The offset to use. (minimum: 1; maximum: 99716)
            cursor: The cursor to use.
            url: The url to use.

        Returns:
            The result.
        """

    async def close_page(
        self,
        *,
        locale: str | None,
        color: int | None = None,
        title: str | ClosePageTitle2 | ClosePageTitle3 | None = None,
    ) -> list[ClosePageOutputItem]:
        """Close page in close. Read-only.

        Args:
            locale: The locale to use (see the service docs for allowed values).
            color: The color to use. (minimum: 1; maximum: 19708)

        Returns:
            Matching records.
        """

    async def notion_assignProduct(
        self,
        *,
        primary: Literal["USD", "EUR", "GBP", "JPY", "CHF"],
        until: str | NotionAssignProductUntil2 | NotionAssignProductUntil3,
        status: bool | None = None,
        priority: Literal["low", "medium", "high", "urgent"] | None = None,
        visibility: str | NotionAssignProductVisibility2 | NotionAssignProductVisibility3 | None = None,
        email: Literal["created", "updated", "popularity", "long-running"] | None = None,
        limit: NotionAssignProductLimit | None = None,
        region: str | NotionAssignProductRegion2 | NotionAssignProductRegion3,
    ) -> NotionAssignProductOutput:
        """Notion assignProduct in notion. Returns the affected records. Requires write scope.

        Args:
            primary: The primary to use.
            until: The until to use.
            status: The status to use. (default: false)
            priority: The priority to use.
            visibility: The visibility to use.
            limit: The limit to use (see the service docs for allowed values).
            region: The region to use.

        Returns:
            The result.
        """

    async def linear_delete_deployment(
        self,
        *,
        locale: bool,
        version: int,
        query: str | LinearDeleteDeploymentQuery2 | LinearDeleteDeploymentQuery3 | None = None,
        label: list[LinearDeleteDeploymentLabelItem] | None = None,
        owner: LinearDeleteDeploymentOwner | None = None,
        region: Literal["draft", "published", "archived", "deleted"] | None = None,
        cursor: list[str] | None = None,
        visibility: str | None = None,
    ) -> Any:
        """Linear delete deployment. Returns the affected records. Requires write scope.

        The tool "linear-delete-deployment": also tools["linear-delete-deployment"](...).

        Args:
            locale: The locale to use. (default: true)
            version: The version to use. (minimum: -100; maximum: 24125)
            query: The query to use.
            label: The label to use.
            owner: The owner to use (see the service docs for allowed values).
            region: The region to use (see the service docs for allowed values). (default: "draft")
            cursor: The cursor to use (see the service docs for allowed values).
            visibility: The visibility to use.
        """

    cloudflare: _Tools_cloudflare
    """The 1 tool named cloudflare.*"""

    async def assign_issue(
        self,
        *,
        branch: list[str],
        limit: list[AssignIssueLimitItem] | None = None,
        since: bool | None = None,
        until: bool | None = None,
        reason: str,
        query: str | AssignIssueQuery2 | AssignIssueQuery3 | None = None,
        priority: list[AssignIssuePriorityItem] | None = None,
    ) -> list[AssignIssueOutputItem]:
        """Assign issue in assign. Read-only.

        Args:
            branch: (maxItems: 17)
            limit: The limit to use (see the service docs for allowed values).
            since: The since to use. (default: false)
            until: The until to use. (default: false)
            reason: The reason to use (see the service docs for allowed values). (minLength: 1; maxLength: 2904)
            query: The query to use.
            priority: The priority to use.

        Returns:
            Matching records.
        """

    salesforce: _Tools_salesforce
    """The 1 tool named salesforce.*"""

    async def shopify_syncPod(
        self,
        *,
        format: str,
        version: ShopifySyncPodVersion | None = None,
        until: str | None = None,
        path: str | None = None,
        visibility: float,
        notes: bool,
        currency: str,
        x_request_id: str | None = None,
    ) -> ShopifySyncPodOutput:
        """Shopify syncPod. Read-only.

        Args:
            format: The format to use. (format: email)
            version: The version to use.
            until: The until to use.
            path: The path to use.
            visibility: The visibility to use. (minimum: 0; maximum: 1)
            notes: The notes to use. (default: false)
            currency: The currency to use (see the service docs for allowed values).
            x_request_id: (the argument "x-request-id") Idempotency key (HTTP header style name).

        Returns:
            The result.
        """

    async def stripe_get_file(
        self,
        *,
        version: StripeGetFileVersion,
        email: str | None = None,
        title: str,
        account: list[str] | None = None,
        query: int | None = None,
        label: str | None = None,
    ) -> StripeGetFileOutput:
        """Stripe get file. Returns the affected records. Requires write scope.

        The tool "stripe-get-file": also tools["stripe-get-file"](...).

        Args:
            version: The version to use.
            email: The email to use (see the service docs for allowed values).
            title: (format: uuid)
            account: The account to use (see the service docs for allowed values).
            query: The query to use (see the service docs for allowed values). (minimum: -100; maximum: 22731)
            label: The label to use.

        Returns:
            The result.
        """


tools: _Tools
"""Every tool, as an async method; optional arguments left as None are not sent."""


class _Tools_github:
    async def create_issue(
        self,
        *,
        owner: str,
        repo: str,
        title: str,
        body: str | None = None,
        labels: list[str] | None = None,
        assignees: list[GithubCreateIssueAssigneesItem] | None = None,
        milestone: int | str | None = None,
    ) -> GithubCreateIssueOutput:
        """Create an issue in a GitHub repository.

        The tool "github.create-issue": also tools["github.create-issue"](...).

        Args:
            owner: Repository owner (user or org).
            repo: Repository name.
            title: Issue title. (minLength: 1; maxLength: 256)
            body: Markdown body.
            labels: Label names.
            milestone: Milestone number or title.
        """

    async def search_pod(
        self,
        *,
        color: Literal["json", "csv", "xml", "yaml"],
        account: str | GithubSearchPodAccount2 | GithubSearchPodAccount3 | None = None,
        label: GithubSearchPodLabel | None = None,
        status: GithubSearchPodStatus | None = None,
        region: float | None = None,
        path: str | None,
    ) -> GithubSearchPodOutput:
        """Search pod in github. Returns the affected records. Requires write scope.

        The tool "github.search-pod": also tools["github.search-pod"](...).

        Args:
            color: The color to use (see the service docs for allowed values).
            account: The account to use (see the service docs for allowed values).
            label: The label to use.
            status: The status to use.
            region: (minimum: 0)
            path: The path to use.

        Returns:
            The result.
        """


class _Tools_slack:
    async def chat_post_message(
        self,
        *,
        channel: str,
        text: str,
        thread: SlackChatPostMessageThread | None = None,
        unfurl: Literal["none", "links", "media", "all"] | None = None,
    ) -> Any:
        """Post a message to a Slack channel.

        The tool "slack.chat.post-message": also tools["slack.chat.post-message"](...).

        Args:
            channel: Channel id or name.
            thread: Reply in a thread.
        """


class _Tools_gmail:
    async def get_product(self, *, limit: str, owner: str | None = None) -> Any:
        """Get product in gmail. Read-only.

        The tool "gmail.get-product": also tools["gmail.get-product"](...).

        Args:
            owner: The owner to use.
        """


class _Tools_pagerduty:
    async def ticket_delete(
        self,
        *,
        path: int,
        body: str | PagerdutyTicketDeleteBody2 | PagerdutyTicketDeleteBody3,
        format: int | None = None,
    ) -> list[PagerdutyTicketDeleteOutputItem]:
        """Delete in pagerduty. Returns the affected records. Requires write scope.

        The tool "pagerduty.ticket.delete": also tools["pagerduty.ticket.delete"](...).

        Args:
            path: (minimum: 0; maximum: 37344)
            body: The body to use.
            format: (minimum: -100; maximum: 6653)

        Returns:
            Matching records.
        """

    async def schedule_pod(
        self,
        *,
        priority: str | None,
        until: Literal["draft", "published", "archived", "deleted"] | None = None,
        limit: str | None = None,
    ) -> Any:
        """Schedule pod. Read-only.

        The tool "pagerduty.schedule-pod": also tools["pagerduty.schedule-pod"](...).

        Args:
            priority: The priority to use (see the service docs for allowed values).
            until: The until to use.
        """


class _Tools_gitlab:
    async def search_metric(
        self,
        *,
        reason: Literal["low", "medium", "high", "urgent"],
        primary: str | GitlabSearchMetricPrimary2 | GitlabSearchMetricPrimary3 | None = None,
        timezone: list[GitlabSearchMetricTimezoneItem] | None = None,
        notes: str | None = None,
        title: float | None = None,
    ) -> Any:
        """Search metric in gitlab. Read-only.

        The tool "gitlab.search-metric": also tools["gitlab.search-metric"](...).

        Args:
            reason: The reason to use (see the service docs for allowed values).
            primary: The primary to use.
            timezone: The timezone to use.
            title: The title to use. (minimum: 0; maximum: 1)
        """

    async def order_resolve(
        self,
        *,
        timezone: Literal["created", "updated", "popularity", "long-running"],
        email: bool,
        url: list[GitlabOrderResolveUrlItem],
        color: str | None = None,
        x_request_id: str | None = None,
    ) -> Any:
        """Resolve in gitlab. Read-only.

        The tool "gitlab.order.resolve": also tools["gitlab.order.resolve"](...).

        Args:
            timezone: (default: "created")
            email: The email to use. (default: false)
            url: The url to use.
            color: (minLength: 1; maxLength: 451)
            x_request_id: (the argument "x-request-id") Idempotency key (HTTP header style name).
        """


class _Tools_openai:
    async def assign_webhook(
        self,
        *,
        currency: Literal["created", "updated", "popularity", "long-running"],
        account: OpenaiAssignWebhookAccount | None = None,
        path: str | OpenaiAssignWebhookPath2 | OpenaiAssignWebhookPath3,
        email: list[str],
        visibility: Literal["asc", "desc"] | None = None,
    ) -> Any:
        """Assign webhook. Read-only.

        The tool "openai.assign-webhook": also tools["openai.assign-webhook"](...).

        Args:
            currency: The currency to use (see the service docs for allowed values). (default: "created")
            account: The account to use (see the service docs for allowed values).
            email: The email to use.
            visibility: The visibility to use (see the service docs for allowed values). (default: "asc")
        """

    async def channel_refund(
        self,
        *,
        primary: str | OpenaiChannelRefundPrimary2 | OpenaiChannelRefundPrimary3,
    ) -> OpenaiChannelRefundOutput:
        """Refund. Read-only.

        The tool "openai.channel.refund": also tools["openai.channel.refund"](...).

        Args:
            primary: The primary to use.

        Returns:
            The result.
        """


class _Tools_asana:
    async def deal_resolve(
        self,
        *,
        priority: str | AsanaDealResolvePriority2 | AsanaDealResolvePriority3,
        account: bool | None = None,
    ) -> Any:
        """Resolve. Returns the affected records. Requires write scope.

        The tool "asana.deal.resolve": also tools["asana.deal.resolve"](...).

        Args:
            priority: The priority to use.
            account: The account to use. (default: false)
        """

    async def resolve_metric(
        self,
        *,
        locale: list[AsanaResolveMetricLocaleItem],
        email: str | AsanaResolveMetricEmail2 | AsanaResolveMetricEmail3 | None = None,
        offset: Literal["json", "csv", "xml", "yaml"],
    ) -> AsanaResolveMetricOutput:
        """Resolve metric in asana. Returns the affected records. Requires write scope.

        The tool "asana.resolve-metric": also tools["asana.resolve-metric"](...).

        Args:
            locale: The locale to use.
            email: The email to use.

        Returns:
            The result.
        """


class _Tools_postgres:
    async def search_invoice(self, *, cursor: str) -> PostgresSearchInvoiceOutput:
        """Search invoice in postgres. Returns the affected records. Requires write scope.

        The tool "postgres.search-invoice": also tools["postgres.search-invoice"](...).

        Returns:
            The result.
        """


class _Tools_notion:
    async def message_export(
        self,
        *,
        locale: NotionMessageExportLocale,
        reason: int | None = None,
        url: str | NotionMessageExportUrl2 | NotionMessageExportUrl3 | None = None,
        owner: str | None,
        color: int | None = None,
    ) -> NotionMessageExportOutput:
        """Export. Read-only.

        The tool "notion.message.export": also tools["notion.message.export"](...).

        Args:
            locale: The locale to use (see the service docs for allowed values).
            reason: (minimum: -100; maximum: 71150)
            url: The url to use (see the service docs for allowed values).
            owner: The owner to use (see the service docs for allowed values).
            color: The color to use. (minimum: 1; maximum: 91064)

        Returns:
            The result.
        """


class _Tools_s3:
    async def page_export(
        self,
        *,
        timezone: float,
        owner: S3PageExportOwner | None = None,
        primary: str | None = None,
        branch: Literal["draft", "published", "archived", "deleted"] | None = None,
        account: list[S3PageExportAccountItem] | None = None,
        notes: int,
        visibility: list[str] | None = None,
    ) -> S3PageExportOutput:
        """Export in s3. Read-only.

        The tool "s3.page.export": also tools["s3.page.export"](...).

        Args:
            timezone: The timezone to use (see the service docs for allowed values). (minimum: 0; maximum: 1)
            owner: The owner to use.
            branch: The branch to use.
            notes: The notes to use. (minimum: 1; maximum: 35994)
            visibility: The visibility to use.

        Returns:
            The result.
        """


class _Tools_figma:
    async def issue_get(
        self,
        *,
        body: float,
        account: Literal["asc", "desc"] | None = None,
        title: list[FigmaIssueGetTitleItem],
    ) -> Any:
        """Get. Read-only.

        The tool "figma.issue.get": also tools["figma.issue.get"](...).

        Args:
            body: The body to use. (minimum: 0; maximum: 1)
            account: The account to use (see the service docs for allowed values).
            title: The title to use.
        """


class _Tools_twilio:
    async def approve_event(
        self,
        *,
        email: str | None,
        limit: str,
        locale: int | None = None,
        status: str | None = None,
    ) -> TwilioApproveEventOutput:
        """Approve event. Returns the affected records. Requires write scope.

        The tool "twilio.approve-event": also tools["twilio.approve-event"](...).

        Args:
            email: The email to use.
            limit: The limit to use. (format: uuid)
            locale: The locale to use. (minimum: 0; maximum: 67879)

        Returns:
            The result.
        """


class _Tools_jira:
    async def event_search(
        self,
        *,
        title: JiraEventSearchTitle,
        primary: list[JiraEventSearchPrimaryItem] | None = None,
        body: str,
        offset: str | None = None,
        x_request_id: str | None = None,
    ) -> Any:
        """Search. Read-only.

        The tool "jira.event.search": also tools["jira.event.search"](...).

        Args:
            title: The title to use.
            primary: The primary to use.
            body: The body to use.
            offset: The offset to use (see the service docs for allowed values).
            x_request_id: (the argument "x-request-id") Idempotency key (HTTP header style name).
        """


class _Tools_cloudflare:
    async def merge_user(
        self,
        *,
        account: float,
        x_request_id: str | None = None,
    ) -> CloudflareMergeUserOutput:
        """Merge user. Returns the affected records. Requires write scope.

        The tool "cloudflare.merge-user": also tools["cloudflare.merge-user"](...).

        Args:
            account: The account to use. (minimum: 0; maximum: 1)
            x_request_id: (the argument "x-request-id") Idempotency key (HTTP header style name).

        Returns:
            The result.
        """


class _Tools_salesforce:
    async def release_approve(self, *, query: bool) -> SalesforceReleaseApproveOutput:
        """Approve. Read-only.

        The tool "salesforce.release.approve": also tools["salesforce.release.approve"](...).

        Args:
            query: The query to use. (default: false)

        Returns:
            The result.
        """
