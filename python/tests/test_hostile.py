"""Lines a session cannot read never end it: against a fake `ptc serve`
(fake_serve.py) that writes what a broken or hostile ptc might, and against
the real one with a program whose call is larger than the session reads."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import ptc
from conftest import run

FAKE = Path(__file__).with_name("fake_serve.py")


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """An executable fake `ptc serve`, and the log of what it read."""
    binary = tmp_path / "ptc"
    binary.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE} \"$@\"\n")
    binary.chmod(0o755)
    log = tmp_path / "read.log"
    monkeypatch.setenv("FAKE_SERVE_LOG", str(log))
    return binary, log


def actions(*steps: list[Any]) -> str:
    return json.dumps(list(steps))


def read_log(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_bytes().splitlines() if line.strip()]


LIMIT = 1 << 20


@pytest.mark.parametrize(
    "hostile, says",
    [
        # An event of the run longer than the session reads (an 80 MB
        # `started` of an older ptc, here 2 MiB over a 1 MiB bound).
        (
            ["big", '{"jsonrpc":"2.0","method":"run/event","params":{"runId":"bad","event":"started","arguments":"', 2 * LIMIT, '"}}'],
            "a message of 2,097,",
        ),
        # An event of the run that is not JSON.
        (["line", '{"jsonrpc":"2.0","method":"run/event","params":{"runId":"bad","event":"log","text":"cut'], "not JSON"),
        # An event of the run without its members.
        (["line", '{"jsonrpc":"2.0","method":"run/event","params":{"runId":"bad","text":"no event"}}'], "without a string"),
    ],
)
def test_an_unreadable_event_fails_its_run_and_nothing_else(
    fake: tuple[Path, Path], hostile: list[Any], says: str, caplog: pytest.LogCaptureFixture
) -> None:
    binary, log = fake
    seen: list[ptc.Event] = []

    async def main() -> tuple[ptc.Outcome, ptc.ProtocolError, ptc.Outcome]:
        import asyncio

        async with ptc.Session(binary=binary, max_message_bytes=LIMIT, on_event=seen.append) as session:
            held = asyncio.ensure_future(session.run_code(actions(["hold"]), run_id="held"))
            with pytest.raises(ptc.ProtocolError) as failed:
                await session.run_code(actions(hostile, ["hold"]), run_id="bad")
            later = await session.run_code(
                actions(["event", {"event": "log", "level": "log", "text": "fine"}], ["release", "held", "held ok"], ["answer", "later ok"]),
                run_id="later",
            )
            return await held, failed.value, later

    with caplog.at_level(logging.WARNING, logger="ptc"):
        held, failed, later = run(main())
    assert [r.getMessage() for r in caplog.records if r.name == "ptc"] == []  # tied to the run: no warning
    assert str(failed).startswith("run `bad` was cancelled: ptc sent an event of it that cannot be read: ")
    assert says in str(failed)
    assert held.text == "held ok" and not held.is_error
    assert later.text == "later ok" and [e.text for e in later.events] == ["fine"]
    assert [e.run_id for e in seen] == ["later"]
    # ptc was told to stop the failed run (its run_code request was id 3).
    cancels = [m for m in read_log(log) if m.get("method") == "$/cancel"]
    run_codes = [m for m in read_log(log) if m.get("method") == "run_code"]
    bad_rid = next(m["id"] for m in run_codes if m["params"]["runId"] == "bad")
    assert cancels == [{"jsonrpc": "2.0", "method": "$/cancel", "params": {"id": bad_rid}}]


def test_an_unreadable_answer_fails_that_request_and_nothing_else(fake: tuple[Path, Path]) -> None:
    binary, _ = fake

    async def main() -> tuple[ptc.ProtocolError, ptc.Outcome]:
        async with ptc.Session(binary=binary, max_message_bytes=LIMIT) as session:
            # The fake answers this run_code (id 2: initialize was 1) with a
            # line over the bound.
            with pytest.raises(ptc.ProtocolError) as failed:
                await session.run_code(
                    actions(["big", '{"jsonrpc":"2.0","id":2,"result":{"runId":"r","content":[{"type":"text","text":"', 3 * LIMIT, '"}]}}'])
                )
            return failed.value, await session.run_code(actions(["answer", "after"]))

    failed, after = run(main())
    assert str(failed).startswith("ptc's answer could not be read: ptc sent a message of 3,145,")
    assert "over max_message_bytes (1,048,576)" in str(failed)
    assert after.text == "after"


def test_an_unreadable_request_of_ptcs_is_answered_as_a_failure(fake: tuple[Path, Path]) -> None:
    binary, log = fake
    calls: list[Any] = []

    @ptc.tool
    def echo(s: str) -> str:
        calls.append(s)
        return s

    def approver(approval: ptc.Approval) -> bool:
        calls.append("approver asked")
        return True

    async def main() -> ptc.Outcome:
        async with ptc.Session(binary=binary, max_message_bytes=LIMIT, tools=[echo], approver=approver) as session:
            return await session.run_code(
                actions(
                    ["big", '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"runId":"r","id":"r:ptc:1","name":"echo","arguments":{"s":"', 2 * LIMIT, '"}}}'],
                    ["line", '{"jsonrpc":"2.0","id":8,"method":"tools/approve","params":{"kind":"call","name":"echo","arguments":{"s":"cut'],
                    ["line", "[1, 2]"],
                    ["line", "\x00\xff not json at all"],
                    ["await", 7],
                    ["await", 8],
                    ["answer", "survived"],
                )
            )

    outcome = run(main())
    assert outcome.text == "survived"
    assert calls == []
    replies = {m["id"]: m for m in read_log(log) if m.get("id") in (7, 8)}
    assert replies[7]["error"]["code"] == -32000
    assert replies[7]["error"]["message"].startswith(
        "the host could not read ptc's `tools/call` request: ptc sent a message of 2,097,"
    )
    assert replies[8]["result"]["approved"] is False
    assert replies[8]["result"]["reason"].startswith(
        "the host could not read ptc's `tools/approve` request: ptc sent a line that is not JSON"
    )


def test_a_line_tied_to_nothing_is_skipped_with_a_warning(
    fake: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    binary, _ = fake

    async def main() -> ptc.Outcome:
        async with ptc.Session(binary=binary, max_message_bytes=LIMIT) as session:
            return await session.run_code(
                actions(
                    ["line", "not json"],
                    ["line", "[1, 2]"],
                    ["big", '{"jsonrpc":"2.0","method":"run/event","params":{"runId":"someone else","text":"', 2 * LIMIT, '"}}'],
                    ["line", '{"jsonrpc":"2.0","id":999,"result":{"cut'],
                    ["line", '{"jsonrpc":"2.0","method":"run/event","params":7}'],
                    ["answer", "survived"],
                )
            )

    with caplog.at_level(logging.WARNING, logger="ptc"):
        outcome = run(main())
    assert outcome.text == "survived"
    warnings = [r.getMessage() for r in caplog.records if r.name == "ptc"]
    assert len(warnings) == 5, warnings
    assert all(w.startswith("ptc: skipped a line from ptc serve: ") for w in warnings)
    assert "a message of 2,097," in warnings[2]
    assert warnings[4] == "ptc: skipped a line from ptc serve: a `run/event` without a string `runId` and `event`"
    assert warnings[0] == "ptc: skipped a line from ptc serve: a line that is not JSON (Expecting value: line 1 column 1 (char 0))"
    assert warnings[1] == "ptc: skipped a line from ptc serve: a JSON list where a message (an object) belongs"


def test_an_over_long_line_costs_bounded_memory(fake: tuple[Path, Path]) -> None:
    # 512 MiB without a newline, read by a session bounded at 8 MiB, in a
    # fresh interpreter whose peak RSS is the measure. An unbounded reader
    # would hold the line (and more) at once.
    binary, _ = fake
    script = textwrap.dedent(
        f"""
        import asyncio, json, resource
        import ptc

        async def main():
            async with ptc.Session(binary={str(binary)!r}, max_message_bytes=8 << 20) as session:
                await session.run_code(json.dumps([["answer", "warm"]]))
                before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                try:
                    await session.run_code(json.dumps([["big", '{{"jsonrpc":"2.0","id":3,"result":"', 512 << 20, '"}}']]))
                except ptc.ProtocolError as error:
                    assert "over max_message_bytes" in str(error), error
                after = await session.run_code(json.dumps([["answer", "after"]]))
                assert after.text == "after"
                print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)

        asyncio.run(main())
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    before_kib, after_kib = map(int, done.stdout.split())
    grown_mib = (after_kib - before_kib) / 1024
    # The bound (8 MiB) held once, asyncio's read-ahead (2 MiB) and the
    # allocator's slack (about 8 MiB in all here); the line is 512 MiB.
    assert grown_mib < 64, f"reading a 512 MiB line grew the peak RSS by {grown_mib:.0f} MiB"


