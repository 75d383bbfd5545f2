// A host of `ptc serve` (docs/host-protocol.md): JavaScript functions as
// tools, an approver, and runs of programs that call them.

import { spawn, type ChildProcess } from "node:child_process";
import type { Writable } from "node:stream";

import { findBinary } from "./binary";
import type {
  ApprovalRequest,
  Approver,
  Environment,
  ReadableStreamLike,
  Signal,
  Config,
  ContentBlock,
  ErrorCode,
  InvokeResult,
  Json,
  ListedTool,
  Mode,
  Policy,
  Presentation,
  Registered,
  RunEvent,
  RunResult,
  ToolDefinition,
} from "./types";
import { type Line, LineReader, MAX_EVENTS, MAX_MESSAGE_BYTES, approvalReply, headOf } from "./wire";

/** What a tool's handler gets besides its arguments. */
export interface ToolContext {
  /** The tool's name. */
  name: string;
  /** The sub-call's id (`<runId>:ptc:<n>`), or the invocation's id. */
  id: string;
  /** The run's id; absent for a tool invoked directly. */
  runId?: string;
  /** Aborted when ptc stops waiting for this call (the run ended, timed out or was cancelled, or the tool's `timeoutMs` expired), and when ptc exits (the reason a {@link PtcExitedError}). */
  signal: Signal;
}

/** A tool's implementation: returns the value the program gets (any JSON), or a {@link ToolOutput}. */
export type ToolHandler = (args: any, context: ToolContext) => unknown;

/** A tool: its definition and the function that runs it. */
export interface Tool extends ToolDefinition {
  handler: ToolHandler;
}

/** A handler's value with content blocks (images, say) for the model. */
export class ToolOutput {
  constructor(
    readonly value: unknown,
    readonly content: ContentBlock[],
  ) {}
}

/**
 * Thrown by a handler to fail the call with a contract code (default
 * `TOOL_ERROR`) and a user-facing `detail` kept out of the model's text.
 * Any other thrown value fails the call as `TOOL_ERROR` with its message.
 */
