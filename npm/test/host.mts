// The host library against a real `ptc serve`, as a user's project gets it:
// compiled with tsc --strict against the installed package's .d.ts, run by
// npm/test/run.sh in an empty project where the tarballs were installed.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import {
  Ptc,
  PtcExitedError,
  PtcProtocolError,
  PtcRequestError,
  ToolError,
  ToolOutput,
  anthropicTools,
  openAIResponsesTools,
  openAITools,
  textOf,
  type ApprovalAnswer,
  type ApprovalRequest,
  type Approver,
  type Json,
  type RunEvent,
  type RunOutcome,
  type Tool,
} from "ptc";

const WEATHER: Record<string, number> = { Paris: 18, Oslo: 9, Lima: 24 };

const getWeather: Tool = {
  name: "get_weather",
  description: "The current temperature in a city.",
  readOnly: true,
  callTitle: "Weather in {city}",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  output: {
    type: "object",
    properties: { city: { type: "string" }, celsius: { type: "number" } },
    required: ["city", "celsius"],
  },
  handler: ({ city }: { city: string }) => {
    const celsius = WEATHER[city];
    if (celsius === undefined) throw new ToolError(`no weather for ${city}`, "TOOL_ERROR", "asked the weather service");
    return { city, celsius };
  },
};

const notes: string[] = [];
const writeNote: Tool = {
  name: "write_note",
  policy: "ask",
  callTitle: "Note {text}",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  handler: async ({ text }: { text: string }) => {
    notes.push(text);
    return { saved: notes.length };
  },
};

let slowSawAbort = false;
const slow: Tool = {
  name: "slow",
  readOnly: true,
  handler: (_args: unknown, { signal }) =>
    new Promise((_resolve, reject) => {
      signal.addEventListener("abort", () => {
        slowSawAbort = true;
        reject(new Error("aborted"));
      });
    }),
};

const deploy: Tool = {
  name: "deploy",
  requiresEscalation: true,
  handler: () => "deployed",
};

// A 1×1 PNG.
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const odd: Tool = {
  name: "odd",
  readOnly: true,
  parameters: { type: "object", properties: { kind: { enum: ["image", "bigint"] } }, required: ["kind"] },
  handler: ({ kind }: { kind: string }) =>
    kind === "image"
      ? new ToolOutput({ width: 1 }, [{ type: "image", data: PIXEL, mimeType: "image/png" }])
      : { big: 1n },
};

const approvals: ApprovalRequest[] = [];
const allEvents: RunEvent[] = [];

// A test that stops half-way (a promise that never settles lets Node exit
// with status 0) fails: only the last line marks the end.
let finished = false;
process.on("exit", (code) => {
  if (code === 0 && !finished) {
    console.error("host.mts: exited before its end");
    process.exitCode = 1;
  }
});

