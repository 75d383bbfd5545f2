#!/usr/bin/env python3
"""A complete ptc host in a few lines: it registers one tool, runs a program
that calls it, answers ptc's tools/call requests, prints the run's events
and finally the run's result.

    python3 examples/host.py                        # runs `cargo run --quiet -- serve`
    python3 examples/host.py target/release/ptc serve
"""
import json
import subprocess
import sys

command = sys.argv[1:] or ["cargo", "run", "--quiet", "--", "serve"]
ptc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def send(message):
    ptc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    ptc.stdin.flush()


WEATHER = {"Paris": 18, "Oslo": 9, "Lima": 24}

send({"id": 1, "method": "tools/register", "params": {"tools": [{
    "name": "get_weather",
    "description": "The current temperature in a city.",
    "readOnly": True,
    "callTitle": "Weather in {city}",  # how calls read in events and approvals
    "resultTitle": "{city}: {result.celsius} °C",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "output": {"type": "object", "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
               "required": ["city", "celsius"]},
}]}})
send({"id": 2, "method": "run_code", "params": {
    "description": "Find the warmest city",
    "code": """
        const cities = ["Paris", "Oslo", "Lima", "Atlantis"];
        const found = await Promise.allSettled(cities.map((city) => tools.get_weather({ city })));
        const known = found.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
        for (const w of known) console.log(`${w.city}: ${w.celsius} °C`);
        return `warmest: ${known.reduce((a, b) => (b.celsius > a.celsius ? b : a)).city}`;
    """,
}})

for line in ptc.stdout:
    message = json.loads(line)
    method = message.get("method")
    if method == "tools/call":  # ptc asks the host to run a tool
        city = message["params"]["arguments"]["city"]
        if city in WEATHER:
            send({"id": message["id"], "result": {"value": {"city": city, "celsius": WEATHER[city]}}})
        else:
            send({"id": message["id"], "error": {"code": -32000, "message": f"no weather for {city}"}})
    elif method == "tools/approve":  # only for tools with "policy": "ask"
        print("approving:", message["params"]["title"])
        send({"id": message["id"], "result": {"approved": True}})
    elif method == "run/event":
        print("event:", json.dumps(message["params"], ensure_ascii=False))
    elif method == "$/cancel":
        print("ptc stopped waiting for request", message["params"]["id"])
    elif message.get("id") == 1:
        print("registered:", message["result"]["registered"])
    elif message.get("id") == 2:
        print("result:", json.dumps(message["result"], indent=2, ensure_ascii=False))
        break

ptc.stdin.close()  # end of input: ptc exits
sys.exit(ptc.wait())
