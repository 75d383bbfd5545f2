// Drives `ptc mcp` with the official MCP TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in package.json), the client most
// desktop and IDE hosts embed. It checks `structuredContent` against the
// tool's `outputSchema` and throws -32602 when they disagree, so every
// answer that comes back as a result here is one the SDK accepted.
//
// Usage: node drive.mjs '<plan as JSON>'
//
// The plan:
//   server: { stdio: { command, args, cwd? } } or { http: URL }
//   answer: how to answer each elicitation, "accept", "decline" or
//           "cancel"; absent, the client declares no elicitation.
//   calls:  [{ label, name, arguments, cancelAtProgress?, timeoutMs?,
//              resetTimeoutOnProgress? }], made one after another after
//           `tools/list` (which is where the SDK learns the output schemas).
//   list:   false to call without listing first, as a one-shot client
//           does (the Inspector CLI's `tools/call`); `tools` is then [].
//           `cancelAtProgress` aborts the call at its first progress
//           notification (the SDK sends notifications/cancelled);
//           `timeoutMs` is the SDK's request timeout (default 60 s), reset
//           by each progress notification with `resetTimeoutOnProgress`.
//
// Prints one JSON object on stdout: { tools, calls: [{ label, result? |
// error?, progress, seconds }], elicitations }. Exit status 3: the SDK is
// not installed (`npm ci`). Rust tests (tests/mcp_ts_client.rs) run it.

let sdk;
try {
  sdk = {
    ...(await import("@modelcontextprotocol/sdk/client/index.js")),
    ...(await import("@modelcontextprotocol/sdk/client/stdio.js")),
    ...(await import("@modelcontextprotocol/sdk/client/streamableHttp.js")),
    ...(await import("@modelcontextprotocol/sdk/types.js")),
  };
} catch (error) {
  console.error(`the MCP TypeScript SDK is missing (${error.message}): run \`npm ci\``);
  process.exit(3);
}

const plan = JSON.parse(process.argv[2]);
const elicitations = [];

function transportOf(server) {
  if (server.stdio) {
    const { command, args, cwd } = server.stdio;
    return new sdk.StdioClientTransport({ command, args, cwd, stderr: "ignore" });
  }
  return new sdk.StreamableHTTPClientTransport(new URL(server.http));
}

const capabilities = plan.answer ? { elicitation: { form: {} } } : {};
const client = new sdk.Client({ name: "ptc-tests-ts", version: "1.0.0" }, { capabilities });
if (plan.answer) {
  client.setRequestHandler(sdk.ElicitRequestSchema, async (request) => {
    elicitations.push({ message: request.params.message, schema: request.params.requestedSchema });
    if (plan.answer === "accept") return { action: "accept", content: {} };
    return { action: plan.answer };
  });
}

async function call(spec) {
  const progress = [];
  const controller = new AbortController();
  const began = performance.now();
  const options = {
    signal: controller.signal,
    onprogress: (p) => {
      progress.push({ progress: p.progress, total: p.total ?? null, message: p.message ?? null });
      if (spec.cancelAtProgress) controller.abort("the user pressed stop");
    },
  };
  if (spec.timeoutMs !== undefined) options.timeout = spec.timeoutMs;
  if (spec.resetTimeoutOnProgress) options.resetTimeoutOnProgress = true;
  const answer = { label: spec.label };
  try {
    const result = await client.callTool({ name: spec.name, arguments: spec.arguments }, undefined, options);
    answer.result = {
      isError: result.isError ?? false,
      content: result.content,
      structuredContent: result.structuredContent ?? null,
    };
  } catch (error) {
    answer.error = { name: error?.name ?? null, code: error?.code ?? null, message: String(error?.message ?? error) };
  }
  answer.progress = progress;
  answer.seconds = (performance.now() - began) / 1000;
  return answer;
}

let output;
try {
  await client.connect(transportOf(plan.server));
  const listed = plan.list === false ? { tools: [] } : await client.listTools();
  const calls = [];
  for (const spec of plan.calls ?? []) calls.push(await call(spec));
  output = { tools: listed.tools, calls };
} catch (error) {
  output = { failed: String(error?.stack ?? error) };
} finally {
  await client.close().catch(() => {});
}
output.elicitations = elicitations;
process.stdout.write(JSON.stringify(output) + "\n");
process.exit(0);
