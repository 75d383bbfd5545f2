// One adapter per peer. An adapter runs one program in a fresh sandbox with
// the 50 tools of tools50.json bound as `tools.<name>`, or renders the
// TypeScript declarations of a tool list (W5), through the peer's own API:
//
//   { name, notes, versions(), hostCap, init?(), run?(program, handlers), render?(tools) }
//
// `handlers` maps a tool name to an async host function. `hostCap` says the
// peer has no cap of its own on a run's sub-calls in flight, so W3 puts
// lib/workloads.js's cap in front of the handlers.
'use strict';
const path = require('path');
const { pathToFileURL } = require('url');
const W = require('./workloads');

const NAMES = W.TOOLS50.map((t) => t.name);
const asyncBody = (program) => `(async () => {\n${program}\n})()`;
// Guest code that returns the program's result as JSON text, so only strings
// cross a sandbox's boundary.
const asJsonText = (program) => `${asyncBody(program)}.then((v) => JSON.stringify(v === undefined ? null : v))`;
// Guest code that binds `tools.<name>` to a host function `call(name, argsJson)`
// returning a promise of the result's JSON text, then hides `call`.
const bindTools = (callExpr) => `{
  const call = globalThis.__ptc_call;
  delete globalThis.__ptc_call;
  const tools = {};
  for (const name of ${JSON.stringify(NAMES)}) {
    tools[name] = (args) => ${callExpr}.then((text) => JSON.parse(text));
  }
  globalThis.tools = Object.freeze(tools);
}`;
const hostCall = (handlers) => async (name, argsJson) => {
  const handler = handlers.get(name);
  if (!handler) throw new Error(`unknown tool ${name}`);
  const value = await handler(JSON.parse(argsJson));
  return JSON.stringify(value === undefined ? null : value);
};

const plain = {
  name: 'plain-node (no sandbox, floor)',
  notes: 'the program as an AsyncFunction in the host realm, tools = the host handlers themselves; no isolation, no copying: the floor of harness + handlers + Node timers.',
  hostCap: true,
  versions: () => ({}),
  run(program, handlers) {
    const AsyncFunction = (async () => {}).constructor;
    return new AsyncFunction('tools', program)(Object.fromEntries(handlers));
  },
};

const nodeVm = {
  name: 'node:vm',
  notes: 'vm.createContext + runInContext per run; tools = the host handlers passed in by reference (not a security boundary; nothing is copied).',
  hostCap: true,
  versions: () => ({}),
  run(program, handlers) {
    const vm = require('vm');
    const context = vm.createContext({ tools: Object.fromEntries(handlers) });
    return vm.runInContext(asyncBody(program), context, { timeout: 30000 });
  },
};

let ivm;
const isolatedVm = {
  name: 'isolated-vm',
  notes: 'a new Isolate (memoryLimit 128 MB) and context per run, disposed after it; one host Reference dispatches every tool, called with apply(..., { result: { promise: true } }) so calls overlap; arguments and results cross as JSON text.',
  hostCap: true,
  versions: () => ({ 'isolated-vm': W.packageVersion('isolated-vm') }),
  init() {
    ivm = require('isolated-vm');
  },
  async run(program, handlers) {
    const isolate = new ivm.Isolate({ memoryLimit: 128 });
    try {
      const context = await isolate.createContext();
      await context.global.set('__ptc_call', new ivm.Reference(hostCall(handlers)));
      await context.eval(bindTools('call.apply(undefined, [name, JSON.stringify(args === undefined ? {} : args)], { result: { promise: true } })'));
      const text = await context.eval(asJsonText(program), { promise: true, timeout: 30000 });
      return JSON.parse(text);
    } finally {
      isolate.dispose();
    }
  },
};

