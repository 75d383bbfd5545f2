/** A failed `tools.*` call rejects with this error; `message` says what went wrong. */
declare class ToolCallError extends Error {
 /** The tool that was called. */
 readonly toolName: string;
 /** UNKNOWN_TOOL: no such tool. INVALID_ARGUMENTS: the arguments do not match its schema. DENIED: a policy refused the call. TOOL_ERROR: the tool failed. INVALID_OUTPUT: its result broke its output schema. TOOL_TIMEOUT: the tool ran out of time. ABORTED_BEFORE_DISPATCH / ABORTED: the call was cancelled before / after it started. */
 readonly code: "UNKNOWN_TOOL" | "INVALID_ARGUMENTS" | "DENIED" | "TOOL_ERROR" | "INVALID_OUTPUT" | "TOOL_TIMEOUT" | "ABORTED_BEFORE_DISPATCH" | "ABORTED";
}
/** A failed `state` call rejects with this error; `message` says what went wrong. */
declare class StateError extends Error {
 /** INVALID_KEY: not a string of 1 … 256 bytes without control characters. INVALID_VALUE: not lossless JSON. QUOTA: past a quota of the value, the keys or the session (nothing was written). EXPIRED_SESSION / UNKNOWN_SESSION: the session is gone. UNAVAILABLE: the store could not be reached. */
 readonly code: "INVALID_KEY" | "INVALID_VALUE" | "QUOTA" | "EXPIRED_SESSION" | "UNKNOWN_SESSION" | "UNAVAILABLE";
}
/** JSON values by key, kept between runs of a session: the result names its session; pass it as `session` to a later run. */
declare const state: {
 /** The value set under `key`, or undefined. */
 get<T = any>(key: string): Promise<T | undefined>;
 /** Sets `key` to `value` (lossless JSON). */
 set(key: string, value: unknown): Promise<void>;
 /** Deletes `key`; whether it was set. */
 delete(key: string): Promise<boolean>;
 /** Every key, sorted. */
 keys(): Promise<string[]>;
};
type BlockObjectRequest = ParagraphBlockRequest | BulletedListItemBlockRequest;
type ParentRequest = PageIdParentRequest | DataSourceIdParentRequest | { type: "workspace"; [key: string]: unknown };
type SortObject = { property: string; direction: "ascending" | "descending"; [key: string]: unknown };
type RichTextRequest = { text: { content: string; link?: { [key: string]: unknown } | null }; type?: "text" };
type PageIdParentRequest = {
 /** @format uuid */ page_id: string;
 [key: string]: unknown;
};
type MovePageParentRequest = {
 type: "page_id";
 /** @format uuid */ page_id: string;
 [key: string]: unknown;
} | {
 type: "database_id";
 /** @format uuid */ database_id: string;
 [key: string]: unknown;
} | { type: "workspace"; [key: string]: unknown };
type ParagraphBlockRequest = { paragraph?: { rich_text: RichTextRequest[] }; type?: "paragraph" };
type BulletedListItemBlockRequest = { bulleted_list_item?: { rich_text: RichTextRequest[] }; type?: "bulleted_list_item" };
type DataSourceIdParentRequest = {
 type?: "database_id";
 /** @format uuid */ database_id: string;
 [key: string]: unknown;
};
declare const tools: {
 /** Finds the tools whose names, descriptions and parameters best match `query`, best first; `limit` is 1 … 50, by default 10. Answers at once, without calling a tool. */
 $search(query: string, options?: { limit?: number }): { name: string; summary: string; score: number }[];
 /** The declarations of these tools, as in this SDK, then a `// unknown: …` line naming any not found. Answers at once, without calling a tool. */
 $describe(names: string | string[]): string;
 /** Notion | Retrieve a user
  * Error Responses:
  * 400: 400
  * Call: tools["API-get-user"](args) @readonly */
 "API-get-user"(args: {
  /** @format uuid */ user_id: string;
 }): Promise<unknown>;
 /** Notion | List all users
  * Error Responses:
  * 400: 400
  * Call: tools["API-get-users"](args) @readonly */
 "API-get-users"(args?: {
  /** If supplied, this endpoint will return a page of results starting after the cursor provided. If not supplied, this endpoint will return the first page of results. */ start_cursor?: string;
  /** The number of items from the full list desired in the response. Maximum: 100 @default 100 */ page_size?: number;
 }): Promise<unknown>;
 /** Notion | Retrieve your token's bot user
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-get-self"](args) @readonly */
 "API-get-self"(args?: { [key: string]: unknown }): Promise<unknown>;
 /** Notion | Search by title
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-post-search"](args) */
 "API-post-search"(args?: {
  /** The text that the API compares page and database titles against. */ query?: string;
  sort?: /** A set of criteria, `direction` and `timestamp` keys, that orders the results. The **only** supported timestamp value is `"last_edited_time"`. Supported `direction` values are `"ascending"` and `"descending"`. If `sort` is not provided, then the most recently edited results are returned first. */ {
   /** The direction to sort. Possible values include `ascending` and `descending`. */ direction?: string;
   /** The name of the timestamp to sort against. Possible values include `last_edited_time`. */ timestamp?: string;
   [key: string]: unknown;
  } | string;
  filter?: /** A set of criteria, `value` and `property` keys, that limits the results to either only pages or only data sources. Possible `value` values are `"page"` or `"data_source"`. The only supported `property` value is `"object"`. */ {
   /** The value of the property to filter the results by.  Possible values for object type include `page` or `data_source`.  **Limitation**: Currently the only filter allowed is `object` which will filter by type of object (either `page` or `data_source`) */ value?: "page" | "data_source";
   /** The name of the property to filter by. Currently the only property you can filter by is the object type.  Possible values include `object`.   Limitation: Currently the only filter allowed is `object` which will filter by type of object (either `page` or `data_source`) */ property?: string;
   [key: string]: unknown;
  } | string;
  /** A `cursor` value returned in a previous response that If supplied, limits the response to results starting after the `cursor`. If not supplied, then the first page of results is returned. Refer to [pagination](https://developers.notion.com/reference/intro#pagination) for more details. */ start_cursor?: string;
  /** The number of items from the full list to include in the response. Maximum: `100`. @format int32 @default 100 */ page_size?: number;
 }): Promise<unknown>;
 /** Notion | Retrieve block children
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-get-block-children"](args) @readonly */
 "API-get-block-children"(args: {
  /** Identifier for a [block](ref:block) */ block_id: string;
  /** If supplied, this endpoint will return a page of results starting after the cursor provided. If not supplied, this endpoint will return the first page of results. */ start_cursor?: string;
  /** The number of items from the full list desired in the response. Maximum: 100 @format int32 @default 100 */ page_size?: number;
 }): Promise<unknown>;
 /** Notion | Append block children
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-patch-block-children"](args) */
 "API-patch-block-children"(args: {
  /** Identifier for a [block](ref:block). Also accepts a [page](ref:page) ID. */ block_id: string;
  /** Child content to append to a container block as an array of [block objects](ref:block) */ children: (BlockObjectRequest | string | { [key: string]: unknown })[];
  /** The ID of the existing block that the new block should be appended after. */ after?: string;
 }): Promise<unknown>;
 /** Notion | Retrieve a block
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-retrieve-a-block"](args) @readonly */
 "API-retrieve-a-block"(args: {
  /** Identifier for a Notion block */ block_id: string;
 }): Promise<unknown>;
 /** Notion | Update a block
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-update-a-block"](args) */
 "API-update-a-block"(args: {
  /** Identifier for a Notion block */ block_id: string;
  type?: /** The [block object `type`](ref:block#block-object-keys) value with the properties to be updated. Currently only `text` (for supported block types) and `checked` (for `to_do` blocks) fields can be updated. */ { [key: string]: unknown } | string;
  /** Set to true to archive (delete) a block. Set to false to un-archive (restore) a block. @default true */ archived?: boolean;
 }): Promise<unknown>;
 /** Notion | Delete a block
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-delete-a-block"](args) */
 "API-delete-a-block"(args: {
  /** Identifier for a Notion block */ block_id: string;
 }): Promise<unknown>;
 /** Notion | Retrieve a page
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-retrieve-a-page"](args) @readonly */
 "API-retrieve-a-page"(args: {
  /** Identifier for a Notion page */ page_id: string;
  /** A list of page property value IDs associated with the page. Use this param to limit the response to a specific page property value or values. To retrieve multiple properties, specify each page property ID. For example: `?filter_properties=iAk8&filter_properties=b7dh`. */ filter_properties?: string;
 }): Promise<unknown>;
 /** Notion | Update page properties
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-patch-page"](args) */
 "API-patch-page"(args: {
  /** The identifier for the Notion page to be updated. */ page_id: string;
  properties?: /** The property values to update for the page. The keys are the names or IDs of the property and the values are property values. If a page property ID is not included, then it is not changed. */ { [key: string]: unknown } | string;
  /** Set to true to delete a block. Set to false to restore a block. @default false */ in_trash?: boolean;
  archived?: boolean;
  icon?: /** A page icon for the page. Supported types are [external file object](https://developers.notion.com/reference/file-object) or [emoji object](https://developers.notion.com/reference/emoji-object). */ { emoji: string } | string;
  cover?: /** A cover image for the page. Only [external file objects](https://developers.notion.com/reference/file-object) are supported. */ { external: { url: string }; type?: "external" } | string;
 }): Promise<unknown>;
 /** Notion | Create a page
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-post-page"](args) */
 "API-post-page"(args: {
  parent: ParentRequest | string;
  properties: /** The property values for the new page. The keys are the names or IDs of the property and the values are property values. */ { [key: string]: unknown } | string;
  /** The content to be rendered on the new page, represented as an array of [block objects](https://developers.notion.com/reference/block). */ children?: (string | string | { [key: string]: unknown })[];
  /** The icon of the new page. Either an [emoji object](https://developers.notion.com/reference/emoji-object) or an [external file object](https://developers.notion.com/reference/file-object).. @format json */ icon?: string;
  /** The cover image of the new page, represented as a [file object](https://developers.notion.com/reference/file-object). @format json */ cover?: string;
 }): Promise<unknown>;
 /** Notion | Retrieve a page property item
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-retrieve-a-page-property"](args) @readonly */
 "API-retrieve-a-page-property"(args: {
  /** Identifier for a Notion page */ page_id: string;
  /** Identifier for a page [property](https://developers.notion.com/reference/page#all-property-values) */ property_id: string;
  /** For paginated properties. The max number of property item objects on a page. The default size is 100 @format int32 */ page_size?: number;
  /** For paginated properties. */ start_cursor?: string;
 }): Promise<unknown>;
 /** Notion | Retrieve comments
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-retrieve-a-comment"](args) @readonly */
 "API-retrieve-a-comment"(args: {
  /** Identifier for a Notion block or page */ block_id: string;
  /** If supplied, this endpoint will return a page of results starting after the cursor provided. If not supplied, this endpoint will return the first page of results. */ start_cursor?: string;
  /** The number of items from the full list desired in the response. Maximum: 100 @format int32 */ page_size?: number;
 }): Promise<unknown>;
 /** Notion | Create comment
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-create-a-comment"](args) */
 "API-create-a-comment"(args: {
  parent: /** The page that contains the comment */ {
   /** the page ID */ page_id: string;
   [key: string]: unknown;
  } | string;
  rich_text: ({
   text: {
    /** The content of the comment */ content: string;
    [key: string]: unknown;
   };
   [key: string]: unknown;
  } | string | { [key: string]: unknown })[];
 }): Promise<unknown>;
 /** Notion | Query a data source
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-query-data-source"](args) */
 "API-query-data-source"(args: {
  /** Identifier for a Notion data source (database) */ data_source_id: string;
  /** A list of page property value IDs to limit the response */ filter_properties?: (string | string | { [key: string]: unknown })[];
  filter?: /** Filter conditions for querying the data source */ { [key: string]: unknown } | string;
  sorts?: (SortObject | string | { [key: string]: unknown })[];
  start_cursor?: string;
  /** @default 100 */ page_size?: number;
  archived?: boolean;
  in_trash?: boolean;
 }): Promise<unknown>;
 /** Notion | Retrieve a data source
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-retrieve-a-data-source"](args) @readonly */
 "API-retrieve-a-data-source"(args: {
  /** Identifier for a Notion data source */ data_source_id: string;
 }): Promise<unknown>;
 /** Notion | Update a data source
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-update-a-data-source"](args) */
 "API-update-a-data-source"(args: {
  /** Identifier for a Notion data source */ data_source_id: string;
  title?: (RichTextRequest | string | { [key: string]: unknown })[];
  description?: (RichTextRequest | string | { [key: string]: unknown })[];
  properties?: /** Property schema updates */ { [key: string]: unknown } | string;
 }): Promise<unknown>;
 /** Notion | Create a data source
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-create-a-data-source"](args) */
 "API-create-a-data-source"(args: {
  parent: PageIdParentRequest | string;
  properties: /** Property schema of data source */ { [key: string]: unknown } | string;
  title?: (RichTextRequest | string | { [key: string]: unknown })[];
 }): Promise<unknown>;
 /** Notion | List templates in a data source
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-list-data-source-templates"](args) @readonly */
 "API-list-data-source-templates"(args: {
  /** Identifier for a Notion data source */ data_source_id: string;
  start_cursor?: string;
  /** @default 100 */ page_size?: number;
 }): Promise<unknown>;
 /** Notion | Retrieve a database
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-retrieve-a-database"](args) @readonly */
 "API-retrieve-a-database"(args: {
  /** Identifier for a Notion database */ database_id: string;
 }): Promise<unknown>;
 /** Notion | Move a page
  * Error Responses:
  * 400: Bad request
  * Call: tools["API-move-page"](args) */
 "API-move-page"(args: {
  /** Identifier for a Notion page @format uuid */ page_id: string;
  parent: MovePageParentRequest | string;
 }): Promise<unknown>;
 /** Notion | Retrieve a page as Markdown
  * Error Responses:
  * 400: Bad request
  * 403: The integration lacks the read/update content capability required for this page.
  * 404: Page not found or not shared with the integration.
  * 429: Rate limited.
  * Call: tools["API-retrieve-page-markdown"](args) @readonly */
 "API-retrieve-page-markdown"(args: {
  /** Identifier for a Notion page (or block) to read or update as markdown. @format uuid */ page_id: string;
  /** Whether to include meeting note transcripts. When false (default), a placeholder with the meeting note URL is shown instead of the full transcript. @default false */ include_transcript?: boolean;
 }): Promise<unknown>;
 /** Notion | Update a page's content as Markdown
  * Error Responses:
  * 400: Bad request
  * 403: The integration lacks the read/update content capability required for this page.
  * 404: Page not found or not shared with the integration.
  * 409: Conflict (e.g. row limit exceeded).
  * 429: Rate limited.
  * Call: tools["API-update-page-markdown"](args) */
 "API-update-page-markdown"(args: {
  /** Identifier for a Notion page (or block) to read or update as markdown. @format uuid */ page_id: string;
  /** The kind of edit to apply. Prefer `replace_content` (overwrite the whole page) or `update_content` (targeted find-and-replace). `insert_content` and `replace_content_range` are deprecated. */ type: "replace_content" | "update_content" | "insert_content" | "replace_content_range";
  replace_content?: /** Provide when type is `replace_content`. Replaces the entire page content. */ {
   /** The complete new page content as enhanced Markdown. */ new_str: string;
   /** Permit deletion of existing child pages/databases that are no longer present in the new content. */ allow_deleting_content?: boolean;
   [key: string]: unknown;
  } | string;
  update_content?: /** Provide when type is `update_content`. Applies targeted find-and-replace edits. */ {
   /** Up to 100 find-and-replace edits applied in order. */ content_updates: {
    /** Exact existing Markdown text to find. */ old_str: string;
    /** Replacement Markdown text. */ new_str: string;
    /** Replace every occurrence of old_str instead of just the first (default false). */ replace_all_matches?: boolean;
    [key: string]: unknown;
   }[];
   /** Permit deletion of existing child pages/databases removed by the edits. */ allow_deleting_content?: boolean;
   [key: string]: unknown;
  } | string;
  insert_content?: /** Deprecated. Provide when type is `insert_content`. Inserts Markdown at a position. */ {
   /** Enhanced Markdown to insert. */ content: string;
   /** Ellipsis-format selection ("start text...end text") to insert after. Cannot be combined with position. */ after?: string;
   /** Insert at the start or end of the page. Cannot be combined with after. */ position?: { type?: "start" | "end"; [key: string]: unknown };
   [key: string]: unknown;
  } | string;
  replace_content_range?: /** Deprecated. Provide when type is `replace_content_range`. Replaces a selected range of Markdown. */ {
   /** New Markdown content for the range. */ content: string;
   /** Ellipsis-format selection ("start text...end text") identifying the range to replace. */ content_range: string;
   /** Permit deletion of child pages/databases within the replaced range. */ allow_deleting_content?: boolean;
   [key: string]: unknown;
  } | string;
 }): Promise<unknown>;
};