export class ToolError extends Error {
  override name = "ToolError";
  constructor(
    message: string,
    readonly code: ErrorCode = "TOOL_ERROR",
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** ptc answered a request with a JSON-RPC error (bad params, an invalid tool, …). */
export class PtcRequestError extends Error {
  override name = "PtcRequestError";
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: Json,
  ) {
    super(`${method}: ${message}`);
  }
}

/** The `ptc serve` process ended (or was closed) before answering. */
export class PtcExitedError extends Error {
  override name = "PtcExitedError";
}

/**
 * ptc sent something this library cannot read (a line over
 * `maxMessageBytes`, a line that is not JSON, an event without its
 * members) where the answer to a request, or an event of a run, belonged:
 * that request or run fails with it (a run is cancelled), the session goes on.
 */
export class PtcProtocolError extends Error {
  override name = "PtcProtocolError";
}

/** Options of {@link Ptc.start}. */
export interface StartOptions {
  /** The `ptc` binary; default {@link findBinary} (`PTC_BINARY`, else the platform package). */
  binary?: string;
  /** The session's configuration (mode, limits); default ptc's defaults. */
  config?: Config;
  /** Tools to register at once. */
  tools?: Tool[];
  /** Decides `policy: "ask"` calls and escalations; without one they are refused. */
  approver?: Approver;
  /** Sees every run's events, as they happen. */
  onEvent?: (event: RunEvent) => void;
  /** ptc's stderr (human logs): `inherit` (default), `ignore`, or `pipe` (then read {@link Ptc.stderr}). */
  stderr?: "inherit" | "ignore" | "pipe";
  /** The environment of the ptc process; default this process's. */
  env?: Environment;
  /** How many events of a run its outcome keeps (the rest are counted in `eventsNotKept`; listeners see every one); default 1000. */
  maxEvents?: number;
  /** The longest line from ptc the session reads, in bytes (a longer one fails what it belongs to, never the session); default 64 MiB. */
  maxMessageBytes?: number;
}

/** Options of {@link Ptc.runCode}. */
export interface RunOptions {
  /** What the program does, in a few words (shown with approvals); default `"run a program"`. */
  description?: string;
  /** The run's deadline in ms; default the session's `defaultTimeoutMs`. */
  timeoutMs?: number;
  /** The CPU the program itself may use, in ms (waiting on tools not counted; past it the run ends as `timeout`); default the session's `defaultCpuTimeMs`. */
  cpuTimeMs?: number;
  /** The sub-calls the run may make (past it each further call fails with `DENIED`, which the program may catch); default the session's `maxSubCalls`. The model's own `run_code` calls cannot set it. */
  maxSubCalls?: number;
  /** The run's id, used as given (events, approvals and `tools/call` carry it); not empty. Default a fresh one. */
  runId?: string;
  /** Run escalated (contracts §6): the justification the approver is shown. */
  escalate?: string;
  /**
   * The state session the program's `state` reads and writes: one from
   * {@link Ptc.openSession} or an earlier outcome's `session`. Default none:
   * the run's first `state.set` opens a new one (the outcome's `session`).
   */
  session?: string;
  /** Cancels the run (it ends as `cancelled`). */
  signal?: Signal;
  /** Sees this run's events, as they happen. */
  onEvent?: (event: RunEvent) => void;
}

/** A run's outcome: ptc's `run_code` result, the run's events, and its text. */
export interface RunOutcome extends RunResult {
  /** The run's first `run/event`s, in order: at most the session's `maxEvents`. */
  events: RunEvent[];
  /**
   * The events past `maxEvents`: the listeners saw them, `events` does not
   * hold them. (`droppedEvents` counts those ptc itself dropped because the
   * host fell behind in reading: no one saw those.)
   */
  eventsNotKept: number;
  /** The text blocks of `content`, joined by newlines: what the model reads. */
  text: string;
}

/** The answer to `initialize`. */
export interface ServerInfo {
  name: string;
  version: string;
  protocolVersion: number;
}

type Message = {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string; data?: Json };
};

interface Pending {
  method: string;
  resolve: (result: any) => void;
  reject: (error: Error) => void;
}

/** A run under way: its first events, the count of the rest, its own listener, its `run_code` request's id once sent. */
interface Run {
  events: RunEvent[];
  notKept: number;
  onEvent: ((event: RunEvent) => void) | undefined;
  id: number | undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

let runCounter = 0;

/** The text blocks of a result's content, joined by newlines. */
export function textOf(content: readonly ContentBlock[]): string {
  return content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n");
}

/**
 * A `ptc serve` session: one ptc process, its tools (JavaScript functions),
 * its approver, and the runs of programs against them.
 *
 * ```ts
 * const ptc = await Ptc.start({ tools: [{ name: "add", parameters: {...}, handler: ({ a, b }) => a + b }] });
 * const outcome = await ptc.runCode("return await tools.add({ a: 1, b: 2 })");
 * console.log(outcome.text); // 3
 * await ptc.close();
 * ```
 */
export class Ptc {
  /** ptc's name, version and protocol version. */
  info!: ServerInfo;
  /** Decides `policy: "ask"` calls and escalations; without one they are refused. */
  approver: Approver | undefined;
  /** Sees every run's events, as they happen. */
  onEvent: ((event: RunEvent) => void) | undefined;

  private readonly child: ChildProcess;
  private readonly input: Writable;
  private readonly pending = new Map<number, Pending>();
  private readonly handlers = new Map<string, Tool>();
  private readonly runs = new Map<string, Run>();
  private readonly maxEvents: number;
  private readonly maxMessageBytes: number;
  private readonly inbound = new Map<number | string, AbortController>();
  private nextId = 1;
  /** Requests, calls and approvals under way (and a close): while any, the process and its pipes keep Node alive. */
  private busy = 0;
  private exited: PtcExitedError | undefined;
  private readonly exit: Promise<number | null>;

