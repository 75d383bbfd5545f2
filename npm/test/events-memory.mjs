// What a long run of cheap failing calls costs the host: the host process's
// peak RSS while one run makes failing calls with 8 KB arguments until its
// deadline (docs/node.md, "Events"). Every event reaches the listener; the
// outcome keeps at most `maxEvents` of them.
//
//   node_modules/.bin/tsc -p npm/ptc && PTC_BINARY=target/release/ptc node npm/test/events-memory.mjs [SECONDS]
import { Ptc, ToolError } from "../ptc/dist/index.js";

const seconds = Number(process.argv[2] ?? 20);
const peakMiB = () => process.resourceUsage().maxRSS / 1024;
let seen = 0;
const ptc = await Ptc.start({
  onEvent: () => seen++,
  tools: [{ name: "fail", handler: () => { throw new ToolError("no"); } }],
});
await ptc.runCode("return 1");
const before = peakMiB();
const outcome = await ptc.runCode(
  'const pad = "x".repeat(8000); for (;;) { try { await tools.fail({ pad }) } catch {} }',
  { timeoutMs: seconds * 1000 },
);
const after = peakMiB();
await ptc.close();
console.log(
  `${seconds} s run: ${outcome.kind}, ${outcome.subCalls.toLocaleString("en-US")} calls, ${seen.toLocaleString("en-US")} events seen, ` +
    `${outcome.events.length.toLocaleString("en-US")} kept, ${(outcome.eventsNotKept ?? 0).toLocaleString("en-US")} not kept, ` +
    `${(outcome.droppedEvents ?? 0).toLocaleString("en-US")} dropped by ptc; host peak RSS ${before.toFixed(0)} -> ${after.toFixed(0)} MiB (+${(after - before).toFixed(0)})`,
);
