"""State across runs against a real `ptc serve`: a session opened by the
host or by a run's first write, an unknown or dropped session, a SQLite
store that outlives its process, a store that cannot be opened or is gone,
and the state limits of the config."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

import ptc
from conftest import run

HANDLE = re.compile(r"ptc_[0-9a-f]{48}")
UNKNOWN = "ptc_" + "0" * 64


def test_an_opened_session_keeps_values_between_runs() -> None:
    async def main() -> tuple[str, ptc.Outcome, ptc.Outcome]:
        async with ptc.Session() as session:
            handle = await session.open_session()
            wrote = await session.run_code(
                'await state.set("cities", ["Oslo", "Lima"]); return "saved"', session=handle
            )
            read = await session.run_code(
                'return { cities: await state.get("cities"), keys: await state.keys() }', session=handle
            )
            return handle, wrote, read

    handle, wrote, read = run(main())
    assert HANDLE.fullmatch(handle), handle
    assert not wrote.is_error, wrote.text
    # A run given its session says nothing more about it.
    assert (wrote.text, wrote.session) == ("saved", handle)
    assert not read.is_error, read.text
    assert (read.text, read.session) == ('{"cities":["Oslo","Lima"],"keys":["cities"]}', handle)


def test_a_first_write_opens_a_session_that_a_later_run_or_invoke_passes() -> None:
    async def main() -> tuple[ptc.Outcome, ptc.Outcome, ptc.Outcome, ptc.CallResult]:
        async with ptc.Session() as session:
            plain = await session.run_code("return 1")
            wrote = await session.run_code('await state.set("n", 41); return "ok"')
            assert wrote.session is not None, wrote.text
            read = await session.run_code(
                'const n = await state.get("n"); await state.set("n", n + 1); return n', session=wrote.session
            )
            # The model's own run_code call names it the same way.
            invoked = await session.invoke(
                "run_code",
                {
                    "code": 'return [await state.get("n"), (await state.get("unset")) === undefined]',
                    "session": wrote.session,
                },
            )
            return plain, wrote, read, invoked

    plain, wrote, read, invoked = run(main())
    assert (plain.text, plain.session) == ("1", None)
    assert wrote.session is not None and HANDLE.fullmatch(wrote.session), wrote.session
    # The model is told the handle: the text's last line names it.
    assert wrote.text.splitlines() == [
        "ok",
        f'values kept in session `{wrote.session}`: pass session "{wrote.session}" to use them',
    ]
    assert (read.text, read.session) == ("41", wrote.session)
    assert invoked.outcome is not None and not invoked.is_error, invoked.text
    assert (invoked.text, invoked.outcome.session) == ("[42,true]", wrote.session)


def test_an_unknown_or_dropped_session_is_invalid_params_and_the_session_goes_on() -> None:
    async def main() -> tuple[ptc.ProtocolError, ptc.ProtocolError, ptc.Outcome, ptc.Outcome]:
        # At most one state session: opening a second drops the first.
        async with ptc.Session(config={"stateMaxSessions": 1}) as session:
            with pytest.raises(ptc.ProtocolError) as unknown:
                await session.run_code('return await state.get("k")', session=UNKNOWN)
            after = await session.run_code("return 6 * 7")
            first = await session.open_session()
            second = await session.open_session()
            with pytest.raises(ptc.ProtocolError) as dropped:
                await session.run_code("return 1", session=first)
            kept = await session.run_code('await state.set("k", 1); return await state.keys()', session=second)
            return unknown.value, dropped.value, after, kept

    unknown, dropped, after, kept = run(main())
    assert unknown.code == -32602
    assert str(unknown).startswith(
        f"invalid params for `run_code`: session `{UNKNOWN}` was not opened by this ptc's state store"
    ), str(unknown)
    assert (after.is_error, after.text) == (False, "42")
    assert dropped.code == -32602
    assert "has expired or was dropped" in str(dropped), str(dropped)
    assert (kept.is_error, kept.text) == (False, '["k"]')


def test_a_sqlite_store_keeps_values_after_its_process_ends(tmp_path: Path) -> None:
    config: ptc.Config = {"state": f"sqlite:{tmp_path / 's.db'}"}

    async def main() -> tuple[ptc.Outcome, int | None, ptc.Outcome]:
        async with ptc.Session(config=config) as first:
            wrote = await first.run_code('await state.set("plan", { step: 2, of: 5 }); return "saved"')
            first_pid = first.pid
        assert wrote.session is not None, wrote.text
        async with ptc.Session(config=config) as second:
            assert second.pid != first_pid
            read = await second.run_code('return await state.get("plan")', session=wrote.session)
        return wrote, first_pid, read

    wrote, first_pid, read = run(main())
    assert first_pid is not None
    with pytest.raises(ProcessLookupError):
        os.kill(first_pid, 0)  # the first process had exited before the second read
    assert (read.is_error, read.text, read.session) == (False, '{"step":2,"of":5}', wrote.session)
    assert (tmp_path / "s.db").is_file()


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("bogus:x", "`bogus:x` names no state store: use `memory`, `sqlite:PATH`, `redis://HOST:PORT/DB` or `rediss://HOST:PORT/DB` (TLS)"),
        ("sqlite:{tmp}/no/such/dir/s.db", "No such file or directory"),
        ("redis://127.0.0.1:{port}/0", "Connection refused"),
    ],
)
def test_a_store_that_cannot_be_opened_fails_start_clearly(tmp_path: Path, url: str, why: str) -> None:
    url = url.format(tmp=tmp_path, port=_free_port())
    session = ptc.Session(config={"state": url})

    async def main() -> None:
        # Bounded well below the test deadline: a refusal, not a hang.
        await asyncio.wait_for(session.start(), 20)

    with pytest.raises(ptc.ProtocolError) as refused:
        run(main())
    assert refused.value.code == -32602
    message = str(refused.value)
    assert message.startswith(
        "invalid params for `initialize`: config.state: the state store is unavailable: "
    ), message
    assert why in message, message
    # Start closed what it spawned.
    assert session.pid is not None
    with pytest.raises(ProcessLookupError):
        os.kill(session.pid, 0)


def test_the_state_limits_of_the_config_bind_the_program() -> None:
    code = """
        const codes = [];
        try { await state.set("big", "x".repeat(2000)); } catch (e) { codes.push(e.code); }
        await state.set("a", 1);
        try { await state.set("b", 2); } catch (e) { codes.push(e.code); }
        return { codes, keys: await state.keys() };
    """

    async def main() -> tuple[ptc.Outcome, ptc.ProtocolError]:
        async with ptc.Session(config={"stateMaxValueBytes": 1024, "stateMaxKeys": 1}) as session:
            outcome = await session.run_code(code)
        with pytest.raises(ptc.ProtocolError) as refused:
            async with ptc.Session(config={"stateMaxValueBytes": 16}):
                pass
        return outcome, refused.value

    outcome, refused = run(main())
    assert not outcome.is_error, outcome.text
    assert outcome.text.splitlines()[0] == '{"codes":["QUOTA","QUOTA"],"keys":["a"]}'
    assert refused.code == -32602
    assert "stateMaxValueBytes must be at least 1 KiB" in str(refused), str(refused)


def test_a_python_program_keeps_values_between_runs() -> None:
    async def main() -> tuple[ptc.Outcome, ptc.Outcome]:
        async with ptc.Session(config={"language": "python"}) as session:
            handle = await session.open_session()
            wrote = await session.run_code("await state.set('seen', {'Oslo': 9})\n'ok'\n", session=handle)
            read = await session.run_code("await state.get('seen')\n", session=handle)
            return wrote, read

    wrote, read = run(main())
    assert (wrote.is_error, wrote.text) == (False, "ok"), wrote.text
    assert (read.is_error, read.text, read.session) == (False, '{"Oslo":9}', wrote.session)


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_open_session_when_the_store_is_gone_is_a_protocol_error(tmp_path: Path) -> None:
    port = _free_port()
    server = subprocess.Popen(
        ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(port)

        async def main() -> tuple[str, ptc.ProtocolError, ptc.Outcome]:
            async with ptc.Session(config={"state": f"redis://127.0.0.1:{port}/0"}) as session:
                handle = await session.open_session()
                server.send_signal(signal.SIGKILL)
                server.wait()
                with pytest.raises(ptc.ProtocolError) as gone:
                    await session.open_session()
                after = await session.run_code("return 1")
                return handle, gone.value, after

        handle, gone, after = run(main())
    finally:
        server.kill()
        server.wait()
    assert HANDLE.fullmatch(handle), handle
    assert gone.code == -32000
    assert str(gone).startswith("the state store is unavailable"), str(gone)
    assert (after.is_error, after.text) == (False, "1")


def _free_port() -> int:
    """A loopback port nothing listens on (as the test starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _wait_for_port(port: int) -> None:
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)
