// What every peer shares: the fixtures of fixtures/workloads/, the tool
// handlers WORKLOADS.md specifies, the per-run cap of W3, W4's answer computed
// in plain JavaScript, and the measuring helpers. Nothing here knows a peer.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const FIXTURES = path.join(__dirname, '..', '..', '..', 'fixtures', 'workloads');
const readJson = (file) => JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8'));

const TOOLS50 = readJson('tools50.json');
const PROGRAMS = readJson('programs.json');
const tools1000 = () => readJson('tools1000.json');

// W4's rows, as WORKLOADS.md gives them.
const tag = (k) => `tag-${String(k).padStart(2, '0')}`;
const ROWS = [];
for (let i = 0; i < 10000; i++) {
  ROWS.push({
    id: i,
    name: `row-${i}`,
    score: ((i * 7919) % 1000) / 10,
    tags: [tag((i * 31) % 50), tag((i * 17 + 3) % 50), tag((i * 13 + 7) % 50)],
  });
}

// W4's answer, worked out here without running the program text.
function w4Answer() {
  const byTag = new Map();
  for (const row of ROWS) {
    const t = row.tags[0];
    const acc = byTag.get(t) || { n: 0, sum: 0 };
    acc.n += 1;
    acc.sum += row.score;
    byTag.set(t, acc);
  }
  const all = [...byTag].map(([t, { n, sum }]) => ({ tag: t, n, avg: sum / n }));
  all.sort((a, b) => (a.avg !== b.avg ? b.avg - a.avg : a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  return all.slice(0, 10);
}

// Structural equality of plain data; values may come from another realm, so
// no prototype or identity checks.
function sameData(a, b) {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameData(a[k], b[k]));
}

// Sub-calls in flight, the peak, and how many there were.
const stats = { calls: 0, inFlight: 0, peak: 0 };
function resetStats() {
  stats.calls = 0;
  stats.inFlight = 0;
  stats.peak = 0;
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The handlers of WORKLOADS.md: echo returns its arguments, sleep waits on a
// timer, get_rows returns the prebuilt rows; the other 47 tools are bound but
// never called, and echo too.
function handlerFor(name) {
  let work;
  if (name === 'sleep') {
    work = async (args) => {
      await wait(args.ms);
      return { slept: args.ms };
    };
  } else if (name === 'get_rows') {
    work = async () => ROWS;
  } else {
    work = async (args) => args;
  }
  return async (args) => {
    stats.calls += 1;
    stats.inFlight += 1;
    if (stats.inFlight > stats.peak) stats.peak = stats.inFlight;
    try {
      return await work(args);
    } finally {
      stats.inFlight -= 1;
    }
  };
}
const HANDLERS = new Map(TOOLS50.map((t) => [t.name, handlerFor(t.name)]));

// W3's cap for peers that have none: at most `limit` handlers of one run
// running at once, the rest queued in call order.
const CAP = 10;
function capped(handlers, limit = CAP) {
  let running = 0;
  const queue = [];
  const acquire = () => {
    if (running < limit) {
      running += 1;
      return null;
    }
    return new Promise((resolve) => queue.push(resolve));
  };
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else running -= 1;
  };
  const out = new Map();
  for (const [name, fn] of handlers) {
    out.set(name, async (args) => {
      const turn = acquire();
      if (turn) await turn;
      try {
        return await fn(args);
      } finally {
        release();
      }
    });
  }
  return out;
}

// Median, min, max and count, rounded to `digits` decimals.
function summarize(xs, digits) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  return { median: round(median, digits), min: round(s[0], digits), max: round(s[n - 1], digits), n };
}
const round = (x, digits) => Math.round(x * 10 ** digits) / 10 ** digits;

// CPU time the machine spent outside this process while a workload ran, as a
// share of all cores: a figure taken while others computed is noisy.
function cpuSnapshot() {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = fields;
  const mine = process.cpuUsage();
  return {
    at: performance.now(),
    busySeconds: (user + nice + system + irq + softirq + steal) / 100,
    mineSeconds: (mine.user + mine.system) / 1e6,
  };
}
function foreignCpuPct(before, after) {
  const wallSeconds = (after.at - before.at) / 1000;
  const others = after.busySeconds - before.busySeconds - (after.mineSeconds - before.mineSeconds);
  return Math.max(0, Math.round((100 * others) / (wallSeconds * os.cpus().length)));
}

// Syntax errors (TypeScript's parser) and all errors (a strict type check)
// in a rendered declarations file.
function checkDeclarations(text) {
  const ts = require('typescript');
  const file = 'tools.d.ts';
  const syntax = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS).parseDiagnostics.length;
  const options = { noEmit: true, strict: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [] };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (f) => (f === file ? text : readFile(f));
  host.fileExists = (f) => f === file || fileExists(f);
  host.getSourceFile = (f, lang, ...rest) =>
    f === file ? ts.createSourceFile(file, text, lang, true, ts.ScriptKind.TS) : getSourceFile(f, lang, ...rest);
  const program = ts.createProgram([file], options, host);
  const tsc = ts.getPreEmitDiagnostics(program).length;
  return { ts_syntax_errors: syntax, tsc_errors: tsc };
}

const packageVersion = (name) =>
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'node_modules', name, 'package.json'), 'utf8')).version;

module.exports = {
  CAP,
  HANDLERS,
  PROGRAMS,
  ROWS,
  TOOLS50,
  capped,
  checkDeclarations,
  cpuSnapshot,
  foreignCpuPct,
  packageVersion,
  resetStats,
  round,
  sameData,
  stats,
  summarize,
  tools1000,
  w4Answer,
};
