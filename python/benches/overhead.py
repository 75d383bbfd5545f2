"""What the host library costs: start-up of a session and the overhead of
one sub-call from a program to a Python tool (docs/python.md, "Why a
process").

    python python/benches/overhead.py            # the installed wheel's ptc
    PTC_BINARY=target/release/ptc python python/benches/overhead.py

Prints medians over several rounds; the figures in docs/python.md come from
this script.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import threading
import time

import ptc

ROUNDS = 7
CALLS = 2000


@ptc.tool
async def noop_async(n: int) -> int:
    """Returns n."""
    return n


@ptc.tool
def noop_sync(n: int) -> int:
    """Returns n (a plain function: run in a worker thread)."""
    return n


@ptc.tool(read_only=True)
async def noop_parallel(n: int) -> int:
    """Returns n (read-only: calls may overlap)."""
    return n


SEQUENTIAL = f"for (let i = 0; i < {CALLS}; i++) await tools.%s({{ n: i }});"
# One loop with the call left out: what the program itself costs.
EMPTY = f"let s = 0; for (let i = 0; i < {CALLS}; i++) s += i; return s;"
PARALLEL = f"""
const all = [];
for (let i = 0; i < {CALLS}; i++) all.push(tools.noop_parallel({{ n: i }}));
await Promise.all(all);
"""


async def timed_run(session: ptc.Session, code: str) -> float:
    t0 = time.perf_counter()
    outcome = await session.run_code(code)
    assert not outcome.is_error, outcome.text
    return time.perf_counter() - t0


def raw_client_per_call(binary: str) -> float:
    """Seconds per sub-call for the leanest host possible: blocking reads and
    writes, no asyncio, no events looked at (examples/host.py's loop)."""
    p = subprocess.Popen([binary, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert p.stdin is not None and p.stdout is not None

    def send(message: dict[str, object]) -> None:
        assert p.stdin is not None
        p.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        p.stdin.flush()

    def run(code: str) -> float:
        assert p.stdout is not None
        t0 = time.perf_counter()
        send({"id": 2, "method": "run_code", "params": {"code": code, "description": ""}})
        for line in p.stdout:
            m = json.loads(line)
            if m.get("method") == "tools/call":
                send({"id": m["id"], "result": {"value": m["params"]["arguments"]["n"]}})
            elif m.get("id") == 2:
                break
        return time.perf_counter() - t0

    send({"id": 1, "method": "tools/register", "params": {"tools": [{"name": "noop_async"}]}})
    p.stdout.readline()
    empty = statistics.median([run(EMPTY) for _ in range(ROUNDS)])
    calls = statistics.median([run(SEQUENTIAL % "noop_async") for _ in range(ROUNDS)])
    p.stdin.close()
    p.wait()
    return (calls - empty) / CALLS


async def in_process_floor_per_call() -> float:
    """Seconds per call for the hop an in-process binding could not avoid:
    from the engine's thread into the asyncio loop and back
    (run_coroutine_threadsafe, as pyo3's asyncio bridges do), no JSON, no
    engine."""

    async def run() -> float:
        loop = asyncio.get_running_loop()
        done = asyncio.Event()
        elapsed: list[float] = []

        def engine_thread() -> None:
            t0 = time.perf_counter()
            for i in range(CALLS):
                asyncio.run_coroutine_threadsafe(noop_async.handler(n=i), loop).result()
            elapsed.append(time.perf_counter() - t0)
            loop.call_soon_threadsafe(done.set)

        threading.Thread(target=engine_thread).start()
        await done.wait()
        return elapsed[0] / CALLS

    return statistics.median([await run() for _ in range(ROUNDS)])


async def main() -> None:
    starts = []
    first_runs = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        session = ptc.Session(tools=[noop_async, noop_sync, noop_parallel])
        await session.start()
        starts.append(time.perf_counter() - t0)
        first_runs.append(await timed_run(session, "return 1"))
        await session.close()
    print(f"binary: {ptc.find_binary()}")
    print(f"start-up (spawn, initialize, register 3 tools): {statistics.median(starts) * 1e3:.1f} ms")
    print(f"first run_code (`return 1`): {statistics.median(first_runs) * 1e3:.2f} ms")

    async with ptc.Session(tools=[noop_async, noop_sync, noop_parallel]) as session:
        empty = statistics.median([await timed_run(session, EMPTY) for _ in range(ROUNDS)])
        for label, code in [
            ("async tool, sequential", SEQUENTIAL % "noop_async"),
            ("sync tool, sequential", SEQUENTIAL % "noop_sync"),
            ("read-only async tool, all at once", PARALLEL),
        ]:
            t = statistics.median([await timed_run(session, code) for _ in range(ROUNDS)])
            print(f"per sub-call, {label}: {(t - empty) / CALLS * 1e6:.0f} µs ({CALLS} calls in {t * 1e3:.0f} ms)")
    raw = raw_client_per_call(ptc.find_binary())
    print(f"per sub-call, blocking hand-written host (examples/host.py's loop): {raw * 1e6:.0f} µs")
    floor = await in_process_floor_per_call()
    print(f"in-process floor, engine thread -> asyncio loop -> back: {floor * 1e6:.0f} µs per call")


if __name__ == "__main__":
    asyncio.run(main())
