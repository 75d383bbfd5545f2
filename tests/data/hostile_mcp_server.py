"""A hostile MCP server on stdio, one behaviour per mode (argv[1]); it
logs what it receives to argv[2], one line each. Python, not rmcp: rmcp's
server types cannot send the malformed lists these modes need."""

import json
import sys

MODE, LOG = sys.argv[1], sys.argv[2]
FLOOD = 10_000


def log(line):
    with open(LOG, "a") as f:
        f.write(line + "\n")


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(id, result):
    send({"jsonrpc": "2.0", "id": id, "result": result})


def tool(name, **rest):
    return {"name": name, "inputSchema": {"type": "object"}, **rest}


def tools_list(id, params, lists):
    if MODE == "malformed":
        bad = [
            {"name": "array_schema", "inputSchema": []},
            tool("number_description", description=5),
            {"name": "no_schema"},
        ]
        return answer(id, {"tools": [tool("first"), *bad, tool("last")]})
    if MODE == "endless":
        page = int((params or {}).get("cursor", "0"))
        names = [tool(f"p{page}_{i}", description="x" * 200) for i in range(100)]
        return answer(id, {"tools": names, "nextCursor": str(page + 1)})
    if MODE == "flood" and lists == 1:
        return answer(id, {"tools": [tool("only")]})
    # flood: later re-lists are never answered.


def main():
    lists = 0
    for line in sys.stdin:
        message = json.loads(line)
        method, id = message.get("method"), message.get("id")
        if method == "initialize":
            answer(id, {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "hostile", "version": "1"},
            })
        elif method == "notifications/initialized" and MODE == "flood":
            pass
        elif method == "tools/list":
            lists += 1
            log(f"list {lists}")
            tools_list(id, message.get("params"), lists)
            if MODE == "flood" and lists == 1:
                for _ in range(FLOOD):
                    send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
                send({"jsonrpc": "2.0", "id": "done", "method": "ping"})
        elif method == "ping":
            answer(id, {})
        elif method is None and id == "done":
            log("flood consumed")
        elif method == "tools/call":
            answer(id, {"content": [{"type": "text", "text": "\"ok\""}]})


main()
