// The host protocol's shapes (docs/host-protocol.md), as TypeScript types.

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON Schema, as a plain object. */
export type JsonSchema = { [key: string]: Json };

/** What the model sees: `ptc` (only `run_code`), `native` (the tools themselves) or `both`. */
export type Mode = "ptc" | "native" | "both";

// The Node types the API names, declared here so that the package's `.d.ts`
// compiles without @types/node (or the DOM library).

/**
 * An abort signal: the global `AbortSignal` where one is declared (Node's
 * types, the DOM library), so a handler's `signal` goes on to `fetch`;
 * else as much of one as ptc uses.
 */
export type Signal = typeof globalThis extends { AbortSignal: { prototype: infer S } } ? S : SignalShape;

/** What ptc needs of an abort signal (every `AbortSignal` has it). */
export interface SignalShape {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** A process environment (Node's `process.env` is one). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** A readable byte stream (Node's `Readable` is one): iterate it, or listen for `data`. */
export interface ReadableStreamLike extends AsyncIterable<unknown> {
  on(event: string, listener: (...args: any[]) => void): unknown;
  setEncoding(encoding: "utf8"): unknown;
}

/** A tool's pre-execute decision (contracts §2): `allow` (default), `ask` the approver, or `deny`. */
export type Policy = "allow" | "ask" | "deny";

/** The failure codes of contracts §3. */
export type ErrorCode =
  | "UNKNOWN_TOOL"
  | "INVALID_ARGUMENTS"
  | "DENIED"
  | "TOOL_ERROR"
  | "INVALID_OUTPUT"
  | "TOOL_TIMEOUT"
  | "ABORTED_BEFORE_DISPATCH"
  | "ABORTED";

/** The session's configuration (`initialize`); members left out take ptc's defaults. */
export interface Config {
  mode?: Mode;
  /** The language `run_code` speaks and runs (docs/contracts.md §6.1); default "typescript". */
  language?: "typescript" | "python";
  /** Where runs keep `state` values between them: `"memory"` (default), `"sqlite:PATH"` or `"redis://HOST:PORT/DB"`. */
  state?: string;
  maxParallelSubCalls?: number;
  defaultTimeoutMs?: number;
  maxTimeoutMs?: number;
  outputCapBytes?: number;
  memoryLimitBytes?: number;
  descriptionBudgetBytes?: number;
  escalatedMaxTimeoutMs?: number;
  escalatedOutputCapBytes?: number;
  escalatedMemoryLimitBytes?: number;
  /** The JSON text of one `state` value, in bytes; default 1 MiB, at least 1 KiB. */
  stateMaxValueBytes?: number;
  /** The keys and values of one session together, in bytes; default 16 MiB, at least 1 KiB. */
  stateMaxSessionBytes?: number;
  /** The keys of one session; default 10,000, at least 1. */
  stateMaxKeys?: number;
  /** How long an idle session is kept, in ms; default 86,400,000 (a day), at least 1,000. */
  stateExpiryMs?: number;
  /** The sessions the store keeps (opening one more drops the least recently used); default 10,000, at least 1. */
  stateMaxSessions?: number;
  /** The CPU a run's program itself may use when `runCode` gives no `cpuTimeMs`, in ms; waiting on tools does not count; default 30,000. */
  defaultCpuTimeMs?: number;
  /** The largest `cpuTimeMs` a run may give, in ms; default 600,000. */
  maxCpuTimeMs?: number;
  /** The sub-calls one run may make (past it each further call fails with `DENIED`); default 10,000, at least 1. */
  maxSubCalls?: number;
}

/** A content block of a result. */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string };

/** A tool's definition as registered with ptc (contracts §2), without its handler. */
export interface ToolDefinition {
  /** 1–128 chars of `A-Z a-z 0-9 _ . -`; not `run_code` nor `then`. */
  name: string;
  description?: string;
  /** Advertised instead of `description` when present. */
  summary?: string;
  /** JSON Schema of the arguments; its root is an object schema (default `{ "type": "object" }`). */
  parameters?: JsonSchema;
  /** JSON Schema of the value the handler returns. */
  output?: JsonSchema;
  /** `true` marks the tool parallel-safe; default `false`. */
  readOnly?: boolean;
  /** The per-call deadline, 1 … 2147483647 ms. */
  timeoutMs?: number;
  policy?: Policy;
  /** `true` keeps the tool for escalated runs (contracts §6). */
  requiresEscalation?: boolean;
  /** How a call reads to a person, e.g. `"Read {path}"`. */
  callTitle?: string;
  /** How a successful result reads, e.g. `"Read {path} ({result.lines} lines)"`. */
  resultTitle?: string;
}