def test_a_call_larger_than_the_session_reads_fails_alone_with_the_real_ptc() -> None:
    # A Python program whose call carries 5 MiB, to a session that reads
    # lines of at most 4 MiB. With a ptc whose events carry the arguments
    # whole, the `started` event is the line too long: the run fails and is
    # cancelled. With a ptc whose events carry a preview, the `tools/call`
    # request is: the call fails, the program catches it. Either way the
    # tool never runs, a run in flight beside it ends well, and the session
    # serves the next run.
    import asyncio

    calls: list[int] = []
    release = asyncio.Event()

    @ptc.tool
    def echo(s: str) -> int:
        calls.append(len(s))
        return len(s)

    @ptc.tool
    async def wait() -> str:
        await release.wait()
        return "waited"

    async def main() -> tuple[ptc.Outcome | ptc.ProtocolError, ptc.Outcome, ptc.Outcome]:
        async with ptc.Session(tools=[echo, wait], max_message_bytes=4 << 20) as session:
            beside = asyncio.ensure_future(session.run_code("return await tools.wait({})"))
            code = 'try { return await tools.echo({ s: "x".repeat(5 << 20) }) } catch (e) { return `${e.code}: ${e.message}` }'
            hostile: ptc.Outcome | ptc.ProtocolError
            try:
                hostile = await session.run_code(code)
            except ptc.ProtocolError as error:
                hostile = error
            release.set()
            after = await session.run_code("return await tools.echo({ s: 'ok' })")
            return hostile, await beside, after

    hostile, beside, after = run(main())
    if isinstance(hostile, ptc.ProtocolError):
        assert "an event of it that cannot be read: a message of 5,24" in str(hostile), hostile
    else:
        assert hostile.text.startswith(
            "TOOL_ERROR: the host could not read ptc's `tools/call` request: ptc sent a message of 5,24"
        ), hostile.text
    assert beside.text == "waited"
    assert after.text == "2"
    assert calls == [2]


