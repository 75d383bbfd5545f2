// Lines a session cannot read never end it: the host library against a fake
// `ptc serve` (fake-serve.mjs, its path the first argument) that writes what
// a broken or hostile ptc might. Compiled and run by npm/test/run.sh like
// host.mts.

import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";

import { Ptc, PtcProtocolError, PtcRequestError, type RunEvent, type RunOutcome } from "ptc";

const FAKE = process.argv[2];
if (FAKE === undefined) throw new Error("usage: node hostile.mjs FAKE_SERVE");
const dir = mkdtempSync(join(tmpdir(), "ptc-hostile-"));
const binary = join(dir, "ptc");
writeFileSync(binary, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE)} "$@"\n`);
chmodSync(binary, 0o755);
const LIMIT = 1 << 20;
let logs = 0;

/** A session on the fake, and the file where the fake logs what it read. */
async function fake(options: Parameters<typeof Ptc.start>[0] = {}): Promise<{ ptc: Ptc; log: string }> {
  const log = join(dir, `read-${++logs}.log`);
  const ptc = await Ptc.start({ binary, maxMessageBytes: LIMIT, env: { ...process.env, FAKE_SERVE_LOG: log }, ...options });
  return { ptc, log };
}

const actions = (...steps: unknown[][]): string => JSON.stringify(steps);
const read = (log: string): Array<Record<string, any>> =>
  readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, any>);

// A test that stops half-way (a promise that never settles lets Node exit
// with status 0) fails: only the last line marks the end.
let finished = false;
process.on("exit", (code) => {
  if (code === 0 && !finished) {
    console.error("hostile.mts: exited before its end");
    process.exitCode = 1;
  }
});

const warnings: string[] = [];
process.on("warning", (warning) => warnings.push(warning.message));

async function overLongLinesCostBoundedMemory(): Promise<void> {
  // First, while the process is small: 512 MiB without a newline, read by a
  // session bounded at 8 MiB. An unbounded reader would hold it all (or
  // fail to make a string of it).
  const { ptc } = await fake({ maxMessageBytes: 8 << 20 });
  await ptc.runCode(actions(["answer", "warm"]));
  const before = process.resourceUsage().maxRSS;
  await assert.rejects(
    ptc.runCode(actions(["big", '{"jsonrpc":"2.0","id":3,"result":"', 512 << 20, '"}'])),
    (error: unknown) =>
      error instanceof PtcProtocolError &&
      error.message === "ptc's answer could not be read: ptc sent a message of 536,870,948 bytes, over maxMessageBytes (8,388,608)",
  );
  const grownMiB = (process.resourceUsage().maxRSS - before) / 1024;
  // The bound held once, and the stream's 64 KiB chunks waiting for the
  // garbage collector (about 45 MiB here); the line itself is 512 MiB.
  assert.ok(grownMiB < 160, `reading a 512 MiB line grew the peak RSS by ${grownMiB.toFixed(0)} MiB`);
  assert.equal((await ptc.runCode(actions(["answer", "after"]))).text, "after");
  await ptc.close();
}

async function anUnreadableEventFailsItsRunAndNothingElse(hostile: unknown[], says: string): Promise<void> {
  const seen: RunEvent[] = [];
  const { ptc, log } = await fake({ onEvent: (event) => seen.push(event) });
  warnings.length = 0;
  const held = ptc.runCode(actions(["hold"]), { runId: "held" });
  let failed: unknown;
  try {
    await ptc.runCode(actions(hostile, ["hold"]), { runId: "bad" });
  } catch (error) {
    failed = error;
  }
  assert.ok(failed instanceof PtcProtocolError, String(failed));
  assert.ok(failed.message.startsWith("run `bad` was cancelled: ptc sent an event of it that cannot be read: "), failed.message);
  assert.ok(failed.message.includes(says), failed.message);
  const later = await ptc.runCode(
    actions(["event", { event: "log", level: "log", text: "fine" }], ["release", "held", "held ok"], ["answer", "later ok"]),
    { runId: "later" },
  );
  assert.equal((await held).text, "held ok");
  assert.equal(later.text, "later ok");
  assert.deepEqual(later.events, [{ runId: "later", event: "log", level: "log", text: "fine" }]);
  assert.deepEqual(seen.map((e) => e.runId), ["later"]);
  await ptc.close();
  const lines = read(log);
  const badId = lines.find((m) => m["method"] === "run_code" && m["params"].runId === "bad")?.["id"];
  assert.deepEqual(
    lines.filter((m) => m["method"] === "$/cancel"),
    [{ jsonrpc: "2.0", method: "$/cancel", params: { id: badId } }],
  );
  // The line failed the run and nothing else: not a word more (a second such line of the run, read with the first, neither).
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(warnings, []);
}

async function anUnreadableAnswerFailsThatRequestAndNothingElse(): Promise<void> {
  const { ptc } = await fake();
  warnings.length = 0;
  await assert.rejects(
    ptc.runCode(actions(["big", '{"jsonrpc":"2.0","id":2,"result":{"runId":"r","content":[{"type":"text","text":"', 3 * LIMIT, '"}]}}'])),
    (error: unknown) =>
      error instanceof PtcProtocolError &&
      error.message.startsWith("ptc's answer could not be read: ptc sent a message of 3,145,") &&
      error.message.endsWith("over maxMessageBytes (1,048,576)"),
  );
  assert.equal((await ptc.runCode(actions(["answer", "after"]))).text, "after");
  await ptc.close();
  assert.deepEqual(warnings, []); // the request failed, and nothing else: not a word
}

async function anUnreadableRequestOfPtcsIsAnsweredAsAFailure(): Promise<void> {
  const calls: unknown[] = [];
  const { ptc, log } = await fake({
    tools: [{ name: "echo", handler: (args: unknown) => calls.push(args) }],
    approver: () => {
      calls.push("approver asked");
      return true;
    },
  });
  warnings.length = 0;
  const outcome = await ptc.runCode(
    actions(
      ["big", '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"runId":"r","id":"r:ptc:1","name":"echo","arguments":{"s":"', 2 * LIMIT, '"}}}'],
      ["line", '{"jsonrpc":"2.0","id":8,"method":"tools/approve","params":{"kind":"call","name":"echo","arguments":{"s":"cut'],
      ["line", '{"jsonrpc":"2.0","id":"s9","method":"tools/call","params":{"name":"echo","arguments":{"s":"cut'],
      ["line", "[1, 2]"],
      ["await", 7],
      ["await", 8],
      ["await", "s9"],
      ["answer", "survived"],
    ),
  );
  assert.equal(outcome.text, "survived");
  await ptc.close();
  assert.deepEqual(calls, []);
  // Each request of ptc's answered once, nothing else answered, and no warning but the array's.
  assert.deepEqual(warnings.splice(0), ["ptc: skipped a line from ptc serve: a JSON array where a message (an object) belongs"]);
  const answers = read(log).filter((m) => m["method"] === undefined && m["pid"] === undefined);
  assert.deepEqual(answers.map((m) => m["id"]), [7, 8, "s9"]);
  assert.match(answers[2]?.["error"].message, /^the host could not read ptc's `tools\/call` request: ptc sent a line that is not JSON/);
  const replies = new Map(answers.map((m) => [m["id"], m]));
  assert.equal(replies.get(7)?.["error"].code, -32000);
  assert.match(replies.get(7)?.["error"].message, /^the host could not read ptc's `tools\/call` request: ptc sent a message of 2,097,/);
  assert.equal(replies.get(8)?.["result"].approved, false);
  assert.match(replies.get(8)?.["result"].reason, /^the host could not read ptc's `tools\/approve` request: ptc sent a line that is not JSON/);
}

async function aLineTiedToNothingIsSkippedWithAWarning(): Promise<void> {
  const { ptc } = await fake();
  warnings.length = 0;
  const outcome: RunOutcome = await ptc.runCode(
    actions(
      ["line", "not json"],
      ["line", "[1, 2]"],
      ["line", "null"],
      ["line", "5"],
      // Blank lines are skipped without a word.
      ["line", ""],
      ["line", " \t\r"],
      ["big", '{"jsonrpc":"2.0","method":"run/event","params":{"runId":"someone else","text":"', 2 * LIMIT, '"}}'],
      ["line", '{"jsonrpc":"2.0","id":999,"result":{"cut'],
      ["line", '{"jsonrpc":"2.0","method":"run/event","params":7}'],
      ["answer", "survived"],
    ),
  );
  assert.equal(outcome.text, "survived");
  await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
  assert.equal(warnings.length, 7, warnings.join("\n"));
  assert.ok(warnings.every((w) => w.startsWith("ptc: skipped a line from ptc serve: ")), warnings.join("\n"));
  assert.match(warnings[4] ?? "", /a message of 2,097,/);
  assert.deepEqual(
    warnings.slice(1, 4).map((w) => w.replace("ptc: skipped a line from ptc serve: ", "")),
    [
      "a JSON array where a message (an object) belongs",
      "a JSON null where a message (an object) belongs",
      "a JSON number where a message (an object) belongs",
    ],
  );
  // A message whose handling throws (its method cannot be made a string) is reported; the session goes on.
  warnings.length = 0;
  const odd = await ptc.runCode(actions(["line", '{"jsonrpc":"2.0","id":5,"method":{"toString":1}}'], ["answer", "after"]));
  assert.equal(odd.text, "after");
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(warnings, ["ptc: a message from ptc serve could not be handled: Cannot convert object to primitive value"]);
  await ptc.close();
}

// An error answer is read as far as it goes: its code (else 0), message (else "error") and data.
async function anErrorAnswerIsReadAsFarAsItGoes(): Promise<void> {
  const { ptc } = await fake();
  const cases: Array<[unknown, number, string, unknown]> = [
    [{ code: -32602, message: "bad", data: { tool: "x" } }, -32602, "run_code: bad", { tool: "x" }],
    [{ code: 1 }, 1, "run_code: error", undefined],
    ["boom", 0, "run_code: error", undefined],
    [null, 0, "run_code: error", undefined],
  ];
  for (const [error, code, message, data] of cases) {
    await assert.rejects(
      ptc.runCode(actions(["fail", error])),
      (e: unknown) => e instanceof PtcRequestError && e.code === code && e.message === message && isDeepStrictEqual(e.data, data),
    );
  }
  assert.equal((await ptc.runCode(actions(["answer", "after"]))).text, "after");
  await ptc.close();
}

// A second answer to a request, after a readable or an unreadable one, is
// ignored: the session goes on, and keeps Node running while it waits (a
// miscount would let Node exit during the fake's sleep).
async function aSecondAnswerIsIgnored(): Promise<void> {
  const { ptc } = await fake();
  assert.equal((await ptc.runCode(actions(["answer", "first"], ["answer", "second"]))).text, "first");
  // The third request of the session (initialize, the run above, this one).
  await assert.rejects(
    ptc.runCode(actions(["big", '{"jsonrpc":"2.0","id":3,"result":"', 2 * LIMIT, '"}'], ["answer", "late"])),
    PtcProtocolError,
  );
  assert.equal((await ptc.runCode(actions(["sleep", 300], ["answer", "after"]))).text, "after");
  await ptc.close();
}

// Messages a session has nothing to do with: ignored without a word (an
// answer to no request of its, a cancel of nothing, requests without an
// id, a notification it does not know), passed to the listeners (an event
// of another run), or skipped with a warning (events without their members,
// a line that is not JSON); none is answered.
async function messagesOfOddShape(): Promise<void> {
  const calls: unknown[] = [];
  const seen: RunEvent[] = [];
  const { ptc, log } = await fake({
    tools: [{ name: "echo", handler: (args: unknown) => calls.push(args) }],
    approver: () => {
      calls.push("approver asked");
      return true;
    },
    onEvent: (event) => seen.push(event),
  });
  warnings.length = 0;
  const outcome = await ptc.runCode(
    actions(
      ["line", '{"jsonrpc":"2.0","id":999,"result":1}'],
      ["line", '{"jsonrpc":"2.0","method":"$/cancel","params":null}'],
      ["line", '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{}}}'],
      ["line", '{"jsonrpc":"2.0","method":"tools/approve","params":{"kind":"call","name":"echo","arguments":{}}}'],
      ["line", '{"jsonrpc":"2.0","method":"x/unknown"}'],
      ["line", '{"jsonrpc":"2.0","method":"run/event","params":{"runId":"someone else","event":"log","level":"log","text":"hi"}}'],
      ["line", '{"jsonrpc":"2.0","method":"run/event","params":null}'],
      ["line", '{"jsonrpc":"2.0","method":"run/event","params":{"event":"log","text":"whose?"}}'],
      ["line", '{"jsonrpc":"2.0","method":"run/event","params":7,"cut'],
      ["answer", "survived"],
    ),
  );
  assert.equal(outcome.text, "survived");
  await new Promise((resolve) => setImmediate(resolve));
  await ptc.close();
  assert.deepEqual(calls, []);
  assert.deepEqual(seen, [{ runId: "someone else", event: "log", level: "log", text: "hi" }]);
  const said = warnings.splice(0).map((w) => w.replace("ptc: skipped a line from ptc serve: ", ""));
  assert.equal(said.length, 3, said.join("\n"));
  assert.deepEqual(said.slice(0, 2), ["a `run/event` without a string `runId` and `event`", "a `run/event` without a string `runId` and `event`"]);
  assert.match(said[2] ?? "", /^a line that is not JSON/);
  assert.deepEqual(read(log).filter((m) => m["method"] === undefined && m["pid"] === undefined), []);
}

// An approver still deciding when ptc stops waiting sees its signal aborted,
// and its late answer is not sent; the signal of an approval answered is
// never aborted after (a $/cancel for it comes too late).
async function anApproversSignal(): Promise<void> {
  const signals: AbortSignal[] = [];
  let decided = (): void => {};
  const late = new Promise<void>((resolve) => (decided = resolve));
  const { ptc, log } = await fake({
    approver: async (_request, { signal }) => {
      signals.push(signal);
      if (signals.length === 1) {
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
        decided();
      }
      return true;
    },
  });
  const request = { kind: "call", name: "echo", arguments: {}, title: "echo()" };
  const outcome = await ptc.runCode(
    actions(
      ["request", 8, "tools/approve", request],
      ["line", '{"jsonrpc":"2.0","method":"$/cancel","params":{"id":8}}'],
      ["request", 9, "tools/approve", request],
      ["await", 9],
      ["line", '{"jsonrpc":"2.0","method":"$/cancel","params":{"id":9}}'],
      ["answer", "ok"],
    ),
  );
  assert.equal(outcome.text, "ok");
  await late;
  await new Promise((resolve) => setImmediate(resolve)); // the approval's last step
  await ptc.close();
  assert.deepEqual(signals.map((signal) => signal.aborted), [true, false]);
  const answers = read(log).filter((m) => m["method"] === undefined && m["pid"] === undefined);
  assert.deepEqual(answers, [{ jsonrpc: "2.0", id: 9, result: { approved: true } }]);
}

async function main(): Promise<void> {
  await overLongLinesCostBoundedMemory();
  const head = '{"jsonrpc":"2.0","method":"run/event","params":{"runId":"bad","event":"started","arguments":"';
  await anUnreadableEventFailsItsRunAndNothingElse(["big", head, 2 * LIMIT, '"}}'], "a message of 2,097,");
  await anUnreadableEventFailsItsRunAndNothingElse(
    ["line", '{"jsonrpc":"2.0","method":"run/event","params":{"runId":"bad","event":"log","text":"cut'],
    "not JSON",
  );
  const noEvent = '{"jsonrpc":"2.0","method":"run/event","params":{"runId":"bad","text":"no event"}}';
  await anUnreadableEventFailsItsRunAndNothingElse(["line", noEvent], "without a string");
  // Twice in one write (so in one read): the second finds its run failed already.
  await anUnreadableEventFailsItsRunAndNothingElse(["line", `${noEvent}\n${noEvent}`], "without a string");
  await anUnreadableAnswerFailsThatRequestAndNothingElse();
  await anUnreadableRequestOfPtcsIsAnsweredAsAFailure();
  await aLineTiedToNothingIsSkippedWithAWarning();
  await anErrorAnswerIsReadAsFarAsItGoes();
  await aSecondAnswerIsIgnored();
  await messagesOfOddShape();
  await anApproversSignal();
  // A session that cannot start leaves no process behind.
  const log = join(dir, "refused.log");
  await assert.rejects(
    Ptc.start({ binary, config: { mode: "refuse" as "ptc" }, env: { ...process.env, FAKE_SERVE_LOG: log } }),
    /initialize: refused/,
  );
  const pid = read(log)[0]?.["pid"] as number;
  assert.throws(() => process.kill(pid, 0), /ESRCH/);
  await assert.rejects(Ptc.start({ binary, maxEvents: -1 }), /maxEvents must be an integer of at least 0, got -1/);
  await assert.rejects(Ptc.start({ binary, maxMessageBytes: 0.5 }), /maxMessageBytes must be an integer of at least 1, got 0.5/);
  finished = true;
  console.log("hostile.mts: ok");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