/** A tool as `tools/list` reports it. */
export interface ListedTool {
  name: string;
  description?: string;
  summary?: string;
  parameters: JsonSchema;
  output?: JsonSchema;
  readOnly: boolean;
  timeoutMs?: number;
  policy: Policy;
  requiresEscalation?: boolean;
  callTitle?: string;
  resultTitle?: string;
}

/** The answer to `tools/register`. */
export interface Registered {
  registered: string[];
  count: number;
  warnings?: string[];
}

/** One tool as the model sees it. */
export interface PresentedTool {
  name: string;
  description?: string;
  parameters: JsonSchema;
}

/** The answer to `presentation`: the tools the model sees and every visible tool's declarations. */
export interface Presentation {
  tools: PresentedTool[];
  sdk: string;
}

/**
 * An event of a run (`run/event`). Arguments or a value whose JSON text is
 * over 16 KiB come as a preview instead: `argumentsPreview` (the start of
 * the JSON text) and `argumentsBytes` (its length in bytes) in place of
 * `arguments`; `valuePreview` and `valueBytes` in place of `value`.
 */
export type RunEvent =
  | {
      runId: string;
      event: "started";
      id: string;
      name: string;
      title: string;
      /** The arguments, when their JSON text is at most 16 KiB. */
      arguments?: Json;
      /** Otherwise the start of their JSON text … */
      argumentsPreview?: string;
      /** … and its length in bytes. */
      argumentsBytes?: number;
    }
  | {
      runId: string;
      event: "settled";
      id: string;
      title: string;
      ok: boolean;
      /** The value (on success), when its JSON text is at most 16 KiB. */
      value?: Json;
      /** Otherwise the start of its JSON text … */
      valuePreview?: string;
      /** … and its length in bytes. */
      valueBytes?: number;
      error?: { code: ErrorCode; message: string; detail?: string };
    }
  | { runId: string; event: "progress"; id: string; message: string }
  | { runId: string; event: "log"; level: string; text: string }
  | { runId: string; event: "log"; truncated: number };

/** The answer to `run_code`. */
export interface RunResult {
  runId: string;
  isError: boolean;
  /** Why the run failed: `syntax`, `runtime`, `timeout`, `memory`, `cancelled`, `denied`, … */
  kind?: string;
  /** What the model gets back: the run's text, then images. */
  content: ContentBlock[];
  subCalls: number;
  /**
   * The state session the run read and wrote: the one `runCode` named, or
   * the one its first `state.set` opened; absent when it had neither. Pass
   * it as `session` to a later run to read its values.
   */
  session?: string;
  /** The run's wall time, in ms. */
  elapsedMs: number;
  /** The CPU the program used, in ms; waiting on tools not counted. */
  cpuMs: number;
  /** `run/event` lines lost because the host fell behind in reading. */
  droppedEvents?: number;
}

/** The answer to `tools/invoke` (a tool call as the model made it). */
export interface InvokeResult {
  isError: boolean;
  content: ContentBlock[];
  value?: Json;
  error?: { code: ErrorCode; message: string; detail?: string };
  /** Present when the invoked tool is `run_code`. */
  runId?: string;
  kind?: string;
  subCalls?: number;
  /** The run's state session, as {@link RunResult.session}. */
  session?: string;
  elapsedMs?: number;
  cpuMs?: number;
  droppedEvents?: number;
}

/** What `tools/approve` asks: a call of a tool with `policy: "ask"`, or an escalated run. */
export type ApprovalRequest =
  | {
      kind: "call";
      /** Absent for a tool invoked directly (`invoke`). */
      runId?: string;
      id: string;
      name: string;
      arguments: Json;
      /** How the call reads to a person. */
      title: string;
    }
  | {
      kind: "escalation";
      runId: string;
      code: string;
      description: string;
      justification: string;
      grant: { tools: string[]; timeoutMs: number; memoryLimitBytes: number; outputCapBytes: number };
    };

/**
 * An approver's answer: `true`/`false`, or with a reason for a refusal. Only
 * `true` or `{ approved: true }` approves; any other answer (a truthy value,
 * `{ approved: "yes" }`, a string, `null`) refuses, saying what it was.
 */
export type ApprovalAnswer = boolean | { approved: boolean; reason?: string };

/**
 * Decides approvals. Throwing, or a rejected promise, refuses. `signal` is
 * aborted when ptc stops waiting (the run ended or was cancelled, or the
 * approval wait limit passed), and when ptc exits (the reason a
 * `PtcExitedError`).
 */
export type Approver = (
  request: ApprovalRequest,
  context: { signal: Signal },
) => ApprovalAnswer | Promise<ApprovalAnswer>;
