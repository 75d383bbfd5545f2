"""An MCP server on stdio for the startup tests: argv[1] is the mode,
argv[2] (for `fail-once`) a file that marks the first start. Its tools are
`zeta`, `alpha`, `mid`, in that order (not sorted: the order is the
server's own).

Modes:
- `ready`: answers at once;
- `slow:MS`: waits MS milliseconds before answering `initialize`;
- `jitter`: waits a random 0-300 ms before answering `initialize`, then
  announces `notifications/tools/list_changed` as soon as it is
  initialized (as some real servers do at start);
- `fail-once`: the first start (when argv[2] does not exist yet) creates
  argv[2], says why on stderr and exits 1; later starts answer at once;
- `broken`: says why on stderr and exits 1, every time;
- `skips`: answers at once, lists a tool whose name ptc cannot take
  (`has space`) beside the usual ones, and announces
  `notifications/tools/list_changed` as soon as it is initialized, so ptc
  lists it twice."""

import json
import os
import random
import sys
import time

MODE = sys.argv[1]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    if MODE == "broken":
        sys.stderr.write("startup server: missing API token PTC_TEST_TOKEN\n")
        sys.exit(1)
    if MODE == "fail-once" and not os.path.exists(sys.argv[2]):
        open(sys.argv[2], "w").close()
        sys.stderr.write("startup server: first start fails on purpose\n")
        sys.exit(1)
    delay = 0.0
    if MODE.startswith("slow:"):
        delay = int(MODE.split(":")[1]) / 1000
    elif MODE == "jitter":
        delay = random.uniform(0, 0.3)
    for line in sys.stdin:
        message = json.loads(line)
        method, id = message.get("method"), message.get("id")
        if method == "initialize":
            time.sleep(delay)
            send({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "startup", "version": "1"},
            }})
        elif method == "notifications/initialized" and MODE in ("jitter", "skips"):
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        elif method == "tools/list":
            names = ("zeta", "alpha", "mid") + (("has space",) if MODE == "skips" else ())
            tools = [{"name": n, "inputSchema": {"type": "object"}} for n in names]
            send({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}})
        elif method == "tools/call":
            name = message["params"]["name"]
            send({"jsonrpc": "2.0", "id": id, "result": {
                "content": [{"type": "text", "text": json.dumps(name)}]}})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": id, "result": {}})


main()
