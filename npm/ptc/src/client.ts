// A host of `ptc serve` (docs/host-protocol.md): JavaScript functions as
// tools, an approver, and runs of programs that call them.

import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

import { findBinary } from "./binary";
import type {
  ApprovalAnswer,
  ApprovalRequest,
  Approver,
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

/** What a tool's handler gets besides its arguments. */
export interface ToolContext {
  /** The tool's name. */
  name: string;
  /** The sub-call's id (`<runId>:ptc:<n>`), or the invocation's id. */
  id: string;
  /** The run's id; absent for a tool invoked directly. */
  runId?: string;
  /** Aborted when ptc stops waiting for this call (the run ended, timed out or was cancelled, or the tool's `timeoutMs` expired). */
  signal: AbortSignal;
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
  env?: NodeJS.ProcessEnv;
}

/** Options of {@link Ptc.runCode}. */
export interface RunOptions {
  /** What the program does, in a few words (shown with approvals); default `"run a program"`. */
  description?: string;
  /** The run's deadline in ms; default the session's `defaultTimeoutMs`. */
  timeoutMs?: number;
  /** The run's id; default a fresh one. */
  runId?: string;
  /** Run escalated (contracts §6): the justification the approver is shown. */
  escalate?: string;
  /** Cancels the run (it ends as `cancelled`). */
  signal?: AbortSignal;
  /** Sees this run's events, as they happen. */
  onEvent?: (event: RunEvent) => void;
}

/** A run's outcome: ptc's `run_code` result, the run's events, and its text. */
export interface RunOutcome extends RunResult {
  /** Every `run/event` of the run, in order. */
  events: RunEvent[];
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
  private readonly runListeners = new Map<string, (event: RunEvent) => void>();
  private readonly inbound = new Map<number | string, AbortController>();
  private nextId = 1;
  /** Requests, calls and approvals under way (and a close): while any, the process and its pipes keep Node alive. */
  private busy = 0;
  private exited: PtcExitedError | undefined;
  private readonly exit: Promise<number | null>;

  private constructor(binary: string, options: StartOptions) {
    this.approver = options.approver;
    this.onEvent = options.onEvent;
    this.child = spawn(binary, ["serve"], {
      stdio: ["pipe", "pipe", options.stderr ?? "inherit"],
      env: options.env ?? process.env,
    });
    const { stdin, stdout } = this.child;
    if (stdin === null || stdout === null) throw new Error("spawn gave no pipes"); // cannot happen with stdio "pipe"
    this.input = stdin;
    // Writes after the process died fail with EPIPE; the exit handler reports it.
    stdin.on("error", () => {});
    createInterface({ input: stdout, crlfDelay: Infinity }).on("line", (line) => this.receive(line));
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
   * @throws {BinaryNotFoundError} no binary; {@link PtcRequestError} a bad config or tool; {@link PtcExitedError} ptc did not start.
   */
  static async start(options: StartOptions = {}): Promise<Ptc> {
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

  /** ptc's stderr when started with `stderr: "pipe"`, else `null`. */
  get stderr(): Readable | null {
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
   * @throws {PtcRequestError} a malformed request (a `timeoutMs` out of range, a `runId` in use); {@link PtcExitedError} ptc ended.
   */
  async runCode(code: string, options: RunOptions = {}): Promise<RunOutcome> {
    runCounter += 1;
    const runId = options.runId ?? `node-${process.pid}-${runCounter}-${Math.random().toString(36).slice(2, 8)}`;
    const params: Record<string, Json> = {
      code,
      description: options.description ?? "run a program",
      runId,
    };
    if (options.timeoutMs !== undefined) params["timeoutMs"] = options.timeoutMs;
    if (options.escalate !== undefined) {
      params["sandboxPermissions"] = "require_escalated";
      params["justification"] = options.escalate;
    }
    if (this.runListeners.has(runId)) {
      throw new Error(`run id \`${runId}\` belongs to a run still going`);
    }
    const events: RunEvent[] = [];
    const onEvent = options.onEvent;
    this.runListeners.set(runId, (event) => {
      events.push(event);
      onEvent?.(event);
    });
    try {
      const result = await this.request<RunResult>("run_code", params, options.signal);
      return { ...result, events, text: textOf(result.content) };
    } finally {
      this.runListeners.delete(runId);
    }
  }

  /**
   * Runs a tool call exactly as the model made it (`tools/invoke`): the
   * model's call of `run_code`, or (modes `native`/`both`) of a tool. The
   * full pipeline runs (visibility, validation, policy); a failure is a
   * result with `isError: true`.
   */
  async invoke(name: string, args: unknown = {}, options: { signal?: AbortSignal } = {}): Promise<InvokeResult> {
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

  private request<T>(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    if (this.exited !== undefined) return Promise.reject(this.exited);
    if (signal?.aborted === true) return Promise.reject(signal.reason ?? new Error("aborted"));
    const id = this.nextId++;
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

  private receive(line: string): void {
    if (line.trim() === "") return;
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch {
      return; // not ours to answer: ptc writes only JSON lines
    }
    if (message.method === undefined) {
      if (typeof message.id !== "number") return;
      const pending = this.pending.get(message.id);
      if (pending === undefined) return;
      this.pending.delete(message.id);
      if (message.error !== undefined) {
        pending.reject(new PtcRequestError(pending.method, message.error.code, message.error.message, message.error.data));
      } else {
        pending.resolve(message.result);
      }
      return;
    }
    const params = message.params ?? {};
    switch (message.method) {
      case "run/event": {
        const event = params as RunEvent;
        // A listener that throws must not end the session (this runs in the stream's callback).
        for (const listener of [this.runListeners.get(event.runId), this.onEvent]) {
          try {
            listener?.(event);
          } catch (error) {
            process.emitWarning(`an onEvent listener threw: ${messageOf(error)}`);
          }
        }
        return;
      }
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
        answer = normalizeAnswer(await approver(request, { signal: controller.signal }));
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

function normalizeAnswer(answer: ApprovalAnswer): { approved: boolean; reason?: string } {
  if (typeof answer === "boolean") return { approved: answer };
  const normalized: { approved: boolean; reason?: string } = { approved: answer.approved === true };
  if (typeof answer.reason === "string") normalized.reason = answer.reason;
  return normalized;
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
