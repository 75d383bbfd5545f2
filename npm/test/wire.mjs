// The session's reading of ptc's output and of an approver's answer, piece by
// piece (no process): lines cut at the bound, what tells whose an unreadable
// line was, the approval reply. Its argument is the built `wire.js` (an
// internal module of the package, not exported by its index).
//
//   node npm/test/wire.mjs node_modules/ptc/dist/wire.js

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const wirePath = process.argv[2];
if (wirePath === undefined) throw new Error("usage: node wire.mjs WIRE_JS");
const { LineReader, HEAD_BYTES, MAX_EVENTS, MAX_MESSAGE_BYTES, headOf, approvalReply, describe } =
  createRequire(import.meta.url)(resolve(wirePath));

assert.equal(MAX_EVENTS, 1000);
assert.equal(MAX_MESSAGE_BYTES, 64 * 1024 * 1024);
assert.equal(HEAD_BYTES, 64 * 1024);

function lines(limit, ...chunks) {
  const reader = new LineReader(limit);
  const out = chunks.flatMap((chunk) => reader.feed(Buffer.from(chunk)));
  return [...out, ...reader.end()].map((line) => [line.data.toString("latin1"), line.size]);
}

// Lines are cut at newlines, across chunks.
assert.deepEqual(lines(100, "ab\ncd", "e\n\nf", "g"), [["ab", 2], ["cde", 3], ["", 0], ["fg", 2]]);
assert.deepEqual(lines(100, "a\n"), [["a", 1]]);
assert.deepEqual(lines(100), []);
assert.deepEqual(lines(3, "abc\n"), [["abc", 3]]);
// A line of exactly the bound is whole, also past the head's length.
{
  const exact = "e".repeat(HEAD_BYTES + 1);
  assert.deepEqual(lines(exact.length, exact + "\n"), [[exact, exact.length]]);
}
// A line over the bound keeps its head and counts the rest; the next line is whole.
assert.deepEqual(lines(3, "abcd\nxy\n"), [["abc", 4], ["xy", 2]]);
assert.deepEqual(lines(3, "ab", "cd", "ef\nz"), [["abc", 6], ["z", 1]]);
{
  const reader = new LineReader(HEAD_BYTES * 4);
  const big = Buffer.alloc(HEAD_BYTES * 4 + 1, "y");
  assert.deepEqual([...reader.feed(big.subarray(0, 1000)), ...reader.feed(big.subarray(1000))], []);
  assert.deepEqual(reader.parts, []); // past the bound, what was read is let go
  const [line] = reader.feed(Buffer.from("\n"));
  assert.deepEqual(line.data, big.subarray(0, HEAD_BYTES));
  assert.equal(line.size, big.length);
  const [after] = reader.feed(Buffer.from("ok\n"));
  assert.deepEqual([after.data.toString(), after.size], ["ok", 2]);
}
// A line's parts are copies: the chunk they came from may be reused.
{
  const reader = new LineReader(100);
  const chunk = Buffer.from("abc");
  reader.feed(chunk);
  chunk.fill("z");
  assert.equal(reader.feed(Buffer.from("\n"))[0].data.toString(), "abc");
}

// What tells whose an unreadable line was.
const head = (text) => Object.fromEntries([...headOf(Buffer.from(text))].map(([k, v]) => [k, v instanceof Map ? Object.fromEntries(v) : v]));
assert.deepEqual(
  head('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"runId":"r","id":"r:ptc:1","arguments":{"s":"xx'),
  { jsonrpc: "2.0", id: 7, method: "tools/call", params: { runId: "r", id: "r:ptc:1" } },
);
assert.deepEqual(head(' { "id" : 3 , "result" : [1, 2'), { id: 3 });
assert.deepEqual(head('{"a":{"b":{"c":1, "d": ['), { a: {} }); // one level down only
assert.deepEqual(head('{"id":1}'), { id: 1 });
assert.deepEqual(head('{"id":1 "x":2}'), {});
assert.deepEqual(head('{"id":1'), {});
assert.deepEqual(head('{"id":1 , "x"'), { id: 1 });
assert.deepEqual(head('{"s":"a\\"}b","t":[1,"]",{"u":"}"}],"n":-1.5e3,"z":null,"id":2'), {
  s: 'a"}b',
  t: [1, "]", { u: "}" }],
  n: -1500,
  z: null,
});
assert.deepEqual(head('{"k":tru'), {});
assert.deepEqual(head('{"k":true}'), { k: true });
assert.deepEqual(head('{"k":nope,"id":1}'), {});
assert.deepEqual(head('{"k":"cut'), {});
assert.deepEqual(head('{"k'), {});
assert.deepEqual(head("[1,2]"), {});
assert.deepEqual(head(""), {});
assert.deepEqual(head("{1:2}"), {});
assert.deepEqual(head('{X"id":1}'), {});
assert.deepEqual(head('{"id"X:1}'), {});
assert.deepEqual(head('{"a" 1}'), {});
assert.deepEqual(head('{"a":' + "[".repeat(100000)), {});
assert.deepEqual(head('{"__proto__":{"polluted":1},"id":1}'), { ["__proto__"]: { polluted: 1 }, id: 1 });
assert.equal({}.polluted, undefined);
// What is not JSON where it stands is not read on.
assert.deepEqual(head('x"id":1}'), {});
assert.deepEqual(head('{"a"x1}'), {});
assert.deepEqual(head('{"id":12'), {});
assert.deepEqual(head('{"id":"a"x"y":2}'), {});
assert.deepEqual(head('{"id":1}"x":2}'), { id: 1 }); // the object ended
assert.deepEqual(head('{"id":"a","x":"b"x"y":2}'), { id: "a" });
// Only the first HEAD_BYTES are read.
assert.deepEqual(head('{"pad":"' + "x".repeat(HEAD_BYTES) + '","id":1}'), {});

// The approval reply: only true or { approved: true } approves.
assert.deepEqual(approvalReply(true), { approved: true });
assert.deepEqual(approvalReply(false), { approved: false });
assert.deepEqual(approvalReply({ approved: true }), { approved: true });
assert.deepEqual(approvalReply({ approved: true, reason: "ok" }), { approved: true, reason: "ok" });
assert.deepEqual(approvalReply({ approved: false, reason: "no" }), { approved: false, reason: "no" });
assert.deepEqual(approvalReply({ approved: false, reason: 5 }), { approved: false });
for (const [answer, described] of [
  [1, "1 (a number)"],
  ["yes", '"yes" (a string)'],
  [null, "null"],
  [undefined, "undefined"],
  [[true], "an array of 1"],
  [{ approved: "yes" }, 'an object whose approved is "yes" (a string)'],
  [{ a: 1, b: 2, c: 3 }, 'an object with keys "a", "b", "c"'],
  [{ ["k".repeat(30)]: 1 }, `an object with keys "${"k".repeat(20)}"`],
  [10n ** 50n, "1".padEnd(40, "0") + "n (a bigint)"],
  [true && Symbol.iterator, "a symbol"],
]) {
  assert.deepEqual(approvalReply(answer), {
    approved: false,
    reason: `the approver's answer was not an approval: ${described}; only true or { approved: true } approves`,
  });
}
assert.equal(describe(false), "false (a boolean)");
assert.equal(describe("y".repeat(40)), `"${"y".repeat(40)}" (a string)`);
assert.equal(describe("y".repeat(41)), `"${"y".repeat(40)}…" (a string)`);
assert.equal(describe({}), "an object with no keys");

console.log("wire.mjs: ok");