def test_an_odd_request_of_ptcs_is_read_as_far_as_it_goes(fake: tuple[Path, Path]) -> None:
    # A tools/approve without `kind` is a call's; a `runId` that is not a
    # string is no run's. A request of a method the host does not know is
    # answered -32601.
    binary, log = fake
    seen: list[tuple[str, str | None]] = []

    def approver(approval: ptc.Approval) -> bool:
        seen.append((approval.kind, approval.run_id))
        return False

    async def main() -> ptc.Outcome:
        async with ptc.Session(binary=binary, approver=approver) as session:
            return await session.run_code(
                actions(
                    ["request", 5, "tools/approve", {"runId": 7, "name": "x", "arguments": {}}],
                    ["request", 6, "tools/approve", {"kind": "escalation", "runId": "r"}],
                    ["request", 8, "tools/frobnicate", {}],
                    ["await", 5],
                    ["await", 6],
                    ["await", 8],
                    ["answer", "done"],
                )
            )

    assert run(main()).text == "done"
    assert seen == [("call", None), ("escalation", "r")]
    replies = {m["id"]: m for m in read_log(log) if m.get("id") in (5, 6, 8) and "method" not in m}
    assert replies[5]["result"] == {"approved": False}
    assert replies[8]["error"] == {"code": -32601, "message": "unknown method `tools/frobnicate`"}


def test_what_the_answer_to_run_code_says_is_read_as_sent(fake: tuple[Path, Path]) -> None:
    binary, log = fake

    async def main() -> ptc.Outcome:
        async with ptc.Session(binary=binary) as session:
            return await session.run_code(
                actions(
                    ["answer", "ok", {"droppedEvents": 3, "subCalls": 2, "elapsedMs": 1.5, "cpuMs": 0.25, "runId": "mine"}]
                )
            )

    outcome = run(main())
    assert (outcome.dropped_events, outcome.sub_calls, outcome.elapsed_ms, outcome.run_id) == (3, 2, 1.5, "mine")
    assert outcome.cpu_ms == 0.25
    assert outcome.events_not_kept == 0 and outcome.events == []


