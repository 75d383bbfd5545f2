"""A run keeps its first events and counts the rest; listeners see every
one (against a real `ptc serve`). And the session's life cycle at its
edges: before start, while closing, after close."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

import ptc
from conftest import run


@ptc.tool(read_only=True)
def fail(i: int = 0) -> None:
    """Fails."""
    raise ptc.ToolError("no")


CALLS = "for (let i = 0; i < {n}; i++) {{ try {{ await tools.fail({{ i }}) }} catch {{}} }} return 'done'"


def test_a_run_keeps_its_first_events_and_counts_the_rest() -> None:
    session_saw: list[ptc.Event] = []
    run_saw: list[ptc.Event] = []

    async def main() -> tuple[ptc.Outcome, ptc.Outcome, ptc.Outcome]:
        async with ptc.Session(tools=[fail], on_event=session_saw.append, max_events=50) as session:
            bounded = await session.run_code(CALLS.format(n=100), run_id="bounded", on_event=run_saw.append)
        async with ptc.Session(tools=[fail]) as session:
            by_default = await session.run_code(CALLS.format(n=600))
        async with ptc.Session(tools=[fail], max_events=0) as session:
            none = await session.run_code(CALLS.format(n=2))
        return bounded, by_default, none

    bounded, by_default, none = run(main())
    assert bounded.text == "done" and bounded.sub_calls == 100 and bounded.elapsed_ms > 0
    assert bounded.run_id == "bounded" and bounded.dropped_events == 0
    assert len(session_saw) == 200 and run_saw == session_saw
    assert bounded.events == session_saw[:50]
    assert bounded.events_not_kept == 150
    first = bounded.events[0]
    assert (first.kind, first.run_id, first.arguments) == ("started", "bounded", {"i": 0})
    assert "runId" not in first.data and "event" not in first.data
    assert (len(by_default.events), by_default.events_not_kept) == (1000, 200)
    assert re.fullmatch(r"py-[0-9a-f]{16}", by_default.run_id), by_default.run_id
    assert (none.events, none.events_not_kept) == ([], 4)


def test_a_listener_that_raises_is_reported_and_the_others_still_hear() -> None:
    reported: list[dict[str, Any]] = []
    heard: list[str] = []

    def broken(event: ptc.Event) -> None:
        raise RuntimeError("a listener's bug")

    async def main() -> ptc.Outcome:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: reported.append(context))
        async with ptc.Session(on_event=lambda event: heard.append(event.kind)) as session:
            return await session.run_code("console.log('hi'); return 1", on_event=broken)

    outcome = run(main())
    assert outcome.text == "hi\n1" and len(outcome.events) == 1
    assert heard == ["log"]
    assert [(c["message"], str(c["exception"])) for c in reported] == [
        ("ptc: an on_event listener raised", "a listener's bug")
    ]


def test_a_run_id_in_use_is_refused_and_the_description_defaults_to_empty() -> None:
    seen: list[Any] = []

    @ptc.tool(requires_escalation=True)
    def deploy() -> str:
        return "deployed"

    async def wait_forever() -> None:
        await asyncio.Event().wait()

    def approver(approval: ptc.Approval) -> bool:
        seen.append(approval.data.get("description"))
        return True

    async def main() -> ptc.PtcError:
        async with ptc.Session(tools=[deploy], approver=approver) as session:
            await session.run_code("return await tools.deploy({})", justification="ship it")
            await session.run_code("return await tools.deploy({})", justification="ship it", description="ships")
            first = asyncio.ensure_future(session.run_code("while (true) {}", run_id="same", timeout_ms=20000))
            await asyncio.sleep(0)
            with pytest.raises(ptc.PtcError) as refused:
                await session.run_code("return 1", run_id="same")
            first.cancel()
            with pytest.raises(asyncio.CancelledError):
                await first
            return refused.value

    refused = run(main())
    assert str(refused) == "run id `same` belongs to a run still going"
    assert seen == ["", "ships"]


def test_a_run_id_is_used_as_given_and_an_empty_one_is_refused() -> None:
    """A run id the host chose is the run's (events, approvals, the
    outcome); an empty one would read as "no run" wherever a run id is
    tested for truth, so it is refused before anything is sent."""

    async def main() -> tuple[ptc.Outcome, ptc.Outcome]:
        async with ptc.Session(tools=[fail]) as session:
            with pytest.raises(ValueError, match="^run_id must not be empty: pass None"):
                await session.run_code("return 1", run_id="")
            chosen = await session.run_code("try { await tools.fail({}) } catch {} return 1", run_id=" ")
            fresh = await session.run_code("return 2", run_id=None)
            return chosen, fresh

    chosen, fresh = run(main())
    assert chosen.run_id == " " and {e.run_id for e in chosen.events} == {" "}
    assert chosen.events[0].id == " :ptc:1"
    assert re.fullmatch(r"py-[0-9a-f]{16}", fresh.run_id), fresh.run_id


def test_a_session_before_start_while_closing_and_after_close() -> None:
    cancelled = asyncio.Event()
    started = asyncio.Event()

    @ptc.tool
    async def slow() -> None:
        # Deaf to ptc's $/cancel: only close() stops it, and close() waits
        # for it to end.
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                cancelled.set()
                raise

    @ptc.tool(name="slow2")
    def quick() -> str:
        return "quick"

    async def main() -> tuple[str, str, str, str, bool, dict[Any, Any]]:
        session = ptc.Session(tools=[slow, quick])
        with pytest.raises(ptc.PtcError) as not_started:
            await session.run_code("return 1")
        await session.start()
        await session.run_code("try { await tools.slow2({}) } catch {} return 1")
        handlers_after_a_run = dict(session._handlers)  # the call's handler is gone
        in_flight = asyncio.ensure_future(session.run_code("await tools.slow({})"))
        await asyncio.wait_for(started.wait(), 30)
        closing = asyncio.ensure_future(session.close())
        await asyncio.sleep(0)
        with pytest.raises(ptc.PtcError) as while_closing:
            await session.presentation()
        await closing  # neither raises nor returns before the tool's clean-up
        tool_cleaned_up = cancelled.is_set()
        with pytest.raises(ptc.ServerExited) as after:
            await session.presentation()
        outcome = await in_flight
        return (
            str(not_started.value),
            str(while_closing.value),
            str(after.value),
            str(outcome.kind),
            tool_cleaned_up,
            handlers_after_a_run,
        )

    not_started, while_closing, after, kind, tool_cleaned_up, handlers = run(main())
    assert not_started == "the session is not started"
    assert while_closing == "the session is closed"
    assert after == "the session is closed"
    assert kind == "cancelled"
    assert tool_cleaned_up
    assert handlers == {}


def test_a_config_json_cannot_carry_is_refused_before_it_is_sent() -> None:
    async def main() -> None:
        async with ptc.Session(config={"defaultTimeoutMs": float("nan")}):  # type: ignore[arg-type]
            pass

    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        run(main())
