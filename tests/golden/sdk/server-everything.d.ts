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
 /** Echoes back the input string @readonly */
 echo(args: {
  /** Message to echo */ message: string;
 }): Promise<unknown>;
 /** Demonstrates how annotations can be used to provide metadata about content.
  * Call: tools["get-annotated-message"](args) @readonly */
 "get-annotated-message"(args: {
  /** Type of message to demonstrate different annotation patterns */ messageType: "error" | "success" | "debug";
  /** Whether to include an example image @default false */ includeImage?: boolean;
 }): Promise<unknown>;
 /** Returns all environment variables, helpful for debugging MCP server configuration
  * Call: tools["get-env"](args) @readonly */
 "get-env"(args?: { [key: string]: unknown }): Promise<unknown>;
 /** Returns up to ten resource links that reference different types of resources
  * Call: tools["get-resource-links"](args) @readonly */
 "get-resource-links"(args?: {
  /** Number of resource links to return (1-10) @default 3 @minimum 1 @maximum 10 */ count?: number;
 }): Promise<unknown>;
 /** Returns a resource reference that can be used by MCP clients
  * Call: tools["get-resource-reference"](args) @readonly */
 "get-resource-reference"(args?: {
  /** @default "Text" */ resourceType?: "Text" | "Blob";
  /** ID of the text resource to fetch @default 1 */ resourceId?: number;
 }): Promise<unknown>;
 /** Returns structured content along with an output schema for client data validation
  * Call: tools["get-structured-content"](args) @readonly */
 "get-structured-content"(args: {
  /** Choose city */ location: "New York" | "Chicago" | "Los Angeles";
 }): Promise<{
  /** Temperature in celsius */ temperature: number;
  /** Weather conditions description */ conditions: string;
  /** Humidity percentage */ humidity: number;
 }>;
 /** Returns the sum of two numbers
  * Call: tools["get-sum"](args) @readonly */
 "get-sum"(args: {
  /** First number */ a: number;
  /** Second number */ b: number;
 }): Promise<unknown>;
 /** Returns a tiny MCP logo image.
  * Call: tools["get-tiny-image"](args) @readonly */
 "get-tiny-image"(args?: { [key: string]: unknown }): Promise<unknown>;
 /** Compresses a single file using gzip compression. Depending upon the selected output type, returns either the compressed data as a gzipped resource or a resource link, allowing it to be downloaded in a subsequent request during the current session.
  * Call: tools["gzip-file-as-resource"](args) */
 "gzip-file-as-resource"(args?: {
  /** Name of the output file @default "README.md.gz" */ name?: string;
  /** URL or data URI of the file content to compress @default "https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md" @format uri */ data?: string;
  /** How the resulting gzipped file should be returned. 'resourceLink' returns a link to a resource that can be read later, 'resource' returns a full resource object. @default "resourceLink" */ outputType?: "resourceLink" | "resource";
 }): Promise<unknown>;
 /** Toggles simulated, random-leveled logging on or off.
  * Call: tools["toggle-simulated-logging"](args) */
 "toggle-simulated-logging"(args?: { [key: string]: unknown }): Promise<unknown>;
 /** Toggles simulated resource subscription updates on or off.
  * Call: tools["toggle-subscriber-updates"](args) */
 "toggle-subscriber-updates"(args?: { [key: string]: unknown }): Promise<unknown>;
 /** Demonstrates a long running operation with progress updates.
  * Call: tools["trigger-long-running-operation"](args) @readonly */
 "trigger-long-running-operation"(args?: {
  /** Duration of the operation in seconds @default 10 */ duration?: number;
  /** Number of steps in the operation @default 5 */ steps?: number;
 }): Promise<unknown>;
 /** Simulates a deep research operation that gathers, analyzes, and synthesizes information. Demonstrates MCP task-based operations with progress through multiple stages. If 'ambiguous' is true and client supports elicitation, sends an elicitation request for clarification.
  * Call: tools["simulate-research-query"](args) */
 "simulate-research-query"(args: {
  /** The research topic to investigate */ topic: string;
  /** Simulate an ambiguous query that requires clarification (triggers input_required status) @default false */ ambiguous?: boolean;
 }): Promise<unknown>;
};
