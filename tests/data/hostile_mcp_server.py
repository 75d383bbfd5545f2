"""A hostile MCP server on stdio, one behaviour per mode (argv[1]); it
logs what it receives to argv[2], one line each. Python, not rmcp: rmcp's
server types cannot send the malformed lists these modes need."""

import json
import sys

MODE, LOG = sys.argv[1], sys.argv[2]
if MODE == "stubborn":
    # Neither stdin's end nor SIGTERM ends it.
    import os
    import signal
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with open(LOG, "a") as f:
        f.write(f"pid {os.getpid()}\n")
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
    if MODE in ("stubborn", "pingflood"):
        return answer(id, {"tools": [tool("fine")]})
    if MODE == "answers":
        names = ["fine", "bad_utf8", "surrogate", "bad_utf8_key", "surrogate_key", "zeros", "zeros_text", "near_bound", "huge_line", "forks"]
        return answer(id, {"tools": [tool(n) for n in names]})
    # flood: later re-lists are never answered.


def call(id, name):
    """answers: a call answered as its tool's name says."""
    head = '{"jsonrpc": "2.0", "id": %s, "result": ' % json.dumps(id)
    if name == "bad_utf8":
        text = '{"content": [{"type": "text", "text": "caf\xe9"}]}'
        sys.stdout.buffer.write(head.encode() + text.encode("latin-1") + b"}\n")
    elif name == "bad_utf8_key":
        text = '{"content": [], "structuredContent": {"caf\xe9": 1}}'
        sys.stdout.buffer.write(head.encode() + text.encode("latin-1") + b"}\n")
    elif name == "surrogate_key":
        sys.stdout.write(head + '{"content": [], "structuredContent": {"\\ud83c": 1}}}\n')
    elif name == "surrogate":
        send({"jsonrpc": "2.0", "id": id, "result": {
            "content": [{"type": "text", "text": "\ud83c"}]}})
    elif name == "zeros":
        # 16,000,000 bytes of zeros: under the 16 MiB line limit.
        zeros = "0," * 7_999_999 + "0"
        sys.stdout.write(head + '{"content": [], "structuredContent": {"z": [' + zeros + "]}}}\n")
    elif name == "near_bound":
        # 455,000 zeros: parsing them would cost just under the 64 MiB a
        # message may cost, so every one of them is parsed.
        zeros = "0," * 454_999 + "0"
        sys.stdout.write(head + '{"content": [], "structuredContent": {"z": [' + zeros + "]}}}\n")
    elif name == "zeros_text":
        # The same zeros as JSON text in a text block: one string in the
        # message, eight million values once the text is parsed.
        zeros = "0," * 7_999_999 + "0"
        sys.stdout.write(head + '{"content": [{"type": "text", "text": "[' + zeros + ']"}]}}\n')
    elif name == "huge_line":
        sys.stdout.write(head + '{"content": [{"type": "text", "text": "' + "x" * (17 << 20) + '"}]}}\n')
    elif name == "forks":
        import subprocess
        child = subprocess.Popen(["sleep", "999"])
        log(f"grandchild {child.pid}")
        answer(id, {"content": [{"type": "text", "text": str(child.pid)}]})
        return
    else:
        answer(id, {"content": [{"type": "text", "text": "\"ok\""}]})
    sys.stdout.flush()


def main():
    lists = 0
    for line in iter(sys.stdin.readline, ""):
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
        elif method == "tools/call" and MODE == "answers":
            call(id, message["params"]["name"])
        elif method == "tools/call":
            answer(id, {"content": [{"type": "text", "text": "\"ok\""}]})
        if MODE == "pingflood" and method == "tools/list":
            # Requests ptc must answer, from a server that reads nothing
            # until the flood is over; then it reads on (passing over the
            # answers), so a call waits exactly for the flood's end.
            for n in range(300_000):
                send({"jsonrpc": "2.0", "id": f"p{n}", "method": "ping"})
            log("flooded")
    if MODE == "stubborn":
        import time
        time.sleep(3600)


main()
