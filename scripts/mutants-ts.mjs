#!/usr/bin/env node
// Mutation testing of the Node host library's approval and session code
// (issue 39; docs/testing.md "Mutants"): like cargo-mutants, it changes one
// place at a time and runs the tests that guard it; a mutant the tests do
// not catch is a behaviour no test holds.
//
//   node scripts/mutants-ts.mjs BINARY [--only REGEX] [--list] [--out FILE]
//
// It packs and installs the package as npm/test/run.sh does (an empty
// project, offline), compiles the tests once against the installed .d.ts,
// then for each mutant writes the mutated module (transpiled alone by the
// repository's TypeScript: types do not change, so no type check) over the
// installed dist/*.js and runs, cheapest first, stopping at the first
// failure: npm/test/wire.mjs, npm/test/hostile.mts (a fake ptc), then
// npm/test/host.mts (the real BINARY). Each test run is bounded by five
// times its unmutated time, at least 10 s (a mutant that makes a test wait
// is a timeout).
//
// The mutants, made on the TypeScript syntax tree of the functions listed
// in TARGETS: a comparison or logical operator swapped (=== and !==, <
// into <= and >=, && and ||, ?? into ||, + and -), a `!` removed, a
// condition made always true or always false, true and false swapped, a
// non-empty string made empty, a statement removed, ++ and -- swapped.
// Results: a table per mutant (caught by which test, missed, timeout) on
// stdout and in --out (markdown).

import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const ts = require(join(repo, "node_modules/typescript"));

// The functions mutated, by file: approval and session code.
const TARGETS = {
  "npm/ptc/src/wire.ts": ["LineReader.feed", "LineReader.end", "LineReader.take", "LineReader.finish", "skipSpace", "stringEnd", "valueEnd", "headOf", "objectHead", "parse", "describe", "approvalReply"],
  "npm/ptc/src/client.ts": [
    "Ptc.start",
    "Ptc.runCode",
    "Ptc.request",
    "Ptc.fail",
    "Ptc.receive",
    "Ptc.dispatch",
    "Ptc.event",
    "Ptc.unreadable",
    "Ptc.failRun",
    "Ptc.approve",
    "Ptc.approveHeld",
    "warn",
  ],
};

const args = process.argv.slice(2);
const binary = args[0] && !args[0].startsWith("--") ? resolve(args[0]) : undefined;
const flag = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const only = flag("--only") ? new RegExp(flag("--only")) : undefined;
const out = flag("--out");

/** Every mutant of a file: { file, fn, line, col, description, source } */
function mutantsOf(file, functions) {
  const text = readFileSync(join(repo, file), "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found = [];
  const add = (fn, node, replacement, description, start = node.getStart(sf), end = node.getEnd()) => {
    const { line, character } = sf.getLineAndCharacterOfPosition(start);
    found.push({
      file,
      fn,
      line: line + 1,
      col: character + 1,
      description,
      source: text.slice(0, start) + replacement + text.slice(end),
    });
  };
  const swaps = {
    "===": ["!=="],
    "!==": ["==="],
    "<": ["<=", ">="],
    "<=": ["<", ">"],
    ">": [">=", "<="],
    ">=": [">", "<"],
    "&&": ["||"],
    "||": ["&&"],
    "??": ["||"],
    "+": ["-"],
    "-": ["+"],
  };
  function visit(node, fn) {
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.getText(sf);
      for (const to of swaps[op] ?? []) {
        add(fn, node.operatorToken, to, `replace ${op} with ${to}`);
      }
    }
    if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken) {
      add(fn, node, node.operand.getText(sf), "delete !");
    }
    if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
        (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)) {
      const to = node.operator === ts.SyntaxKind.PlusPlusToken ? "--" : "++";
      const operandText = node.operand.getText(sf);
      add(fn, node, ts.isPrefixUnaryExpression(node) ? to + operandText : operandText + to, `replace ${to === "--" ? "++" : "--"} with ${to}`);
    }
    if (node.kind === ts.SyntaxKind.TrueKeyword) add(fn, node, "false", "replace true with false");
    if (node.kind === ts.SyntaxKind.FalseKeyword) add(fn, node, "true", "replace false with true");
    if (ts.isStringLiteral(node) && node.text !== "" && !ts.isImportDeclaration(node.parent) &&
        !(ts.isPropertyAssignment(node.parent) && node.parent.name === node)) {
      add(fn, node, '""', `replace ${JSON.stringify(node.text).slice(0, 40)} with ""`);
    }
    if ((ts.isIfStatement(node) || ts.isWhileStatement(node) || ts.isConditionalExpression(node)) && node.kind !== undefined) {
      const condition = ts.isConditionalExpression(node) ? node.condition : node.expression;
      const what = ts.isIfStatement(node) ? "if" : ts.isWhileStatement(node) ? "while" : "?:";
      add(fn, condition, "true", `${what} condition always true`);
      if (!ts.isWhileStatement(node)) add(fn, condition, "false", `${what} condition always false`);
    }
    if ((ts.isExpressionStatement(node) || ts.isReturnStatement(node) && node.expression === undefined ||
         ts.isContinueStatement(node) || ts.isBreakStatement(node)) && ts.isBlock(node.parent) ||
        ts.isExpressionStatement(node) && (ts.isIfStatement(node.parent) || ts.isForOfStatement(node.parent))) {
      add(fn, node, ";", `delete statement \`${node.getText(sf).replace(/\s+/g, " ").slice(0, 50)}\``);
    }
    ts.forEachChild(node, (child) => visit(child, fn));
  }
  function walk(node, scope) {
    let name;
    if (ts.isFunctionDeclaration(node) && node.name) name = node.name.text;
    if ((ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node)) && node.body) {
      name = `${scope}.${ts.isConstructorDeclaration(node) ? "constructor" : node.name.getText(sf)}`;
    }
    if (name !== undefined && functions.includes(name)) {
      ts.forEachChild(node.body, (child) => visit(child, name));
      return;
    }
    const inner = ts.isClassDeclaration(node) && node.name ? node.name.text : scope;
    ts.forEachChild(node, (child) => walk(child, inner));
  }
  walk(sf, "");
  const missing = functions.filter((fn) => !found.some((m) => m.fn === fn));
  if (missing.length > 0) console.error(`mutants-ts: no mutant in ${missing.join(", ")} of ${file}`);
  return found;
}