async function main(): Promise<void> {
  const ptc = await Ptc.start({
    tools: [getWeather, writeNote, slow, deploy, odd],
    approver: (request) => {
      approvals.push(request);
      if (request.kind === "escalation") return /release/.test(request.justification);
      const text = (request.arguments as { text: string }).text;
      return text.includes("secret") ? { approved: false, reason: "no secrets in notes" } : true;
    },
    onEvent: (event) => allEvents.push(event),
  });
  assert.equal(ptc.info.name, "ptc");
  assert.equal(ptc.info.protocolVersion, 1);

  // Sub-calls in parallel, one failing with a ToolError the program catches.
  const weather = await ptc.runCode(
    `const cities = ["Paris", "Oslo", "Atlantis"];
     const found = await Promise.allSettled(cities.map((city) => tools.get_weather({ city })));
     for (const r of found) if (r.status === "rejected") console.log(r.reason.code + ": " + r.reason.message);
     return found.flatMap((r) => (r.status === "fulfilled" ? [r.value.celsius] : []));`,
    { description: "weather in three cities" },
  );
  assert.equal(weather.isError, false, weather.text);
  assert.equal(weather.subCalls, 3);
  assert.match(weather.text, /TOOL_ERROR: no weather for Atlantis/);
  assert.match(weather.text, /\[\s*18,\s*9\s*\]/);
  const started = weather.events.filter((e) => e.event === "started");
  const settled = weather.events.filter((e) => e.event === "settled");
  assert.equal(started.length, 3);
  assert.equal(settled.length, 3);
  assert.deepEqual(started.map((e) => e.title).sort(), ["Weather in Atlantis", "Weather in Oslo", "Weather in Paris"]);
  const failed = settled.find((e) => !e.ok);
  assert.ok(failed !== undefined && failed.event === "settled");
  assert.equal(failed.error?.code, "TOOL_ERROR");
  assert.equal(failed.error?.detail, "asked the weather service");
  assert.ok(weather.events.every((e) => e.runId === weather.runId));
  assert.ok(weather.events.every((e) => allEvents.includes(e)), "onEvent of the session saw the run's events");

  // Content blocks beside a value; a value JSON cannot hold fails the call, not the session.
  const shaped = await ptc.runCode(
    `const { width } = await tools.odd({ kind: "image" });
     try { await tools.odd({ kind: "bigint" }); } catch (e) { return width + " " + e.code; }`,
  );
  assert.equal(shaped.isError, false, shaped.text);
  assert.match(shaped.text, /^1 TOOL_ERROR\nImage from `odd`/);
  assert.deepEqual(shaped.content.find((block) => block.type === "image"), {
    type: "image",
    data: PIXEL,
    mimeType: "image/png",
  });

  // `ask`: approved, then refused with the approver's reason.
  const asked = await ptc.runCode(
    `const ok = await tools.write_note({ text: "buy milk" });
     try { await tools.write_note({ text: "a secret" }); return "not refused"; }
     catch (e) { return [ok.saved, e.code, e.message].join(" | "); }`,
  );
  assert.equal(asked.isError, false, asked.text);
  assert.match(asked.text, /^1 \| DENIED \| .*no secrets in notes/);
  assert.deepEqual(notes, ["buy milk"]);
  assert.deepEqual(
    approvals.map((a) => (a.kind === "call" ? a.title : a.kind)),
    ['Note buy milk', 'Note a secret'],
  );

  // `deny`, set after registration: the handler never runs.
  await ptc.setPolicy("write_note", "deny");
  const denied = await ptc.runCode(`try { await tools.write_note({ text: "x" }); } catch (e) { return e.code; }`);
  assert.equal(denied.text, "DENIED");
  assert.deepEqual(notes, ["buy milk"]);
  assert.equal(approvals.length, 2, "deny asks no one");

  // Escalation: the approver sees the grant before anything runs.
  const shipped = await ptc.runCode(`return await tools.deploy({})`, { escalate: "the user asked to ship the release" });
  assert.equal(shipped.text, "deployed", shipped.text);
  const escalation = approvals[2];
  assert.ok(escalation?.kind === "escalation");
  assert.deepEqual(escalation.grant.tools, ["deploy"]);
  const refused = await ptc.runCode(`return await tools.deploy({})`, { escalate: "because" });
  assert.equal(refused.isError, true);
  assert.equal(refused.kind, "denied");
  assert.equal(refused.subCalls, 0);
  const unescalated = await ptc.runCode(`try { await tools.deploy({}); } catch (e) { return e.code; }`);
  assert.equal(unescalated.text, "DENIED");

  // No approver: `ask` is refused.
  await ptc.setPolicy("write_note", "ask");
  ptc.approver = undefined;
  const unasked = await ptc.runCode(`try { await tools.write_note({ text: "y" }); } catch (e) { return e.message; }`);
  assert.match(unasked.text, /this host has no approver/);

  // A run's deadline aborts the handler's signal; the outcome is a timeout.
  const timedOut = await ptc.runCode(`await tools.slow({}); return "never"`, { timeoutMs: 300 });
  assert.equal(timedOut.isError, true);
  assert.equal(timedOut.kind, "timeout");
  for (let i = 0; i < 100 && !slowSawAbort; i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(slowSawAbort, "the handler's signal was aborted");

  // Cancelled by the host.
  const controller = new AbortController();
  // (Its deadline is only there to end the test if the cancellation got lost.)
  const cancelled = ptc.runCode(`await tools.slow({}); return "never"`, { signal: controller.signal, timeoutMs: 20000 });
  setTimeout(() => controller.abort(), 100);
  assert.equal((await cancelled).kind, "cancelled");

  // A program's failure is an outcome.
  const syntax = await ptc.runCode("return (");
  assert.equal(syntax.isError, true);
  assert.equal(syntax.kind, "syntax");

  // What the model sees, in three APIs' formats.
  const presentation = await ptc.presentation();
  assert.match(presentation.sdk, /get_weather/);
  const [openai] = openAITools(presentation);
  assert.equal(openai?.type, "function");
  assert.equal(openai?.function.name, "run_code");
  assert.match(openai?.function.description ?? "", /get_weather/);
  assert.equal(openAIResponsesTools(presentation)[0]?.name, "run_code");
  const [anthropic] = anthropicTools(presentation);
  assert.equal(anthropic?.name, "run_code");
  assert.deepEqual(anthropic?.input_schema, presentation.tools[0]?.parameters);
  assert.deepEqual(
    (await ptc.presentation("native")).tools.map((t) => t.name),
    ["get_weather", "write_note", "slow", "odd"],
  );

  // The model's run_code call, as it made it.
  const invoked = await ptc.invoke("run_code", {
    code: `return (await tools.get_weather({ city: "Lima" })).celsius`,
    description: "Lima",
  });
  assert.equal(invoked.isError, false);
  assert.equal(invoked.content[0]?.type === "text" && invoked.content[0].text, "24");
  assert.ok(invoked.cpuMs !== undefined && invoked.cpuMs >= 0, String(invoked.cpuMs));

  // Bad tools and requests are errors naming what is wrong; nothing is registered.
  await assert.rejects(
    ptc.register({ name: "bad name!", handler: () => null }),
    (error: unknown) => error instanceof PtcRequestError && error.code === -32602 && /bad name!/.test(error.message),
  );
  assert.deepEqual(
    (await ptc.tools()).map((t) => t.name),
    ["get_weather", "write_note", "slow", "deploy", "odd"],
  );
  assert.equal(await ptc.remove("slow"), true);
  await assert.rejects(ptc.runCode("return 1", { timeoutMs: 0 }), PtcRequestError);

  // A listener that throws is reported as a warning; the run and the session go on.
  const warnings: string[] = [];
  const onWarning = (warning: Error): void => {
    warnings.push(warning.message);
  };
  process.on("warning", onWarning);
  const noisy = await ptc.runCode(`console.log("hi"); return 1`, {
    onEvent: () => {
      throw new Error("a listener's bug");
    },
  });
  assert.equal(noisy.text, "hi\n1");
  assert.equal(noisy.events.length, 1);
  await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  process.off("warning", onWarning);
  assert.deepEqual(warnings, ["an onEvent listener threw: a listener's bug"]);

  // Closing answers the runs in flight as cancelled, then ptc exits 0.
  const inflight = ptc.runCode(`while (true) {}`, { timeoutMs: 20000 });
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(await ptc.close(), 0);
  assert.equal((await inflight).kind, "cancelled");
  await assert.rejects(ptc.runCode("return 1"), PtcExitedError);

  // A session that cannot start says why, and leaves no process behind.
  await assert.rejects(Ptc.start({ config: { maxParallelSubCalls: 0 } }), (error: unknown) =>
    error instanceof PtcRequestError && /maxParallelSubCalls/.test(error.message),
  );
  await assert.rejects(Ptc.start({ binary: "/nonexistent/ptc" }), PtcExitedError);
  console.log("host.mts: ok");
}

// Only `true` or `{ approved: true }` approves: every other answer refuses,
// saying what it was, and the tool does not run.
const thenable = (value: unknown) => ({ then: (resolve: (v: unknown) => void) => resolve(value) });
const ODD_ANSWERS: Array<[unknown, string]> = [
  [{ approved: "yes" }, 'an object whose approved is "yes" (a string)'],
  [{ approved: "true" }, 'an object whose approved is "true" (a string)'],
  [{ approved: 1 }, "an object whose approved is 1 (a number)"],
  [{ approved: null, reason: "fine" }, "an object whose approved is null"],
  [{ approved: { valueOf: () => true } }, 'an object whose approved is an object with keys "valueOf"'],
  [Object.defineProperty({}, "approved", { get: () => "yes", enumerable: true }), 'an object whose approved is "yes" (a string)'],
  [{}, "an object with no keys"],
  [{ ok: true, yes: 1, go: 2, more: 3 }, 'an object with keys "ok", "yes", "go", …'],
  ["yes", '"yes" (a string)'],
  ["", '"" (a string)'],
  ["y".repeat(100), `"${"y".repeat(40)}…" (a string)`],
  [1, "1 (a number)"],
  [0, "0 (a number)"],
  [NaN, "NaN (a number)"],
  [1n, "1n (a bigint)"],
  [[true], "an array of 1"],
  [[], "an array of 0"],
  [null, "null"],
  [undefined, "undefined"],
  [new Boolean(true), "an object with no keys"],
  [Symbol("yes"), "a symbol"],
  [() => true, "a function"],
];

const asJunk = (value: unknown) => value as ApprovalAnswer;

async function oddAnswers(): Promise<void> {
  const ran: string[] = [];
  const ptc = await Ptc.start({
    tools: [{ name: "write", policy: "ask", handler: () => ran.push("write") }, { name: "deploy", requiresEscalation: true, handler: () => ran.push("deploy") }],
  });
  const code = `try { await tools.write({}); return "ran" } catch (e) { return e.code + ": " + e.message }`;
  const refusal = (described: string) =>
    `DENIED: the approver's answer was not an approval: ${described}; only true or { approved: true } approves`;
  const ways: Array<[string, (value: unknown) => Approver]> = [
    ["plain", (value) => () => asJunk(value)],
    ["async", (value) => async () => asJunk(value)],
    ["thenable", (value) => () => asJunk(thenable(value))],
  ];
  for (const [way, make] of ways) {
    for (const [answer, described] of ODD_ANSWERS) {
      ptc.approver = make(answer);
      const { text } = await ptc.runCode(code);
      assert.equal(text, refusal(described), `${way}: ${String(described)}`);
    }
  }
  // Escalations answered oddly are refused: nothing runs.
  for (const [answer] of ODD_ANSWERS.slice(0, 8)) {
    ptc.approver = async () => asJunk(answer);
    const outcome = await ptc.runCode("return await tools.deploy({})", { escalate: "ship it" });
    assert.equal(outcome.kind, "denied", outcome.text);
    assert.equal(outcome.subCalls, 0);
    assert.match(outcome.text, /the approver's answer was not an approval/);
  }
  // An approver that throws, rejects, or whose answer throws when read, refuses.
  const failures: Approver[] = [
    () => {
      throw new Error("no terminal");
    },
    () => Promise.reject(new Error("later")),
    () => asJunk(Object.defineProperty({}, "approved", { get: () => { throw new Error("getter"); } })),
  ];
  for (const approver of failures) {
    ptc.approver = approver;
    assert.match((await ptc.runCode(code)).text, /^DENIED: the approver failed: (no terminal|later|getter)$/);
  }
  assert.deepEqual(ran, []);
  // The controls: the same code runs the tool when approved; a plain refusal keeps its reason.
  const controls: Approver[] = [
    () => true,
    async () => ({ approved: true }),
    () => asJunk(thenable(true)),
    () => asJunk(Promise.resolve(Promise.resolve(true))),
  ];
  for (const approver of controls) {
    ptc.approver = approver;
    assert.equal((await ptc.runCode(code)).text, "ran");
  }
  assert.deepEqual(ran, ["write", "write", "write", "write"]);
  ptc.approver = () => ({ approved: false, reason: "not on a Friday" });
  assert.equal((await ptc.runCode(code)).text, "DENIED: not on a Friday");
  ptc.approver = () => asJunk({ approved: false, reason: 42 });
  assert.equal((await ptc.runCode(code)).text, "DENIED: the host refused the call to `write`");
  const descriptions: string[] = [];
  ptc.approver = (request) => {
    if (request.kind === "escalation") descriptions.push(request.description);
    return true;
  };
  assert.equal((await ptc.runCode("return await tools.deploy({})", { escalate: "ship it" })).text, "5");
  await ptc.runCode("return 1", { escalate: "ship it", description: "" });
  assert.deepEqual(descriptions, ["run a program", ""]);
  assert.deepEqual(ran, ["write", "write", "write", "write", "deploy"]);
  await ptc.close();
}

// A run's id is its own while it runs, free again after; an aborted signal refuses at once.
async function runIdsAndSignals(): Promise<void> {
  const ptc = await Ptc.start();
  const first = ptc.runCode("while (true) {}", { runId: "same", timeoutMs: 20000 });
  await assert.rejects(ptc.runCode("return 1", { runId: "same" }), /^Error: run id `same` belongs to a run still going$/);
  await ptc.close();
  assert.equal((await first).kind, "cancelled");
  const again = await Ptc.start();
  assert.equal((await again.runCode("return 1", { runId: "again" })).text, "1");
  assert.equal((await again.runCode("return 2", { runId: "again" })).text, "2");
  // A chosen id is used as given; an empty one (which reads as "no run") is refused before anything is sent.
  await assert.rejects(
    again.runCode("return 5", { runId: "" }),
    (error: unknown) => error instanceof RangeError && error.message === "runId must not be empty: leave it out for a fresh one",
  );
  assert.equal((await again.runCode("return 5", { runId: " " })).runId, " ");
  const aborted = new AbortController();
  aborted.abort();
  await assert.rejects(again.runCode("return 3", { signal: aborted.signal }), (error: unknown) => error === aborted.signal.reason);
  await again.close();
  await assert.rejects(again.runCode("return 4"), PtcExitedError);
}

/** Resolves when `signal` aborts, with its reason; rejects after 30 s (only so a lost abort fails instead of hanging). */
function abortOf(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the signal was not aborted within 30 s")), 30_000);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve(signal.reason);
    });
  });
}

