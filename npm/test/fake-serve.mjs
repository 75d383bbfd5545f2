#!/usr/bin/env node
// A hostile stand-in for `ptc serve` (the twin of python/tests/fake_serve.py):
// it speaks enough of the host protocol to start a session, and each
// `run_code` request's `code` is a JSON list of what to send, so a test can
// make ptc's side of the pipe say anything. Every line it reads is appended
// to the file FAKE_SERVE_LOG names (when set), after a first line
// {"pid": its process id}. An `initialize` whose config has `mode` "refuse"
// is answered -32602. Actions (JSON arrays):
//
//   ["line", text]               text and a newline, as is
//   ["big", before, n, after]    before, n bytes of "x", after, a newline (written in pieces)
//   ["event", params]            a run/event of this run (runId added)
//   ["request", id, method, params]  a request of ptc's to the host
//   ["answer", text]             answers this run
//   ["hold"]                     leaves this run unanswered until $/cancel or a later "release"
//   ["release", runId, text]     answers a held run
//   ["await", id]                waits for the host's answer to its request `id`
//   ["fail", error]              answers this run with the JSON-RPC error `error` (any JSON)
//   ["sleep", ms]                waits `ms` milliseconds

import { appendFileSync, writeSync } from "node:fs";
import { createInterface } from "node:readline";

const log = process.env["FAKE_SERVE_LOG"];
if (log) appendFileSync(log, JSON.stringify({ pid: process.pid }) + "\n");
const held = new Map(); // runId -> the run_code request's id
const answered = new Set(); // the ids of ptc's requests the host answered
const waiting = new Map(); // id -> resolve

const pause = new Int32Array(new SharedArrayBuffer(4));
function write(text) {
  const buffer = Buffer.from(text);
  for (let at = 0; at < buffer.length; ) {
    try {
      at += writeSync(1, buffer, at);
    } catch (error) {
      if (error.code !== "EAGAIN") throw error;
      Atomics.wait(pause, 0, 0, 1); // a full pipe: wait for the reader
    }
  }
}

function send(message) {
  write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
}

function answer(id, runId, text, kind) {
  const result = { runId, isError: kind !== undefined, content: [{ type: "text", text }], subCalls: 0, elapsedMs: 1, cpuMs: 0.5 };
  if (kind !== undefined) result.kind = kind;
  send({ id, result });
}

async function runCode(id, params) {
  const runId = params.runId;
  for (const action of JSON.parse(params.code)) {
    switch (action[0]) {
      case "line":
        write(action[1] + "\n");
        break;
      case "big": {
        write(action[1]);
        const piece = "x".repeat(1 << 20);
        for (let left = action[2]; left > 0; left -= piece.length) write(piece.slice(0, Math.min(left, piece.length)));
        write(action[3] + "\n");
        break;
      }
      case "event":
        send({ method: "run/event", params: { runId, ...action[1] } });
        break;
      case "request":
        send({ id: action[1], method: action[2], params: action[3] });
        break;
      case "answer":
        answer(id, runId, action[1]);
        break;
      case "hold":
        held.set(runId, id);
        break;
      case "release":
        answer(held.get(action[1]), action[1], action[2]);
        held.delete(action[1]);
        break;
      case "sleep":
        await new Promise((resolve) => setTimeout(resolve, action[1]));
        break;
      case "fail":
        send({ id, error: action[1] });
        break;
      case "await":
        if (!answered.has(action[1])) await new Promise((resolve) => waiting.set(action[1], resolve));
        break;
    }
  }
}

const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
  if (log) appendFileSync(log, line + "\n");
  const message = JSON.parse(line);
  const params = message.params ?? {};
  if (message.method === undefined) {
    answered.add(message.id);
    waiting.get(message.id)?.();
  }
  switch (message.method) {
    case "initialize":
      if (params.config?.mode === "refuse") {
        send({ id: message.id, error: { code: -32602, message: "refused" } });
        break;
      }
      send({ id: message.id, result: { name: "ptc", version: "0.0.0-fake", protocolVersion: 1 } });
      break;
    case "tools/register": {
      const names = (params.tools ?? []).map((t) => t.name);
      send({ id: message.id, result: { registered: names, count: names.length } });
      break;
    }
    case "run_code":
      void runCode(message.id, params);
      break;
    case "$/cancel":
      for (const [runId, id] of held) {
        if (id === params.id) {
          held.delete(runId);
          answer(id, runId, "Error: code run failed (cancelled)", "cancelled");
        }
      }
      break;
  }
});
input.on("close", () => {
  for (const [runId, id] of held) answer(id, runId, "Error: code run failed (cancelled)", "cancelled");
});