def test_a_call_of_a_tool_the_host_lacks_is_answered_as_a_failure(fake: tuple[Path, Path]) -> None:
    binary, log = fake

    async def main() -> ptc.Outcome:
        async with ptc.Session(binary=binary) as session:
            return await session.run_code(
                actions(["request", 9, "tools/call", {"name": "nope", "arguments": {}}], ["await", 9], ["answer", "ok"])
            )

    assert run(main()).text == "ok"
    [reply] = [m for m in read_log(log) if m.get("id") == 9]
    assert reply["error"] == {"code": -32000, "message": "no Python tool is named `nope`"}


def test_cancelling_a_request_sends_cancel_only_for_a_run_or_an_invoke(fake: tuple[Path, Path]) -> None:
    import asyncio

    binary, log = fake

    async def main() -> None:
        async with ptc.Session(binary=binary) as session:
            # The fake never answers `presentation` nor `tools/invoke`;
            # cancelling the first sends nothing, the invoke is cancelled.
            waiting = asyncio.ensure_future(session.presentation())
            held = asyncio.ensure_future(session.run_code(actions(["hold"]), run_id="held"))
            invoked = asyncio.ensure_future(session.invoke("anything", {}))
            await asyncio.sleep(0.2)
            for task in (waiting, held, invoked):
                task.cancel()
            for task in (waiting, held, invoked):
                with pytest.raises(asyncio.CancelledError):
                    await task

    run(main())
    sent = read_log(log)
    held_rid = next(m["id"] for m in sent if m.get("method") == "run_code")
    invoke_rid = next(m["id"] for m in sent if m.get("method") == "tools/invoke")
    assert [m for m in sent if m.get("method") == "$/cancel"] == [
        {"jsonrpc": "2.0", "method": "$/cancel", "params": {"id": held_rid}},
        {"jsonrpc": "2.0", "method": "$/cancel", "params": {"id": invoke_rid}},
    ]


def test_a_ptc_that_closes_its_output_is_waited_for_not_killed(fake: tuple[Path, Path]) -> None:
    binary, _ = fake

    async def main() -> ptc.ServerExited:
        async with ptc.Session(binary=binary) as session:
            with pytest.raises(ptc.ServerExited) as exited:
                await session.run_code(actions(["exit", 3, 0.3]))
            return exited.value

    exited = run(main())
    assert str(exited).startswith("ptc serve exited with status 3"), exited
    assert exited.returncode == 3