  private constructor(binary: string, options: StartOptions) {
    this.approver = options.approver;
    this.onEvent = options.onEvent;
    this.maxEvents = options.maxEvents ?? MAX_EVENTS;
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.child = spawn(binary, ["serve"], {
      stdio: ["pipe", "pipe", options.stderr ?? "inherit"],
      env: options.env ?? process.env,
    });
    const { stdin, stdout } = this.child;
    if (stdin === null || stdout === null) throw new Error("spawn gave no pipes"); // cannot happen with stdio "pipe"
    this.input = stdin;
    // Writes after the process died fail with EPIPE; the exit handler reports it.
    stdin.on("error", () => {});
    const lines = new LineReader(this.maxMessageBytes);
    stdout.on("data", (chunk: Buffer) => {
      for (const line of lines.feed(chunk)) this.receive(line);
    });
    stdout.on("end", () => {
      for (const line of lines.end()) this.receive(line);
    });
    // Idle, the session does not keep Node running: a script that ends
    // without close() exits, and ptc, at the end of its input, too.
    this.setRef(false);
    this.exit = new Promise((resolve) => {
      this.child.on("error", (error) => {
        this.fail(new PtcExitedError(`cannot run ${binary} serve: ${error.message}`));
        resolve(null);
      });
      // `close`, not `exit`: after the last line of stdout, so the answers
      // ptc wrote before exiting (runs cancelled at end of input) are read.
      this.child.on("close", (code, signal) => {
        this.fail(
          new PtcExitedError(
            signal !== null ? `ptc serve was killed by ${signal}` : `ptc serve exited with status ${code}`,
          ),
        );
        resolve(code);
      });
    });
  }

  /**
   * Starts `ptc serve`, configures it and registers `options.tools`.
   *
   * @throws {RangeError} `maxEvents` or `maxMessageBytes` is not a whole number in range (at least 0 and 1); {@link BinaryNotFoundError} no binary; {@link PtcRequestError} a bad config or tool; {@link PtcExitedError} ptc did not start.
   */
  static async start(options: StartOptions = {}): Promise<Ptc> {
    for (const [name, least] of [["maxEvents", 0], ["maxMessageBytes", 1]] as const) {
      const value = options[name];
      if (value !== undefined && !(Number.isSafeInteger(value) && value >= least)) {
        throw new RangeError(`${name} must be an integer of at least ${least}, got ${String(value)}`);
      }
    }
    const ptc = new Ptc(options.binary ?? findBinary(), options);
    try {
      await ptc.configure(options.config ?? {});
      if (options.tools !== undefined && options.tools.length > 0) await ptc.register(...options.tools);
    } catch (error) {
      await ptc.close();
      throw error;
    }
    return ptc;
  }

  /** The `ptc serve` process's id (`undefined` when it could not be spawned). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** ptc's stderr when started with `stderr: "pipe"`, else `null`. */
  get stderr(): ReadableStreamLike | null {
    return this.child.stderr;
  }

  /**
   * Sets the whole configuration (`initialize`): members left out take their
   * defaults. Runs in flight keep theirs.
   *
   * @throws {PtcRequestError} a limit out of range or an unknown member.
   */
  async configure(config: Config): Promise<ServerInfo> {
    this.info = await this.request<ServerInfo>("initialize", { config });
    return this.info;
  }

  /**
   * Registers tools, all or none; a name registered before is replaced in place.
   *
   * @throws {PtcRequestError} a bad tool (the message names it and the JSON path); then none is registered.
   */
  async register(...tools: Tool[]): Promise<Registered> {
    for (const tool of tools) {
      if (typeof tool.handler !== "function") {
        throw new TypeError(`tool \`${tool.name}\` has no handler function`);
      }
    }
    const definitions = tools.map(({ handler: _handler, ...definition }) => definition);
    const registered = await this.request<Registered>("tools/register", { tools: definitions });
    for (const tool of tools) this.handlers.set(tool.name, tool);
    return registered;
  }