// When ptc dies, a tool handler and an approver still running see their
// signals aborted, with the session's PtcExitedError as the reason, by the
// time the requests in flight reject with it.
async function ptcDiesUnderAToolAndAnApprover(): Promise<void> {
  const signals: AbortSignal[] = [];
  let bothIn = (): void => {};
  const inside = new Promise<void>((resolve) => (bothIn = resolve));
  const enter = (signal: AbortSignal): Promise<unknown> => {
    if (signals.push(signal) === 2) bothIn();
    return abortOf(signal);
  };
  const ptc = await Ptc.start({
    tools: [
      { name: "wait", handler: async (_args: unknown, { signal }) => { throw await enter(signal); } },
      { name: "asked", policy: "ask", handler: () => "ran" },
    ],
    approver: async (_request, { signal }) => { await enter(signal); return false; },
  });
  const runs = [ptc.runCode("return await tools.wait({})"), ptc.runCode("return await tools.asked({})")];
  await inside;
  assert.ok(ptc.pid !== undefined);
  process.kill(ptc.pid, "SIGKILL");
  const killed = (error: unknown): boolean => error instanceof PtcExitedError && error.message === "ptc serve was killed by SIGKILL";
  for (const run of runs) await assert.rejects(run, killed);
  assert.deepEqual(signals.map((signal) => signal.aborted), [true, true]);
  for (const signal of signals) assert.ok(killed(signal.reason), String(signal.reason));
  assert.equal(await ptc.close(), null); // killed: no status
}