def test_close_kills_a_ptc_that_ignores_the_end_of_its_input(
    fake: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, _ = fake
    monkeypatch.setenv("FAKE_SERVE_DEAF", "1")

    async def main() -> int | None:
        session = ptc.Session(binary=binary)
        await session.start()
        await session.close()  # after its grace (5 s), killed
        return session._process.returncode if session._process else None

    import signal

    assert run(main()) == -signal.SIGKILL


def test_a_session_starts_once_with_its_environment(fake: tuple[Path, Path]) -> None:
    binary, _ = fake

    async def main() -> tuple[str | None, str]:
        async with ptc.Session(binary=binary, env={"FAKE_SERVE_VERSION": "9.9.9"}) as session:
            with pytest.raises(ptc.PtcError) as twice:
                await session.start()
            return session.version, str(twice.value)

    assert run(main()) == ("9.9.9", "the session is already started")


def test_an_initialize_answer_that_is_not_an_object_leaves_the_version_unknown(
    fake: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    binary, _ = fake
    monkeypatch.setenv("FAKE_SERVE_INITIALIZE", "[1]")

    async def main() -> tuple[str | None, str]:
        async with ptc.Session(binary=binary) as session:
            return session.version, (await session.run_code(actions(["answer", "after"]))).text

    assert run(main()) == (None, "after")


def test_a_request_of_ptcs_still_unanswered_at_close_says_how_ptc_ended(fake: tuple[Path, Path]) -> None:
    import asyncio

    binary, _ = fake

    async def main() -> ptc.ServerExited:
        async with ptc.Session(binary=binary) as session:
            # The fake never answers `presentation`: sent before the run's
            # request (its task runs first), it is still waiting at close.
            waiting = asyncio.ensure_future(session.presentation())
            assert (await session.run_code(actions(["answer", "ok"]))).text == "ok"
        with pytest.raises(ptc.ServerExited) as closed:
            await waiting
        return closed.value

    closed = run(main())
    assert (str(closed), closed.returncode) == ("the session is closed", 0)


def test_an_id_ptc_uses_for_two_calls_at_once_is_answered_twice_without_an_error(
    fake: tuple[Path, Path],
) -> None:
    import asyncio

    binary, _ = fake
    reported: list[dict[str, Any]] = []
    calls: list[int] = []

    @ptc.tool
    async def twice(n: int) -> int:
        calls.append(n)
        await asyncio.sleep(0)
        return n

    async def main() -> ptc.Outcome:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: reported.append(context))
        async with ptc.Session(binary=binary, tools=[twice]) as session:
            return await session.run_code(
                actions(
                    ["request", 9, "tools/call", {"name": "twice", "arguments": {"n": 1}}],
                    ["request", 9, "tools/call", {"name": "twice", "arguments": {"n": 2}}],
                    ["await", 9],
                    ["answer", "ok"],
                )
            )

    assert run(main()).text == "ok"
    assert sorted(calls) == [1, 2]
    assert reported == []  # each call's end forgets its id once, without a KeyError


@pytest.mark.parametrize(
    "error, message, code, data",
    [
        ({"code": -32602, "message": "bad", "data": {"tool": "x"}}, "bad", -32602, {"tool": "x"}),
        ({"code": 1}, "error", 1, None),
        ("boom", "error", None, None),
    ],
)
def test_an_error_answer_is_read_as_far_as_it_goes(
    fake: tuple[Path, Path], error: Any, message: str, code: int | None, data: Any
) -> None:
    binary, _ = fake

    async def main() -> tuple[ptc.ProtocolError, ptc.Outcome]:
        async with ptc.Session(binary=binary) as session:
            with pytest.raises(ptc.ProtocolError) as failed:
                await session.run_code(actions(["fail", error]))
            return failed.value, await session.run_code(actions(["answer", "after"]))

    failed, after = run(main())
    assert (str(failed), failed.code, failed.data) == (message, code, data)
    assert after.text == "after"


def test_a_message_of_odd_shape_is_reported_and_the_session_goes_on(fake: tuple[Path, Path]) -> None:
    import asyncio

    binary, _ = fake
    reported: list[dict[str, Any]] = []

    async def main() -> ptc.Outcome:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: reported.append(context))
        async with ptc.Session(binary=binary) as session:
            return await session.run_code(
                actions(["line", '{"jsonrpc":"2.0","method":"$/cancel","params":{"id":[1]}}'], ["answer", "after"])
            )

    assert run(main()).text == "after"
    assert [(c["message"], type(c["exception"]).__name__) for c in reported] == [
        ("ptc: a message from ptc serve could not be handled", "TypeError")
    ]


def test_the_exit_of_ptc_says_how_and_its_last_stderr(fake: tuple[Path, Path]) -> None:
    # The tail: whole lines, at most 4,096 characters, at least the last
    # line; lines that are not UTF-8 read with replacement characters; a
    # stderr line over asyncio's bound (1 MiB) skipped, not the end of it.
    binary, _ = fake
    lines = "".join(f"{i:063d}\n" for i in range(100))  # 100 lines of 63 digits and a newline

    async def exit_of(*steps: list[Any]) -> ptc.ServerExited:
        async with ptc.Session(binary=binary) as session:
            with pytest.raises(ptc.ServerExited) as exited:
                await session.run_code(actions(*steps))
            return exited.value

    async def main() -> list[ptc.ServerExited]:
        return [
            await exit_of(["stderr", lines], ["exit", 0, 0.2]),
            await exit_of(["stderr", "a\n" + "b" * 5000 + "\n"], ["exit", 2, 0.2]),
            await exit_of(["stderr", "z" * (2 << 20) + "\n\xff bad\nlast\n"], ["signal", 40]),
            await exit_of(["signal", 9]),
        ]

    tail, long_line, odd, killed = run(main())
    assert str(tail).startswith("ptc serve exited with status 0; its last output on stderr:\n")
    assert tail.returncode == 0
    assert tail.stderr == lines[-4096:] and len(tail.stderr) == 4096
    assert str(long_line) == "ptc serve exited with status 2; its last output on stderr:\n" + "b" * 5000
    assert odd.stderr == "\ufffd bad\nlast\n"
    assert str(odd).startswith("ptc serve was killed by signal 40; its last output on stderr:\n\ufffd bad")
    assert str(killed) == "ptc serve was killed by SIGKILL"
