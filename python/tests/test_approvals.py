"""Only an explicit approval approves: every other answer of an approver
refuses, with a reason saying what it was, and the tool does not run
(against a real `ptc serve`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, cast

import pytest

import ptc
from conftest import run


class Truthy:
    def __bool__(self) -> bool:
        return True


class LooksLikeADecision:
    approved = True
    reason = None


async def later(value: Any) -> Any:
    await asyncio.sleep(0)
    return value


def resolved(value: Any) -> asyncio.Future[Any]:
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    future.set_result(value)
    return future


# (what the approver answers, the start of the refusal's description)
ODD_ANSWERS: list[tuple[Any, str]] = [
    ({"approved": True}, "{'approved': True} (dict)"),
    ({"approved": False}, "{'approved': False} (dict)"),
    ("yes", "'yes' (str)"),
    ("no", "'no' (str)"),
    ("", "'' (str)"),
    ("x" * 1000, "'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx' (str)"),
    (b"yes", "b'yes' (bytes)"),
    (1, "1 (int)"),
    (0, "0 (int)"),
    (-1, "-1 (int)"),
    (1.0, "1.0 (float)"),
    (float("nan"), "nan (float)"),
    ([True], "[True] (list)"),
    ([], "[] (list)"),
    ((True, "ok"), "(True, 'ok') (tuple)"),
    ({True}, "{True} (set)"),
    (None, "None (NoneType)"),
    (..., "Ellipsis (ellipsis)"),
    (Truthy(), "an object of type Truthy"),
    (LooksLikeADecision(), "an object of type LooksLikeADecision"),
    (ptc.Decision(cast(bool, "yes")), "a Decision whose approved is 'yes' (str)"),
    (ptc.Decision(cast(bool, 1)), "a Decision whose approved is 1 (int)"),
    (ptc.Decision(cast(bool, None), "fine"), "a Decision whose approved is None (NoneType)"),
    (object(), "an object of type object"),
]

Approver = Callable[[ptc.Approval], Any]


def plain(value: Any) -> Approver:
    return lambda approval: value


def coroutine_function(value: Any) -> Approver:
    async def approver(approval: ptc.Approval) -> Any:
        return value

    return approver


def returning_a_coroutine(value: Any) -> Approver:
    # A plain function (run in a worker thread) that returns an awaitable.
    return lambda approval: later(value)


HOW: dict[str, Callable[[Any], Approver]] = {
    "plain": plain,
    "async": coroutine_function,
    "awaitable": returning_a_coroutine,
}

CODE = 'try { await tools.write({ path: "a" }); return "ran" } catch (e) { return `${e.code}: ${e.message}` }'


def refusals(approvers: list[Approver]) -> tuple[list[str], list[str]]:
    """Runs CODE once per approver in one session: the texts, and the calls
    the tool got."""
    calls: list[str] = []

    @ptc.tool(policy="ask")
    def write(path: str) -> str:
        calls.append(path)
        return "written"

    async def main() -> list[str]:
        texts = []
        async with ptc.Session(tools=[write]) as session:
            for approver in approvers:
                session.approver = approver
                texts.append((await session.run_code(CODE)).text)
        return texts

    return run(main()), calls


@pytest.mark.parametrize("how", sorted(HOW))
def test_every_odd_answer_refuses_and_the_tool_does_not_run(how: str) -> None:
    texts, calls = refusals([HOW[how](answer) for answer, _ in ODD_ANSWERS])
    assert calls == []
    for (answer, described), text in zip(ODD_ANSWERS, texts):
        assert text == (
            f"DENIED: the approver's answer was not an approval: {described}; only True or Decision(True) approves"
        ), (answer, text)


def test_junk_an_awaitable_resolves_to_or_awaitables_nested_refuse() -> None:
    def future_of(value: Any) -> Approver:
        # A plain approver's awaitable is awaited on the session's loop.
        return lambda approval: later(value)

    async def nested(approval: ptc.Approval) -> Any:
        return resolved(True)  # an awaitable of an approval is not an approval

    texts, calls = refusals([future_of("yes"), future_of({"approved": True}), nested])
    assert calls == []
    assert texts[0].endswith("not an approval: 'yes' (str); only True or Decision(True) approves")
    assert texts[1].endswith("not an approval: {'approved': True} (dict); only True or Decision(True) approves")
    assert texts[2].startswith("DENIED: the approver's answer was not an approval: an object of type Future")


def test_an_approver_that_raises_refuses_plain_or_async() -> None:
    def plain_raises(approval: ptc.Approval) -> bool:
        raise ValueError("no terminal")

    async def async_raises(approval: ptc.Approval) -> bool:
        raise KeyError("who")

    async def awaitable_raises() -> bool:
        raise RuntimeError("later")

    texts, calls = refusals([plain_raises, async_raises, lambda approval: awaitable_raises()])
    assert calls == []
    assert texts == [
        "DENIED: the approver failed: ValueError: no terminal",
        "DENIED: the approver failed: KeyError: 'who'",
        "DENIED: the approver failed: RuntimeError: later",
    ]


def test_only_true_or_a_decision_of_true_approves() -> None:
    # The controls: the same session and code run the tool when approved,
    # and a plain refusal keeps its reason (or ptc's default).
    texts, calls = refusals(
        [
            plain(True),
            coroutine_function(True),
            returning_a_coroutine(True),
            plain(ptc.Decision(True)),
            coroutine_function(ptc.Decision(True, "fine")),
            plain(False),
            plain(ptc.Decision(False, "not on a Friday")),
            plain(ptc.Decision(False, cast(str, 42))),
        ]
    )
    assert texts[:5] == ["ran"] * 5
    assert calls == ["a"] * 5
    assert texts[5] == "DENIED: the host refused the call to `write`"
    assert texts[6] == "DENIED: not on a Friday"
    assert texts[7] == "DENIED: the host refused the call to `write`"


def test_an_escalation_answered_oddly_is_refused_and_nothing_runs() -> None:
    calls: list[str] = []

    @ptc.tool(requires_escalation=True)
    def deploy() -> str:
        calls.append("deploy")
        return "deployed"

    answers: list[Any] = [{"approved": True}, "yes", 1, ptc.Decision(cast(bool, "yes")), Truthy()]

    async def main() -> list[ptc.Outcome]:
        outcomes = []
        async with ptc.Session(tools=[deploy]) as session:
            for answer in answers:
                session.approver = coroutine_function(answer)
                outcomes.append(await session.run_code("return await tools.deploy({})", justification="ship it"))
            session.approver = plain(True)
            outcomes.append(await session.run_code("return await tools.deploy({})", justification="ship it"))
        return outcomes

    outcomes = run(main())
    for outcome in outcomes[:-1]:
        assert outcome.is_error and outcome.kind == "denied" and outcome.sub_calls == 0, outcome.text
        assert "the approver's answer was not an approval" in outcome.text
    assert outcomes[-1].text == "deployed"
    assert calls == ["deploy"]


def test_an_approver_returning_a_future_resolving_to_junk_refuses() -> None:
    async def approver(approval: ptc.Approval) -> Any:
        return await cast(Awaitable[Any], resolved("yes"))

    texts, calls = refusals([approver])
    assert calls == []
    assert texts == ["DENIED: the approver's answer was not an approval: 'yes' (str); only True or Decision(True) approves"]


def test_the_approver_sees_the_kind_and_the_run_and_without_one_an_escalation_is_refused() -> None:
    @ptc.tool(policy="ask")
    def write(path: str) -> str:
        return "written"

    @ptc.tool(requires_escalation=True)
    def deploy() -> str:
        return "deployed"

    seen: list[tuple[str, str | None, str | None]] = []

    def approver(approval: ptc.Approval) -> bool:
        seen.append((approval.kind, approval.run_id, approval.name))
        return True

    async def main() -> tuple[ptc.Outcome, ptc.Outcome]:
        async with ptc.Session(tools=[write, deploy], approver=approver) as session:
            await session.run_code('return await tools.write({ path: "a" })', run_id="run-a")
            await session.run_code("return await tools.deploy({})", run_id="run-b", justification="ship it")
            session.approver = None
            unasked = await session.run_code("return await tools.deploy({})", justification="ship it")
            asked = await session.run_code('try { await tools.write({ path: "b" }) } catch (e) { return e.message }')
            return unasked, asked

    unasked, asked = run(main())
    assert seen == [("call", "run-a", "write"), ("escalation", "run-b", None)]
    assert unasked.kind == "denied" and "no approver is set for the escalation" in unasked.text
    assert asked.text == "no approver is set for `write`"


def test_an_approver_still_deciding_when_ptc_stops_waiting_is_cancelled() -> None:
    cancelled = asyncio.Event()

    @ptc.tool(policy="ask")
    def write(path: str) -> str:
        return "written"

    async def approver(approval: ptc.Approval) -> bool:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return True

    async def main() -> tuple[ptc.Outcome, bool]:
        async with ptc.Session(tools=[write], approver=approver) as session:
            outcome = await session.run_code('return await tools.write({ path: "a" })', timeout_ms=300)
            await asyncio.wait_for(cancelled.wait(), 30)  # ptc's $/cancel may trail the response
            return outcome, cancelled.is_set()

    outcome, was_cancelled = run(main())
    assert outcome.kind == "timeout"
    assert was_cancelled
