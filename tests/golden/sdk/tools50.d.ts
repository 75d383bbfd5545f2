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
declare const tools: {
 /** Finds the tools whose names, descriptions and parameters best match `query`, best first; `limit` is 1 … 50, by default 10. Answers at once, without calling a tool. */
 $search(query: string, options?: { limit?: number }): { name: string; summary: string; score: number }[];
 /** The declarations of these tools, as in this SDK, then a `// unknown: …` line naming any not found. Answers at once, without calling a tool. */
 $describe(names: string | string[]): string;
 /** Return the arguments unchanged. */
 echo(args: {
  /** Any JSON value; echoed back as-is. */ value: unknown;
 }): Promise<{
  /** The value that was sent. */ value: unknown;
 }>;
 /** Wait for a number of milliseconds, then return. */
 sleep(args: {
  /** How long to wait, in milliseconds. @minimum 0 @maximum 60000 */ ms: number;
  /** Optional caller tag (ignored). @minimum 0 */ i?: number;
 }): Promise<{ slept: number }>;
 /** Fetch rows of the demo table (10,000 rows). */
 get_rows(args?: {
  /** Maximum rows to return. @minimum 1 @maximum 10000 @default 10000 */ limit?: number;
 }): Promise<{
  id: number;
  name: string;
  score: number;
  /** @minItems 3 @maxItems 3 */ tags: string[];
 }[]>;
 /** Create an issue in a GitHub repository.
  * Call: tools["github.create-issue"](args) */
 "github.create-issue"(args: {
  /** Repository owner (user or org). */ owner: string;
  /** Repository name. */ repo: string;
  /** Issue title. @minLength 1 @maxLength 256 */ title: string;
  /** Markdown body. */ body?: string;
  /** Label names. */ labels?: string[];
  assignees?: { login: string; role?: "owner" | "reviewer" }[];
  /** Milestone number or title. */ milestone?: /** @minimum 1 */ number | string;
 }): Promise<{
  number: number;
  /** @format uri */ url: string;
 }>;
 /** Post a message to a Slack channel.
  * Call: tools["slack.chat.post-message"](args) */
 "slack.chat.post-message"(args: {
  /** Channel id or name. */ channel: string;
  text: string;
  /** Reply in a thread. */ thread?: {
   ts: string;
   /** @default false */ broadcast?: boolean;
  };
  unfurl?: "none" | "links" | "media" | "all";
 }): Promise<unknown>;
 /** Get product in gmail. Read-only.
  * Call: tools["gmail.get-product"](args) */
 "gmail.get-product"(args: {
  limit: string;
  /** The owner to use. */ owner?: string;
 }): Promise<unknown>;
 /** Delete bucket in delete. Read-only. @returns The result. */
 delete_bucket(args: {
  /** The version to use. */ version: string;
  /** @minimum -100 @maximum 53299 */ query: number;
  /** The status to use (see the service docs for allowed values). */ status: /** A status id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The reason to use (see the service docs for allowed values). */ reason: string[];
    account?: string;
   };
  };
  /** The path to use (see the service docs for allowed values). */ path?: {
   /** The path to use. @default "created" */ path: "created" | "updated" | "popularity" | "long-running";
   /** The status to use. @maxItems 28 */ status?: string[];
   /** The owner to use. @minimum 0 @maximum 1 */ owner: number;
   /** The offset to use. */ offset?: string;
   /** The branch to use. */ branch?: {
    /** The branch to use (see the service docs for allowed values). */ branch: string | null;
    /** The version to use. @maxItems 36 */ version?: string[];
   };
  };
  /** The offset to use (see the service docs for allowed values). */ offset?: string;
  /** The timezone to use. */ timezone?: {
   path: /** A path id. */ string | { kind: "ref"; id: string } | {
    kind: "inline";
    value: {
     /** The path to use. */ path: "public" | "private" | "internal";
     /** The format to use. */ format?: string | null;
    };
   };
   /** The label to use. */ label: /** A label id. */ string | { kind: "ref"; id: string } | {
    kind: "inline";
    value: {
     /** The color to use. */ color: "USD" | "EUR" | "GBP" | "JPY" | "CHF";
     /** The query to use (see the service docs for allowed values). @default true */ query?: boolean;
    };
   };
   /** The currency to use (see the service docs for allowed values). @minimum 0 */ currency?: number;
  }[];
  /** The reason to use (see the service docs for allowed values). */ reason: string;
  /** The url to use (see the service docs for allowed values). */ url?: string | null;
 }): Promise<{
  /** The email to use. */ email: string | null;
  /** The color to use. */ color?: string;
 }>;
 /** Delete in pagerduty. Returns the affected records. Requires write scope.
  * Call: tools["pagerduty.ticket.delete"](args) @returns Matching records. */
 "pagerduty.ticket.delete"(args: {
  /** @minimum 0 @maximum 37344 */ path: number;
  /** The body to use. */ body: /** A body id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The body to use. */ body: string | null;
    /** The timezone to use. @minimum 0 @maximum 1 */ timezone?: number;
   };
  };
  /** @minimum -100 @maximum 6653 */ format?: number;
 }): Promise<{
  /** The query to use. */ query: string | null;
  until: {
   /** The until to use. */ until: string | null;
   /** The email to use. @minimum 0 @maximum 88795 */ email?: number;
   /** The url to use. @minimum 0 @maximum 18096 */ url?: number;
  }[];
  /** The since to use. @minimum 0 @maximum 1 */ since: number;
 }[]>;
 /** Salesforce mergeTask in salesforce. Returns the affected records. Requires write scope. */
 salesforce_mergeTask(args: {
  /** The version to use. @default false */ version: boolean;
  /** The timezone to use. @minimum 1 @maximum 42218 */ timezone?: number;
  /** The path to use (see the service docs for allowed values). */ path?: /** A path id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The primary to use (see the service docs for allowed values). */ primary: {
     /** The format to use (see the service docs for allowed values). @minimum -100 @maximum 81129 */ format: number;
     /** The reason to use. @minimum 0 @maximum 11088 */ reason?: number;
     /** The until to use. @default "low" */ until?: "low" | "medium" | "high" | "urgent";
    }[];
    /** The path to use (see the service docs for allowed values). */ path?: string[];
   };
  };
  /** The since to use (see the service docs for allowed values). */ since?: /** A since id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The offset to use. @default "open" */ offset: "open" | "closed" | "all";
    /** The owner to use. */ owner: {
     /** The offset to use (see the service docs for allowed values). */ offset: string | null;
     /** @default "public" */ visibility?: "public" | "private" | "internal";
    }[];
   };
  };
  /** The primary to use. @format date-time */ primary?: string;
  /** @maxItems 36 */ workspace?: string[];
 }): Promise<unknown>;
 /** Gmail refund team in gmail. Returns the affected records. Requires write scope.
  * Call: tools["gmail-refund-team"](args) @returns The result. */
 "gmail-refund-team"(args: {
  /** The limit to use (see the service docs for allowed values). */ limit: {
   /** The body to use. @minLength 1 @maxLength 3008 */ body: string;
   /** The email to use. */ email?: string | null;
   /** @minLength 1 @maxLength 828 */ primary: string;
   /** The amount to use. */ amount?: string | null;
  }[];
  /** The visibility to use. @minimum -100 @maximum 10486 */ visibility: number;
  /** The offset to use. */ offset: /** A offset id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The path to use. @minLength 1 @maxLength 2051 */ path: string;
    /** The visibility to use. @format uri @minLength 1 @maxLength 4035 */ visibility?: string;
   };
  };
  region?: string | null;
  /** The account to use. @minLength 1 @maxLength 2641 */ account: string;
 }): Promise<{
  /** The priority to use. @minimum 1 @maximum 56075 */ priority: number;
  label?: string | null;
  /** @format uri */ body: string;
  /** The workspace to use. */ workspace?: {
   /** @minimum 1 @maximum 30515 */ notes: number;
   /** The body to use. */ body?: string;
   /** The workspace to use (see the service docs for allowed values). @default true */ workspace: boolean;
  };
 }>;
 /** Search metric in gitlab. Read-only.
  * Call: tools["gitlab.search-metric"](args) */
 "gitlab.search-metric"(args: {
  /** The reason to use (see the service docs for allowed values). */ reason: "low" | "medium" | "high" | "urgent";
  /** The primary to use. */ primary?: /** A primary id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The region to use. */ region: string | null;
    /** The notes to use. */ notes?: "draft" | "published" | "archived" | "deleted";
   };
  };
  /** The timezone to use. */ timezone?: {
   /** The path to use. */ path: "json" | "csv" | "xml" | "yaml";
   /** The since to use. */ since?: string | null;
  }[];
  notes?: string | null;
  /** The title to use. @minimum 0 @maximum 1 */ title?: number;
 }): Promise<unknown>;
 /** Delete bucket 6. Returns the affected records. Requires write scope. @returns Matching records. */
 delete_bucket_6(args: {
  /** The owner to use. @format uuid @minLength 1 @maxLength 1150 */ owner: string;
  /** @minimum 0 */ region?: number;
  /** @minimum 1 @maximum 44618 */ cursor: number;
  path?: {
   /** The body to use. */ body: {
    /** The region to use. */ region: string[];
    /** The locale to use. */ locale: string[];
   }[];
   /** The timezone to use (see the service docs for allowed values). @default "public" */ timezone?: "public" | "private" | "internal";
   query: {
    /** The priority to use (see the service docs for allowed values). @minimum -100 @maximum 87835 */ priority: number;
    /** The since to use. */ since: string | null;
   };
  }[];
  /** The timezone to use. @default true */ timezone?: boolean;
  /** @format uuid */ amount?: string;
 }): Promise<{
  /** The cursor to use. @minLength 1 @maxLength 3583 */ cursor: string;
  /** The color to use. @default false */ color?: boolean;
  title?: /** A title id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The timezone to use. @minimum 1 @maximum 2135 */ timezone: number;
    /** The priority to use. @maxItems 29 */ priority?: string[];
   };
  };
 }[]>;
 /** Resolve in gitlab. Read-only.
  * Call: tools["gitlab.order.resolve"](args) */
 "gitlab.order.resolve"(args: {
  /** @default "created" */ timezone: "created" | "updated" | "popularity" | "long-running";
  /** The email to use. @default false */ email: boolean;
  /** The url to use. */ url: {
   /** The branch to use. @minLength 1 @maxLength 4020 */ branch: string;
   /** The query to use. */ query: {
    /** The since to use (see the service docs for allowed values). @default "draft" */ since: "draft" | "published" | "archived" | "deleted";
    /** The version to use. @default "created" */ version?: "created" | "updated" | "popularity" | "long-running";
    /** @minimum 0 @maximum 78523 */ limit?: number;
    /** The branch to use. @minimum -100 @maximum 48548 */ branch?: number;
   };
   /** The format to use (see the service docs for allowed values). @default true */ format: boolean;
  }[];
  /** @minLength 1 @maxLength 451 */ color?: string;
  /** Idempotency key (HTTP header style name). */ "x-request-id"?: string;
 }): Promise<unknown>;
 /** Cloudflare refundUser. Read-only. @returns The result. */
 cloudflare_refundUser(args: {
  /** @default true */ url: boolean;
  /** The email to use. @default true */ email?: boolean;
  /** The primary to use. @minLength 1 @maxLength 2436 */ primary?: string;
  /** The version to use. */ version: {
   /** @default false */ timezone: boolean;
   /** The title to use. @minimum 0 */ title?: number;
  }[];
  /** The path to use. @minLength 1 @maxLength 1789 */ path?: string;
 }): Promise<{
  /** The reason to use. @default "asc" */ reason: "asc" | "desc";
  /** The amount to use (see the service docs for allowed values). @minLength 1 @maxLength 2085 */ amount: string;
  /** The status to use. */ status: {
   /** The primary to use. */ primary: string | null;
   /** The limit to use. @minimum 1 @maximum 53936 */ limit?: number;
   /** The version to use. */ version: "open" | "closed" | "all";
  }[];
  /** The until to use. */ until?: /** A until id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The timezone to use (see the service docs for allowed values). */ timezone: string | null;
    title?: "json" | "csv" | "xml" | "yaml";
   };
  };
  /** The locale to use (see the service docs for allowed values). */ locale?: string | null;
 }>;
 /** Shopify search webhook in shopify. Read-only.
  * Call: tools["shopify-search-webhook"](args) */
 "shopify-search-webhook"(args: {
  /** The amount to use. @default false */ amount: boolean;
  /** The format to use. */ format: {
   /** The color to use. @minimum 0 */ color: number;
   /** The query to use. */ query?: {
    /** The path to use (see the service docs for allowed values). */ path: "USD" | "EUR" | "GBP" | "JPY" | "CHF";
    /** @default "created" */ limit?: "created" | "updated" | "popularity" | "long-running";
   }[];
   /** @minimum 0 @maximum 53666 */ branch?: number;
  }[];
  color?: string | null;
  /** The status to use. */ status?: /** A status id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The label to use (see the service docs for allowed values). */ label: string;
    /** The currency to use. */ currency?: {
     /** The body to use. @minimum 1 @maximum 8910 */ body: number;
     url?: string;
     /** The account to use. */ account: "public" | "private" | "internal";
    }[];
   };
  };
 }): Promise<unknown>;
 /** Assign webhook. Read-only.
  * Call: tools["openai.assign-webhook"](args) */
 "openai.assign-webhook"(args: {
  /** The currency to use (see the service docs for allowed values). @default "created" */ currency: "created" | "updated" | "popularity" | "long-running";
  /** The account to use (see the service docs for allowed values). */ account?: {
   /** The region to use. */ region: {
    /** The primary to use. @minLength 1 @maxLength 1346 */ primary: string;
    branch?: string;
    /** The currency to use. @format date */ currency?: string;
    /** @minimum 1 @maximum 32933 */ path?: number;
   }[];
   /** The color to use. @minLength 1 @maxLength 1750 */ color?: string;
   /** The currency to use. */ currency: {
    /** The currency to use (see the service docs for allowed values). */ currency: string | null;
    /** The body to use (see the service docs for allowed values). @minimum -100 @maximum 54415 */ body: number;
    /** The reason to use (see the service docs for allowed values). */ reason?: string[];
    /** The cursor to use. @minimum 1 @maximum 34880 */ cursor?: number;
   }[];
  };
  path: /** A path id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** @minimum -100 @maximum 20452 */ since: number;
    /** @minimum 0 @maximum 30992 */ branch?: number;
   };
  };
  /** The email to use. */ email: string[];
  /** The visibility to use (see the service docs for allowed values). @default "asc" */ visibility?: "asc" | "desc";
 }): Promise<unknown>;
 /** Refund board in refund. Returns the affected records. Requires write scope. @returns Matching records. */
 refund_board(args: {
  /** The owner to use. */ owner: /** A owner id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The email to use. */ email: string | null;
    /** The label to use (see the service docs for allowed values). @default "public" */ label?: "public" | "private" | "internal";
   };
  };
  /** The offset to use. @default "created" */ offset: "created" | "updated" | "popularity" | "long-running";
  status: string;
  /** The timezone to use (see the service docs for allowed values). */ timezone?: string[];
  /** Idempotency key (HTTP header style name). */ "x-request-id"?: string;
 }): Promise<{
  /** The branch to use. */ branch: string[];
  /** The until to use (see the service docs for allowed values). */ until: /** A until id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The body to use. @minLength 1 @maxLength 2566 */ body: string;
    /** The label to use (see the service docs for allowed values). */ label?: string | null;
   };
  };
  /** The cursor to use. */ cursor?: string[];
 }[]>;
 /** Resolve. Returns the affected records. Requires write scope.
  * Call: tools["asana.deal.resolve"](args) */
 "asana.deal.resolve"(args: {
  /** The priority to use. */ priority: /** A priority id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The format to use (see the service docs for allowed values). @maxItems 14 */ format: string[];
    /** The limit to use. */ limit?: string[];
   };
  };
  /** The account to use. @default false */ account?: boolean;
 }): Promise<unknown>;
 /** Gitlab deleteInvoice. Returns the affected records. Requires write scope. */
 gitlab_deleteInvoice(args: {
  /** The notes to use. @format email */ notes: string;
  /** The until to use. @minLength 1 @maxLength 2160 */ until: string;
  /** The reason to use. @minimum 0 @maximum 1 */ reason: number;
  /** The limit to use. @maxItems 15 */ limit?: string[];
  /** The url to use (see the service docs for allowed values). */ url?: string;
 }): Promise<unknown>;
 /** Shopify merge pull request. Read-only.
  * Call: tools["shopify-merge-pull_request"](args) */
 "shopify-merge-pull_request"(args: {
  notes: string;
  /** The until to use (see the service docs for allowed values). */ until?: {
   cursor: {
    region: string[];
    /** The timezone to use (see the service docs for allowed values). */ timezone?: string | null;
    /** The format to use. */ format?: "draft" | "published" | "archived" | "deleted";
    /** The since to use. */ since?: string[];
   };
   /** The label to use. @default false */ label: boolean;
  }[];
  /** @default true */ path: boolean;
  /** The color to use (see the service docs for allowed values). @default false */ color?: boolean;
  /** The visibility to use (see the service docs for allowed values). @minimum -100 @maximum 13065 */ visibility?: number;
 }): Promise<unknown>;
 /** Search invoice in postgres. Returns the affected records. Requires write scope.
  * Call: tools["postgres.search-invoice"](args) @returns The result. */
 "postgres.search-invoice"(args: { cursor: string }): Promise<{
  /** The label to use (see the service docs for allowed values). @minLength 1 @maxLength 2349 */ label: string;
  /** The notes to use. @format uuid */ notes?: string;
 }>;
 /** Sync order. Returns the affected records. Requires write scope. @returns The result. */
 sync_order(args: {
  /** The cursor to use (see the service docs for allowed values). */ cursor: {
   /** The visibility to use. @format email */ visibility: string;
   /** The branch to use. */ branch: string | null;
   /** The offset to use. */ offset?: string | null;
  };
  /** The color to use. */ color?: {
   /** The branch to use. */ branch: string | null;
   /** The limit to use. @default false */ limit?: boolean;
   /** The cursor to use (see the service docs for allowed values). */ cursor?: string | null;
  };
  /** The query to use. */ query?: string;
  /** The status to use. */ status?: {
   /** The url to use. */ url: {
    /** The account to use. */ account: string | null;
    /** The limit to use. @default true */ limit?: boolean;
    /** The cursor to use (see the service docs for allowed values). @default "public" */ cursor?: "public" | "private" | "internal";
    /** @minimum -100 @maximum 53791 */ label?: number;
   };
   /** The path to use. */ path?: string;
  }[];
  /** The path to use. */ path?: /** A path id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The color to use. */ color: /** A color id. */ string | { kind: "ref"; id: string } | {
     kind: "inline";
     value: {
      /** The since to use. @minimum 0 @maximum 81976 */ since: number;
      /** @minimum 1 @maximum 82497 */ title?: number;
     };
    };
    /** The locale to use. */ locale?: {
     /** The body to use (see the service docs for allowed values). */ body: "low" | "medium" | "high" | "urgent";
     /** The locale to use. @minimum -100 @maximum 47340 */ locale: number;
     /** The email to use. @format email */ email?: string;
     /** The workspace to use. @format uri */ workspace?: string;
     /** The notes to use. */ notes?: string | null;
    };
   };
  };
  /** The amount to use. @minimum 0 @maximum 1 */ amount?: number;
  /** The title to use. @minimum 0 @maximum 1 */ title?: number;
  /** @default false */ until?: boolean;
 }): Promise<{
  /** The reason to use. */ reason: {
   /** The format to use. @maxItems 43 */ format: string[];
   /** The until to use (see the service docs for allowed values). @default false */ until?: boolean;
   /** The limit to use. */ limit: string | null;
   /** The priority to use. @minLength 1 @maxLength 1050 */ priority?: string;
   primary?: string[];
  };
  /** The visibility to use (see the service docs for allowed values). @minimum 1 @maximum 84797 */ visibility?: number;
  /** @format uuid */ color?: string;
  /** @minimum 0 */ label?: number;
 }>;
 /** Export. Read-only.
  * Call: tools["notion.message.export"](args) @returns The result. */
 "notion.message.export"(args: {
  /** The locale to use (see the service docs for allowed values). */ locale: {
   /** The color to use (see the service docs for allowed values). */ color: string;
   /** The priority to use (see the service docs for allowed values). @default "USD" */ priority?: "USD" | "EUR" | "GBP" | "JPY" | "CHF";
   /** The reason to use. */ reason?: /** A reason id. */ string | { kind: "ref"; id: string } | {
    kind: "inline";
    value: {
     /** The branch to use. @maxItems 34 */ branch: string[];
     /** The status to use. */ status?: "USD" | "EUR" | "GBP" | "JPY" | "CHF";
    };
   };
   /** The label to use. */ label?: "created" | "updated" | "popularity" | "long-running";
  };
  /** @minimum -100 @maximum 71150 */ reason?: number;
  /** The url to use (see the service docs for allowed values). */ url?: /** A url id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The owner to use. @minimum 0 @maximum 1 */ owner: number;
    /** The offset to use. */ offset: {
     /** @default true */ limit: boolean;
     /** The status to use (see the service docs for allowed values). @default true */ status?: boolean;
     /** The format to use (see the service docs for allowed values). @default false */ format?: boolean;
    }[];
   };
  };
  /** The owner to use (see the service docs for allowed values). */ owner: string | null;
  /** The color to use. @minimum 1 @maximum 91064 */ color?: number;
 }): Promise<{
  /** The limit to use. */ limit: "asc" | "desc";
  /** The format to use. @default true */ format: boolean;
  /** @minimum 0 */ account?: number;
  /** The primary to use. @default false */ primary?: boolean;
  /** The timezone to use. @maxItems 14 */ timezone?: string[];
 }>;
 /** K8s cancelProject in k8s. Returns the affected records. Requires write scope. @returns The result. */
 k8s_cancelProject(args: {
  /** The email to use. */ email: string[];
  /** The owner to use. */ owner?: /** A owner id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The limit to use (see the service docs for allowed values). */ limit: {
     /** @default true */ workspace: boolean;
     /** The cursor to use. */ cursor: string | null;
     /** The query to use. */ query?: string | null;
     /** The body to use. */ body?: "USD" | "EUR" | "GBP" | "JPY" | "CHF";
    }[];
    /** The cursor to use (see the service docs for allowed values). */ cursor: string | null;
   };
  };
  /** The until to use. */ until: {
   /** The status to use. @maxItems 35 */ status: string[];
   /** @default false */ title?: boolean;
   /** The path to use (see the service docs for allowed values). */ path?: /** A path id. */ string | { kind: "ref"; id: string } | {
    kind: "inline";
    value: {
     /** The owner to use. */ owner: string | null;
     /** The region to use. @default true */ region?: boolean;
    };
   };
   /** The url to use. */ url: /** A url id. */ string | { kind: "ref"; id: string } | {
    kind: "inline";
    value: {
     /** The body to use (see the service docs for allowed values). @minimum 1 @maximum 93948 */ body: number;
     /** The until to use. */ until: "open" | "closed" | "all";
    };
   };
  };
  /** The visibility to use (see the service docs for allowed values). */ visibility?: string[];
  /** The priority to use. */ priority?: /** A priority id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** @default "public" */ region: "public" | "private" | "internal";
    /** The currency to use. @minimum 0 @maximum 1 */ currency: number;
   };
  };
  /** The timezone to use. @default true */ timezone?: boolean;
  version?: "created" | "updated" | "popularity" | "long-running";
  /** The since to use. */ since: {
   /** The region to use. */ region: {
    /** The body to use (see the service docs for allowed values). @format email */ body: string;
    /** @maxItems 4 */ offset?: string[];
    /** The branch to use. @default true */ branch?: boolean;
   };
   /** The version to use. */ version?: string;
   /** The query to use (see the service docs for allowed values). @minimum -100 @maximum 34095 */ query: number;
  };
 }): Promise<{
  /** The format to use. @format uuid */ format: string;
  /** The url to use. */ url?: string;
 }>;
 /** K8s archive webhook in k8s. Returns the affected records. Requires write scope.
  * Call: tools["k8s-archive-webhook"](args) @returns The result. */
 "k8s-archive-webhook"(args: {
  query: string;
  /** The limit to use. @minimum 0 @maximum 1 */ limit?: number;
  /** The reason to use. @minimum -100 @maximum 71655 */ reason?: number;
  /** The path to use (see the service docs for allowed values). @format uuid @minLength 1 @maxLength 144 */ path: string;
 }): Promise<{
  /** The url to use (see the service docs for allowed values). */ url: string | null;
  /** The visibility to use (see the service docs for allowed values). @minimum 0 @maximum 1 */ visibility?: number;
  /** The branch to use (see the service docs for allowed values). @maxItems 44 */ branch?: string[];
  /** The format to use. @default false */ format: boolean;
  /** The locale to use (see the service docs for allowed values). */ locale?: {
   /** The locale to use (see the service docs for allowed values). @minLength 1 @maxLength 3029 */ locale: string;
   /** The notes to use. @format date */ notes?: string;
   /** @default "created" */ priority?: "created" | "updated" | "popularity" | "long-running";
   /** The timezone to use. @default true */ timezone: boolean;
   /** The format to use. */ format?: string[];
  };
 }>;
 /** Schedule pod. Read-only.
  * Call: tools["pagerduty.schedule-pod"](args) */
 "pagerduty.schedule-pod"(args: {
  /** The priority to use (see the service docs for allowed values). */ priority: string | null;
  /** The until to use. */ until?: "draft" | "published" | "archived" | "deleted";
  limit?: string | null;
 }): Promise<unknown>;
 /** Update project. Read-only. @returns The result. */
 update_project(args: {
  timezone: string[];
  /** The label to use. */ label?: /** A label id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The currency to use. */ currency: string;
    /** The workspace to use. @maxItems 45 */ workspace?: string[];
   };
  };
  /** The region to use (see the service docs for allowed values). */ region?: string | null;
  /** The query to use (see the service docs for allowed values). */ query?: /** A query id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    visibility: {
     /** The body to use. @minimum -100 @maximum 1633 */ body: number;
     /** @default "draft" */ primary?: "draft" | "published" | "archived" | "deleted";
    }[];
    /** The offset to use. @minimum 0 */ offset: number;
   };
  };
  /** The priority to use. @minLength 1 @maxLength 463 */ priority?: string;
  /** The cursor to use. @default false */ cursor: boolean;
  /** Idempotency key (HTTP header style name). */ "x-request-id"?: string;
 }): Promise<{
  /** The email to use. */ email: {
   /** The until to use. */ until: "created" | "updated" | "popularity" | "long-running";
   /** The email to use. @default false */ email?: boolean;
  };
  /** The cursor to use (see the service docs for allowed values). */ cursor?: string | null;
  /** The currency to use. @default true */ currency?: boolean;
  /** The version to use. */ version: {
   /** The workspace to use. */ workspace: string | null;
   /** The label to use. @default true */ label: boolean;
   region?: string;
  }[];
  /** The reason to use (see the service docs for allowed values). */ reason: /** A reason id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** @minimum 1 @maximum 82768 */ path: number;
    label?: string | null;
   };
  };
 }>;
 /** Export in s3. Read-only.
  * Call: tools["s3.page.export"](args) @returns The result. */
 "s3.page.export"(args: {
  /** The timezone to use (see the service docs for allowed values). @minimum 0 @maximum 1 */ timezone: number;
  /** The owner to use. */ owner?: {
   /** The locale to use. @minLength 1 @maxLength 774 */ locale: string;
   /** @maxItems 44 */ cursor?: string[];
   /** The label to use (see the service docs for allowed values). */ label?: {
    /** @format uuid @minLength 1 @maxLength 1401 */ until: string;
    /** The label to use (see the service docs for allowed values). @minimum -100 @maximum 29022 */ label?: number;
   }[];
  };
  primary?: string | null;
  /** The branch to use. */ branch?: "draft" | "published" | "archived" | "deleted";
  account?: {
   /** The status to use. @format uuid @minLength 1 @maxLength 2042 */ status: string;
   /** The until to use. @default false */ until?: boolean;
   /** The offset to use. @minLength 1 @maxLength 1947 */ offset: string;
   /** The cursor to use. */ cursor: {
    /** The branch to use. */ branch: string | null;
    /** The account to use. @minimum 1 @maximum 61385 */ account: number;
    /** The query to use. @minimum -100 @maximum 20804 */ query?: number;
    /** The until to use. */ until: string | null;
    /** The format to use (see the service docs for allowed values). */ format?: string | null;
   };
  }[];
  /** The notes to use. @minimum 1 @maximum 35994 */ notes: number;
  /** The visibility to use. */ visibility?: string[];
 }): Promise<{
  /** The primary to use. @default "created" */ primary: "created" | "updated" | "popularity" | "long-running";
  /** The owner to use. */ owner: string[];
 }>;
 /** Figma sendTicket. Returns the affected records. Requires write scope. @returns Matching records. */
 figma_sendTicket(args: {
  /** The visibility to use. @default "created" */ visibility: "created" | "updated" | "popularity" | "long-running";
  /** The format to use (see the service docs for allowed values). */ format?: {
   branch: {
    /** The title to use (see the service docs for allowed values). */ title: string[];
    /** @default true */ cursor: boolean;
   }[];
   /** The version to use. @minimum 0 @maximum 27630 */ version: number;
   /** The label to use. @minimum -100 @maximum 57125 */ label: number;
  }[];
  /** @default true */ since?: boolean;
  /** The path to use (see the service docs for allowed values). */ path?: string;
  /** The limit to use. */ limit: string[];
  /** The currency to use. */ currency?: string;
  /** The color to use. */ color?: string | null;
  /** The title to use (see the service docs for allowed values). */ title?: {
   /** The region to use. @minimum -100 @maximum 37356 */ region: number;
   /** The limit to use. */ limit?: "created" | "updated" | "popularity" | "long-running";
   /** The until to use (see the service docs for allowed values). @minimum 1 @maximum 92126 */ until?: number;
   /** @minimum 0 @maximum 17184 */ body?: number;
  };
 }): Promise<{
  /** The version to use. @minimum -100 @maximum 73705 */ version: number;
  /** The region to use. */ region?: string | null;
  /** The path to use. */ path?: {
   /** The priority to use. @minimum 1 @maximum 15578 */ priority: number;
   /** The version to use (see the service docs for allowed values). @minimum 1 @maximum 67849 */ version?: number;
   /** The timezone to use (see the service docs for allowed values). */ timezone?: string | null;
   /** The limit to use. */ limit?: "open" | "closed" | "all";
  };
  /** The body to use. */ body: string | null;
 }[]>;
 /** Shopify close board. Returns the affected records. Requires write scope.
  * Call: tools["shopify-close-board"](args) */
 "shopify-close-board"(args: {
  /** @minLength 1 @maxLength 1896 */ color: string;
  /** The currency to use. */ currency?: /** A currency id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The title to use. @format uuid */ title: string;
    /** The priority to use (see the service docs for allowed values). */ priority: /** A priority id. */ string | { kind: "ref"; id: string } | {
     kind: "inline";
     value: {
      /** The workspace to use (see the service docs for allowed values). @format date-time */ workspace: string;
      /** The query to use. */ query: string;
     };
    };
   };
  };
  /** The primary to use. */ primary?: {
   region: string[];
   /** The format to use. */ format?: string | null;
   /** The branch to use (see the service docs for allowed values). @minimum 1 @maximum 94918 */ branch?: number;
  }[];
 }): Promise<unknown>;
 /** Resolve metric in asana. Returns the affected records. Requires write scope.
  * Call: tools["asana.resolve-metric"](args) @returns The result. */
 "asana.resolve-metric"(args: {
  /** The locale to use. */ locale: {
   /** @minimum 1 @maximum 22560 */ query: number;
   /** The url to use (see the service docs for allowed values). */ url?: string;
  }[];
  /** The email to use. */ email?: /** A email id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The region to use. */ region: string[];
    currency?: string | null;
   };
  };
  offset: "json" | "csv" | "xml" | "yaml";
 }): Promise<{
  /** The until to use. */ until: {
   /** The workspace to use. @format email */ workspace: string;
   /** The path to use (see the service docs for allowed values). */ path?: "json" | "csv" | "xml" | "yaml";
  }[];
  /** The reason to use. */ reason: string;
  /** The url to use (see the service docs for allowed values). @format date */ url: string;
  /** The color to use (see the service docs for allowed values). @maxItems 16 */ color?: string[];
 }>;
 /** Delete event. Returns the affected records. Requires write scope. @returns The result. */
 delete_event(args: {
  /** The title to use. */ title: string | null;
  notes?: /** A notes id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The cursor to use. @minimum 0 @maximum 1 */ cursor: number;
    /** The label to use. */ label?: {
     /** @default true */ version: boolean;
     /** The label to use. */ label?: string | null;
     /** The account to use. */ account?: string[];
    }[];
   };
  };
  /** The label to use (see the service docs for allowed values). */ label: string;
  /** The amount to use. */ amount: /** A amount id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** @minimum 0 @maximum 1 */ primary: number;
    /** The body to use. @format uuid */ body?: string;
   };
  };
  /** Idempotency key (HTTP header style name). */ "x-request-id"?: string;
 }): Promise<{
  /** The priority to use. @maxItems 24 */ priority: string[];
  /** The query to use (see the service docs for allowed values). */ query?: string[];
  /** The amount to use (see the service docs for allowed values). @minimum 0 */ amount?: number;
 }>;
 /** Get. Read-only.
  * Call: tools["figma.issue.get"](args) */
 "figma.issue.get"(args: {
  /** The body to use. @minimum 0 @maximum 1 */ body: number;
  /** The account to use (see the service docs for allowed values). */ account?: "asc" | "desc";
  /** The title to use. */ title: {
   /** The priority to use. @minimum 1 @maximum 2098 */ priority: number;
   /** The currency to use. */ currency: string[];
   /** The body to use. @format date */ body: string;
   /** The reason to use. @default true */ reason?: boolean;
  }[];
 }): Promise<unknown>;
 /** Stripe refundPage in stripe. Returns the affected records. Requires write scope. */
 stripe_refundPage(args: {
  /** The workspace to use (see the service docs for allowed values). @minimum -100 @maximum 98818 */ workspace: number;
  /** The account to use (see the service docs for allowed values). */ account?: "public" | "private" | "internal";
  /** The limit to use (see the service docs for allowed values). */ limit?: string | null;
  /** The owner to use. */ owner: string | null;
 }): Promise<unknown>;
 /** Postgres search event. Returns the affected records. Requires write scope.
  * Call: tools["postgres-search-event"](args) */
 "postgres-search-event"(args: {
  /** The status to use. */ status: string[];
 }): Promise<unknown>;
 /** Approve event. Returns the affected records. Requires write scope.
  * Call: tools["twilio.approve-event"](args) @returns The result. */
 "twilio.approve-event"(args: {
  /** The email to use. */ email: string | null;
  /** The limit to use. @format uuid */ limit: string;
  /** The locale to use. @minimum 0 @maximum 67879 */ locale?: number;
  status?: string | null;
 }): Promise<{
  /** The currency to use. */ currency: {
   /** The limit to use. */ limit: string | null;
   /** The url to use. @minimum 0 @maximum 52864 */ url: number;
   /** The title to use (see the service docs for allowed values). @default "created" */ title?: "created" | "updated" | "popularity" | "long-running";
  }[];
  /** The limit to use (see the service docs for allowed values). @format date */ limit?: string;
  /** The url to use. @minimum 0 */ url?: number;
  /** The query to use. @minimum 0 */ query?: number;
 }>;
 /** Resolve team. Read-only. */
 resolve_team(args: {
  query: string;
  /** The since to use (see the service docs for allowed values). */ since?: string[];
  /** The notes to use. */ notes?: string[];
  /** The workspace to use. */ workspace: /** A workspace id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The color to use. */ color: string;
    /** The title to use. @default false */ title: boolean;
   };
  };
  /** The limit to use. */ limit: string[];
  /** The primary to use. */ primary?: {
   /** The version to use. */ version: string;
   limit?: {
    /** The email to use. @default "draft" */ email: "draft" | "published" | "archived" | "deleted";
    /** The currency to use. @default true */ currency?: boolean;
    format: string;
    /** The reason to use. @minimum 1 @maximum 37775 */ reason?: number;
   }[];
   /** The title to use. @default false */ title?: boolean;
  }[];
 }): Promise<unknown>;
 /** Search. Read-only.
  * Call: tools["jira.event.search"](args) */
 "jira.event.search"(args: {
  /** The title to use. */ title: {
   /** The currency to use (see the service docs for allowed values). @minimum -100 @maximum 58298 */ currency: number;
   /** The format to use (see the service docs for allowed values). */ format?: {
    /** The since to use. @minimum -100 @maximum 87878 */ since: number;
    /** The path to use. @default false */ path?: boolean;
    /** The until to use. */ until?: string | null;
    /** The branch to use (see the service docs for allowed values). @format uri */ branch: string;
   };
   /** The since to use. */ since?: {
    /** The visibility to use. @minLength 1 @maxLength 821 */ visibility: string;
    /** @minLength 1 @maxLength 2517 */ owner?: string;
    /** The region to use. @maxItems 26 */ region: string[];
   }[];
   /** The url to use. */ url: string;
   /** The email to use. */ email?: string | null;
  };
  /** The primary to use. */ primary?: {
   /** The reason to use. @minLength 1 @maxLength 4037 */ reason: string;
   /** The version to use (see the service docs for allowed values). */ version: "json" | "csv" | "xml" | "yaml";
   color?: string;
  }[];
  /** The body to use. */ body: string;
  /** The offset to use (see the service docs for allowed values). */ offset?: string;
  /** Idempotency key (HTTP header style name). */ "x-request-id"?: string;
 }): Promise<unknown>;
 /** Cloudflare importDomain. Returns the affected records. Requires write scope. */
 cloudflare_importDomain(args: {
  /** The owner to use (see the service docs for allowed values). */ owner: string | null;
  /** @minimum 0 */ visibility?: number;
  /** The amount to use. */ amount?: string | null;
  /** The title to use. */ title?: {
   /** The format to use. @minLength 1 @maxLength 791 */ format: string;
   /** The offset to use (see the service docs for allowed values). @minimum 0 @maximum 1 */ offset?: number;
  };
  /** The body to use. */ body: string[];
 }): Promise<unknown>;
 /** Pagerduty sync user. Read-only.
  * Call: tools["pagerduty-sync-user"](args) @returns The result. */
 "pagerduty-sync-user"(args: {
  /** The since to use (see the service docs for allowed values). */ since: {
   format: string;
   /** The notes to use. @format date @minLength 1 @maxLength 606 */ notes: string;
   /** The owner to use. */ owner?: string | null;
  }[];
  /** The version to use. */ version: /** A version id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** @default false */ since: boolean;
    /** The workspace to use. */ workspace?: /** A workspace id. */ string | { kind: "ref"; id: string } | {
     kind: "inline";
     value: {
      /** The url to use. */ url: string;
      /** The visibility to use. @minimum -100 @maximum 67253 */ visibility?: number;
     };
    };
   };
  };
  /** The region to use. @format date-time @minLength 1 @maxLength 2594 */ region?: string;
  /** @minimum 0 */ color?: number;
  /** The offset to use. @minimum 1 @maximum 99716 */ offset: number;
  /** The cursor to use. */ cursor: {
   /** The visibility to use (see the service docs for allowed values). @minLength 1 @maxLength 2900 */ visibility: string;
   /** The priority to use. */ priority: string;
  };
  /** The url to use. */ url?: string | null;
 }): Promise<{
  /** The since to use (see the service docs for allowed values). @minLength 1 @maxLength 2958 */ since: string;
  offset: {
   /** The cursor to use. @minLength 1 @maxLength 579 */ cursor: string;
   /** @default false */ priority?: boolean;
  }[];
  /** The currency to use. @default "created" */ currency?: "created" | "updated" | "popularity" | "long-running";
 }>;
 /** Search pod in github. Returns the affected records. Requires write scope.
  * Call: tools["github.search-pod"](args) @returns The result. */
 "github.search-pod"(args: {
  /** The color to use (see the service docs for allowed values). */ color: "json" | "csv" | "xml" | "yaml";
  /** The account to use (see the service docs for allowed values). */ account?: /** A account id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    branch: {
     /** The locale to use. */ locale: string | null;
     /** The region to use. @default false */ region: boolean;
     /** The amount to use (see the service docs for allowed values). */ amount?: string | null;
     /** The cursor to use. @default false */ cursor?: boolean;
    }[];
    /** The color to use. @minimum 1 @maximum 62553 */ color?: number;
   };
  };
  /** The label to use. */ label?: {
   /** The visibility to use. */ visibility: {
    locale: string[];
    /** The status to use. @format email */ status?: string;
    /** The until to use. @minimum 1 @maximum 33642 */ until?: number;
   }[];
   /** The offset to use. @format uuid */ offset?: string;
   /** The title to use. @minimum 0 @maximum 11456 */ title?: number;
   /** The path to use. */ path?: "low" | "medium" | "high" | "urgent";
   /** The status to use (see the service docs for allowed values). @default "public" */ status: "public" | "private" | "internal";
  };
  /** The status to use. */ status?: {
   /** The reason to use. */ reason: {
    /** The until to use (see the service docs for allowed values). @minimum 1 @maximum 15658 */ until: number;
    /** The account to use. */ account: string;
    /** The locale to use (see the service docs for allowed values). @default false */ locale: boolean;
   };
   /** The branch to use. @default false */ branch?: boolean;
   priority?: {
    /** The cursor to use (see the service docs for allowed values). */ cursor: string | null;
    /** The body to use. @format uri */ body?: string;
   }[];
   cursor?: /** A cursor id. */ string | { kind: "ref"; id: string } | {
    kind: "inline";
    value: {
     /** The label to use. @format date-time */ label: string;
     /** The version to use (see the service docs for allowed values). @format date @minLength 1 @maxLength 3639 */ version?: string;
    };
   };
  };
  /** @minimum 0 */ region?: number;
  /** The path to use. */ path: string | null;
 }): Promise<{
  /** The format to use (see the service docs for allowed values). @default true */ format: boolean;
  /** The region to use. */ region?: string[];
  /** The offset to use (see the service docs for allowed values). */ offset?: "draft" | "published" | "archived" | "deleted";
 }>;
 /** Close page in close. Read-only. @returns Matching records. */
 close_page(args: {
  /** The locale to use (see the service docs for allowed values). */ locale: string | null;
  /** The color to use. @minimum 1 @maximum 19708 */ color?: number;
  title?: /** A title id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The path to use. */ path: {
     /** The region to use. */ region: "created" | "updated" | "popularity" | "long-running";
     /** @minimum 1 @maximum 96475 */ locale: number;
     /** The notes to use. */ notes?: string;
     /** The color to use (see the service docs for allowed values). */ color: string | null;
    };
    /** The branch to use (see the service docs for allowed values). */ branch: string[];
   };
  };
 }): Promise<{
  /** @default true */ owner: boolean;
  /** @minimum 1 @maximum 73494 */ email?: number;
  /** The reason to use (see the service docs for allowed values). */ reason: "json" | "csv" | "xml" | "yaml";
  /** The body to use. */ body?: string[];
 }[]>;
 /** Refund. Read-only.
  * Call: tools["openai.channel.refund"](args) @returns The result. */
 "openai.channel.refund"(args: {
  /** The primary to use. */ primary: /** A primary id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The notes to use (see the service docs for allowed values). */ notes: string;
    /** @default false */ status?: boolean;
   };
  };
 }): Promise<{
  /** The cursor to use. */ cursor: string[];
  /** @minimum 0 */ query?: number;
  /** The format to use (see the service docs for allowed values). @minimum -100 @maximum 81466 */ format: number;
  /** The currency to use. */ currency: "USD" | "EUR" | "GBP" | "JPY" | "CHF";
  /** @format date @minLength 1 @maxLength 1604 */ primary?: string;
 }>;
 /** Notion assignProduct in notion. Returns the affected records. Requires write scope. @returns The result. */
 notion_assignProduct(args: {
  /** The primary to use. */ primary: "USD" | "EUR" | "GBP" | "JPY" | "CHF";
  /** The until to use. */ until: /** A until id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    version: /** A version id. */ string | { kind: "ref"; id: string } | {
     kind: "inline";
     value: {
      /** The locale to use (see the service docs for allowed values). @default false */ locale: boolean;
      /** The currency to use (see the service docs for allowed values). @default true */ currency?: boolean;
     };
    };
    /** The label to use. */ label?: {
     /** The account to use. */ account: string | null;
     /** The path to use (see the service docs for allowed values). */ path: "low" | "medium" | "high" | "urgent";
     /** The version to use. @format email */ version?: string;
    };
   };
  };
  /** The status to use. @default false */ status?: boolean;
  /** The priority to use. */ priority?: "low" | "medium" | "high" | "urgent";
  /** The visibility to use. */ visibility?: /** A visibility id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    region: {
     /** The currency to use. @minimum 1 @maximum 42505 */ currency: number;
     /** The owner to use (see the service docs for allowed values). @minimum 1 @maximum 82221 */ owner?: number;
     /** The primary to use. @default "open" */ primary?: "open" | "closed" | "all";
     /** The amount to use. @default true */ amount: boolean;
    };
    /** The workspace to use. */ workspace: string;
   };
  };
  email?: "created" | "updated" | "popularity" | "long-running";
  /** The limit to use (see the service docs for allowed values). */ limit?: {
   /** The offset to use (see the service docs for allowed values). @default "open" */ offset: "open" | "closed" | "all";
   /** The priority to use (see the service docs for allowed values). */ priority?: string | null;
   /** The currency to use. */ currency?: {
    priority: string;
    /** The offset to use (see the service docs for allowed values). */ offset?: string;
    visibility?: string | null;
    /** The currency to use. */ currency?: string | null;
   };
   /** The workspace to use. */ workspace: {
    /** The limit to use (see the service docs for allowed values). @maxItems 9 */ limit: string[];
    /** The since to use. */ since?: string | null;
    /** The visibility to use. */ visibility?: "low" | "medium" | "high" | "urgent";
    /** The status to use. @maxItems 11 */ status: string[];
   };
  };
  /** The region to use. */ region: /** A region id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The label to use (see the service docs for allowed values). @minimum 1 @maximum 4188 */ label: number;
    /** The email to use. */ email: {
     /** The title to use. @format date-time */ title: string;
     /** The workspace to use (see the service docs for allowed values). */ workspace: "open" | "closed" | "all";
    };
   };
  };
 }): Promise<{
  /** @minimum 0 */ query: number;
  /** The body to use (see the service docs for allowed values). @format date-time */ body?: string;
  /** The cursor to use. @minimum 1 @maximum 31066 */ cursor?: number;
  /** The email to use. */ email?: string | null;
  /** The amount to use. */ amount?: {
   /** @minimum 0 @maximum 86934 */ visibility: number;
   /** The currency to use (see the service docs for allowed values). @default true */ currency: boolean;
  };
 }>;
 /** Linear delete deployment. Returns the affected records. Requires write scope.
  * Call: tools["linear-delete-deployment"](args) */
 "linear-delete-deployment"(args: {
  /** The locale to use. @default true */ locale: boolean;
  /** The version to use. @minimum -100 @maximum 24125 */ version: number;
  /** The query to use. */ query?: /** A query id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The amount to use. @minimum 0 @maximum 18703 */ amount: number;
    /** The offset to use. */ offset?: "public" | "private" | "internal";
   };
  };
  /** The label to use. */ label?: {
   /** The format to use. @minLength 1 @maxLength 2662 */ format: string;
   /** The account to use. */ account?: string;
   body?: string[];
   /** The locale to use. */ locale?: string;
  }[];
  /** The owner to use (see the service docs for allowed values). */ owner?: {
   /** The label to use. */ label: {
    format: string;
    /** The status to use. @default true */ status?: boolean;
    /** The locale to use. */ locale?: string | null;
   };
   /** The body to use. @default true */ body?: boolean;
   /** The priority to use (see the service docs for allowed values). */ priority?: "json" | "csv" | "xml" | "yaml";
   /** The limit to use. */ limit: {
    /** The limit to use (see the service docs for allowed values). */ limit: string | null;
    /** The visibility to use. */ visibility: string | null;
    /** @minimum 1 @maximum 6594 */ until: number;
   };
   email: "asc" | "desc";
  };
  /** The region to use (see the service docs for allowed values). @default "draft" */ region?: "draft" | "published" | "archived" | "deleted";
  /** The cursor to use (see the service docs for allowed values). */ cursor?: string[];
  /** The visibility to use. */ visibility?: string;
 }): Promise<unknown>;
 /** Merge user. Returns the affected records. Requires write scope.
  * Call: tools["cloudflare.merge-user"](args) @returns The result. */
 "cloudflare.merge-user"(args: {
  /** The account to use. @minimum 0 @maximum 1 */ account: number;
  /** Idempotency key (HTTP header style name). */ "x-request-id"?: string;
 }): Promise<{
  /** The until to use. */ until: {
   /** The query to use. @default true */ query: boolean;
   /** The account to use. @default "USD" */ account?: "USD" | "EUR" | "GBP" | "JPY" | "CHF";
   /** The status to use. @minimum 1 @maximum 89226 */ status: number;
  }[];
  /** The reason to use (see the service docs for allowed values). @minimum -100 @maximum 40622 */ reason: number;
 }>;
 /** Assign issue in assign. Read-only. @returns Matching records. */
 assign_issue(args: {
  /** @maxItems 17 */ branch: string[];
  /** The limit to use (see the service docs for allowed values). */ limit?: {
   /** The currency to use. @minLength 1 @maxLength 3515 */ currency: string;
   /** The timezone to use. */ timezone?: {
    /** The title to use. @minimum -100 @maximum 54018 */ title: number;
    /** @minimum 1 @maximum 5411 */ email?: number;
    /** The status to use. */ status?: string | null;
   };
   /** The reason to use. @minimum 1 @maximum 30628 */ reason?: number;
   /** The account to use (see the service docs for allowed values). @minimum 0 @maximum 1 */ account?: number;
  }[];
  /** The since to use. @default false */ since?: boolean;
  /** The until to use. @default false */ until?: boolean;
  /** The reason to use (see the service docs for allowed values). @minLength 1 @maxLength 2904 */ reason: string;
  /** The query to use. */ query?: /** A query id. */ string | { kind: "ref"; id: string } | {
   kind: "inline";
   value: {
    /** The email to use. */ email: string | null;
    /** The format to use (see the service docs for allowed values). */ format?: "public" | "private" | "internal";
   };
  };
  /** The priority to use. */ priority?: {
   /** The account to use (see the service docs for allowed values). */ account: string[];
   /** The region to use. @minimum 0 */ region?: number;
   /** The primary to use. @minimum 0 @maximum 54733 */ primary: number;
   /** The since to use. */ since: {
    /** The visibility to use. @maxItems 49 */ visibility: string[];
    /** The version to use. @default "open" */ version: "open" | "closed" | "all";
    /** The format to use. */ format?: "json" | "csv" | "xml" | "yaml";
   };
  }[];
 }): Promise<{
  /** The currency to use. @default true */ currency: boolean;
  /** The path to use. */ path: string | null;
  /** The query to use. */ query?: {
   /** The notes to use (see the service docs for allowed values). @maxItems 5 */ notes: string[];
   /** @minimum 1 @maximum 31393 */ label?: number;
   timezone: string | null;
   /** The status to use. */ status?: string | null;
  }[];
  branch?: {
   /** @default "created" */ url: "created" | "updated" | "popularity" | "long-running";
   color?: string | null;
   /** The reason to use (see the service docs for allowed values). */ reason?: string | null;
  }[];
 }[]>;
 /** Approve. Read-only.
  * Call: tools["salesforce.release.approve"](args) @returns The result. */
 "salesforce.release.approve"(args: {
  /** The query to use. @default false */ query: boolean;
 }): Promise<{
  /** The region to use (see the service docs for allowed values). @format uuid */ region: string;
  until?: string[];
  /** The timezone to use. */ timezone: {
   /** The path to use. @default true */ path: boolean;
   /** The amount to use. */ amount?: "json" | "csv" | "xml" | "yaml";
  }[];
 }>;
 /** Shopify syncPod. Read-only. @returns The result. */
 shopify_syncPod(args: {
  /** The format to use. @format email */ format: string;
  /** The version to use. */ version?: {
   /** The color to use. */ color: {
    /** The locale to use. */ locale: string;
    version?: string | null;
    /** The url to use (see the service docs for allowed values). @minimum -100 @maximum 89584 */ url: number;
   };
   /** The amount to use. */ amount?: string[];
   /** The branch to use. */ branch?: string;
   priority?: string[];
   /** The version to use. */ version?: /** A version id. */ string | { kind: "ref"; id: string } | {
    kind: "inline";
    value: {
     /** The offset to use. @default false */ offset: boolean;
     /** The title to use. @default "USD" */ title: "USD" | "EUR" | "GBP" | "JPY" | "CHF";
    };
   };
  };
  /** The until to use. */ until?: string | null;
  /** The path to use. */ path?: string;
  /** The visibility to use. @minimum 0 @maximum 1 */ visibility: number;
  /** The notes to use. @default false */ notes: boolean;
  /** The currency to use (see the service docs for allowed values). */ currency: string;
  /** Idempotency key (HTTP header style name). */ "x-request-id"?: string;
 }): Promise<{
  /** The account to use (see the service docs for allowed values). @minimum 0 @maximum 1 */ account: number;
  /** The offset to use. */ offset?: string | null;
  /** The currency to use. */ currency?: string | null;
 }>;
 /** Stripe get file. Returns the affected records. Requires write scope.
  * Call: tools["stripe-get-file"](args) @returns The result. */
 "stripe-get-file"(args: {
  /** The version to use. */ version: {
   /** The since to use (see the service docs for allowed values). */ since: /** A since id. */ string | { kind: "ref"; id: string } | {
    kind: "inline";
    value: {
     /** The limit to use. */ limit: string[];
     /** The owner to use. @minimum 1 @maximum 5677 */ owner: number;
    };
   };
   /** The amount to use (see the service docs for allowed values). */ amount?: string[];
   /** The locale to use. @default true */ locale?: boolean;
   /** @minimum 0 */ account?: number;
  };
  /** The email to use (see the service docs for allowed values). */ email?: string;
  /** @format uuid */ title: string;
  /** The account to use (see the service docs for allowed values). */ account?: string[];
  /** The query to use (see the service docs for allowed values). @minimum -100 @maximum 22731 */ query?: number;
  /** The label to use. */ label?: string;
 }): Promise<{
  /** The amount to use (see the service docs for allowed values). */ amount: "draft" | "published" | "archived" | "deleted";
  label: string;
  /** The reason to use (see the service docs for allowed values). */ reason?: "draft" | "published" | "archived" | "deleted";
 }>;
};
