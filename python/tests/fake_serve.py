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
- ``["answer", text]``: answers this run (``isError`` false, ``text``).
- ``["hold"]``: leaves this run unanswered until ``$/cancel`` or a
  ``["release", runId, text]`` of a later run.
- ``["release", runId, text]``: answers a held run.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

out = sys.stdout.buffer
held: dict[str, Any] = {}  # runId -> the run_code request's id


def send(message: dict[str, Any]) -> None:
    out.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
    out.flush()


def answer(rid: Any, run_id: str, text: str, kind: str | None = None) -> None:
    result: dict[str, Any] = {
        "runId": run_id,
        "isError": kind is not None,
        "content": [{"type": "text", "text": text}],
        "subCalls": 0,
        "elapsedMs": 1.0,
    }
    if kind is not None:
        result["kind"] = kind
    send({"id": rid, "result": result})


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
            answer(rid, run_id, action[1])
        elif what == "hold":
            held[run_id] = rid
        elif what == "release":
            answer(held.pop(action[1]), action[1], action[2])


def main() -> None:
    log = os.environ.get("FAKE_SERVE_LOG")
    for raw in sys.stdin.buffer:
        if log:
            with open(log, "ab") as f:
                f.write(raw)
        message = json.loads(raw)
        method = message.get("method")
        rid = message.get("id")
        params = message.get("params") or {}
        if method == "initialize":
            send({"id": rid, "result": {"name": "ptc", "version": "0.0.0-fake", "protocolVersion": 1}})
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


if __name__ == "__main__":
    main()
