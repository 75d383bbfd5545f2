#!/usr/bin/env node
// Runs the reference workloads (fixtures/workloads/WORKLOADS.md) on one peer
// and prints one JSON line per workload, the shape examples/workloads.rs
// prints for ptc. Every result is checked, so a broken run cannot report a
// fast figure.
//
//   node bench.js PEER [--only W1,W3]     PEER: one of `node bench.js --list`
//   node bench.js --check-dts FILE        TypeScript errors in a declarations file
'use strict';
const assert = require('assert');
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const ENGINES = require('./lib/engines');
const W = require('./lib/workloads');

let engineName = '?';
const say = (record) => process.stdout.write(`${JSON.stringify({ engine: engineName, ...record })}\n`);
const progress = (text) => process.stderr.write(`[${engineName}] ${text}\n`);
const elapsed = async (fn) => {
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
};

// A run with the cap of W3 in front of the handlers when the peer has none.
const runOnce = (engine, program) => engine.run(program, engine.hostCap ? W.capped(W.HANDLERS) : W.HANDLERS);

// One warm-up, then at least `min` timed repetitions, more while `budgetMs`
// lasts, at most `max`.
async function repeat(once, { min = 5, max = 20, budgetMs = 15000, warmups = 1 } = {}) {
  for (let i = 0; i < warmups; i++) await once();
  const xs = [];
  const start = performance.now();
  while (xs.length < min || (xs.length < max && performance.now() - start < budgetMs)) xs.push(await once());
  return xs;
}

async function w1(engine) {
  const program = W.PROGRAMS.W1;
  for (let i = 0; i < 20; i++) await runOnce(engine, program);
  const xs = [];
  for (let i = 0; i < 200; i++) {
    const [ms, value] = await elapsed(() => runOnce(engine, program));
    assert.strictEqual(value, 1, 'W1 returns 1');
    xs.push(ms * 1000);
  }
  return { figure: 'us_per_run', ...W.summarize(xs, 1) };
}

async function w2(engine) {
  const xs = await repeat(async () => {
    W.resetStats();
    const [ms, value] = await elapsed(() => runOnce(engine, W.PROGRAMS.W2));
    assert.strictEqual(value, 49995000, 'W2 sum');
    assert.strictEqual(W.stats.calls, 10000, 'W2 sub-calls');
    return (ms * 1000) / 10000;
  }, { budgetMs: 10000 });
  return { figure: 'us_per_subcall', ...W.summarize(xs, 3) };
}

async function w3(engine) {
  let peak = 0;
  const xs = await repeat(async () => {
    W.resetStats();
    const [ms] = await elapsed(() => runOnce(engine, W.PROGRAMS.W3));
    assert.strictEqual(W.stats.calls, 1000, 'W3 sub-calls');
    peak = Math.max(peak, W.stats.peak);
    return ms;
  });
  if (engine.hostCap) assert.strictEqual(peak, W.CAP, 'the per-run cap must be reached and held');
  else assert.ok(peak >= 1 && peak <= W.CAP, `the engine's own cap let ${peak} calls run at once`);
  return { figure: 'wall_ms', ...W.summarize(xs, 1), max_inflight: peak, cap_by: engine.hostCap ? 'host-semaphore' : 'engine' };
}

async function w4(engine) {
  const want = W.w4Answer();
  const xs = await repeat(async () => {
    const [ms, value] = await elapsed(() => runOnce(engine, W.PROGRAMS.W4));
    assert.ok(W.sameData(value, want), `W4 answer: ${JSON.stringify(value)} != ${JSON.stringify(want)}`);
    return ms;
  }, { min: 10, max: 30, warmups: 2 });
  return { figure: 'ms_per_run', ...W.summarize(xs, 2) };
}

async function w5(engine) {
  const tools = W.tools1000();
  let text = '';
  const xs = await repeat(async () => {
    const [ms, out] = await elapsed(() => engine.render(tools));
    text = out;
    return ms;
  }, { max: 20, budgetMs: 10000 });
  // Renderers rewrite names into identifiers (`a.b-c` as `a_b_c`, `ABC`...):
  // compare letters and digits only.
  const squash = (s) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const flat = squash(text);
  const missing = tools.filter((t) => !flat.includes(squash(t.name)));
  assert.strictEqual(missing.length, 0, `W5: ${missing.length} tools missing, first ${missing[0] && missing[0].name}`);
  const compact = JSON.stringify(tools).length;
  const bytes = Buffer.byteLength(text);
  return { figure: 'ms_per_render', ...W.summarize(xs, 2), output_bytes: bytes, ratio_to_compact_json: W.round(bytes / compact, 3), ...W.checkDeclarations(text) };
}

