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


class APIPostSearchSort1(TypedDict):
    """A set of criteria, `direction` and `timestamp` keys, that orders the results. The **only** supported timestamp value is `"last_edited_time"`. Supported `direction` values are `"ascending"` and `"descending"`. If `sort` is not provided, then the most recently edited results are returned first.
    """
    # The direction to sort. Possible values include `ascending` and `descending`.
    direction: NotRequired[str]
    # The name of the timestamp to sort against. Possible values include `last_edited_time`.
    timestamp: NotRequired[str]


class APIPostSearchFilter1(TypedDict):
    """A set of criteria, `value` and `property` keys, that limits the results to either only pages or only data sources. Possible `value` values are `"page"` or `"data_source"`. The only supported `property` value is `"object"`.
    """
    # The value of the property to filter the results by.  Possible values for object type include `page` or `data_source`.  **Limitation**: Currently the only filter allowed is `object` which will filter by type of object (either `page` or `data_source`)
    value: NotRequired[Literal["page", "data_source"]]
    # The name of the property to filter by. Currently the only property you can filter by is the object type.  Possible values include `object`.   Limitation: Currently the only filter allowed is `object` which will filter by type of object (either `page` or `data_source`)
    property: NotRequired[str]


class RichTextRequestText(TypedDict):
    content: str
    link: NotRequired[dict[str, Any] | None]


class RichTextRequest(TypedDict):
    text: RichTextRequestText
    type: NotRequired[Literal["text"]]


class ParagraphBlockRequestParagraph(TypedDict):
    rich_text: list[RichTextRequest]


class ParagraphBlockRequest(TypedDict):
    paragraph: NotRequired[ParagraphBlockRequestParagraph]
    type: NotRequired[Literal["paragraph"]]


class BulletedListItemBlockRequestBulletedListItem(TypedDict):
    rich_text: list[RichTextRequest]


class BulletedListItemBlockRequest(TypedDict):
    bulleted_list_item: NotRequired[BulletedListItemBlockRequestBulletedListItem]
    type: NotRequired[Literal["bulleted_list_item"]]


BlockObjectRequest: TypeAlias = ParagraphBlockRequest | BulletedListItemBlockRequest


class APIPatchPageIcon1(TypedDict):
    """A page icon for the page. Supported types are [external file object](https://developers.notion.com/reference/file-object) or [emoji object](https://developers.notion.com/reference/emoji-object).
    """
    emoji: str


class APIPatchPageCover1External(TypedDict):
    url: str


class APIPatchPageCover1(TypedDict):
    """A cover image for the page. Only [external file objects](https://developers.notion.com/reference/file-object) are supported.
    """
    external: APIPatchPageCover1External
    type: NotRequired[Literal["external"]]


class PageIdParentRequest(TypedDict):
    # (format: uuid)
    page_id: str


class DataSourceIdParentRequest(TypedDict):
    type: NotRequired[Literal["database_id"]]
    # (format: uuid)
    database_id: str


class ParentRequest3(TypedDict):
    type: Literal["workspace"]


ParentRequest: TypeAlias = PageIdParentRequest | DataSourceIdParentRequest | ParentRequest3


class APICreateACommentParent1(TypedDict):
    """The page that contains the comment"""
    # the page ID
    page_id: str


class APICreateACommentRichTextItem1Text(TypedDict):
    # The content of the comment
    content: str


class APICreateACommentRichTextItem1(TypedDict):
    text: APICreateACommentRichTextItem1Text


class SortObject(TypedDict):
    property: str
    direction: Literal["ascending", "descending"]


class MovePageParentRequest1(TypedDict):
    type: Literal["page_id"]
    # (format: uuid)
    page_id: str


class MovePageParentRequest2(TypedDict):
    type: Literal["database_id"]
    # (format: uuid)
    database_id: str


class MovePageParentRequest3(TypedDict):
    type: Literal["workspace"]


MovePageParentRequest: TypeAlias = MovePageParentRequest1 | MovePageParentRequest2 | MovePageParentRequest3


class APIUpdatePageMarkdownReplaceContent1(TypedDict):
    """Provide when type is `replace_content`. Replaces the entire page content."""
    # The complete new page content as enhanced Markdown.
    new_str: str
    # Permit deletion of existing child pages/databases that are no longer present in the new content.
    allow_deleting_content: NotRequired[bool]


class APIUpdatePageMarkdownUpdateContent1ContentUpdatesItem(TypedDict):
    # Exact existing Markdown text to find.
    old_str: str
    # Replacement Markdown text.
    new_str: str
    # Replace every occurrence of old_str instead of just the first (default false).
    replace_all_matches: NotRequired[bool]


