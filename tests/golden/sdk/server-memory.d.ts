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
 /** Create multiple new entities in the knowledge graph */
 create_entities(args: {
  entities: {
   /** The name of the entity */ name: string;
   /** The type of the entity */ entityType: string;
   /** An array of observation contents associated with the entity */ observations: string[];
  }[];
 }): Promise<{
  entities: {
   /** The name of the entity */ name: string;
   /** The type of the entity */ entityType: string;
   /** An array of observation contents associated with the entity */ observations: string[];
  }[];
 }>;
 /** Create multiple new relations between entities in the knowledge graph. Relations should be in active voice */
 create_relations(args: {
  relations: {
   /** The name of the entity where the relation starts */ from: string;
   /** The name of the entity where the relation ends */ to: string;
   /** The type of the relation */ relationType: string;
  }[];
 }): Promise<{
  relations: {
   /** The name of the entity where the relation starts */ from: string;
   /** The name of the entity where the relation ends */ to: string;
   /** The type of the relation */ relationType: string;
  }[];
 }>;
 /** Add new observations to existing entities in the knowledge graph */
 add_observations(args: {
  observations: {
   /** The name of the entity to add the observations to */ entityName: string;
   /** An array of observation contents to add */ contents: string[];
  }[];
 }): Promise<{ results: { entityName: string; addedObservations: string[] }[] }>;
 /** Delete multiple entities and their associated relations from the knowledge graph */
 delete_entities(args: {
  /** An array of entity names to delete */ entityNames: string[];
 }): Promise<{ success: boolean; message: string }>;
 /** Delete specific observations from entities in the knowledge graph */
 delete_observations(args: {
  deletions: {
   /** The name of the entity containing the observations */ entityName: string;
   /** An array of observations to delete */ observations: string[];
  }[];
 }): Promise<{ success: boolean; message: string }>;
 /** Delete multiple relations from the knowledge graph */
 delete_relations(args: {
  /** An array of relations to delete */ relations: {
   /** The name of the entity where the relation starts */ from: string;
   /** The name of the entity where the relation ends */ to: string;
   /** The type of the relation */ relationType: string;
  }[];
 }): Promise<{ success: boolean; message: string }>;
 /** Read the entire knowledge graph @readonly */
 read_graph(args?: { [key: string]: unknown }): Promise<{
  entities: {
   /** The name of the entity */ name: string;
   /** The type of the entity */ entityType: string;
   /** An array of observation contents associated with the entity */ observations: string[];
  }[];
  relations: {
   /** The name of the entity where the relation starts */ from: string;
   /** The name of the entity where the relation ends */ to: string;
   /** The type of the relation */ relationType: string;
  }[];
 }>;
 /** Search for nodes in the knowledge graph based on a query @readonly */
 search_nodes(args: {
  /** The search query to match against entity names, types, and observation content */ query: string;
 }): Promise<{
  entities: {
   /** The name of the entity */ name: string;
   /** The type of the entity */ entityType: string;
   /** An array of observation contents associated with the entity */ observations: string[];
  }[];
  relations: {
   /** The name of the entity where the relation starts */ from: string;
   /** The name of the entity where the relation ends */ to: string;
   /** The type of the relation */ relationType: string;
  }[];
 }>;
 /** Open specific nodes in the knowledge graph by their names @readonly */
 open_nodes(args: {
  /** An array of entity names to retrieve */ names: string[];
 }): Promise<{
  entities: {
   /** The name of the entity */ name: string;
   /** The type of the entity */ entityType: string;
   /** An array of observation contents associated with the entity */ observations: string[];
  }[];
  relations: {
   /** The name of the entity where the relation starts */ from: string;
   /** The name of the entity where the relation ends */ to: string;
   /** The type of the relation */ relationType: string;
  }[];
 }>;
};
