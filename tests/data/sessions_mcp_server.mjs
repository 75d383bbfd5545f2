// A hostile upstream MCP server for tests/mcp_sessions.rs, written with the
// official MCP TypeScript SDK: it serves the calls of every session ptc
// has, and says things about each call that must reach that call's client
// only.
//
// Usage: node sessions_mcp_server.mjs stdio
//        node sessions_mcp_server.mjs http   (prints `port <n>` on stdout)
//
// Tools:
// - `secret({ secret, together, release })`: waits until `together` calls
//   of it are in flight (so the others listen), then says the secret in a
//   log line tied to the call (`sendNotification` of the request's handler:
//   on its response stream over HTTP) and in one tied to nothing
//   (`sendLoggingMessage`: the stream ptc opens with `GET`), 0.3 s apart,
//   then sends a progress notification `logged` for the call's token (so
//   the test knows both lines went before it), waits for the file
//   `release` to exist, and answers with the secret;
// - `ask({ secret, together })`: waits likewise, then asks its client for
//   a form (`elicitation/create`) whose message holds the secret, tied to
//   the call, and answers with the reply;
// - `crash({ secret, exit })`: writes `working for <secret>` on stderr,
//   then exits when `exit`, else answers.

import { existsSync } from "node:fs";
import { createServer } from "node:http";

let sdk;
try {
  sdk = {
    ...(await import("@modelcontextprotocol/sdk/server/index.js")),
    ...(await import("@modelcontextprotocol/sdk/server/stdio.js")),
    ...(await import("@modelcontextprotocol/sdk/server/streamableHttp.js")),
    ...(await import("@modelcontextprotocol/sdk/types.js")),
  };
} catch (error) {
  console.error(`the MCP TypeScript SDK is missing (${error.message}): run \`npm ci\``);
  process.exit(3);
}

const server = new sdk.Server(
  { name: "sessions", version: "1.0.0" },
  { capabilities: { tools: {}, logging: {} } },
);

const object = { type: "object" };
server.setRequestHandler(sdk.ListToolsRequestSchema, async () => ({
  tools: [
    { name: "secret", inputSchema: object },
    { name: "ask", inputSchema: object },
    { name: "crash", inputSchema: object },
  ],
}));

// The calls of `secret` waiting for the others.
const arrived = [];
function together(count) {
  return new Promise((resolve) => {
    arrived.push(resolve);
    if (arrived.length >= count) for (const go of arrived.splice(0)) go();
  });
}

// ptc's client hears the latest of a call's notes when it reads slower
// than they come (docs/mcp.md, Progress): apart, none replaces another.
const pause = () => new Promise((r) => setTimeout(r, 300));

async function released(path) {
  while (!existsSync(path)) await new Promise((r) => setTimeout(r, 20));
}

const text = (value) => ({ content: [{ type: "text", text: value }] });

server.setRequestHandler(sdk.CallToolRequestSchema, async (request, extra) => {
  const args = request.params.arguments ?? {};
  if (request.params.name === "crash") {
    process.stderr.write(`working for ${args.secret}\n`);
    if (args.exit) process.exit(1);
    return text(args.secret);
  }
  if (request.params.name === "ask") {
    await together(args.together ?? 1);
    const reply = await extra.sendRequest(
      {
        method: "elicitation/create",
        params: {
          mode: "form",
          message: `Which branch for ${args.secret}?`,
          requestedSchema: { type: "object", properties: { branch: { type: "string" } } },
        },
      },
      sdk.ElicitResultSchema,
    );
    return text(JSON.stringify({ secret: args.secret, reply }));
  }
  await together(args.together ?? 1);
  await extra.sendNotification({
    method: "notifications/message",
    params: { level: "info", logger: "tied", data: { secret: args.secret } },
  });
  await pause();
  await server.sendLoggingMessage({ level: "info", logger: "untied", data: { secret: args.secret } });
  await pause();
  const token = request.params._meta?.progressToken;
  if (token !== undefined) {
    await extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken: token, progress: 1, message: "logged" },
    });
  }
  await released(args.release);
  return text(args.secret);
});

if (process.argv[2] === "http") {
  const transport = new sdk.StreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
  });
  await server.connect(transport);
  const http = createServer((req, res) => transport.handleRequest(req, res));
  http.listen(0, "127.0.0.1", () => console.log(`port ${http.address().port}`));
  process.stdin.on("end", () => process.exit(0));
  process.stdin.resume();
} else {
  await server.connect(new sdk.StdioServerTransport());
}
