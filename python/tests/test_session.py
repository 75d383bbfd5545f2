"""The host library against a real `ptc serve`: tools, sub-calls, errors,
policies, approvals, cancellation, timeouts and a crash."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from typing import Any

import pytest

import ptc
from conftest import run


@ptc.tool(read_only=True, call_title="Weather in {city}")
def get_weather(city: str) -> dict[str, Any]:
    """The current temperature in a city."""
    temperatures = {"Paris": 18, "Oslo": 9, "Lima": 24}
    if city not in temperatures:
        raise LookupError(f"no weather for {city}")
    return {"city": city, "celsius": temperatures[city]}


@ptc.tool
async def add(a: int, b: int = 1) -> int:
    """Adds two integers."""
    await asyncio.sleep(0)
    return a + b


def test_a_program_calls_sync_and_async_python_tools() -> None:
    async def main() -> ptc.Outcome:
        async with ptc.Session(tools=[get_weather, add]) as session:
            assert session.version
            return await session.run_code(
                """
                const w = await tools.get_weather({ city: "Oslo" });
                const n = await tools.add({ a: w.celsius });
                console.log(`sum ${n}`);
                return { n, city: w.city };
                """,
                description="adds one to Oslo's temperature",
            )

    outcome = run(main())
    assert not outcome.is_error, outcome.text
    assert outcome.kind is None
    assert outcome.text == 'sum 10\n{"n":10,"city":"Oslo"}'
    assert outcome.sub_calls == 2
    kinds = [(e.kind, e.data.get("name")) for e in outcome.events]
    assert kinds == [
        ("started", "get_weather"),
        ("settled", None),
        ("started", "add"),
        ("settled", None),
        ("log", None),
    ]
    assert outcome.events[0].title == "Weather in Oslo"
    assert outcome.events[1].data["value"] == {"city": "Oslo", "celsius": 9}
    assert outcome.events[4].text == "sum 10"


def test_a_failing_tool_is_a_catchable_tool_call_error() -> None:
    @ptc.tool
    def guarded(path: str) -> str:
        raise ptc.ToolError("not yours", code="DENIED", detail=f"{path} is outside the project")

    async def main() -> ptc.Outcome:
        async with ptc.Session(tools=[get_weather, guarded]) as session:
            return await session.run_code(
                """
                for (const city of ["Atlantis"]) {
                  try { await tools.get_weather({ city }); }
                  catch (e) { console.log(e.code, e.message); }
                }
                try { await tools.guarded({ path: "/etc" }); }
                catch (e) { console.log(e.code, e.message); }
                await tools.get_weather({ city: 42 });
                """
            )

    outcome = run(main())
    assert outcome.is_error and outcome.kind == "runtime"
    lines = outcome.text.splitlines()
    assert lines[0].startswith("Error: code run failed (runtime): ToolCallError: invalid arguments")
    assert "Captured output:" in lines
    assert "TOOL_ERROR LookupError: no weather for Atlantis" in lines
    assert "DENIED not yours" in lines
    settled = [e for e in outcome.events if e.kind == "settled"]
    assert settled[1].data["error"]["code"] == "DENIED"
    assert settled[1].data["error"]["detail"] == "/etc is outside the project"
    # The invalid call never reached Python: ptc validated it against the
    # schema the annotations gave.
    assert settled[2].data["error"]["code"] == "INVALID_ARGUMENTS"


def test_a_program_that_fails_to_parse_is_a_syntax_outcome() -> None:
    async def main() -> ptc.Outcome:
        async with ptc.Session() as session:
            return await session.run_code("return (")

    outcome = run(main())
    assert outcome.is_error and outcome.kind == "syntax"
    assert outcome.text.startswith("Error: code run failed (syntax)")


def test_deny_refuses_without_calling_the_tool_and_set_policy_switches() -> None:
    calls: list[str] = []

    @ptc.tool(policy="deny")
    def delete(path: str) -> None:
        calls.append(path)

    async def main() -> tuple[ptc.Outcome, ptc.Outcome]:
        async with ptc.Session(tools=[delete]) as session:
            denied = await session.run_code('return await tools.delete({ path: "a" })')
            await session.set_policy("delete", "allow")
            allowed = await session.run_code('await tools.delete({ path: "b" }); return "ok"')
            return denied, allowed

    denied, allowed = run(main())
    assert denied.is_error
    assert "DENIED" in denied.text
    assert not allowed.is_error and allowed.text == "ok"
    assert calls == ["b"]


def test_ask_goes_to_the_approver_which_approves_or_refuses() -> None:
    seen: list[tuple[str, str | None, Any]] = []
    writes: list[str] = []

    @ptc.tool(policy="ask", call_title="Write {path}")
    def write(path: str) -> str:
        writes.append(path)
        return f"wrote {path}"

    def approver(approval: ptc.Approval) -> bool | ptc.Decision:
        seen.append((approval.kind, approval.title, approval.arguments))
        if approval.arguments["path"] == "notes.md":
            return True
        return ptc.Decision(False, "only notes.md may be written")

    async def main() -> ptc.Outcome:
        async with ptc.Session(tools=[write], approver=approver) as session:
            return await session.run_code(
                """
                console.log(await tools.write({ path: "notes.md" }));
                try { await tools.write({ path: ".bashrc" }); }
                catch (e) { console.log(e.code, e.message); }
                """
            )

    outcome = run(main())
    assert not outcome.is_error, outcome.text
    assert outcome.text == "wrote notes.md\nDENIED only notes.md may be written"
    assert writes == ["notes.md"]
    assert seen == [
        ("call", "Write notes.md", {"path": "notes.md"}),
        ("call", "Write .bashrc", {"path": ".bashrc"}),
    ]


def test_ask_without_an_approver_or_with_a_failing_one_is_refused() -> None:
    @ptc.tool(policy="ask")
    def send(to: str) -> str:
        return "sent"

    async def boom(approval: ptc.Approval) -> bool:
        raise RuntimeError("prompt crashed")

    async def main() -> tuple[ptc.Outcome, ptc.Outcome]:
        code = 'try { await tools.send({ to: "x" }) } catch (e) { return `${e.code}: ${e.message}` }'
        async with ptc.Session(tools=[send]) as session:
            none = await session.run_code(code)
        async with ptc.Session(tools=[send], approver=boom) as session:
            failing = await session.run_code(code)
        return none, failing

    none, failing = run(main())
    assert none.text == "DENIED: no approver is set for `send`"
    assert failing.text == "DENIED: the approver failed: RuntimeError: prompt crashed"


def test_an_escalation_is_asked_before_the_run_starts() -> None:
    @ptc.tool(requires_escalation=True)
    def deploy() -> str:
        return "deployed"

    kinds: list[tuple[str, Any]] = []

    async def approver(approval: ptc.Approval) -> ptc.Decision:
        kinds.append((approval.kind, approval.data.get("grant", {}).get("tools")))
        return ptc.Decision(approval.data.get("justification") == "ship it", "not today")

    async def main() -> tuple[ptc.Outcome, ptc.Outcome]:
        async with ptc.Session(tools=[deploy], approver=approver) as session:
            code = "return await tools.deploy({})"
            yes = await session.run_code(code, justification="ship it")
            no = await session.run_code(code, justification="because")
            return yes, no

    yes, no = run(main())
    assert not yes.is_error and yes.text == "deployed"
    assert no.is_error and no.kind == "denied" and "not today" in no.text
    assert kinds == [("escalation", ["deploy"]), ("escalation", ["deploy"])]


def test_cancelling_run_code_cancels_the_run_and_its_python_tool() -> None:
    started = asyncio.Event()
    cancelled = asyncio.Event()

    @ptc.tool
    async def wait_forever() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def main() -> ptc.Outcome:
        async with ptc.Session(tools=[wait_forever, add]) as session:
            task = asyncio.ensure_future(session.run_code("await tools.wait_forever({})"))
            await asyncio.wait_for(started.wait(), 30)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # ptc got $/cancel and told the tool it stopped waiting.
            await asyncio.wait_for(cancelled.wait(), 30)
            return await session.run_code("return await tools.add({ a: 1 })")

    after = run(main())
    assert after.text == "2"


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("wait_forever", {}),
        ("run_code", {"code": "await tools.wait_forever({})", "description": "waits"}),
    ],
)
def test_cancelling_invoke_cancels_the_call_and_its_python_tool(name: str, arguments: dict[str, Any]) -> None:
    """A `tools/invoke` is cancellable like a `run_code` (docs/host-protocol.md):
    cancelling the task awaiting `invoke` sends ptc `$/cancel`, and the tool
    invoked (directly, or by the program of an invoked `run_code`) is
    cancelled."""

    async def main() -> ptc.CallResult:
        started = asyncio.Event()
        cancelled = asyncio.Event()

        @ptc.tool
        async def wait_forever() -> None:
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise

        async with ptc.Session(tools=[wait_forever, add], config={"mode": "both"}) as session:
            task = asyncio.ensure_future(session.invoke(name, arguments))
            await asyncio.wait_for(started.wait(), 30)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # ptc got $/cancel for the invoke and told the tool it stopped waiting.
            await asyncio.wait_for(cancelled.wait(), 30)
            return await session.invoke("add", {"a": 1})

    after = run(main())
    assert (after.is_error, after.value) == (False, 2)


def test_a_run_past_its_deadline_times_out_and_cancels_its_tool() -> None:
    cancelled = threading.Event()

    @ptc.tool
    async def slow() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def main() -> tuple[ptc.Outcome, bool]:
        async with ptc.Session(tools=[slow]) as session:
            outcome = await session.run_code("await tools.slow({})", timeout_ms=300)
            for _ in range(300):  # ptc's $/cancel may trail the response
                if cancelled.is_set():
                    break
                await asyncio.sleep(0.1)
            # Before the session closes (which would cancel it anyway).
            return outcome, cancelled.is_set()

    outcome, tool_cancelled = run(main())
    assert outcome.is_error and outcome.kind == "timeout"
    assert "300 ms deadline" in outcome.text
    assert tool_cancelled


def test_a_crash_of_the_binary_is_a_clear_error_for_every_request() -> None:
    async def main() -> tuple[ptc.ServerExited, ptc.ServerExited]:
        session = ptc.Session()

        @ptc.tool
        def crash() -> None:
            assert session.pid is not None
            os.kill(session.pid, signal.SIGKILL)

        async with session:
            await session.register(crash)
            with pytest.raises(ptc.ServerExited) as during:
                await session.run_code("await tools.crash({})")
            with pytest.raises(ptc.ServerExited) as after:
                await session.presentation()
            return during.value, after.value

    during, after = run(main())
    assert str(during).startswith("ptc serve was killed by SIGKILL")
    assert during.returncode == -signal.SIGKILL
    assert after is during


def test_a_missing_binary_is_a_clear_error() -> None:
    async def main() -> None:
        async with ptc.Session(binary="/nonexistent/ptc"):
            pass

    with pytest.raises(ptc.BinaryNotFound, match=r"/nonexistent/ptc\) is not an executable file"):
        run(main())


def test_a_refused_registration_names_the_tool_and_registers_none() -> None:
    bad = ptc.tool(name="bad", parameters={"type": "object", "properties": {"x": {"type": 5}}})(
        lambda arguments: None
    )

    async def main() -> tuple[ptc.ProtocolError, list[str]]:
        async with ptc.Session() as session:
            with pytest.raises(ptc.ProtocolError) as refused:
                await session.register(add, bad)
            presentation = await session.presentation(mode="native")
            return refused.value, [t.name for t in presentation.tools]

    refused, names = run(main())
    assert refused.code == -32602
    assert "bad" in str(refused) and "$.tools[1].parameters" in str(refused)
    assert names == []


def test_the_presentation_for_openai_and_anthropic() -> None:
    async def main() -> ptc.Presentation:
        async with ptc.Session(tools=[get_weather]) as session:
            return await session.presentation()

    presentation = run(main())
    assert [t.name for t in presentation.tools] == ["run_code"]
    assert "get_weather(args: { city: string })" in presentation.sdk
    [openai] = presentation.openai()
    assert openai["type"] == "function"
    assert openai["function"]["name"] == "run_code"
    assert "get_weather" in openai["function"]["description"]
    assert openai["function"]["parameters"]["required"] == ["code"]
    [responses] = presentation.openai_responses()
    assert responses["name"] == "run_code" and responses["parameters"] == openai["function"]["parameters"]
    [anthropic] = presentation.anthropic()
    assert anthropic["name"] == "run_code"
    assert anthropic["input_schema"] == openai["function"]["parameters"]
    assert anthropic["description"] == openai["function"]["description"]


def test_invoke_answers_the_models_run_code_call() -> None:
    async def main() -> ptc.CallResult:
        async with ptc.Session(tools=[add]) as session:
            return await session.invoke(
                "run_code", {"code": "return await tools.add({ a: 41 })", "description": "adds"}
            )

    result = run(main())
    assert not result.is_error
    assert result.text == "42"
    assert result.outcome is not None and result.outcome.sub_calls == 1
    assert result.outcome.cpu_ms >= 0
    assert (result.outcome.events, result.outcome.events_not_kept) == ([], 0)  # invoke keeps no events


def test_invoke_answers_a_tool_call_with_its_value_or_its_error() -> None:
    @ptc.tool
    def guarded(path: str) -> str:
        raise ptc.ToolError("not yours", code="DENIED")

    async def main() -> tuple[ptc.CallResult, ptc.CallResult]:
        async with ptc.Session(tools=[add, guarded], config={"mode": "both"}) as session:
            return await session.invoke("add", {"a": 1}), await session.invoke("guarded", {"path": "/etc"})

    ok, failed = run(main())
    assert (ok.is_error, ok.value, ok.error, ok.outcome, ok.text) == (False, 2, None, None, "2")
    assert (failed.is_error, failed.value, failed.outcome) == (True, None, None)
    assert failed.error == {"code": "DENIED", "message": "not yours"}
    assert failed.text == "Error: not yours"


def test_close_leaves_no_process_behind() -> None:
    async def main() -> None:
        session = ptc.Session()
        await session.start()
        pid = session.pid
        assert pid is not None
        os.kill(pid, 0)  # running
        await session.close()
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # exited and reaped
        await session.close()

    run(main())


def test_an_event_loop_that_ends_without_close_ends_the_process() -> None:
    pids: list[int] = []

    async def main() -> None:
        session = ptc.Session()
        await session.start()
        assert session.pid is not None
        pids.append(session.pid)

    run(main())
    with pytest.raises(ProcessLookupError):
        os.kill(pids[0], 0)


def test_content_blocks_and_odd_strings_reach_the_program_or_fail_one_call() -> None:
    pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

    @ptc.tool
    def snapshot() -> ptc.ToolResult:
        return ptc.ToolResult({"ok": True}, [{"type": "image", "data": pixel, "mimeType": "image/png"}])

    @ptc.tool
    def odd(kind: str) -> str:
        return "half an emoji: \ud83d" if kind == "surrogate" else "ünïcödé ✓"

    seen: list[str] = []

    def on_event(event: ptc.Event) -> None:
        seen.append(event.kind)
        raise RuntimeError("a broken event handler must not end the session")

    async def main() -> ptc.Outcome:
        async with ptc.Session(tools=[snapshot, odd], on_event=on_event) as session:
            session_loop = asyncio.get_running_loop()
            session_loop.set_exception_handler(lambda loop, context: None)
            return await session.run_code(
                """
                const s = await tools.snapshot({});
                console.log(await tools.odd({ kind: "text" }));
                try { await tools.odd({ kind: "surrogate" }); } catch (e) { console.log(e.code); }
                return s;
                """
            )

    outcome = run(main())
    assert not outcome.is_error, outcome.text
    assert outcome.text == 'ünïcödé ✓\nTOOL_ERROR\n{"ok":true}'
    assert [b["type"] for b in outcome.content] == ["text", "text", "image"]
    assert outcome.content[2]["data"] == pixel
    assert "started" in seen


def test_a_python_session_runs_python_programs() -> None:
    # `config={"language": "python"}`: the presentation speaks Python and
    # run_code runs Python on Monty (docs/contracts.md 6.1), calling the
    # same Python tools.
    async def main() -> tuple[ptc.Presentation, ptc.Outcome]:
        async with ptc.Session(tools=[get_weather, add], config={"language": "python"}) as session:
            presentation = await session.presentation()
            outcome = await session.run_code(
                "w = await tools.get_weather(city='Oslo')\n"
                "n = await tools.add(a=w['celsius'])\n"
                "print(f'sum {n}')\n"
                "{'n': n, 'city': w['city']}\n",
                description="adds one to Oslo's temperature",
            )
            return presentation, outcome

    presentation, outcome = run(main())
    assert "async def get_weather(self, *, city: str)" in presentation.sdk
    assert not outcome.is_error, outcome.text
    assert outcome.text == 'sum 10\n{"n":10,"city":"Oslo"}'
    assert outcome.sub_calls == 2