  /** Removes tools; `true` when every name was registered. */
  async remove(...names: string[]): Promise<boolean> {
    const { removed } = await this.request<{ removed: boolean }>("tools/remove", { names });
    for (const name of names) this.handlers.delete(name);
    return removed;
  }

  /**
   * Sets a registered tool's policy: `allow`, `ask` (the approver decides
   * each call) or `deny`.
   *
   * @throws {Error} no tool of that name was registered here.
   */
  async setPolicy(name: string, policy: Policy): Promise<void> {
    const tool = this.handlers.get(name);
    if (tool === undefined) throw new Error(`no tool \`${name}\` is registered`);
    await this.register({ ...tool, policy });
  }

  /** The registered tools, in registration order, with every field ptc keeps. */
  async tools(): Promise<ListedTool[]> {
    return (await this.request<{ tools: ListedTool[] }>("tools/list", {})).tools;
  }

  /**
   * What the model sees: the tools (in mode `ptc`, `run_code` alone, its
   * description carrying the SDK) and the SDK. See {@link openAITools} and
   * {@link anthropicTools} for a model API's format.
   */
  async presentation(mode?: Mode): Promise<Presentation> {
    return this.request<Presentation>("presentation", mode === undefined ? {} : { mode });
  }

  /**
   * Runs a program (TypeScript, the body of an async function) against the
   * tools. A program's failure is an outcome with `isError: true` and a
   * `kind`, not an exception.
   *
   * @throws {RangeError} an empty `runId` (nothing is sent); {@link PtcRequestError} a malformed request (a `timeoutMs` or `cpuTimeMs` out of range, a `maxSubCalls` of 0 or over 4294967295, a `runId` in use, a `session` the state store does not know or that expired: code -32602); {@link PtcExitedError} ptc ended.
   */
  async runCode(code: string, options: RunOptions = {}): Promise<RunOutcome> {
    if (options.runId === "") {
      throw new RangeError("runId must not be empty: leave it out for a fresh one");
    }
    runCounter += 1;
    const runId = options.runId ?? `node-${process.pid}-${runCounter}-${Math.random().toString(36).slice(2, 8)}`;
    const params: Record<string, Json> = {
      code,
      description: options.description ?? "run a program",
      runId,
    };
    if (options.timeoutMs !== undefined) params["timeoutMs"] = options.timeoutMs;
    if (options.cpuTimeMs !== undefined) params["cpuTimeMs"] = options.cpuTimeMs;
    if (options.maxSubCalls !== undefined) params["maxSubCalls"] = options.maxSubCalls;
    if (options.escalate !== undefined) {
      params["sandboxPermissions"] = "require_escalated";
      params["justification"] = options.escalate;
    }
    if (options.session !== undefined) params["session"] = options.session;
    if (this.runs.has(runId)) {
      throw new Error(`run id \`${runId}\` belongs to a run still going`);
    }
    const run: Run = { events: [], notKept: 0, onEvent: options.onEvent, id: undefined };
    this.runs.set(runId, run);
    try {
      const result = await this.request<RunResult>("run_code", params, options.signal, (id) => {
        run.id = id;
      });
      return { ...result, events: run.events, eventsNotKept: run.notKept, text: textOf(result.content) };
    } finally {
      this.runs.delete(runId);
    }
  }

  /**
   * Opens a state session (`session/open`) and returns its handle
   * (`ptc_…`): pass it as `session` to {@link Ptc.runCode}, and the runs
   * given it share their `state` values. The values live in the store of
   * the config's `state` (in memory by default: they end with this ptc
   * process) until the session has been idle for `stateExpiryMs`.
   *
   * @throws {PtcRequestError} the state store could not be reached (code -32000, ptc's message); {@link PtcProtocolError} an answer without a handle; {@link PtcExitedError} ptc ended.
   */
  async openSession(): Promise<string> {
    const result = await this.request<unknown>("session/open", {});
    const session = isObject(result) ? result["session"] : undefined;
    if (typeof session !== "string") {
      throw new PtcProtocolError(`session/open's answer holds no session: ${JSON.stringify(result) ?? String(result)}`);
    }
    return session;
  }