// Aborting an invoke's signal cancels it as it cancels a run: ptc gets
// `$/cancel`, and the tool invoked (directly, or by the invoked `run_code`'s
// program) sees its own signal aborted.
async function cancellingAnInvoke(): Promise<void> {
  let started = (_signal: AbortSignal): void => {};
  const ptc = await Ptc.start({
    config: { mode: "both" },
    tools: [{ name: "wait", handler: (_args: unknown, { signal }) => { started(signal); return abortOf(signal).then(() => "late"); } }],
  });
  const calls: Array<[string, Json]> = [["wait", {}], ["run_code", { code: "return await tools.wait({})", description: "waits" }]];
  const results = [];
  for (const [name, args] of calls) {
    const toolSignal = new Promise<AbortSignal>((resolve) => (started = resolve));
    const controller = new AbortController();
    const invoked = ptc.invoke(name, args, { signal: controller.signal });
    const signal = await toolSignal;
    controller.abort();
    results.push(await invoked);
    assert.equal(String(await abortOf(signal)), "Error: ptc stopped waiting for this call");
  }
  assert.deepEqual(
    results.map((r) => [r.isError, r.error?.code ?? r.kind]),
    [[true, "ABORTED"], [true, "cancelled"]],
  );
  await ptc.close();
}

// A run keeps its first `maxEvents` events and counts the rest; listeners see every one.
async function boundedEvents(): Promise<void> {
  const seen: RunEvent[] = [];
  const ptc = await Ptc.start({
    maxEvents: 50,
    onEvent: (event) => seen.push(event),
    tools: [{ name: "fail", readOnly: true, handler: () => { throw new ToolError("no"); } }],
  });
  const mine: RunEvent[] = [];
  const outcome = await ptc.runCode(`for (let i = 0; i < 100; i++) { try { await tools.fail({ i }) } catch {} } return "done"`, {
    onEvent: (event) => mine.push(event),
  });
  assert.equal(outcome.text, "done");
  assert.equal(seen.length, 200);
  assert.deepEqual(mine, seen);
  assert.deepEqual(outcome.events, seen.slice(0, 50));
  assert.equal(outcome.eventsNotKept, 150);
  const first = outcome.events[0];
  assert.ok(first?.event === "started" && first.arguments !== undefined);
  assert.deepEqual(first.arguments, { i: 0 });
  await ptc.close();
  // None kept.
  const none = await Ptc.start({ maxEvents: 0, tools: [{ name: "fail", handler: () => { throw new ToolError("no"); } }] });
  const unkept = await none.runCode(`for (let i = 0; i < 2; i++) { try { await tools.fail({}) } catch {} }`);
  assert.deepEqual([unkept.events, unkept.eventsNotKept], [[], 4]);
  await none.close();
  // The default keeps 1,000.
  const byDefault = await Ptc.start({ tools: [{ name: "fail", readOnly: true, handler: () => { throw new ToolError("no"); } }] });
  const many = await byDefault.runCode(`for (let i = 0; i < 600; i++) { try { await tools.fail({}) } catch {} }`);
  assert.equal(many.events.length, 1000);
  assert.equal(many.eventsNotKept, 200);
  await byDefault.close();
}

