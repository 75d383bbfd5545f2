"""A hostile stand-in for `ptc serve`: it speaks enough of the host protocol
to start a session, and each `run_code` request's `code` is a JSON list of
what to send, so a test can make ptc's side of the pipe say anything.

Run as ``python fake_serve.py serve``. Every line it reads is appended to
the file named by FAKE_SERVE_LOG (when set), so a test can check what the
library answered. Actions (each a JSON array):

- ``["line", text]``: ``text`` and a newline, as is.
- ``["big", before, n, after]``: ``before``, ``n`` bytes of ``x``, ``after``
  and a newline, written in pieces (the line is never held whole here).
- ``["event", params]``: a ``run/event`` of this run (``runId`` added).
- ``["request", id, method, params]``: a request of ptc's to the host.
- ``["answer", text, extra?]``: answers this run (``isError`` false,
  ``text``, and the members of ``extra``).
- ``["hold"]``: leaves this run unanswered until ``$/cancel`` or a
  ``["release", runId, text]`` of a later run.
- ``["release", runId, text]``: answers a held run.
- ``["await", id]``: reads (and logs) until the host's answer to ``id``.
- ``["exit", status, after]``: closes its output, waits ``after`` seconds
  and exits with ``status``.
- ``["fail", error]``: answers this run with the JSON-RPC error ``error``
  (any JSON).
- ``["stderr", text]``: writes ``text`` (latin-1: any bytes) to stderr.
- ``["signal", n]``: kills itself with signal ``n``.

``initialize`` answers the version FAKE_SERVE_VERSION (default
``0.0.0-fake``), or, with FAKE_SERVE_INITIALIZE set, that JSON as its
whole result.

With FAKE_SERVE_DEAF set it does not exit at the end of its input.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

out = sys.stdout.buffer
held: dict[str, Any] = {}  # runId -> the run_code request's id
answered: set[Any] = set()  # the ids of ptc's requests the host answered
LOG = os.environ.get("FAKE_SERVE_LOG")


def read() -> bytes:
    raw = sys.stdin.buffer.readline()
    if LOG and raw:
        with open(LOG, "ab") as f:
            f.write(raw)
    return raw


def send(message: dict[str, Any]) -> None:
    out.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
    out.flush()


def answer(rid: Any, run_id: str, text: str, kind: str | None = None, extra: Any = None) -> None:
    result: dict[str, Any] = {
        "runId": run_id,
        "isError": kind is not None,
        "content": [{"type": "text", "text": text}],
        "subCalls": 0,
        "elapsedMs": 1.0,
        "cpuMs": 0.5,
    }
    if kind is not None:
        result["kind"] = kind
    send({"id": rid, "result": {**result, **(extra or {})}})


def run_code(rid: Any, params: dict[str, Any]) -> None:
    run_id = params["runId"]
    for action in json.loads(params["code"]):
        what = action[0]
        if what == "line":
            out.write(action[1].encode() + b"\n")
            out.flush()
        elif what == "big":
            out.write(action[1].encode())
            left = action[2]
            piece = b"x" * (1 << 20)
            while left > 0:
                out.write(piece[: min(left, len(piece))])
                left -= len(piece)
            out.write(action[3].encode() + b"\n")
            out.flush()
        elif what == "event":
            send({"method": "run/event", "params": {"runId": run_id, **action[1]}})
        elif what == "request":
            send({"id": action[1], "method": action[2], "params": action[3]})
        elif what == "answer":
            answer(rid, run_id, action[1], None, action[2] if len(action) > 2 else None)
        elif what == "fail":
            send({"id": rid, "error": action[1]})
        elif what == "stderr":
            sys.stderr.buffer.write(action[1].encode("latin-1"))
            sys.stderr.buffer.flush()
        elif what == "signal":
            out.flush()
            os.kill(os.getpid(), action[1])
            time.sleep(10)
        elif what == "exit":
            out.flush()
            os.close(1)  # (sys.stdout does not own fd 1: closing it would not)
            time.sleep(action[2])
            os._exit(action[1])
        elif what == "hold":
            held[run_id] = rid
        elif what == "release":
            answer(held.pop(action[1]), action[1], action[2])
        elif what == "await":
            while action[1] not in answered:
                raw = read()
                if not raw:
                    break
                message = json.loads(raw)
                if "method" not in message:
                    answered.add(message.get("id"))


def main() -> None:
    while raw := read():
        message = json.loads(raw)
        if "method" not in message:
            answered.add(message.get("id"))
        method = message.get("method")
        rid = message.get("id")
        params = message.get("params") or {}
        if method == "initialize":
            version = os.environ.get("FAKE_SERVE_VERSION", "0.0.0-fake")
            result = {"name": "ptc", "version": version, "protocolVersion": 1}
            if "FAKE_SERVE_INITIALIZE" in os.environ:
                result = json.loads(os.environ["FAKE_SERVE_INITIALIZE"])
            send({"id": rid, "result": result})
        elif method == "tools/register":
            names = [t["name"] for t in params.get("tools", [])]
            send({"id": rid, "result": {"registered": names, "count": len(names)}})
        elif method == "run_code":
            run_code(rid, params)
        elif method == "$/cancel":
            for run_id, held_rid in list(held.items()):
                if held_rid == params.get("id"):
                    del held[run_id]
                    answer(held_rid, run_id, "Error: code run failed (cancelled)", "cancelled")
    for run_id, held_rid in held.items():
        answer(held_rid, run_id, "Error: code run failed (cancelled)", "cancelled")
    if os.environ.get("FAKE_SERVE_DEAF"):
        time.sleep(3600)


if __name__ == "__main__":
    main()