  /**
   * Runs a tool call exactly as the model made it (`tools/invoke`): the
   * model's call of `run_code`, or (modes `native`/`both`) of a tool. The
   * full pipeline runs (visibility, validation, policy); a failure is a
   * result with `isError: true`. Aborting `options.signal` cancels the call
   * as it cancels a run (ptc gets `$/cancel`, the tool's handler sees its
   * signal aborted): the result is then an `ABORTED` failure, or for
   * `run_code` a `cancelled` outcome.
   */
  async invoke(name: string, args: unknown = {}, options: { signal?: Signal } = {}): Promise<InvokeResult> {
    return this.request<InvokeResult>("tools/invoke", { name, arguments: args }, options.signal);
  }

  /**
   * Ends the session: closes ptc's input (runs in flight end as
   * `cancelled`) and waits for the process to exit, killing it after
   * `graceMs` (default 5000). Returns its exit status.
   */
  async close(graceMs = 5000): Promise<number | null> {
    this.hold(); // until the exit; never released
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.input.end();
      const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
      try {
        return await this.exit;
      } finally {
        clearTimeout(timer);
      }
    }
    return this.exit;
  }

  private request<T>(
    method: string,
    params: Record<string, unknown>,
    signal?: Signal,
    sent?: (id: number) => void,
  ): Promise<T> {
    if (this.exited !== undefined) return Promise.reject(this.exited);
    if (signal?.aborted === true) return Promise.reject(signal.reason ?? new Error("aborted"));
    const id = this.nextId++;
    sent?.(id);
    return new Promise<T>((resolve, reject) => {
      const cancel = (): void => this.send({ method: "$/cancel", params: { id } });
      signal?.addEventListener("abort", cancel, { once: true });
      this.hold();
      this.pending.set(id, {
        method,
        resolve: (result) => {
          signal?.removeEventListener("abort", cancel);
          this.release();
          resolve(result as T);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", cancel);
          this.release();
          reject(error);
        },
      });
      this.send({ id, method, params });
    });
  }

  private send(message: Message): void {
    this.write(line(message));
  }

  private write(text: string): void {
    if (this.exited === undefined) this.input.write(text);
  }

  private hold(): void {
    if (this.busy++ === 0) this.setRef(true);
  }

  private release(): void {
    if (--this.busy === 0) this.setRef(false);
  }

  private setRef(on: boolean): void {
    const { stdin, stdout, stderr } = this.child;
    for (const handle of [this.child, stdin, stdout, stderr]) {
      const h = handle as unknown as { ref?: () => void; unref?: () => void } | null;
      if (on) h?.ref?.();
      else h?.unref?.();
    }
  }

  private fail(error: PtcExitedError): void {
    if (this.exited !== undefined) return;
    this.exited = error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
    for (const controller of this.inbound.values()) controller.abort(error);
    this.inbound.clear();
  }

  /** Handles one line of ptc's output; never throws, never ends the session. */
  private receive(line: Line): void {
    if (line.data.length < line.size) {
      this.unreadable(line.data, `a message of ${line.size.toLocaleString("en-US")} bytes, over maxMessageBytes (${this.maxMessageBytes.toLocaleString("en-US")})`);
      return;
    }
    const text = line.data.toString("utf8");
    if (text.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      this.unreadable(line.data, `a line that is not JSON (${messageOf(error).slice(0, 200)})`);
      return;
    }
    if (!isObject(message)) {
      this.unreadable(Buffer.alloc(0), `a JSON ${message === null ? "null" : Array.isArray(message) ? "array" : typeof message} where a message (an object) belongs`);
      return;
    }
    try {
      this.dispatch(message as Message);
    } catch (error) {
      process.emitWarning(`ptc: a message from ptc serve could not be handled: ${messageOf(error)}`);
    }
  }