// A call larger than the session reads fails alone: with a ptc whose events
// carry the arguments whole, the `started` event is the line too long (the
// run fails and is cancelled); with one whose events carry a preview, the
// `tools/call` is (the call fails, the program catches it). Either way the
// tool never runs, a run beside it ends well, and the session goes on.
async function aCallTooLargeToRead(): Promise<void> {
  const calls: number[] = [];
  let release = (): void => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const ptc = await Ptc.start({
    maxMessageBytes: 4 << 20,
    tools: [
      { name: "echo", handler: ({ s }: { s: string }) => calls.push(s.length) && s.length },
      { name: "wait", handler: async () => { await released; return "waited"; } },
    ],
  });
  const beside = ptc.runCode("return await tools.wait({})");
  let hostile: RunOutcome | PtcProtocolError;
  try {
    hostile = await ptc.runCode('try { return await tools.echo({ s: "x".repeat(5 << 20) }) } catch (e) { return e.code + ": " + e.message }');
  } catch (error) {
    assert.ok(error instanceof PtcProtocolError, String(error));
    hostile = error;
  }
  release();
  if (hostile instanceof PtcProtocolError) {
    assert.match(hostile.message, /an event of it that cannot be read: a message of 5,24/);
  } else {
    assert.match(hostile.text, /^TOOL_ERROR: the host could not read ptc's `tools\/call` request: ptc sent a message of 5,24/);
  }
  assert.equal((await beside).text, "waited");
  assert.equal((await ptc.runCode("return await tools.echo({ s: 'ok' })")).text, "2");
  assert.deepEqual(calls, [2]);
  await ptc.close();
}

// A run's budgets: the CPU its program used (`cpuMs`), a CPU budget
// (`cpuTimeMs`) and a sub-call budget (`maxSubCalls`, or the config's).
async function budgets(): Promise<void> {
  const ping: Tool = { name: "ping", readOnly: true, handler: ({ n }: { n: number }) => n };
  // Five calls, each caught: the values of those made, the codes of those refused.
  const fiveCalls = `const out = [];
    for (let n = 0; n < 5; n++) {
      try { out.push(await tools.ping({ n })); } catch (e) { out.push(e.code); }
    }
    return out;`;
  const ptc = await Ptc.start({ tools: [ping] });

  const idle = await ptc.runCode("return 1");
  assert.equal(typeof idle.cpuMs, "number");
  assert.ok(idle.cpuMs >= 0, String(idle.cpuMs));
  // A fixed amount of work (about 60 ms): its CPU does not shrink on a
  // loaded machine, as a spin for a wall-clock time would.
  const busy = await ptc.runCode("let x = 0; for (let i = 0; i < 2e6; i++) { x = (x + i) % 7 } return x");
  assert.equal(busy.isError, false, busy.text);
  assert.ok(busy.cpuMs >= 10, String(busy.cpuMs));

  // Past its CPU budget a program ends as a timeout, long before its deadline.
  const started = Date.now();
  const spun = await ptc.runCode("while (true) {}", { cpuTimeMs: 200, timeoutMs: 20_000 });
  assert.equal(spun.kind, "timeout");
  assert.ok(spun.text.startsWith("Error: code run failed (timeout): the program used its CPU budget of 200 ms ("), spun.text);
  assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);

  // Past maxSubCalls each call fails with DENIED, which the program catches.
  const capped = await ptc.runCode(fiveCalls, { maxSubCalls: 3 });
  assert.equal(capped.isError, false, capped.text);
  assert.equal(capped.subCalls, 3);
  assert.deepEqual(capped.text.split("\n"), [
    '[0,1,2,"DENIED","DENIED"]',
    "[run_code: the run made 3 sub-calls, its budget; 2 more calls were refused]",
  ]);

  // Out of range: a request error, and the session goes on.
  for (const options of [{ cpuTimeMs: 0 }, { cpuTimeMs: 600_001 }, { maxSubCalls: 0 }, { maxSubCalls: 2 ** 32 }]) {
    await assert.rejects(ptc.runCode("return 1", options), (error: unknown) => {
      assert.ok(error instanceof PtcRequestError, String(error));
      assert.equal(error.code, -32602);
      assert.match(error.message, Object.keys(options)[0] === "cpuTimeMs" ? /cpuTimeMs must be an integer from 1 to 600000, got / : /maxSubCalls/);
      return true;
    });
  }
  assert.equal((await ptc.runCode("return 2")).text, "2");
  await ptc.close();

  // The config's maxSubCalls applies to every run; a run's own replaces it.
  const limited = await Ptc.start({ tools: [ping], config: { maxSubCalls: 2 } });
  const two = await limited.runCode(fiveCalls);
  assert.deepEqual(two.text.split("\n"), [
    '[0,1,"DENIED","DENIED","DENIED"]',
    "[run_code: the run made 2 sub-calls, its budget; 3 more calls were refused]",
  ]);
  assert.equal((await limited.runCode(fiveCalls, { maxSubCalls: 5 })).text, "[0,1,2,3,4]");
  await limited.close();
}