class APIUpdatePageMarkdownUpdateContent1(TypedDict):
    """Provide when type is `update_content`. Applies targeted find-and-replace edits.
    """
    # Up to 100 find-and-replace edits applied in order.
    content_updates: list[APIUpdatePageMarkdownUpdateContent1ContentUpdatesItem]
    # Permit deletion of existing child pages/databases removed by the edits.
    allow_deleting_content: NotRequired[bool]


class APIUpdatePageMarkdownInsertContent1Position(TypedDict):
    """Insert at the start or end of the page. Cannot be combined with after."""
    type: NotRequired[Literal["start", "end"]]


class APIUpdatePageMarkdownInsertContent1(TypedDict):
    """Deprecated. Provide when type is `insert_content`. Inserts Markdown at a position.
    """
    # Enhanced Markdown to insert.
    content: str
    # Ellipsis-format selection ("start text...end text") to insert after. Cannot be combined with position.
    after: NotRequired[str]
    # Insert at the start or end of the page. Cannot be combined with after.
    position: NotRequired[APIUpdatePageMarkdownInsertContent1Position]


class APIUpdatePageMarkdownReplaceContentRange1(TypedDict):
    """Deprecated. Provide when type is `replace_content_range`. Replaces a selected range of Markdown.
    """
    # New Markdown content for the range.
    content: str
    # Ellipsis-format selection ("start text...end text") identifying the range to replace.
    content_range: str
    # Permit deletion of child pages/databases within the replaced range.
    allow_deleting_content: NotRequired[bool]