  private dispatch(message: Message): void {
    if (message.method === undefined) {
      if (typeof message.id !== "number") return;
      const pending = this.pending.get(message.id);
      if (pending === undefined) return;
      this.pending.delete(message.id);
      const error: unknown = message.error;
      if (error !== undefined) {
        const { code, message: text, data } = isObject(error) ? error : {};
        pending.reject(
          new PtcRequestError(
            pending.method,
            typeof code === "number" ? code : 0,
            typeof text === "string" ? text : "error",
            data as Json,
          ),
        );
      } else {
        pending.resolve(message.result);
      }
      return;
    }
    const params: any = isObject(message.params) ? message.params : {};
    switch (message.method) {
      case "run/event":
        this.event(message.params);
        return;
      case "$/cancel":
        this.inbound.get(params.id)?.abort(new Error("ptc stopped waiting for this call"));
        this.inbound.delete(params.id);
        return;
      case "tools/call":
        if (message.id !== undefined && message.id !== null) void this.call(message.id, params);
        return;
      case "tools/approve":
        if (message.id !== undefined && message.id !== null) void this.approve(message.id, params as ApprovalRequest);
        return;
      default:
        if (message.id !== undefined && message.id !== null) {
          this.send({ id: message.id, error: { code: -32601, message: `unknown method ${message.method}` } });
        }
    }
  }

  /** A `run/event`: kept (up to `maxEvents`) for its run, and passed to the listeners. */
  private event(params: unknown): void {
    const runId = isObject(params) ? params["runId"] : undefined;
    if (!isObject(params) || typeof runId !== "string" || typeof params["event"] !== "string") {
      const what = "a `run/event` without a string `runId` and `event`";
      if (!(typeof runId === "string" && this.failRun(runId, what))) warn(what);
      return;
    }
    const event = params as unknown as RunEvent;
    const run = this.runs.get(runId);
    if (run !== undefined) {
      if (run.events.length < this.maxEvents) run.events.push(event);
      else run.notKept++;
    }
    // A listener that throws must not end the session (this runs in the stream's callback).
    for (const listener of [run?.onEvent, this.onEvent]) {
      try {
        listener?.(event);
      } catch (error) {
        process.emitWarning(`an onEvent listener threw: ${messageOf(error)}`);
      }
    }
  }

  /**
   * A line this session cannot read: fails what it belonged to (a request
   * of ours, a run of ours, a request of ptc's), else is skipped with a
   * warning.
   */
  private unreadable(data: Buffer, what: string): void {
    const head = headOf(data);
    const id = head.get("id");
    const method = head.get("method");
    const params = head.get("params");
    if (typeof method === "string") {
      if (typeof id === "number" || typeof id === "string") {
        const why = `the host could not read ptc's \`${method}\` request: ptc sent ${what}`;
        if (method === "tools/approve") this.send({ id, result: { approved: false, reason: why } });
        else this.send({ id, error: { code: -32000, message: why } });
        return;
      }
      const runId = params instanceof Map ? params.get("runId") : undefined;
      if (method === "run/event" && typeof runId === "string" && this.failRun(runId, what)) return;
    } else if (typeof id === "number") {
      const pending = this.pending.get(id);
      if (pending !== undefined) {
        this.pending.delete(id);
        pending.reject(new PtcProtocolError(`ptc's answer could not be read: ptc sent ${what}`));
        return;
      }
    }
    warn(what);
  }

  /** Fails a run of this session for an event it cannot read: its `runCode` rejects, and ptc is told to cancel it. */
  private failRun(runId: string, what: string): boolean {
    const run = this.runs.get(runId);
    if (run === undefined || run.id === undefined) return false;
    const pending = this.pending.get(run.id);
    if (pending !== undefined) {
      this.pending.delete(run.id);
      pending.reject(
        new PtcProtocolError(`run \`${runId}\` was cancelled: ptc sent an event of it that cannot be read: ${what}`),
      );
      this.send({ method: "$/cancel", params: { id: run.id } });
    }
    return true;
  }

