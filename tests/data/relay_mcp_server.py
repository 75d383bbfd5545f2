"""An upstream MCP server on stdio for tests/mcp_upstream.rs: what `ptc mcp`
must pass through to its own client. Plain JSON-RPC lines, so every
message is the test's to choose.

Tools:
- `links`: a text block and two `resource_link` blocks;
- `needs_task`: `execution.taskSupport: "required"` (only callable as a
  task); `may_task`: `"optional"`;
- `report`: sends `notifications/progress` for the call's progress token
  (when it has one), one for a token it was not given, and a
  `notifications/message` log line, 0.3 s apart (so none coalesces with
  the next), then answers with whether it got a token;
- `odd_links`: a text block, two `resource_link` blocks, and between them
  blocks of the wrong shape (a link without a `uri`, one whose `uri` is a
  number, a text block without text);
- `ask` (listed only to a client that declared `elicitation`): sends
  `elicitation/create` (the `message` and `form` of its arguments, else
  "Which branch?" and one text field) and answers with the client's reply;
- `url` (listed likewise): sends a URL-mode `elicitation/create` (which
  ptc, declaring form elicitation only, must refuse) and answers with the
  reply;
- `hostile` (listed likewise): sends one elicitation request of 100 kB,
  then ten at once, and answers with what became of each (`accept`, or
  `error: <message>`), and of the one it sent right after
  `notifications/initialized`, with no call in flight (`n1`);
- `replies`: what became of the server's requests so far, by id (`accept`,
  or `error: <message>`)."""

import json
import sys
import time

CLIENT_CAPABILITIES = {}
# The answers to the server's own requests, by id.
REPLIES = {}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(id, result):
    send({"jsonrpc": "2.0", "id": id, "result": result})


def text(value):
    return {"type": "text", "text": value}


def tools():
    listed = [
        {"name": "links", "inputSchema": {"type": "object"}},
        {"name": "odd_links", "inputSchema": {"type": "object"}},
        {"name": "needs_task", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
        {"name": "may_task", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}},
        {"name": "report", "inputSchema": {"type": "object"}},
        {"name": "replies", "inputSchema": {"type": "object"}},
    ]
    if "elicitation" in CLIENT_CAPABILITIES:
        listed.append({"name": "ask", "inputSchema": {"type": "object"}})
        listed.append({"name": "url", "inputSchema": {"type": "object"}})
        listed.append({"name": "hostile", "inputSchema": {"type": "object"}})
    return listed


def next_message():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def call(id, params):
    name = params["name"]
    if name == "links":
        return answer(id, {"content": [
            text("2 matches"),
            {"type": "resource_link", "uri": "file:///docs/a.md", "name": "a.md", "mimeType": "text/markdown"},
            {"type": "resource_link", "uri": "file:///docs/b.md", "name": "b.md", "annotations": {"priority": 1}},
        ]})
    if name == "odd_links":
        return answer(id, {"content": [
            text("2 matches"),
            {"type": "resource_link", "uri": "file:///docs/a.md", "name": "a.md"},
            {"type": "resource_link", "name": "no uri"},
            {"type": "resource_link", "uri": 7, "name": "a number"},
            {"type": "text"},
            {"type": "resource_link", "uri": "file:///docs/b.md", "name": "b.md"},
        ]})
    if name == "report":
        token = (params.get("_meta") or {}).get("progressToken")
        notes = [{"progressToken": "not-given", "progress": 1, "message": "not for this call"}]
        if token is not None:
            notes += [{"progressToken": token, "progress": 1, "total": 2, "message": "step 1 of 2"},
                      {"progressToken": token, "progress": 2, "total": 2}]
        for note in notes:
            send({"jsonrpc": "2.0", "method": "notifications/progress", "params": note})
            time.sleep(0.3)
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "info", "logger": "relay", "data": "indexing 40 files"}})
        time.sleep(0.3)
        return answer(id, {"content": [text(json.dumps({"token": token is not None}))]})
    if name == "ask":
        arguments = params.get("arguments") or {}
        return elicit(id, "e1", {
            "mode": "form", "message": arguments.get("message", "Which branch?"),
            "requestedSchema": arguments.get("form") or
                {"type": "object", "properties": {"branch": {"type": "string"}}}})
    if name == "url":
        return elicit(id, "u1", {
            "mode": "url", "message": "Sign in to continue.",
            "url": "https://example.com/sign-in", "elicitationId": "sign-in-1"})
    if name == "hostile":
        ids = ["h1"] + [f"f{n}" for n in range(10)]
        for asked in ids:
            words = "x" * 100_000 if asked == "h1" else f"Flood {asked}?"
            send({"jsonrpc": "2.0", "id": asked, "method": "elicitation/create", "params": {
                "mode": "form", "message": words,
                "requestedSchema": {"type": "object", "properties": {}}}})
        while not all(asked in REPLIES for asked in ids + ["n1"]):
            handle(next_message())
        summary = {asked: REPLIES[asked] for asked in ids + ["n1"]}
        return answer(id, {"content": [text(json.dumps(summary))]})
    if name == "replies":
        return answer(id, {"content": [text(json.dumps(REPLIES))]})
    return answer(id, {"content": [text(json.dumps(name))]})


def elicit(id, asked, params):
    """Sends `elicitation/create` as `asked` and answers the call `id`
    with the client's reply (its result, or `{"error": …}`)."""
    send({"jsonrpc": "2.0", "id": asked, "method": "elicitation/create", "params": params})
    while True:
        message = next_message()
        handle(message)
        if message.get("id") == asked and "method" not in message:
            reply = message.get("result") or {"error": message.get("error")}
            return answer(id, {"content": [text(json.dumps(reply))]})


def handle(message):
    global CLIENT_CAPABILITIES
    method, id = message.get("method"), message.get("id")
    if method is None and id is not None:
        error = message.get("error")
        REPLIES[id] = f"error: {error['message']}" if error else message["result"]["action"]
    elif method == "notifications/initialized" and "elicitation" in CLIENT_CAPABILITIES:
        send({"jsonrpc": "2.0", "id": "n1", "method": "elicitation/create", "params": {
            "mode": "form", "message": "Nobody called me?",
            "requestedSchema": {"type": "object", "properties": {}}}})
    elif method == "initialize":
        CLIENT_CAPABILITIES = message["params"].get("capabilities") or {}
        answer(id, {"protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}, "logging": {}},
                    "serverInfo": {"name": "relay", "version": "1"}})
    elif method == "tools/list":
        answer(id, {"tools": tools()})
    elif method == "tools/call":
        call(id, message["params"])
    elif method in ("ping", "logging/setLevel"):
        answer(id, {})


def main():
    while True:
        handle(next_message())


main()
