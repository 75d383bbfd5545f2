#!/usr/bin/env node
// Checks src/engine/typescript/js/inspect.js under Node against cases.json.
//
//   node tests/golden/inspect/check.js
//
// Every case runs twice: with the optional host hooks installed (promise
// state and proxy details, taken from Node's internals, as the engine takes
// them from QuickJS) against `expected`, and without hooks against
// `expectedWithoutHooks` (or `expected`). Prints each mismatch; exits 1 on
// any. The same cases run under QuickJS-ng in tests/inspect.rs.
'use strict';

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

let internalBinding;
try {
  ({ internalBinding } = require('internal/test/binding'));
} catch {
  // Re-run with access to Node's internals (for the hooks).
  const r = spawnSync(process.execPath, ['--expose-internals', '--no-warnings', __filename, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(r.status === null ? 1 : r.status);
}
const nodeUtil = internalBinding('util');

const root = path.join(__dirname, '..', '..', '..');
const source = fs.readFileSync(path.join(root, 'src', 'engine', 'typescript', 'js', 'inspect.js'), 'utf8');
const cases = JSON.parse(fs.readFileSync(path.join(__dirname, 'cases.json'), 'utf8'));

// What the engine's prelude hands inspect.js (taken before any program):
// its `primordials` literal, evaluated here.
const prelude = fs.readFileSync(path.join(root, 'src', 'engine', 'typescript', 'js', 'prelude.js'), 'utf8');
const literal = /const primordials = (\{[\s\S]*?\n  \});/.exec(prelude);
if (!literal) throw new Error('prelude.js has no `const primordials = { … };`');
const primordials = (0, eval)('(' + literal[1] + ')');

function load(withHooks) {
  const make = (0, eval)(source);
  const api = typeof make === 'function' ? make(primordials) : undefined;
  if (!api || typeof api.formatArgs !== 'function' || typeof api.inspect !== 'function') {
    throw new Error('inspect.js did not evaluate to a function giving { formatArgs, inspect, hooks }');
  }
  if (withHooks) {
    api.hooks.promiseState = (v) => nodeUtil.getPromiseDetails(v);
    api.hooks.proxyDetails = (v) => {
      const d = nodeUtil.getProxyDetails(v, true);
      if (d === undefined) return undefined;
      if (d === null || d[0] === null) return null;
      return d;
    };
  }
  return api;
}

let failures = 0;
for (const withHooks of [true, false]) {
  const api = load(withHooks);
  for (const c of cases) {
    const args = (0, eval)(c.setup);
    const want = !withHooks && c.expectedWithoutHooks !== undefined ? c.expectedWithoutHooks : c.expected;
    const got = api.formatArgs(args);
    if (got !== want) {
      failures++;
      console.log(`MISMATCH (${withHooks ? 'hooks' : 'no hooks'}) ${c.name}\n  setup:    ${c.setup}\n  expected: ${JSON.stringify(want)}\n  got:      ${JSON.stringify(got)}`);
    }
  }
}

// Bounds: huge inputs stay small and fast; nothing throws.
{
  const api = load(false);
  const checks = [];
  const big = {};
  for (let i = 0; i < 200000; i++) big[`key${i}`] = i;
  checks.push(['200k keys', [big]]);
  checks.push(['deep strings', [Array.from({ length: 100 }, () => Array.from({ length: 100 }, () => 'x'.repeat(1000)))]]);
  checks.push(['1e6 array', [new Array(1e6).fill(1)]]);
  checks.push(['10MB typed array', [new Uint8Array(10 * 1024 * 1024)]]);
  for (const [name, args] of checks) {
    const t0 = process.hrtime.bigint();
    const out = api.formatArgs(args);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (out.length > 65537) {
      failures++;
      console.log(`BOUND ${name}: output ${out.length} chars`);
    }
    if (ms > 1000) {
      failures++;
      console.log(`SLOW ${name}: ${ms.toFixed(1)} ms`);
    }
  }
}

console.log(`${cases.length} cases, ${failures} failure(s)`);
process.exit(failures === 0 ? 0 : 1);
