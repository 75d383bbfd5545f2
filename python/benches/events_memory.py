"""What a long run of cheap failing calls costs the host: the host
process's peak RSS while one run makes failing calls with 8 KB arguments
until its deadline (docs/python.md, "Events"). Every event reaches the
listener; the outcome keeps at most ``max_events`` of them.

    PTC_BINARY=target/release/ptc PYTHONPATH=python/src python python/benches/events_memory.py [SECONDS]
"""

from __future__ import annotations

import asyncio
import resource
import sys

import ptc


@ptc.tool
def fail(pad: str) -> None:
    """Fails."""
    raise ptc.ToolError("no")


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def main(seconds: float) -> None:
    seen = 0

    def count(event: ptc.Event) -> None:
        nonlocal seen
        seen += 1

    async with ptc.Session(tools=[fail], on_event=count) as session:
        await session.run_code("return 1")
        before = peak_mib()
        outcome = await session.run_code(
            'const pad = "x".repeat(8000); for (;;) { try { await tools.fail({ pad }) } catch {} }',
            timeout_ms=int(seconds * 1000),
        )
        after = peak_mib()
    print(
        f"{seconds:.0f} s run: {outcome.kind}, {outcome.sub_calls:,} calls, {seen:,} events seen, "
        f"{len(outcome.events):,} kept, {getattr(outcome, 'events_not_kept', 0):,} not kept, "
        f"{outcome.dropped_events:,} dropped by ptc; host peak RSS {before:.0f} -> {after:.0f} MiB (+{after - before:.0f})"
    )


if __name__ == "__main__":
    asyncio.run(main(float(sys.argv[1]) if len(sys.argv) > 1 else 20))
