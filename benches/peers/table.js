#!/usr/bin/env node
// Puts ptc's records and the peers' side by side.
//
//   node table.js DIR
//
// reads DIR/ptc.jsonl (examples/workloads.rs --json), DIR/ptc-sdk.json
// (`node bench.js --check-dts` on ptc's declarations for tools1000) and
// DIR/peers.jsonl (bench.js, every peer), writes DIR/peers.json (the input
// of benches/plot_ratios.py) and DIR/peers.md (every figure with its spread),
// and prints the README's table. With DIR/ptc-python.jsonl (examples/workloads.rs
// --python --json: the Python programs on ptc and on Monty directly), it
// adds the README's table of the Python programs.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node table.js DIR (with ptc.jsonl, ptc-sdk.json, peers.jsonl)\n');
  process.exit(2);
}
const lines = (file) =>
  fs
    .readFileSync(path.join(dir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l));

// engine -> workload -> record (without the engine and workload keys)
const engines = {};
for (const { engine, workload, ...rest } of lines('peers.jsonl')) (engines[engine] ||= {})[workload] = rest;
const ptc = {};
for (const { workload, ...rest } of lines('ptc.jsonl')) ptc[workload] = rest;
const sdkFile = path.join(dir, 'ptc-sdk.json');
if (ptc.W5 && fs.existsSync(sdkFile)) Object.assign(ptc.W5, JSON.parse(fs.readFileSync(sdkFile, 'utf8')));

const programs = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'fixtures', 'workloads', 'programs.json'), 'utf8'));
const firstMeta = Object.values(engines).map((e) => e.meta).find(Boolean) || {};
fs.writeFileSync(
  path.join(dir, 'peers.json'),
  `${JSON.stringify({ generated: new Date().toISOString(), machine: { cpus: os.cpus().length, cpu: os.cpus()[0].model, node: firstMeta.node || process.version }, workloads: programs, engines }, null, 1)}\n`,
);

