// What the Node host costs: start-up (spawn, initialize, register) and the
// round trip of a sub-call to a JavaScript tool, serial and in parallel.
//
//   node_modules/.bin/tsc -p npm/ptc && PTC_BINARY=target/release/ptc node npm/test/overhead.mjs
import { Ptc } from "../ptc/dist/index.js";

const N = 2000;
const ROUNDS = 5;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const starts = [];
const serial = [];
const parallel = [];
const empty = [];
for (let round = 0; round < ROUNDS; round++) {
  const t0 = performance.now();
  const ptc = await Ptc.start({ tools: [{ name: "echo", readOnly: true, handler: (args) => args }] });
  starts.push(performance.now() - t0);
  await ptc.runCode("return 1"); // warm
  const t1 = performance.now();
  await ptc.runCode("return 1");
  empty.push(performance.now() - t1);
  const s = await ptc.runCode(`let n = 0; for (let i = 0; i < ${N}; i++) n += (await tools.echo({ i })).i; return n`);
  const p = await ptc.runCode(`return (await Promise.all(Array.from({ length: ${N} }, (_, i) => tools.echo({ i })))).length`);
  if (s.isError || p.isError) throw new Error(s.text + p.text);
  serial.push((s.elapsedMs * 1000) / N);
  parallel.push((p.elapsedMs * 1000) / N);
  await ptc.close();
}
console.log(`start-up (spawn, initialize, register): ${median(starts).toFixed(1)} ms`);
console.log(`an empty run, round trip: ${median(empty).toFixed(2)} ms`);
console.log(`a sub-call to a JS tool, serial: ${median(serial).toFixed(0)} µs; ${N} in parallel (10 at once): ${median(parallel).toFixed(0)} µs each`);
console.log(`(medians of ${ROUNDS} rounds, ${N} sub-calls each)`);