class _Tools:
    def __getitem__(self, name: str) -> Callable[..., Awaitable[Any]]:
        """Any tool by its exact name, for names that are not identifiers: `await tools["my-tool"](arg=1)`."""

    async def API_get_user(self, *, user_id: str) -> Any:
        """Notion | Retrieve a user
        Error Responses:
        400: 400

        The tool "API-get-user": also tools["API-get-user"](...).

        Read-only.

        Args:
            user_id: (format: uuid)
        """

    async def API_get_users(
        self,
        *,
        start_cursor: str | None = None,
        page_size: int | None = None,
    ) -> Any:
        """Notion | List all users
        Error Responses:
        400: 400

        The tool "API-get-users": also tools["API-get-users"](...).

        Read-only.

        Args:
            start_cursor: If supplied, this endpoint will return a page of results starting after the cursor provided. If not supplied, this endpoint will return the first page of results.
            page_size: The number of items from the full list desired in the response. Maximum: 100 (default: 100)
        """

    async def API_get_self(self) -> Any:
        """Notion | Retrieve your token's bot user
        Error Responses:
        400: Bad request

        The tool "API-get-self": also tools["API-get-self"](...).

        Read-only.
        """

    async def API_post_search(
        self,
        *,
        query: str | None = None,
        sort: APIPostSearchSort1 | str | None = None,
        filter: APIPostSearchFilter1 | str | None = None,
        start_cursor: str | None = None,
        page_size: int | None = None,
    ) -> Any:
        """Notion | Search by title
        Error Responses:
        400: Bad request

        The tool "API-post-search": also tools["API-post-search"](...).

        Args:
            query: The text that the API compares page and database titles against.
            start_cursor: A `cursor` value returned in a previous response that If supplied, limits the response to results starting after the `cursor`. If not supplied, then the first page of results is returned. Refer to [pagination](https://developers.notion.com/reference/intro#pagination) for more details.
            page_size: The number of items from the full list to include in the response. Maximum: `100`. (format: int32; default: 100)
        """

    async def API_get_block_children(
        self,
        *,
        block_id: str,
        start_cursor: str | None = None,
        page_size: int | None = None,
    ) -> Any:
        """Notion | Retrieve block children
        Error Responses:
        400: Bad request

        The tool "API-get-block-children": also tools["API-get-block-children"](...).

        Read-only.

        Args:
            block_id: Identifier for a [block](ref:block)
            start_cursor: If supplied, this endpoint will return a page of results starting after the cursor provided. If not supplied, this endpoint will return the first page of results.
            page_size: The number of items from the full list desired in the response. Maximum: 100 (format: int32; default: 100)
        """

    async def API_patch_block_children(
        self,
        *,
        block_id: str,
        children: list[BlockObjectRequest | str | dict[str, Any]],
        after: str | None = None,
    ) -> Any:
        """Notion | Append block children
        Error Responses:
        400: Bad request

        The tool "API-patch-block-children": also tools["API-patch-block-children"](...).

        Args:
            block_id: Identifier for a [block](ref:block). Also accepts a [page](ref:page) ID.
            children: Child content to append to a container block as an array of [block objects](ref:block)
            after: The ID of the existing block that the new block should be appended after.
        """

    async def API_retrieve_a_block(self, *, block_id: str) -> Any:
        """Notion | Retrieve a block
        Error Responses:
        400: Bad request

        The tool "API-retrieve-a-block": also tools["API-retrieve-a-block"](...).

        Read-only.

        Args:
            block_id: Identifier for a Notion block
        """

    async def API_update_a_block(
        self,
        *,
        block_id: str,
        type: dict[str, Any] | str | None = None,
        archived: bool | None = None,
    ) -> Any:
        """Notion | Update a block
        Error Responses:
        400: Bad request

        The tool "API-update-a-block": also tools["API-update-a-block"](...).

        Args:
            block_id: Identifier for a Notion block
            archived: Set to true to archive (delete) a block. Set to false to un-archive (restore) a block. (default: true)
        """

    async def API_delete_a_block(self, *, block_id: str) -> Any:
        """Notion | Delete a block
        Error Responses:
        400: Bad request

        The tool "API-delete-a-block": also tools["API-delete-a-block"](...).

        Args:
            block_id: Identifier for a Notion block
        """

    async def API_retrieve_a_page(
        self,
        *,
        page_id: str,
        filter_properties: str | None = None,
    ) -> Any:
        """Notion | Retrieve a page
        Error Responses:
        400: Bad request

        The tool "API-retrieve-a-page": also tools["API-retrieve-a-page"](...).

        Read-only.

        Args:
            page_id: Identifier for a Notion page
            filter_properties: A list of page property value IDs associated with the page. Use this param to limit the response to a specific page property value or values. To retrieve multiple properties, specify each page property ID. For example: `?filter_properties=iAk8&filter_properties=b7dh`.
        """

    async def API_patch_page(
        self,
        *,
        page_id: str,
        properties: dict[str, Any] | str | None = None,
        in_trash: bool | None = None,
        archived: bool | None = None,
        icon: APIPatchPageIcon1 | str | None = None,
        cover: APIPatchPageCover1 | str | None = None,
    ) -> Any:
        """Notion | Update page properties
        Error Responses:
        400: Bad request

        The tool "API-patch-page": also tools["API-patch-page"](...).

        Args:
            page_id: The identifier for the Notion page to be updated.
            in_trash: Set to true to delete a block. Set to false to restore a block. (default: false)
        """

    async def API_post_page(
        self,
        *,
        parent: ParentRequest | str,
        properties: dict[str, Any] | str,
        children: list[str | dict[str, Any]] | None = None,
        icon: str | None = None,
        cover: str | None = None,
    ) -> Any:
        """Notion | Create a page
        Error Responses:
        400: Bad request

        The tool "API-post-page": also tools["API-post-page"](...).

        Args:
            children: The content to be rendered on the new page, represented as an array of [block objects](https://developers.notion.com/reference/block).
            icon: The icon of the new page. Either an [emoji object](https://developers.notion.com/reference/emoji-object) or an [external file object](https://developers.notion.com/reference/file-object).. (format: json)
            cover: The cover image of the new page, represented as a [file object](https://developers.notion.com/reference/file-object). (format: json)
        """

    async def API_retrieve_a_page_property(
        self,
        *,
        page_id: str,
        property_id: str,
        page_size: int | None = None,
        start_cursor: str | None = None,
    ) -> Any:
        """Notion | Retrieve a page property item
        Error Responses:
        400: Bad request

        The tool "API-retrieve-a-page-property": also tools["API-retrieve-a-page-property"](...).

        Read-only.

        Args:
            page_id: Identifier for a Notion page
            property_id: Identifier for a page [property](https://developers.notion.com/reference/page#all-property-values)
            page_size: For paginated properties. The max number of property item objects on a page. The default size is 100 (format: int32)
            start_cursor: For paginated properties.
        """

    async def API_retrieve_a_comment(
        self,
        *,
        block_id: str,
        start_cursor: str | None = None,
        page_size: int | None = None,
    ) -> Any:
        """Notion | Retrieve comments
        Error Responses:
        400: Bad request

        The tool "API-retrieve-a-comment": also tools["API-retrieve-a-comment"](...).

        Read-only.

        Args:
            block_id: Identifier for a Notion block or page
            start_cursor: If supplied, this endpoint will return a page of results starting after the cursor provided. If not supplied, this endpoint will return the first page of results.
            page_size: The number of items from the full list desired in the response. Maximum: 100 (format: int32)
        """

    async def API_create_a_comment(
        self,
        *,
        parent: APICreateACommentParent1 | str,
        rich_text: list[APICreateACommentRichTextItem1 | str | dict[str, Any]],
    ) -> Any:
        """Notion | Create comment
        Error Responses:
        400: Bad request

        The tool "API-create-a-comment": also tools["API-create-a-comment"](...).
        """

    async def API_query_data_source(
        self,
        *,
        data_source_id: str,
        filter_properties: list[str | dict[str, Any]] | None = None,
        filter: dict[str, Any] | str | None = None,
        sorts: list[SortObject | str | dict[str, Any]] | None = None,
        start_cursor: str | None = None,
        page_size: int | None = None,
        archived: bool | None = None,
        in_trash: bool | None = None,
    ) -> Any:
        """Notion | Query a data source
        Error Responses:
        400: Bad request

        The tool "API-query-data-source": also tools["API-query-data-source"](...).

        Args:
            data_source_id: Identifier for a Notion data source (database)
            filter_properties: A list of page property value IDs to limit the response
            page_size: (default: 100)
        """

    async def API_retrieve_a_data_source(self, *, data_source_id: str) -> Any:
        """Notion | Retrieve a data source
        Error Responses:
        400: Bad request

        The tool "API-retrieve-a-data-source": also tools["API-retrieve-a-data-source"](...).

        Read-only.

        Args:
            data_source_id: Identifier for a Notion data source
        """

    async def API_update_a_data_source(
        self,
        *,
        data_source_id: str,
        title: list[RichTextRequest | str | dict[str, Any]] | None = None,
        description: list[RichTextRequest | str | dict[str, Any]] | None = None,
        properties: dict[str, Any] | str | None = None,
    ) -> Any:
        """Notion | Update a data source
        Error Responses:
        400: Bad request

        The tool "API-update-a-data-source": also tools["API-update-a-data-source"](...).

        Args:
            data_source_id: Identifier for a Notion data source
        """

    async def API_create_a_data_source(
        self,
        *,
        parent: PageIdParentRequest | str,
        properties: dict[str, Any] | str,
        title: list[RichTextRequest | str | dict[str, Any]] | None = None,
    ) -> Any:
        """Notion | Create a data source
        Error Responses:
        400: Bad request

        The tool "API-create-a-data-source": also tools["API-create-a-data-source"](...).
        """

    async def API_list_data_source_templates(
        self,
        *,
        data_source_id: str,
        start_cursor: str | None = None,
        page_size: int | None = None,
    ) -> Any:
        """Notion | List templates in a data source
        Error Responses:
        400: Bad request

        The tool "API-list-data-source-templates": also tools["API-list-data-source-templates"](...).

        Read-only.

        Args:
            data_source_id: Identifier for a Notion data source
            page_size: (default: 100)
        """

    async def API_retrieve_a_database(self, *, database_id: str) -> Any:
        """Notion | Retrieve a database
        Error Responses:
        400: Bad request

        The tool "API-retrieve-a-database": also tools["API-retrieve-a-database"](...).

        Read-only.

        Args:
            database_id: Identifier for a Notion database
        """

    async def API_move_page(
        self,
        *,
        page_id: str,
        parent: MovePageParentRequest | str,
    ) -> Any:
        """Notion | Move a page
        Error Responses:
        400: Bad request

        The tool "API-move-page": also tools["API-move-page"](...).

        Args:
            page_id: Identifier for a Notion page (format: uuid)
        """

    async def API_retrieve_page_markdown(
        self,
        *,
        page_id: str,
        include_transcript: bool | None = None,
    ) -> Any:
        """Notion | Retrieve a page as Markdown
        Error Responses:
        400: Bad request
        403: The integration lacks the read/update content capability required for this page.
        404: Page not found or not shared with the integration.
        429: Rate limited.

        The tool "API-retrieve-page-markdown": also tools["API-retrieve-page-markdown"](...).

        Read-only.

        Args:
            page_id: Identifier for a Notion page (or block) to read or update as markdown. (format: uuid)
            include_transcript: Whether to include meeting note transcripts. When false (default), a placeholder with the meeting note URL is shown instead of the full transcript. (default: false)
        """

    async def API_update_page_markdown(
        self,
        *,
        page_id: str,
        type: Literal["replace_content", "update_content", "insert_content", "replace_content_range"],
        replace_content: APIUpdatePageMarkdownReplaceContent1 | str | None = None,
        update_content: APIUpdatePageMarkdownUpdateContent1 | str | None = None,
        insert_content: APIUpdatePageMarkdownInsertContent1 | str | None = None,
        replace_content_range: APIUpdatePageMarkdownReplaceContentRange1 | str | None = None,
    ) -> Any:
        """Notion | Update a page's content as Markdown
        Error Responses:
        400: Bad request
        403: The integration lacks the read/update content capability required for this page.
        404: Page not found or not shared with the integration.
        409: Conflict (e.g. row limit exceeded).
        429: Rate limited.

        The tool "API-update-page-markdown": also tools["API-update-page-markdown"](...).

        Args:
            page_id: Identifier for a Notion page (or block) to read or update as markdown. (format: uuid)
            type: The kind of edit to apply. Prefer `replace_content` (overwrite the whole page) or `update_content` (targeted find-and-replace). `insert_content` and `replace_content_range` are deprecated.
        """


tools: _Tools
"""Every tool, as an async method; optional arguments left as None are not sent."""