let qjs;
const quickjsEmscripten = {
  name: 'quickjs-emscripten',
  notes: 'getQuickJS() (the release sync WASM build) once; a new runtime (128 MB memory limit, 30 s interrupt deadline) and context per run; one host function dispatches every tool and returns a QuickJS promise settled from the host event loop, then pending jobs run; arguments and results cross as JSON text.',
  hostCap: true,
  versions: () => ({ 'quickjs-emscripten': W.packageVersion('quickjs-emscripten') }),
  async init() {
    qjs = await require('quickjs-emscripten').getQuickJS();
  },
  async run(program, handlers) {
    const { shouldInterruptAfterDeadline } = require('quickjs-emscripten');
    const call = hostCall(handlers);
    const rt = qjs.newRuntime();
    rt.setMemoryLimit(128 * 1024 * 1024);
    rt.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + 30000));
    const ctx = rt.newContext();
    const runJobs = () => {
      if (ctx.alive) rt.executePendingJobs().unwrap();
    };
    try {
      const fn = ctx.newFunction('__ptc_call', (nameHandle, argsHandle) => {
        const deferred = ctx.newPromise();
        call(ctx.getString(nameHandle), ctx.getString(argsHandle))
          .then(
            (text) => ctx.alive && ctx.newString(text).consume((h) => deferred.resolve(h)),
            (err) => ctx.alive && ctx.newError(String((err && err.message) || err)).consume((h) => deferred.reject(h)),
          )
          .then(runJobs);
        return deferred.handle;
      });
      ctx.setProp(ctx.global, '__ptc_call', fn);
      fn.dispose();
      ctx.unwrapResult(ctx.evalCode(bindTools('call(name, JSON.stringify(args === undefined ? {} : args))'))).dispose();
      const promise = ctx.unwrapResult(ctx.evalCode(asJsonText(program)));
      const settled = ctx.resolvePromise(promise);
      promise.dispose();
      runJobs();
      const text = ctx.unwrapResult(await settled).consume((h) => ctx.getString(h));
      return JSON.parse(text);
    } finally {
      ctx.dispose();
      rt.dispose();
    }
  },
};

// @utcp/code-mode: tools registered through @utcp/direct-call, runs through
// CodeModeUtcpClient.callToolChain. direct-call passes a call's argument
// values positionally, so each callable names its parameters again.
let utcp;
const POSITIONAL = {
  echo: (value) => ({ value }),
  sleep: (ms, i) => ({ ms, i }),
  get_rows: (limit) => (limit === undefined ? {} : { limit }),
};
async function utcpClient(manual, tools) {
  const { registerCallable } = require('@utcp/direct-call');
  const { CodeModeUtcpClient } = require('@utcp/code-mode');
  registerCallable(`${manual}__manual`, () => ({
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputs: t.parameters,
      outputs: t.output || {},
      tags: [],
      tool_call_template: { call_template_type: 'direct-call', callable_name: `${manual}__${t.name}` },
    })),
  }));
  const client = await CodeModeUtcpClient.create(__dirname, null);
  const result = await client.registerManual({ name: manual, call_template_type: 'direct-call', callable_name: `${manual}__manual` });
  if (!result.success) throw new Error(`registerManual: ${result.errors.join('; ')}`);
  return client;
}
const utcpCodeMode = {
  name: '@utcp/code-mode',
  notes: 'CodeModeUtcpClient.callToolChain(program, 30000, 128) per run (a fresh isolated-vm isolate and context, every tool bound); tools registered through @utcp/direct-call; a tool call blocks the guest (applySyncPromise), so one call of a run is in flight at a time and W3 needs no host cap. W5: getAllToolsTypeScriptInterfaces() with its per-tool cache emptied before each render.',
  hostCap: false,
  versions: () => Object.fromEntries(['@utcp/code-mode', '@utcp/sdk', '@utcp/direct-call', 'isolated-vm'].map((p) => [p, W.packageVersion(p)])),
  async init() {
    // UTCP logs every call on console.log; stdout carries the records.
    console.log = () => {};
    const { registerCallable } = require('@utcp/direct-call');
    for (const name of NAMES) {
      const handler = W.HANDLERS.get(name);
      const toArgs = POSITIONAL[name] || ((...values) => ({ values }));
      registerCallable(`tools__${name}`, (...values) => handler(toArgs(...values)));
    }
    utcp = { runs: await utcpClient('tools', W.TOOLS50), render: null };
  },
  async run(program) {
    const { result, logs } = await utcp.runs.callToolChain(program, 30000, 128);
    const failure = logs.find((line) => line.startsWith('[ERROR]'));
    if (failure) throw new Error(failure);
    return result;
  },
  async render(tools) {
    utcp.render = utcp.render || (await utcpClient('w5', tools));
    utcp.render.toolFunctionCache.clear();
    return utcp.render.getAllToolsTypeScriptInterfaces();
  },
};

