"""A run's budgets against a real `ptc serve`: the CPU its program used
(``cpu_ms``), a CPU budget (``cpu_time_ms``) and a sub-call budget
(``max_sub_calls``, or the config's ``maxSubCalls``)."""

from __future__ import annotations

import time

import pytest

import ptc
from conftest import run


@ptc.tool(read_only=True)
def ping(n: int) -> int:
    """Answers its argument."""
    return n


# Five calls, each caught: the values of those made, the codes of those refused.
FIVE_CALLS = """
const out = [];
for (let n = 0; n < 5; n++) {
  try { out.push(await tools.ping({ n })); } catch (e) { out.push(e.code); }
}
return out;
"""


def test_an_outcome_reports_the_cpu_its_program_used() -> None:
    async def main() -> tuple[ptc.Outcome, ptc.Outcome]:
        async with ptc.Session() as session:
            idle = await session.run_code("return 1")
            # A fixed amount of work (about 60 ms): its CPU does not shrink
            # on a loaded machine, as a spin for a wall-clock time would.
            busy = await session.run_code("let x = 0; for (let i = 0; i < 2e6; i++) { x = (x + i) % 7 } return x")
            return idle, busy

    idle, busy = run(main())
    assert not idle.is_error and not busy.is_error, (idle.text, busy.text)
    assert isinstance(idle.cpu_ms, float) and idle.cpu_ms >= 0
    assert busy.cpu_ms >= 10, busy.cpu_ms


def test_a_program_past_its_cpu_budget_times_out_long_before_its_deadline() -> None:
    async def main() -> tuple[ptc.Outcome, float]:
        async with ptc.Session() as session:
            started = time.monotonic()
            outcome = await session.run_code("while (true) {}", cpu_time_ms=200, timeout_ms=20_000)
            return outcome, time.monotonic() - started

    outcome, took = run(main())
    assert outcome.is_error and outcome.kind == "timeout"
    assert outcome.text.startswith("Error: code run failed (timeout): the program used its CPU budget of 200 ms ("), outcome.text
    assert "used its CPU budget of 200 ms" in outcome.text
    assert outcome.cpu_ms >= 150, outcome.cpu_ms
    assert took < 10, took


def test_calls_past_max_sub_calls_are_refused_and_the_program_may_catch_that() -> None:
    async def main() -> ptc.Outcome:
        async with ptc.Session(tools=[ping]) as session:
            return await session.run_code(FIVE_CALLS, max_sub_calls=3)

    outcome = run(main())
    assert not outcome.is_error, outcome.text
    assert outcome.sub_calls == 3
    assert outcome.text.splitlines() == [
        '[0,1,2,"DENIED","DENIED"]',
        "[run_code: the run made 3 sub-calls, its budget; 2 more calls were refused]",
    ]


def test_the_configs_max_sub_calls_applies_to_every_run() -> None:
    async def main() -> tuple[ptc.Outcome, ptc.Outcome]:
        async with ptc.Session(tools=[ping], config={"maxSubCalls": 2}) as session:
            limited = await session.run_code(FIVE_CALLS)
            # A run's own budget replaces the config's.
            own = await session.run_code(FIVE_CALLS, max_sub_calls=5)
            return limited, own

    limited, own = run(main())
    assert limited.sub_calls == 2
    assert limited.text.splitlines() == [
        '[0,1,"DENIED","DENIED","DENIED"]',
        "[run_code: the run made 2 sub-calls, its budget; 3 more calls were refused]",
    ]
    assert own.text == "[0,1,2,3,4]" and own.sub_calls == 5


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"cpu_time_ms": 0}, "cpuTimeMs must be an integer from 1 to 600000, got 0"),
        ({"cpu_time_ms": 600_001}, "cpuTimeMs must be an integer from 1 to 600000, got 600001"),
        ({"max_sub_calls": 0}, "maxSubCalls"),
        ({"max_sub_calls": 2**32}, "maxSubCalls"),
    ],
)
def test_a_budget_out_of_range_is_a_protocol_error(options: dict[str, int], message: str) -> None:
    async def main() -> tuple[ptc.ProtocolError, ptc.Outcome]:
        async with ptc.Session() as session:
            with pytest.raises(ptc.ProtocolError) as refused:
                await session.run_code(
                    "return 1", cpu_time_ms=options.get("cpu_time_ms"), max_sub_calls=options.get("max_sub_calls")
                )
            # The session goes on.
            return refused.value, await session.run_code("return 2")

    refused, after = run(main())
    assert refused.code == -32602
    assert message in str(refused), str(refused)
    assert after.text == "2"