// Numbers as the README prints them: three significant digits, thousands
// separated.
function fmt(x) {
  if (x === undefined || x === null) return '–';
  const a = Math.abs(x);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
const count = (n, what) => `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`;

function w5Cell(r) {
  if (!r) return '–';
  const notes = [];
  if (r.ts_syntax_errors) notes.push(count(r.ts_syntax_errors, 'syntax error'));
  if (r.tsc_errors !== undefined) notes.push(count(r.tsc_errors, 'tsc error'));
  if (r.ratio_to_compact_json !== undefined) notes.push(`${r.ratio_to_compact_json.toFixed(2)}× JSON`);
  return `${fmt(r.median)}${notes.length ? ` (${notes.join(', ')})` : ''}`;
}
function w3Cell(r) {
  if (!r) return '–';
  return r.max_inflight !== undefined && r.max_inflight < 10 ? `${fmt(r.median)} (${r.max_inflight} call at a time)` : fmt(r.median);
}
function row(name, w, bold) {
  const b = (s) => (bold && s !== '–' ? `**${s}**` : s);
  const cells = [
    fmt(w.W1 && w.W1.median),
    fmt(w.W2 && w.W2.median),
    w3Cell(w.W3),
    fmt(w.W4 && w.W4.median),
    w5Cell(w.W5),
    fmt(w.W6 && w.W6.mib_per_live_run && w.W6.mib_per_live_run.median),
    fmt(w.W7 && w.W7.median),
  ];
  return `| ${b(name)} | ${cells.map(b).join(' | ')} |`;
}

// The README's order and names; an engine not listed here goes last.
const SHOWN = [
  ['quickjs-emscripten', 'quickjs-emscripten'],
  ['node:vm', 'node:vm (not isolated)'],
  ['isolated-vm', 'isolated-vm'],
  ['@utcp/code-mode', '@utcp/code-mode'],
  ['json-schema-to-typescript', 'json-schema-to-typescript'],
  ['json-schema-to-typescript (format:false)', 'json-schema-to-typescript (format: false)'],
  ['@cloudflare/codemode', '@cloudflare/codemode'],
  ['plain-node (no sandbox, floor)', 'plain Node (no sandbox: a floor)'],
];
const order = [...SHOWN, ...Object.keys(engines).filter((e) => !SHOWN.some(([k]) => k === e)).map((e) => [e, e])];
const HEAD = '| engine | W1 cold run µs | W2 µs/sub-call | W3 wall ms | W4 ms/run | W5 ms/render | W6 MiB/live run | W7 runs/s |';
const table = [HEAD, '|---|---|---|---|---|---|---|---|', row('ptc', ptc, true)];
for (const [key, label] of order) if (engines[key]) table.push(row(label, engines[key], false));

// peers.md: every figure with its spread, and what each peer ran.
const spread = (r) => (r ? `${fmt(r.median)} (${fmt(r.min)}–${fmt(r.max)})${r.foreign_cpu_pct > 10 ? ` ⚠ ${r.foreign_cpu_pct}% CPU elsewhere` : ''}` : '–');
const detail = ['| engine | W1 µs | W2 µs | W3 ms | W4 ms | W5 ms | W6 peak MiB | W7 runs/s |', '|---|---|---|---|---|---|---|---|'];
for (const [name, w] of [['ptc', ptc], ...order.filter(([k]) => engines[k]).map(([k]) => [k, engines[k]])]) {
  detail.push(`| ${name} | ${['W1', 'W2', 'W3', 'W4', 'W5', 'W6', 'W7'].map((id) => spread(w[id])).join(' | ')} |`);
}
const notes = [];
for (const [name, w] of Object.entries(engines)) {
  const m = w.meta || {};
  const versions = Object.entries(m.versions || {}).map(([k, v]) => `${k}@${v}`).join(', ');
  notes.push(`- **${name}**${versions ? ` (${versions})` : ''}, ${(m.at || '').slice(0, 16).replace('T', ' ')} UTC: ${m.notes || ''}`);
  if (w.W7) notes.push(`  W7 runs/s at 1, 4, 32 at once: ${Object.values(w.W7.by_concurrency).map(fmt).join(', ')}.`);
  if (w.W6) notes.push(`  W6: ${fmt(w.W6.baseline_mib)} MiB idle, ${fmt(w.W6.mib_per_live_run.median)} MiB per live run, 100 runs done in ${fmt(w.W6.wall_ms)} ms.`);
}
// The Python programs (DIR/ptc-python.jsonl, when measured): ptc and Monty
// used directly, side by side, and ptc's figure over Monty's.
const python = [];
const pythonDetail = [];
if (fs.existsSync(path.join(dir, 'ptc-python.jsonl'))) {
  const rows = {};
  for (const { engine, workload, ...rest } of lines('ptc-python.jsonl')) (rows[engine] ||= {})[workload] = rest;
  const ids = ['W1', 'W2', 'W3', 'W6', 'W7'];
  const figure = (r, id) => (r && r[id] ? (id === 'W6' ? r[id].mib_per_live_run.median : r[id].median) : undefined);
  // W6: RSS summed over the host and its workers, and PSS (shared pages divided).
  const cell = (r, id) =>
    id === 'W6' && r.W6 && r.W6.pss_mib_per_live_run ? `${fmt(figure(r, id))} (${fmt(r.W6.pss_mib_per_live_run.median)})` : fmt(figure(r, id));
  python.push('| engine | W1 cold run µs | W2 µs/sub-call | W3 wall ms | W6 MiB/live run: RSS (PSS) | W7 runs/s |', '|---|---|---|---|---|---|');
  for (const [engine, r] of Object.entries(rows)) python.push(`| ${engine} | ${ids.map((id) => cell(r, id)).join(' | ')} |`);
  const [a, b] = Object.values(rows);
  if (a && b) {
    const ratio = (id) => {
      const x = figure(a, id);
      const y = figure(b, id);
      return x === undefined || y === undefined ? '–' : `${(x / y).toFixed(2)}×`;
    };
    python.push(`| ${Object.keys(rows)[0]} / ${Object.keys(rows)[1]} | ${ids.map(ratio).join(' | ')} |`);
  }
  pythonDetail.push('| engine | W1 µs | W2 µs | W3 ms | W6 peak MiB | W7 runs/s |', '|---|---|---|---|---|---|');
  for (const [engine, r] of Object.entries(rows)) pythonDetail.push(`| ${engine} | ${ids.map((id) => spread(r[id])).join(' | ')} |`);
}

const md = [
  '# ptc and its peers on the reference workloads',
  '',
  `Written by \`benches/peers/run-all\` on ${os.cpus().length} × ${os.cpus()[0].model}, Node ${firstMeta.node || process.version}.`,
  'Medians; lower is better except W7. Workloads: `fixtures/workloads/WORKLOADS.md`.',
  '',
  ...table,
  '',
  '## Every figure: median (min–max)',
  '',
  '⚠ marks a figure taken while other processes used more than 10% of the CPUs.',
  '',
  ...detail,
  '',
  '## What each peer ran',
  '',
  ...notes,
  '',
  ...(python.length
    ? ['## Python programs', '', 'Medians; the last row is the first engine\'s figure over the second\'s (W6: RSS). Lower is better except W7.', '', ...python, '', ...pythonDetail, '']
    : []),
];
fs.writeFileSync(path.join(dir, 'peers.md'), md.join('\n'));
process.stdout.write(`${table.join('\n')}\n`);
if (python.length) process.stdout.write(`\nPython programs:\n\n${python.join('\n')}\n`);