// json-schema-to-typescript: each tool's input (and output) schema compiled
// to a named type, then one `declare const tools` listing the functions.
function typeName(toolName, taken) {
  let base = toolName
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');
  if (!/^[A-Za-z]/.test(base)) base = `Tool${base}`;
  let name = base;
  for (let k = 2; taken.has(name); k++) name = `${base}${k}`;
  taken.add(name);
  return name;
}
function jsonSchemaToTs(format) {
  return {
    name: format ? 'json-schema-to-typescript' : 'json-schema-to-typescript (format:false)',
    notes: `compile(schema, Name, { bannerComment: '', format: ${format} }) for each tool's input and output schema, one tool after another, then a \`declare const tools\` block.`,
    versions: () => ({ 'json-schema-to-typescript': W.packageVersion('json-schema-to-typescript') }),
    async render(tools) {
      const { compile } = require('json-schema-to-typescript');
      const options = { bannerComment: '', format };
      const taken = new Set();
      const parts = [];
      const members = [];
      // The library may respell a name (`K8s` as `K8S`): use the one it declared.
      const emit = async (schema, wanted) => {
        const text = await compile(schema, wanted, options);
        parts.push(text);
        const declared = /export (?:interface|type) ([A-Za-z0-9_$]+)/.exec(text);
        if (!declared) throw new Error(`no type declared for ${wanted}`);
        return declared[1];
      };
      for (const tool of tools) {
        const name = typeName(tool.name, taken);
        const input = await emit(tool.parameters, `${name}Input`);
        const output = tool.output ? await emit(tool.output, `${name}Output`) : 'unknown';
        const doc = (tool.description || '').replace(/\*\//g, '*\\/');
        members.push(`  /** ${doc} */\n  ${JSON.stringify(tool.name)}(input: ${input}): Promise<${output}>;`);
      }
      parts.push(`declare const tools: {\n${members.join('\n')}\n};\n`);
      return parts.join('\n');
    },
  };
}

// @cloudflare/codemode's main entry imports `cloudflare:workers`, which only
// the Workers runtime provides; lib/workers-hook.mjs stands in for it so
// Node can load the entry and its exported generateTypesFromJsonSchema.
let generateTypes;
const cloudflareCodemode = {
  name: '@cloudflare/codemode',
  notes: "generateTypesFromJsonSchema({ [name]: { description, inputSchema, outputSchema } }) from the package's main entry (`cloudflare:workers` stubbed for Node); building that input is timed too.",
  versions: () => ({ '@cloudflare/codemode': W.packageVersion('@cloudflare/codemode') }),
  async init() {
    require('module').register(pathToFileURL(path.join(__dirname, 'workers-hook.mjs')));
    ({ generateTypesFromJsonSchema: generateTypes } = await import('@cloudflare/codemode'));
  },
  render(tools) {
    const descriptors = {};
    for (const t of tools) {
      descriptors[t.name] = { description: t.description, inputSchema: t.parameters, ...(t.output && { outputSchema: t.output }) };
    }
    return generateTypes(descriptors);
  },
};

module.exports = {
  plain,
  'node-vm': nodeVm,
  'isolated-vm': isolatedVm,
  'quickjs-emscripten': quickjsEmscripten,
  'utcp-code-mode': utcpCodeMode,
  'json-schema-to-typescript': jsonSchemaToTs(true),
  'json-schema-to-typescript-noformat': jsonSchemaToTs(false),
  'cloudflare-codemode': cloudflareCodemode,
};