const mutants = Object.entries(TARGETS)
  .flatMap(([file, functions]) => mutantsOf(file, functions))
  .filter((m) => only === undefined || only.test(`${m.file}:${m.line}:${m.col}: ${m.description} in ${m.fn}`));
const name = (m) => `${m.file}:${m.line}:${m.col}: ${m.description} in ${m.fn}`;

if (args.includes("--list")) {
  for (const m of mutants) console.log(name(m));
  console.log(`${mutants.length} mutants`);
  process.exit(0);
}
if (binary === undefined) {
  console.error("usage: node scripts/mutants-ts.mjs BINARY [--only REGEX] [--list] [--out FILE]");
  process.exit(2);
}

// The package as a user gets it, as npm/test/run.sh installs it.
const work = mkdtempSync(join(tmpdir(), "ptc-mutants-ts-"));
const project = join(work, "project");
mkdirSync(project);
const tarballs = execFileSync(join(repo, "npm/pack.sh"), [binary, join(work, "tarballs")], { encoding: "utf8" })
  .split("\n")
  .filter((line) => line.endsWith(".tgz"));
writeFileSync(join(project, "package.json"), '{ "name": "mutants", "private": true }');
execFileSync("npm", ["install", "--offline", "--cache", join(work, "npm-cache"), "--no-audit", "--no-fund", "--loglevel=error", ...tarballs], {
  cwd: project,
  stdio: "inherit",
});
for (const file of ["host.mts", "hostile.mts"]) copyFileSync(join(repo, "npm/test", file), join(project, file));
execFileSync(join(repo, "node_modules/.bin/tsc"), ["--strict", "--noEmitOnError", "--target", "ES2022", "--module", "nodenext",
  "--moduleResolution", "nodenext", "--typeRoots", join(repo, "node_modules/@types"), "--types", "node", "--outDir", "out",
  "host.mts", "hostile.mts"], { cwd: project, stdio: "inherit" });
const dist = join(project, "node_modules/ptc/dist");
const env = { ...process.env };
delete env["PTC_BINARY"];

const tests = [
  ["wire.mjs", [join(repo, "npm/test/wire.mjs"), join(dist, "wire.js")]],
  ["hostile.mts", [join(project, "out/hostile.mjs"), join(repo, "npm/test/fake-serve.mjs")]],
  ["host.mts", [join(project, "out/host.mjs")]],
];

function runTest(argv, timeoutMs) {
  return new Promise((done) => {
    const started = Date.now();
    const child = spawn(process.execPath, argv, { cwd: project, env, stdio: ["ignore", "ignore", "pipe"], detached: true });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-2000)));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL"); // the test and the ptc it started
      } catch {}
      done({ status: "timeout", ms: Date.now() - started });
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ status: code === 0 ? "pass" : "fail", ms: Date.now() - started, stderr });
    });
  });
}

function transpile(source) {
  return ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, esModuleInterop: false },
  }).outputText;
}

const originals = Object.fromEntries(Object.keys(TARGETS).map((file) => [file, readFileSync(join(repo, file), "utf8")]));
const distOf = (file) => join(dist, file.replace(/^.*\//, "").replace(/\.ts$/, ".js"));
function install(file, source) {
  writeFileSync(distOf(file), transpile(source));
}

// The baseline: every module transpiled alone, unmutated; every test passes.
for (const [file, source] of Object.entries(originals)) install(file, source);
const limits = [];
for (const [label, argv] of tests) {
  const result = await runTest(argv, 600_000);
  if (result.status !== "pass") {
    console.error(`mutants-ts: the unmutated ${label} failed:\n${result.stderr}`);
    process.exit(1);
  }
  limits.push(Math.max(10_000, 5 * result.ms));
  console.error(`baseline ${label}: ${result.ms} ms`);
}

const rows = [];
const counts = { caught: 0, missed: 0, timeout: 0 };
const began = Date.now();
for (const [i, m] of mutants.entries()) {
  install(m.file, m.source);
  let outcome = "missed";
  let by = "";
  for (const [t, [label, argv]] of tests.entries()) {
    const result = await runTest(argv, limits[t]);
    if (result.status === "pass") continue;
    outcome = result.status === "timeout" ? "timeout" : "caught";
    by = label;
    break;
  }
  install(m.file, originals[m.file]);
  counts[outcome]++;
  rows.push(`| \`${name(m).replace(/\|/g, "\\|")}\` | ${outcome} | ${by} |`);
  console.log(`[${i + 1}/${mutants.length}] ${outcome}${by ? ` (${by})` : ""}: ${name(m)}`);
}
const minutes = ((Date.now() - began) / 60000).toFixed(0);
const summary = `${mutants.length} mutants in ${minutes} minutes: ${counts.caught} caught, ${counts.missed} missed, ${counts.timeout} timeouts.`;
console.log(summary);
if (out !== undefined) {
  writeFileSync(out, [summary, "", "| mutant | result | caught by |", "|---|---|---|", ...rows, ""].join("\n"));
}
rmSync(work, { recursive: true, force: true });