const HANDLE = /^ptc_[0-9a-f]{48}$/;
const UNKNOWN = "ptc_" + "0".repeat(64);

/** Whether the process of `pid` is gone (exited and reaped). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === "ESRCH";
  }
}

/** A loopback port nothing listens on (as the test starts). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Resolves once something listens on `port`; rejects after 10 s. */
async function listening(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port }, () => {
        socket.end();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`nothing listened on port ${port} within 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// State across runs: a session the host opens, or a run's first write opens;
// an unknown or dropped session refused, the session going on; a SQLite
// store that outlives its process; stores that cannot be opened, or are
// gone; the state limits of the config.
async function stateAcrossRuns(): Promise<void> {
  const ptc = await Ptc.start({ config: { stateMaxSessions: 1 } });

  // A session the host opened: one run writes, the next reads.
  const handle = await ptc.openSession();
  assert.match(handle, HANDLE);
  const wrote = await ptc.runCode(`await state.set("cities", ["Oslo", "Lima"]); return "saved"`, { session: handle });
  assert.deepEqual([wrote.isError, wrote.text, wrote.session], [false, "saved", handle]);
  const read = await ptc.runCode(`return { cities: await state.get("cities"), keys: await state.keys() }`, { session: handle });
  assert.deepEqual([read.isError, read.text, read.session], [false, '{"cities":["Oslo","Lima"],"keys":["cities"]}', handle]);

  // No session: none in the outcome, until a run writes; that run's outcome names the one it opened, and its text says so.
  const plain = await ptc.runCode("return 1");
  assert.equal(plain.session, undefined);
  assert.ok(!("session" in plain));
  const opened = await ptc.runCode(`await state.set("n", 41); return "ok"`);
  const session = opened.session;
  assert.ok(session !== undefined && HANDLE.test(session), opened.text);
  assert.notEqual(session, handle);
  assert.deepEqual(opened.text.split("\n"), ["ok", `values kept in session \`${session}\`: pass session "${session}" to use them`]);
  const next = await ptc.runCode(`const n = await state.get("n"); await state.set("n", n + 1); return n`, { session });
  assert.deepEqual([next.text, next.session], ["41", session]);
  // The model's own run_code call names it the same way.
  const invoked = await ptc.invoke("run_code", {
    code: `return [await state.get("n"), (await state.get("unset")) === undefined]`,
    description: "reads n",
    session,
  });
  assert.deepEqual([invoked.isError, textOf(invoked.content), invoked.session], [false, "[42,true]", session]);

  // stateMaxSessions is 1: the session the write opened dropped the one opened before.
  await assert.rejects(
    ptc.runCode("return 1", { session: handle }),
    (error: unknown) =>
      error instanceof PtcRequestError && error.code === -32602 && /has expired or was dropped/.test(error.message),
  );
  // A handle the store never minted: invalid params, and the session goes on.
  await assert.rejects(
    ptc.runCode(`return await state.get("k")`, { session: UNKNOWN }),
    (error: unknown) =>
      error instanceof PtcRequestError &&
      error.method === "run_code" &&
      error.code === -32602 &&
      error.message.startsWith(`run_code: invalid params for \`run_code\`: session \`${UNKNOWN}\` was not opened by this ptc's state store`),
  );
  assert.equal((await ptc.runCode("return 6 * 7")).text, "42");
  assert.equal((await ptc.runCode(`return await state.get("n")`, { session })).text, "42");
  await ptc.close();

  // A SQLite store: what one process wrote, a second one started after the first closed reads.
  const dir = mkdtempSync(join(tmpdir(), "ptc-state-"));
  try {
    const config = { state: `sqlite:${join(dir, "s.db")}` };
    const first = await Ptc.start({ config });
    const written = await first.runCode(`await state.set("plan", { step: 2, of: 5 }); return "saved"`);
    const firstPid = first.pid;
    assert.equal(await first.close(), 0);
    assert.ok(firstPid !== undefined && gone(firstPid), "the first process has exited");
    assert.ok(written.session !== undefined, written.text);
    const second = await Ptc.start({ config });
    assert.notEqual(second.pid, firstPid);
    const plan = await second.runCode(`return await state.get("plan")`, { session: written.session });
    assert.deepEqual([plan.isError, plan.text, plan.session], [false, '{"step":2,"of":5}', written.session]);
    await second.close();
    assert.ok(statSync(join(dir, "s.db")).isFile());

    // A store that cannot be opened fails start with a clear error, at once, and leaves no process behind.
    const cases: Array<[string, string]> = [
      ["bogus:x", "`bogus:x` names no state store: use `memory`, `sqlite:PATH`, `redis://HOST:PORT/DB` or `rediss://HOST:PORT/DB` (TLS)"],
      [`sqlite:${join(dir, "no", "such", "dir", "s.db")}`, "No such file or directory"],
      [`redis://127.0.0.1:${await freePort()}/0`, "Connection refused"],
    ];
    for (const [state, why] of cases) {
      const started = Date.now();
      await assert.rejects(Ptc.start({ config: { state } }), (error: unknown) => {
        assert.ok(error instanceof PtcRequestError, String(error));
        assert.equal(error.code, -32602);
        assert.ok(
          error.message.startsWith("initialize: invalid params for `initialize`: config.state: the state store is unavailable: "),
          error.message,
        );
        assert.ok(error.message.includes(why), error.message);
        return true;
      });
      assert.ok(Date.now() - started < 20_000, `${state}: took ${Date.now() - started} ms`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // The state limits of the config reach the program; one below its minimum is refused.
  const limited = await Ptc.start({ config: { stateMaxValueBytes: 1024, stateMaxKeys: 1 } });
  const quota = await limited.runCode(`const codes = [];
    try { await state.set("big", "x".repeat(2000)); } catch (e) { codes.push(e.code); }
    await state.set("a", 1);
    try { await state.set("b", 2); } catch (e) { codes.push(e.code); }
    return { codes, keys: await state.keys() };`);
  assert.equal(quota.isError, false, quota.text);
  assert.equal(quota.text.split("\n")[0], '{"codes":["QUOTA","QUOTA"],"keys":["a"]}');
  await limited.close();
  await assert.rejects(Ptc.start({ config: { stateMaxValueBytes: 16 } }), (error: unknown) =>
    error instanceof PtcRequestError && error.code === -32602 && /stateMaxValueBytes must be at least 1 KiB/.test(error.message),
  );

  // A Redis store that goes away: openSession is a request error with the store's message; the session goes on.
  if (spawnSync("redis-server", ["--version"]).status !== 0) {
    console.log("host.mts: no redis-server, the unreachable store's openSession is not tested");
    return;
  }
  const port = await freePort();
  const redisDir = mkdtempSync(join(tmpdir(), "ptc-redis-"));
  const redis = spawn("redis-server", ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no"], {
    cwd: redisDir,
    stdio: "ignore",
  });
  const redisExited = new Promise<void>((resolve) => redis.on("exit", () => resolve()));
  try {
    await listening(port);
    const shared = await Ptc.start({ config: { state: `redis://127.0.0.1:${port}/0` } });
    assert.match(await shared.openSession(), HANDLE);
    redis.kill("SIGKILL");
    await redisExited;
    await assert.rejects(shared.openSession(), (error: unknown) => {
      assert.ok(error instanceof PtcRequestError, String(error));
      assert.deepEqual([error.method, error.code], ["session/open", -32000]);
      assert.ok(error.message.startsWith("session/open: the state store is unavailable"), error.message);
      return true;
    });
    assert.equal((await shared.runCode("return 1")).text, "1");
    await shared.close();
  } finally {
    redis.kill("SIGKILL");
    rmSync(redisDir, { recursive: true, force: true });
  }
}

main()
  .then(stateAcrossRuns)
  .then(oddAnswers)
  .then(boundedEvents)
  .then(aCallTooLargeToRead)
  .then(runIdsAndSignals)
  .then(ptcDiesUnderAToolAndAnApprover)
  .then(cancellingAnInvoke)
  .then(budgets)
  .then(() => {
    finished = true;
    console.log("host.mts: bounds and odd answers ok");
  })
  .catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
