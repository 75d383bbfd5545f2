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
 /** Create or update a single file in a GitHub repository */
 create_or_update_file(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Path where to create/update the file */ path: string;
  /** Content of the file */ content: string;
  /** Commit message */ message: string;
  /** Branch to create/update the file in */ branch: string;
  /** SHA of the file being replaced (required when updating existing files) */ sha?: string;
 }): Promise<unknown>;
 /** Search for GitHub repositories */
 search_repositories(args: {
  /** Search query (see GitHub search syntax) */ query: string;
  /** Page number for pagination (default: 1) */ page?: number;
  /** Number of results per page (default: 30, max: 100) */ perPage?: number;
 }): Promise<unknown>;
 /** Create a new GitHub repository in your account */
 create_repository(args: {
  /** Repository name */ name: string;
  /** Repository description */ description?: string;
  /** Whether the repository should be private */ private?: boolean;
  /** Initialize with README.md */ autoInit?: boolean;
 }): Promise<unknown>;
 /** Get the contents of a file or directory from a GitHub repository */
 get_file_contents(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Path to the file or directory */ path: string;
  /** Branch to get contents from */ branch?: string;
 }): Promise<unknown>;
 /** Push multiple files to a GitHub repository in a single commit */
 push_files(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Branch to push to (e.g., 'main' or 'master') */ branch: string;
  /** Array of files to push */ files: { path: string; content: string }[];
  /** Commit message */ message: string;
 }): Promise<unknown>;
 /** Create a new issue in a GitHub repository */
 create_issue(args: {
  owner: string;
  repo: string;
  title: string;
  body?: string;
  assignees?: string[];
  milestone?: number;
  labels?: string[];
 }): Promise<unknown>;
 /** Create a new pull request in a GitHub repository */
 create_pull_request(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Pull request title */ title: string;
  /** Pull request body/description */ body?: string;
  /** The name of the branch where your changes are implemented */ head: string;
  /** The name of the branch you want the changes pulled into */ base: string;
  /** Whether to create the pull request as a draft */ draft?: boolean;
  /** Whether maintainers can modify the pull request */ maintainer_can_modify?: boolean;
 }): Promise<unknown>;
 /** Fork a GitHub repository to your account or specified organization */
 fork_repository(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Optional: organization to fork to (defaults to your personal account) */ organization?: string;
 }): Promise<unknown>;
 /** Create a new branch in a GitHub repository */
 create_branch(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Name for the new branch */ branch: string;
  /** Optional: source branch to create from (defaults to the repository's default branch) */ from_branch?: string;
 }): Promise<unknown>;
 /** Get list of commits of a branch in a GitHub repository */
 list_commits(args: { owner: string; repo: string; sha?: string; page?: number; perPage?: number }): Promise<unknown>;
 /** List issues in a GitHub repository with filtering options */
 list_issues(args: {
  owner: string;
  repo: string;
  direction?: "asc" | "desc";
  labels?: string[];
  page?: number;
  per_page?: number;
  since?: string;
  sort?: "created" | "updated" | "comments";
  state?: "open" | "closed" | "all";
 }): Promise<unknown>;
 /** Update an existing issue in a GitHub repository */
 update_issue(args: {
  owner: string;
  repo: string;
  issue_number: number;
  title?: string;
  body?: string;
  assignees?: string[];
  milestone?: number;
  labels?: string[];
  state?: "open" | "closed";
 }): Promise<unknown>;
 /** Add a comment to an existing issue */
 add_issue_comment(args: { owner: string; repo: string; issue_number: number; body: string }): Promise<unknown>;
 /** Search for code across GitHub repositories */
 search_code(args: {
  q: string;
  order?: "asc" | "desc";
  /** @minimum 1 */ page?: number;
  /** @minimum 1 @maximum 100 */ per_page?: number;
 }): Promise<unknown>;
 /** Search for issues and pull requests across GitHub repositories */
 search_issues(args: {
  q: string;
  order?: "asc" | "desc";
  /** @minimum 1 */ page?: number;
  /** @minimum 1 @maximum 100 */ per_page?: number;
  sort?: "comments" | "reactions" | "reactions-+1" | "reactions--1" | "reactions-smile" | "reactions-thinking_face" | "reactions-heart" | "reactions-tada" | "interactions" | "created" | "updated";
 }): Promise<unknown>;
 /** Search for users on GitHub */
 search_users(args: {
  q: string;
  order?: "asc" | "desc";
  /** @minimum 1 */ page?: number;
  /** @minimum 1 @maximum 100 */ per_page?: number;
  sort?: "followers" | "repositories" | "joined";
 }): Promise<unknown>;
 /** Get details of a specific issue in a GitHub repository. */
 get_issue(args: { owner: string; repo: string; issue_number: number }): Promise<unknown>;
 /** Get details of a specific pull request */
 get_pull_request(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Pull request number */ pull_number: number;
 }): Promise<unknown>;
 /** List and filter repository pull requests */
 list_pull_requests(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** State of the pull requests to return */ state?: "open" | "closed" | "all";
  /** Filter by head user or head organization and branch name */ head?: string;
  /** Filter by base branch name */ base?: string;
  /** What to sort results by */ sort?: "created" | "updated" | "popularity" | "long-running";
  /** The direction of the sort */ direction?: "asc" | "desc";
  /** Results per page (max 100) */ per_page?: number;
  /** Page number of the results */ page?: number;
 }): Promise<unknown>;
 /** Create a review on a pull request */
 create_pull_request_review(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Pull request number */ pull_number: number;
  /** The SHA of the commit that needs a review */ commit_id?: string;
  /** The body text of the review */ body: string;
  /** The review action to perform */ event: "APPROVE" | "REQUEST_CHANGES" | "COMMENT";
  /** Comments to post as part of the review (specify either position or line, not both) */ comments?: ({
   /** The relative path to the file being commented on */ path: string;
   /** The position in the diff where you want to add a review comment */ position: number;
   /** Text of the review comment */ body: string;
  } | {
   /** The relative path to the file being commented on */ path: string;
   /** The line number in the file where you want to add a review comment */ line: number;
   /** Text of the review comment */ body: string;
  })[];
 }): Promise<unknown>;
 /** Merge a pull request */
 merge_pull_request(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Pull request number */ pull_number: number;
  /** Title for the automatic commit message */ commit_title?: string;
  /** Extra detail to append to automatic commit message */ commit_message?: string;
  /** Merge method to use */ merge_method?: "merge" | "squash" | "rebase";
 }): Promise<unknown>;
 /** Get the list of files changed in a pull request */
 get_pull_request_files(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Pull request number */ pull_number: number;
 }): Promise<unknown>;
 /** Get the combined status of all status checks for a pull request */
 get_pull_request_status(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Pull request number */ pull_number: number;
 }): Promise<unknown>;
 /** Update a pull request branch with the latest changes from the base branch */
 update_pull_request_branch(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Pull request number */ pull_number: number;
  /** The expected SHA of the pull request's HEAD ref */ expected_head_sha?: string;
 }): Promise<unknown>;
 /** Get the review comments on a pull request */
 get_pull_request_comments(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Pull request number */ pull_number: number;
 }): Promise<unknown>;
 /** Get the reviews on a pull request */
 get_pull_request_reviews(args: {
  /** Repository owner (username or organization) */ owner: string;
  /** Repository name */ repo: string;
  /** Pull request number */ pull_number: number;
 }): Promise<unknown>;
};
