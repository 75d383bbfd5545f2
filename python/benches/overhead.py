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
import statistics
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


if __name__ == "__main__":
    asyncio.run(main())
