"""A hostile streamable HTTP MCP server: it answers `initialize`,
notifications and `tools/list` as a server should, then each `tools/call`
as its tool's name says, as a JSON body (`*_json`) or as one SSE event
(`*_sse`). Its `task_only` tool says `execution.taskSupport: "required"`;
with `--sse-lists` it answers `tools/list` as an SSE stream (a log message,
then the answer) instead of a JSON body. It prints `port <n>` once it
listens on 127.0.0.1. Python, not rmcp: rmcp's server cannot send a 16 MB
array of zeros."""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

KINDS = ["json", "sse"]
TOOLS = [f"{name}_{kind}" for name in ["fine", "zeros", "long"] for kind in KINDS]
SSE_LISTS = "--sse-lists" in sys.argv[1:]


def result(name):
    """The `result` of a call of `name`, as JSON text."""
    if name.startswith("zeros"):
        # 16,000,000 bytes of zeros: under the 16 MiB limit, eight million values.
        zeros = "0," * 7_999_999 + "0"
        return '{"content": [], "structuredContent": {"z": [' + zeros + "]}}"
    if name.startswith("long"):
        # 17 MiB of text: past the 16 MiB limit, one value.
        return json.dumps({"content": [{"type": "text", "text": "x" * (17 << 20)}]})
    return json.dumps({"content": [{"type": "text", "text": f"fine over {name[5:]}"}]})


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        # No stream of the server's own messages.
        self.send_response(405)
        self.end_headers()

    def do_DELETE(self):
        self.send_response(200)
        self.end_headers()

    def do_POST(self):
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        method, id = message.get("method"), message.get("id")
        if id is None:
            self.send_response(202)
            self.end_headers()
        elif method == "initialize":
            self.json(id, json.dumps({
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile-http", "version": "1"},
            }))
        elif method == "tools/list":
            tools = [{"name": n, "inputSchema": {"type": "object"}} for n in TOOLS]
            tools.insert(1, {"name": "task_only", "inputSchema": {"type": "object"},
                             "execution": {"taskSupport": "required"}})
            if SSE_LISTS:
                self.sse(id, json.dumps({"tools": tools}), before=[{
                    "jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "listing"}}])
            else:
                self.json(id, json.dumps({"tools": tools}))
        elif method == "tools/call":
            name = message["params"]["name"]
            if name.endswith("_sse"):
                self.sse(id, result(name))
            else:
                self.json(id, result(name))
        else:
            self.json(id, "{}")

    def answer(self, id, result):
        return ('{"jsonrpc": "2.0", "id": %s, "result": %s}' % (json.dumps(id), result)).encode()

    def json(self, id, result):
        body = self.answer(id, result)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Mcp-Session-Id", "hostile")
        self.end_headers()
        self.send(body)

    def sse(self, id, result, before=()):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Mcp-Session-Id", "hostile")
        self.end_headers()
        events = [json.dumps(message).encode() for message in before] + [self.answer(id, result)]
        self.send(b"".join(b"event: message\ndata: " + event + b"\n\n" for event in events))

    def send(self, body):
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # ptc stopped reading a body too long to keep


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"port {server.server_address[1]}", flush=True)
server.serve_forever()