// W6: in fresh processes, since a process's RSS does not shrink back.
function w6() {
  const reps = [];
  for (let i = 0; i < 5; i++) {
    const out = execFileSync(process.execPath, ['--expose-gc', __filename, process.argv[2], '--w6-child'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    });
    reps.push(JSON.parse(out.trim().split('\n').pop()));
  }
  const pick = (k) => reps.map((r) => r[k]);
  const maxLive = Math.min(...pick('max_inflight'));
  assert.strictEqual(maxLive, 100, 'all 100 runs must be alive at once');
  return {
    figure: 'peak_rss_mib',
    ...W.summarize(pick('peak_mib'), 1),
    baseline_mib: W.summarize(pick('baseline_mib'), 1).median,
    mib_per_live_run: W.summarize(pick('per_run_mib'), 3),
    max_live_tool_calls: maxLive,
    wall_ms: W.summarize(pick('wall_ms'), 1).median,
  };
}

async function w6Child(engine) {
  if (engine.init) await engine.init();
  for (let i = 0; i < 5; i++) await runOnce(engine, W.PROGRAMS.W1);
  await runOnce(engine, W.PROGRAMS.W6);
  global.gc();
  await new Promise((resolve) => setTimeout(resolve, 50));
  global.gc();
  const base = process.memoryUsage.rss();
  let peak = base;
  W.resetStats();
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  const start = performance.now();
  const results = await Promise.all(Array.from({ length: 100 }, () => runOnce(engine, W.PROGRAMS.W6)));
  const wall = performance.now() - start;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  assert.ok(results.every((v) => v === 1), 'W6 runs return 1');
  const mib = (bytes) => bytes / 1048576;
  process.stdout.write(`${JSON.stringify({ baseline_mib: mib(base), peak_mib: mib(peak), per_run_mib: mib(peak - base) / 100, max_inflight: W.stats.peak, wall_ms: wall })}\n`);
}

async function w7(engine) {
  const levels = [];
  for (const concurrency of [1, 4, 32]) {
    const xs = [];
    for (let rep = 0; rep < 3; rep++) {
      let started = 0;
      const worker = async () => {
        while (started < 1000) {
          started += 1;
          assert.strictEqual(await runOnce(engine, W.PROGRAMS.W7), 1, 'W7 returns 1');
        }
      };
      const [ms] = await elapsed(() => Promise.all(Array.from({ length: concurrency }, worker)));
      xs.push(1000 / (ms / 1000));
    }
    levels.push([concurrency, W.summarize(xs, 1)]);
  }
  const [best, figure] = levels.reduce((a, b) => (b[1].median > a[1].median ? b : a));
  return { figure: 'runs_per_sec', ...figure, best_concurrency: best, by_concurrency: Object.fromEntries(levels.map(([c, s]) => [c, s.median])) };
}

const WORKLOADS = { W1: w1, W2: w2, W3: w3, W4: w4, W5: w5, W6: w6, W7: w7 };

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === '--list') {
    process.stdout.write(`${Object.keys(ENGINES).join('\n')}\n`);
    return;
  }
  if (args[0] === '--check-dts') {
    const text = fs.readFileSync(args[1], 'utf8');
    process.stdout.write(`${JSON.stringify({ output_bytes: Buffer.byteLength(text), ...W.checkDeclarations(text) })}\n`);
    return;
  }
  const engine = ENGINES[args[0]];
  if (!engine) throw new Error(`usage: node bench.js PEER [--only W1,W2] (PEER: ${Object.keys(ENGINES).join(', ')})`);
  engineName = engine.name;
  if (args.includes('--w6-child')) return w6Child(engine);
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? args[onlyAt + 1].split(',') : null;
  if (engine.init) await engine.init();
  say({
    workload: 'meta',
    at: new Date().toISOString(),
    notes: engine.notes,
    cap_by: engine.run ? (engine.hostCap ? 'host-semaphore' : 'engine') : undefined,
    versions: engine.versions(),
    node: process.version,
    cpu: `${os.cpus().length} x ${os.cpus()[0].model}`,
    loadavg_at_start: os.loadavg().map((x) => W.round(x, 2)),
  });
  for (const [id, fn] of Object.entries(WORKLOADS)) {
    const applies = id === 'W5' ? Boolean(engine.render) : Boolean(engine.run);
    if (!applies || (only && !only.includes(id))) continue;
    const before = W.cpuSnapshot();
    const start = performance.now();
    const record = await fn(engine);
    // W6's work is in child processes, which this estimate would count as foreign.
    const noise = id === 'W6' ? {} : { foreign_cpu_pct: W.foreignCpuPct(before, W.cpuSnapshot()) };
    say({ workload: id, ...record, ...noise });
    progress(`${id} in ${((performance.now() - start) / 1000).toFixed(1)} s`);
  }
}

main().catch((err) => {
  process.stderr.write(`[${engineName}] ${(err && err.stack) || err}\n`);
  process.exit(1);
});