  /** Runs a tool for ptc and answers, unless ptc stopped waiting first. */
  private async call(id: number | string, params: { name: string; arguments: Json; id: string; runId?: string }): Promise<void> {
    this.hold();
    try {
      await this.callHeld(id, params);
    } finally {
      this.release();
    }
  }

  private async callHeld(id: number | string, params: { name: string; arguments: Json; id: string; runId?: string }): Promise<void> {
    const controller = new AbortController();
    this.inbound.set(id, controller);
    let answer: string;
    try {
      const tool = this.handlers.get(params.name);
      if (tool === undefined) throw new ToolError(`this host has no handler for \`${params.name}\``);
      const context: ToolContext = { name: params.name, id: params.id, signal: controller.signal };
      if (params.runId !== undefined) context.runId = params.runId;
      const returned = await tool.handler(params.arguments, context);
      const result =
        returned instanceof ToolOutput
          ? { value: returned.value ?? null, content: returned.content }
          : { value: returned ?? null };
      // Serialized inside the try, so a value JSON cannot hold (a BigInt, a cycle) fails the call, not the session.
      answer = line({ id, result });
    } catch (error) {
      answer = line({ id, error: toRpcError(error) });
    }
    if (controller.signal.aborted) return; // ptc no longer waits: a late answer is ignored anyway
    this.inbound.delete(id);
    this.write(answer);
  }

  /** Asks the approver and answers; no approver, or one that fails, refuses. */
  private async approve(id: number | string, request: ApprovalRequest): Promise<void> {
    this.hold();
    try {
      await this.approveHeld(id, request);
    } finally {
      this.release();
    }
  }

  private async approveHeld(id: number | string, request: ApprovalRequest): Promise<void> {
    const controller = new AbortController();
    this.inbound.set(id, controller);
    let answer: { approved: boolean; reason?: string };
    const approver = this.approver;
    if (approver === undefined) {
      answer = { approved: false, reason: "this host has no approver" };
    } else {
      try {
        answer = approvalReply(await approver(request, { signal: controller.signal }));
      } catch (error) {
        answer = { approved: false, reason: `the approver failed: ${messageOf(error)}` };
      }
    }
    if (controller.signal.aborted) return;
    this.inbound.delete(id);
    this.send({ id, result: answer });
  }
}

/** A message as one line of the protocol. */
function line(message: Message): string {
  return JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n";
}

function warn(what: string): void {
  process.emitWarning(`ptc: skipped a line from ptc serve: ${what}`);
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return "a value that is not an Error was thrown";
  }
}

function toRpcError(error: unknown): { code: number; message: string; data?: Json } {
  if (error instanceof ToolError) {
    const data: { [key: string]: Json } = { code: error.code };
    if (error.detail !== undefined) data["detail"] = error.detail;
    return { code: -32000, message: error.message, data };
  }
  return { code: -32000, message: messageOf(error) };
}

/** `presentation().tools` as OpenAI Chat Completions `tools`. */
export function openAITools(presentation: Presentation): Array<{
  type: "function";
  function: { name: string; description?: string; parameters: Json };
}> {
  return presentation.tools.map((tool) => ({
    type: "function" as const,
    function: withDescription({ name: tool.name, parameters: tool.parameters }, tool.description),
  }));
}

/** `presentation().tools` as OpenAI Responses API `tools`. */
export function openAIResponsesTools(presentation: Presentation): Array<{
  type: "function";
  name: string;
  description?: string;
  parameters: Json;
}> {
  return presentation.tools.map((tool) =>
    withDescription({ type: "function" as const, name: tool.name, parameters: tool.parameters }, tool.description),
  );
}

/** `presentation().tools` as Anthropic Messages API `tools`. */
export function anthropicTools(presentation: Presentation): Array<{
  name: string;
  description?: string;
  input_schema: Json;
}> {
  return presentation.tools.map((tool) =>
    withDescription({ name: tool.name, input_schema: tool.parameters }, tool.description),
  );
}

function withDescription<T extends object>(tool: T, description: string | undefined): T & { description?: string } {
  return description === undefined ? tool : { ...tool, description };
}
