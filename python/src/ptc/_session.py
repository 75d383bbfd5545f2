"""A session: one `ptc serve` process and the Python tools it calls back."""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import inspect
import itertools
import json
import logging
import os
import reprlib
import signal
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Literal, TypedDict

from ._binary import find_binary
from ._errors import ProtocolError, PtcError, ServerExited, ToolError
from ._tools import Policy, Tool

Mode = Literal["ptc", "native", "both"]
Language = Literal["typescript", "python"]


class Config(TypedDict, total=False):
    """The ``initialize`` config (docs/host-protocol.md); members left out
    take ptc's defaults."""

    mode: Mode
    language: Language
    """The language ``run_code`` speaks and runs (docs/contracts.md §6.1)."""
    state: str
    """Where runs keep values between them (``memory``, the default; ``sqlite:PATH``; ``redis://HOST:PORT/DB``)."""
    maxParallelSubCalls: int
    defaultTimeoutMs: int
    maxTimeoutMs: int
    outputCapBytes: int
    memoryLimitBytes: int
    descriptionBudgetBytes: int
    escalatedMaxTimeoutMs: int
    escalatedOutputCapBytes: int
    escalatedMemoryLimitBytes: int
    stateMaxValueBytes: int
    """The JSON text of one ``state`` value, in bytes (default 1 MiB, at least 1 KiB)."""
    stateMaxSessionBytes: int
    """The keys and values of one session together, in bytes (default 16 MiB, at least 1 KiB)."""
    stateMaxKeys: int
    """The keys of one session (default 10,000, at least 1)."""
    stateExpiryMs: int
    """How long an idle session is kept, in ms (default 86,400,000: a day; at least 1,000)."""
    stateMaxSessions: int
    """The sessions the store keeps; opening one more drops the least recently used (default 10,000, at least 1)."""
    defaultCpuTimeMs: int
    """The CPU a run's program itself may use when ``run_code`` gives no ``cpu_time_ms``, in ms; waiting on tools does not count (default 30,000)."""
    maxCpuTimeMs: int
    """The largest ``cpu_time_ms`` a run may give, in ms (default 600,000)."""
    maxSubCalls: int
    """The sub-calls one run may make; past it each further call fails with ``DENIED`` (default 10,000, at least 1)."""


def _string(data: dict[str, Any], key: str) -> str | None:
    """``data[key]`` when it is a string, else ``None``."""
    value = data.get(key)
    return value if isinstance(value, str) else None


def _integer(data: dict[str, Any], key: str) -> int | None:
    """``data[key]`` when it is an integer (not a bool), else ``None``."""
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclasses.dataclass(frozen=True)
class Event:
    """One ``run/event`` of a run: ``kind`` is ``"started"`` (a sub-call
    began: ``id``, ``name``, ``title``, ``arguments``), ``"settled"`` (it
    ended: ``id``, ``title``, ``ok`` and ``value`` or ``error``),
    ``"progress"`` (a sub-call's note while it runs: ``id``, ``message``) or
    ``"log"`` (a console line: ``level``, ``text``, or ``truncated``).
    ``data`` is the notification's params as sent.

    Arguments or a value whose JSON text is over 16 KiB come as a preview
    instead: ``argumentsPreview`` (the start of the JSON text) and
    ``argumentsBytes`` (its length in bytes) in place of ``arguments``;
    ``valuePreview`` and ``valueBytes`` in place of ``value``."""

    kind: str
    run_id: str | None
    data: dict[str, Any]

    @property
    def id(self) -> str | None:
        """The sub-call's id (``started``, ``settled``, ``progress``)."""
        return _string(self.data, "id")

    @property
    def title(self) -> str | None:
        """How the sub-call reads to a person (``started``, ``settled``)."""
        return _string(self.data, "title")

    @property
    def text(self) -> str | None:
        """A ``log`` event's line."""
        return _string(self.data, "text")

    @property
    def arguments(self) -> Any:
        """A ``started`` event's arguments; None when they came as a preview."""
        return self.data.get("arguments")

    @property
    def arguments_preview(self) -> str | None:
        """The start of the arguments' JSON text, when it is over 16 KiB
        (``started``); then :attr:`arguments` is None."""
        return _string(self.data, "argumentsPreview")

    @property
    def arguments_bytes(self) -> int | None:
        """The length in bytes of the arguments' JSON text, sent with
        :attr:`arguments_preview`."""
        return _integer(self.data, "argumentsBytes")

    @property
    def value(self) -> Any:
        """A successful ``settled`` event's value; None when it came as a
        preview (or was null)."""
        return self.data.get("value")

    @property
    def value_preview(self) -> str | None:
        """The start of the value's JSON text, when it is over 16 KiB
        (``settled``); then :attr:`value` is None."""
        return _string(self.data, "valuePreview")

    @property
    def value_bytes(self) -> int | None:
        """The length in bytes of the value's JSON text, sent with
        :attr:`value_preview`."""
        return _integer(self.data, "valueBytes")


@dataclasses.dataclass(frozen=True)
class Outcome:
    """The result of ``run_code`` (docs/host-protocol.md): ``text`` is
    exactly what the model gets back (docs/contracts.md §7), ``kind`` why
    the run failed (``syntax``, ``runtime``, ``timeout``, ``memory``,
    ``cancelled``, ``denied``) or None, ``events`` the run's first events in
    order (at most the session's ``max_events``).

    ``session`` is the state session the run read and wrote: the one
    ``run_code`` named, or the one its first ``state.set`` opened; None when
    it had neither. Pass it as ``session`` to a later run to read its values.

    ``elapsed_ms`` is the run's wall time; ``cpu_ms`` the CPU its program
    used (waiting on tools not counted), both in milliseconds.

    ``events_not_kept`` counts the events past ``max_events``: the
    listeners saw them, ``events`` does not hold them. ``dropped_events``
    counts the events ptc itself dropped because the host fell behind in
    reading (docs/host-protocol.md, Backpressure): no one saw those."""

    run_id: str
    is_error: bool
    kind: str | None
    content: list[dict[str, Any]]
    sub_calls: int
    elapsed_ms: float
    events: list[Event]
    cpu_ms: float = 0.0
    dropped_events: int = 0
    events_not_kept: int = 0
    session: str | None = None

    @property
    def text(self) -> str:
        """The rendered text (the first content block)."""
        if self.content and self.content[0].get("type") == "text":
            text = self.content[0].get("text")
            return text if isinstance(text, str) else ""
        return ""


@dataclasses.dataclass(frozen=True)
class CallResult:
    """The answer to a tool call the model made (:meth:`Session.invoke`):
    ``content`` is what to send back to the model (``text`` its text), ``is_error``
    whether it failed. For a tool: ``value`` or ``error`` (``{code, message}``);
    for ``run_code``: ``outcome``."""

    is_error: bool
    content: list[dict[str, Any]]
    value: Any = None
    error: dict[str, Any] | None = None
    outcome: Outcome | None = None

    @property
    def text(self) -> str:
        """The text blocks of ``content``, joined by newlines."""
        return "\n".join(
            b["text"] for b in self.content if b.get("type") == "text" and isinstance(b.get("text"), str)
        )


@dataclasses.dataclass(frozen=True)
class ToolSpec:
    """One tool as the model sees it."""

    name: str
    description: str | None
    parameters: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Presentation:
    """What the model sees (docs/contracts.md §4): in mode ``ptc`` the one
    tool ``run_code``, whose description holds the TypeScript SDK; ``sdk`` is
    every visible tool's declarations."""

    tools: list[ToolSpec]
    sdk: str

    def openai(self) -> list[dict[str, Any]]:
        """The tools for OpenAI's Chat Completions API (``tools=``)."""
        return [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description or "",
                    "parameters": t.parameters,
                },
            }
            for t in self.tools
        ]

    def openai_responses(self) -> list[dict[str, Any]]:
        """The tools for OpenAI's Responses API (``tools=``)."""
        return [
            {
                "type": "function",
                "name": t.name,
                "description": t.description or "",
                "parameters": t.parameters,
            }
            for t in self.tools
        ]

    def anthropic(self) -> list[dict[str, Any]]:
        """The tools for Anthropic's Messages API (``tools=``)."""
        return [
            {"name": t.name, "description": t.description or "", "input_schema": t.parameters}
            for t in self.tools
        ]


@dataclasses.dataclass(frozen=True)
class Approval:
    """What ``tools/approve`` asks the approver.

    ``kind`` ``"call"``: a sub-call of a tool whose policy is ``ask``;
    ``name``, ``arguments``, ``title`` (how it reads to a person), ``id``.
    ``kind`` ``"escalation"``: a run asking for escalation before it starts;
    ``code``, ``description``, ``justification`` and ``grant`` (the tools and
    limits it would get). Show a person the grant first, then the model's
    text in full (docs/contracts.md §6, "What a person approves").
    """

    kind: str
    run_id: str | None
    data: dict[str, Any]

    @property
    def name(self) -> str | None:
        """The tool's name (``call``)."""
        return _string(self.data, "name")

    @property
    def title(self) -> str | None:
        """How the call reads to a person (``call``)."""
        return _string(self.data, "title")

    @property
    def arguments(self) -> Any:
        """The call's arguments (``call``)."""
        return self.data.get("arguments")


@dataclasses.dataclass(frozen=True)
class Decision:
    """An approver's answer with a reason: a refusal's ``reason`` is what the
    program (and so the model) reads."""

    approved: bool
    reason: str | None = None


Approver = Callable[[Approval], bool | Decision | Awaitable[bool | Decision]]
"""Decides an :class:`Approval`: True/False or a :class:`Decision`, plain or
``async``. A plain function runs in a worker thread (it may prompt). Only
``True`` or a ``Decision`` whose ``approved`` is ``True`` approves: any other
answer (a truthy value, a dict, a string, None) refuses, saying what it was."""

EventHandler = Callable[[Event], None]
"""Called on the event loop for each event as it comes; it must not block."""

_STDERR_TAIL = 4096

MAX_EVENTS = 1000
"""How many events of a run an :class:`Outcome` keeps by default."""

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""The longest line from ptc the session reads by default (64 MiB)."""

_CHUNK = 1 << 16
"""What one read of ptc's output takes."""

_STREAM_LIMIT = 1 << 20
"""asyncio's buffer bound for ptc's pipes: its stdout is read in chunks of
``_CHUNK`` (so this only bounds the read-ahead, twice it), its stderr by
lines (a longer stderr line is skipped)."""

_HEAD_BYTES = 1 << 16
"""What is kept of a line the session cannot read, to tell whose it was."""

_log = logging.getLogger("ptc")


@dataclasses.dataclass(frozen=True)
class _Line:
    """One line of ptc's output: ``data`` is the whole line, or only its
    start when it was longer than the bound (then ``size`` is larger)."""

    data: bytes
    size: int

    @property
    def whole(self) -> bool:
        return len(self.data) == self.size


class _Lines:
    """Cuts ptc's output into lines of at most ``limit`` bytes. A longer
    line costs at most ``limit`` bytes while it is read: past the bound only
    its first ``_HEAD_BYTES`` are kept, and the rest is counted and
    dropped."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._parts: list[bytes] = []
        self._size = 0
        self._head: bytes | None = None

    def feed(self, chunk: bytes) -> list[_Line]:
        """The lines ``chunk`` ends."""
        lines: list[_Line] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                self._take(chunk[start:])
                return lines
            self._take(chunk[start:end])
            lines.append(self._finish())
            start = end + 1

    def end(self) -> list[_Line]:
        """The last line, when the output ended without a newline."""
        return [self._finish()] if self._size else []

    def _take(self, piece: bytes) -> None:
        if not piece:
            return
        self._size += len(piece)
        if self._head is not None:
            return
        if self._size <= self._limit:
            self._parts.append(piece)
            return
        keep = min(_HEAD_BYTES, self._limit)
        head = bytearray()
        for part in [*self._parts, piece]:
            head += part[: keep - len(head)]
        self._head = bytes(head)
        self._parts = []

    def _finish(self) -> _Line:
        # (join gives the one part itself when there is one.)
        line = _Line(self._head if self._head is not None else b"".join(self._parts), self._size)
        self._parts = []
        self._size = 0
        self._head = None
        return line


_DECODER = json.JSONDecoder()


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _head(data: bytes) -> dict[str, Any]:
    """The members of the JSON object ``data`` starts with, as far as they
    are whole (and one level into an object member cut short): what tells
    whose an unreadable line was (its ``id``, ``method``, ``params.runId``)."""
    text = data[:_HEAD_BYTES].decode(errors="replace")
    try:
        return _object_head(text, 0, nested=False)
    except RecursionError:
        return {}


def _object_head(text: str, i: int, nested: bool) -> dict[str, Any]:
    members: dict[str, Any] = {}
    i = _skip_space(text, i)
    if not text.startswith("{", i):
        return members
    i += 1
    while True:
        i = _skip_space(text, i)
        try:
            key, i = _DECODER.raw_decode(text, i)
        except ValueError:
            return members
        i = _skip_space(text, i)
        if not isinstance(key, str) or not text.startswith(":", i):
            return members
        i = _skip_space(text, i + 1)
        try:
            value, i = _DECODER.raw_decode(text, i)
        except ValueError:
            if not nested and text.startswith("{", i):
                members[key] = _object_head(text, i, nested=True)
            return members
        # A member counts once what follows shows it whole (a number at the
        # cut may go on).
        i = _skip_space(text, i)
        if not text.startswith((",", "}"), i):
            return members
        members[key] = value
        if text.startswith("}", i):
            return members
        i += 1


_REPR = reprlib.Repr()
_REPR.maxstring = 40
_REPR.maxother = 40
_REPR.maxlevel = 2
_REPR.maxdict = _REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = 3
_PLAIN = (str, bytes, int, float, complex, list, tuple, dict, set, frozenset, type(None), type(Ellipsis))


def _describe(value: object) -> str:
    """A few words on what an approver answered."""
    if isinstance(value, Decision):
        return f"a Decision whose approved is {_describe(value.approved)}"
    if type(value) in _PLAIN:
        return f"{_REPR.repr(value)} ({type(value).__name__})"
    return f"an object of type {type(value).__name__[:40]}"


def _approval_reply(answer: object) -> dict[str, Any]:
    """The answer to ``tools/approve`` for an approver's answer: only ``True``
    or a :class:`Decision` whose ``approved`` is ``True`` approves."""
    if answer is True or answer is False:
        return {"approved": answer}
    if isinstance(answer, Decision) and isinstance(answer.approved, bool):
        reply: dict[str, Any] = {"approved": answer.approved}
        if isinstance(answer.reason, str):
            reply["reason"] = answer.reason
        return reply
    return {
        "approved": False,
        "reason": f"the approver's answer was not an approval: {_describe(answer)}; "
        "only True or Decision(True) approves",
    }


@dataclasses.dataclass(eq=False)
class _Run:
    """A run under way: its first events, the count of the rest, its own
    listener, and the id of its ``run_code`` request once sent."""

    keep: int
    listener: EventHandler | None
    events: list[Event] = dataclasses.field(default_factory=list)
    not_kept: int = 0
    rid: int | None = None

    def add(self, event: Event) -> None:
        if len(self.events) < self.keep:
            self.events.append(event)
        else:
            self.not_kept += 1


class Session:
    """One `ptc serve` process: register Python tools, run programs.

    ::

        async with ptc.Session(tools=[get_weather]) as session:
            outcome = await session.run_code('return await tools.get_weather({ city: "Oslo" })')

    ``tools`` are registered on start. ``approver`` decides the calls of
    tools whose policy is ``ask`` and escalations; without one they are
    refused. ``on_event`` sees every run's events as they come. ``config`` is
    the ``initialize`` config. ``binary`` is the ``ptc`` binary (by default
    the one the wheel installed, see :func:`ptc.find_binary`).

    ``max_events`` (default 1,000) is how many events of a run its
    :class:`Outcome` keeps; the rest are counted (``events_not_kept``), and
    every event still reaches ``on_event`` as it comes.
    ``max_message_bytes`` (default 64 MiB) bounds one line from ptc, and so
    what reading it may cost. A line the session cannot read (longer than
    that, not JSON, an event without its members) never ends the session:
    what it belonged to fails (a request raises :class:`ProtocolError`, a
    run's ``run_code`` raises it and the run is cancelled, a tool call or
    approval ptc asked for is answered with a failure), or, when it names
    nothing of this session's, it is skipped with a warning on the ``ptc``
    logger. ``max_events`` below 0 or ``max_message_bytes`` below 1 is a
    ``ValueError``.
    """

    def __init__(
        self,
        *,
        tools: Iterable[Tool] = (),
        approver: Approver | None = None,
        on_event: EventHandler | None = None,
        config: Config | None = None,
        binary: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        max_events: int = MAX_EVENTS,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
    ) -> None:
        if max_events < 0:
            raise ValueError(f"max_events must be at least 0, got {max_events}")
        if max_message_bytes < 1:
            raise ValueError(f"max_message_bytes must be at least 1, got {max_message_bytes}")
        self._initial_tools = list(tools)
        self.approver = approver
        self.on_event = on_event
        self._config = config
        self._binary = binary
        self._env = dict(env) if env is not None else None
        self._max_events = max_events
        self._max_message_bytes = max_message_bytes
        self._tools: dict[str, Tool] = {}
        self._process: asyncio.subprocess.Process | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._runs: dict[str, _Run] = {}
        self._handlers: dict[Any, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._stderr: collections.deque[str] = collections.deque()
        self._stderr_size = 0
        self._failure: PtcError | None = None
        self._closing = False
        self._write_lock = asyncio.Lock()
        self._exited = asyncio.Event()
        self.version: str | None = None
        """ptc's version, once started."""

    # -- life cycle

    async def __aenter__(self) -> Session:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def pid(self) -> int | None:
        """The `ptc serve` process's id, once started."""
        return self._process.pid if self._process else None

    async def start(self) -> None:
        """Starts `ptc serve`, initializes it and registers the tools given.

        Raises:
            BinaryNotFound: no `ptc` binary.
            ProtocolError: ptc refused the config or a tool.
            ServerExited: the process ended while starting.
        """
        if self._process is not None:
            raise PtcError("the session is already started")
        binary = find_binary(self._binary)
        env = None if self._env is None else {**os.environ, **self._env}
        self._process = await asyncio.create_subprocess_exec(
            binary,
            "serve",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            limit=_STREAM_LIMIT,
        )
        self._spawn(self._read_stdout())
        self._spawn(self._read_stderr())
        try:
            params: dict[str, Any] = {"config": dict(self._config)} if self._config else {}
            info = await self._request("initialize", params)
            self.version = info.get("version") if isinstance(info, dict) else None
            if self._initial_tools:
                await self.register(*self._initial_tools)
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        """Ends the session: closes ptc's input (runs still going end as
        ``cancelled``), waits for the process to exit (killing it after 5 s)
        and stops the tools still running. Safe to call twice."""
        process = self._process
        if process is None:
            return
        if self._closing:
            await self._exited.wait()
            return
        self._closing = True
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()
        await self._exited.wait()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    # -- requests

    async def register(self, *tools: Tool) -> list[str]:
        """Registers tools (replacing ones of the same name in place); all or
        nothing. Returns ptc's warnings (parts of a schema it cannot check).

        Raises:
            ProtocolError: a tool was refused (a bad name or schema); the
                message names the tool and the JSON path, and none was
                registered.
        """
        names = [t.name for t in tools]
        if len(set(names)) != len(names):
            raise PtcError(f"two tools have the same name in {names}")
        result = await self._request("tools/register", {"tools": [t.definition() for t in tools]})
        for t in tools:
            self._tools[t.name] = t
        warnings = result.get("warnings", []) if isinstance(result, dict) else []
        return [w for w in warnings if isinstance(w, str)]

    async def remove(self, *names: str) -> bool:
        """Removes tools by name; True when every name was registered."""
        result = await self._request("tools/remove", {"names": list(names)})
        for name in names:
            self._tools.pop(name, None)
        return bool(isinstance(result, dict) and result.get("removed"))

    async def set_policy(self, name: str, policy: Policy) -> None:
        """Sets a registered tool's policy: ``"allow"``, ``"ask"`` (the
        approver decides each call) or ``"deny"``.

        Raises:
            KeyError: no Python tool of that name is registered.
        """
        await self.register(self._tools[name].with_policy(policy))

    @property
    def tools(self) -> dict[str, Tool]:
        """The Python tools registered, by name."""
        return dict(self._tools)

    async def presentation(self, mode: Mode | None = None) -> Presentation:
        """What the model sees (for the mode given, else the session's):
        format it with :meth:`Presentation.openai` or
        :meth:`Presentation.anthropic`."""
        result = await self._request("presentation", {"mode": mode} if mode else {})
        tools = [
            ToolSpec(t["name"], t.get("description"), t.get("parameters", {"type": "object"}))
            for t in result.get("tools", [])
        ]
        return Presentation(tools, result.get("sdk", ""))

    async def run_code(
        self,
        code: str,
        *,
        description: str = "",
        timeout_ms: int | None = None,
        cpu_time_ms: int | None = None,
        max_sub_calls: int | None = None,
        run_id: str | None = None,
        justification: str | None = None,
        on_event: EventHandler | None = None,
        session: str | None = None,
    ) -> Outcome:
        """Runs a program; its failures (syntax, runtime, timeout, memory,
        cancelled, denied) are outcomes with ``is_error``, not exceptions.

        ``timeout_ms`` is the run's deadline (default the config's
        ``defaultTimeoutMs``); ``cpu_time_ms`` the CPU its program itself may
        use, waiting on tools not counted (default ``defaultCpuTimeMs``; past
        it the run ends as ``timeout``); ``max_sub_calls`` the sub-calls it
        may make (default ``maxSubCalls``; past it each further call fails
        with ``DENIED``, which the program may catch). The model's own
        ``run_code`` calls cannot set ``max_sub_calls``.
        ``run_id`` is used as given (events, approvals and ``tools/call``
        carry it); None, the default, makes a fresh one.
        ``justification``, when given, asks for an escalated run (the
        approver decides before it starts). ``session``, when given, is the
        state session the program's ``state`` reads and writes: one from
        :meth:`open_session` or an earlier :attr:`Outcome.session`; without
        one, the run's first ``state.set`` opens a new one (the outcome's
        ``session``). Cancelling the awaiting task cancels the run (ptc gets
        ``$/cancel``; tools still running are cancelled).

        Raises:
            ValueError: an empty ``run_id`` (nothing is sent).
            ProtocolError: a malformed request (``timeout_ms`` or
                ``cpu_time_ms`` out of range, a ``max_sub_calls`` of 0 or over
                4294967295, a ``run_id`` already running, a ``session`` the
                state store does not know or that expired: code -32602).
            ServerExited: the process ended.
        """
        if run_id is None:
            run_id = f"py-{uuid.uuid4().hex[:16]}"
        elif run_id == "":
            raise ValueError("run_id must not be empty: pass None (the default) for a fresh one")
        params: dict[str, Any] = {"code": code, "description": description, "runId": run_id}
        if timeout_ms is not None:
            params["timeoutMs"] = timeout_ms
        if cpu_time_ms is not None:
            params["cpuTimeMs"] = cpu_time_ms
        if max_sub_calls is not None:
            params["maxSubCalls"] = max_sub_calls
        if justification is not None:
            params["sandboxPermissions"] = "require_escalated"
            params["justification"] = justification
        if session is not None:
            params["session"] = session
        if run_id in self._runs:
            raise PtcError(f"run id `{run_id}` belongs to a run still going")
        run = _Run(self._max_events, on_event)
        self._runs[run_id] = run
        try:
            result = await self._request("run_code", params, cancellable=True, run=run)
        finally:
            del self._runs[run_id]
        return _outcome(result, run)

    async def open_session(self) -> str:
        """Opens a state session (``session/open``) and returns its handle
        (``ptc_…``): pass it as ``session`` to :meth:`run_code`, and the runs
        given it share their ``state`` values. Its values live in the store
        of the config's ``state`` (in memory by default: they end with this
        process) until it has been idle for ``stateExpiryMs``.

        Raises:
            ProtocolError: the state store could not be reached (code
                -32000, ptc's message), or ptc's answer holds no handle.
            ServerExited: the process ended.
        """
        result = await self._request("session/open", {})
        handle = result.get("session") if isinstance(result, dict) else None
        if not isinstance(handle, str):
            raise ProtocolError(f"session/open's result holds no session: {result!r}")
        return handle

    async def invoke(self, name: str, arguments: Any) -> CallResult:
        """Answers a tool call the model made, as it made it (``run_code``
        included): the full pipeline runs (visibility, validation, policy).
        Cancelling the awaiting task cancels the call as it cancels a run:
        ptc gets ``$/cancel``, and the tool it called is cancelled."""
        result = await self._request(
            "tools/invoke", {"name": name, "arguments": arguments}, cancellable=True
        )
        content = list(result.get("content", []))
        outcome = _outcome(result, None) if "runId" in result else None
        return CallResult(
            is_error=bool(result.get("isError")),
            content=content,
            value=result.get("value"),
            error=result.get("error"),
            outcome=outcome,
        )

    # -- the wire

    def _spawn(self, coro: Awaitable[None]) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _send(self, message: dict[str, Any]) -> None:
        if self._failure is not None:
            raise self._failure
        process = self._process
        if process is None or process.stdin is None:
            raise PtcError("the session is not started")
        # ASCII: a lone surrogate goes out as an escape ptc refuses (failing
        # that one call), never as bytes that are not UTF-8.
        line = json.dumps({"jsonrpc": "2.0", **message}, allow_nan=False)
        async with self._write_lock:
            try:
                process.stdin.write(line.encode() + b"\n")
                await process.stdin.drain()
            except (ConnectionError, RuntimeError) as error:
                await self._exited.wait()
                raise (self._failure or ServerExited(str(error), None, "")) from error

    async def _request(
        self, method: str, params: dict[str, Any], cancellable: bool = False, run: _Run | None = None
    ) -> Any:
        if self._failure is not None:
            raise self._failure
        if self._closing:
            raise PtcError("the session is closed")
        rid = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        if run is not None:
            run.rid = rid
        try:
            await self._send({"id": rid, "method": method, "params": params})
            return await future
        except asyncio.CancelledError:
            if cancellable and self._failure is None and not self._closing:
                try:
                    await asyncio.shield(self._send({"method": "$/cancel", "params": {"id": rid}}))
                except PtcError:
                    pass
            raise
        finally:
            self._pending.pop(rid, None)

    async def _read_stdout(self) -> None:
        process = self._process
        assert process is not None and process.stdout is not None
        lines = _Lines(self._max_message_bytes)
        eof = False
        try:
            while True:
                chunk = await process.stdout.read(_CHUNK)
                if not chunk:
                    for line in lines.end():
                        self._receive(line)
                    eof = True
                    break
                for line in lines.feed(chunk):
                    self._receive(line)
        finally:
            # Ended other than by ptc closing its output (the event loop
            # ending without close(), an error here): no process may
            # outlive its reader.
            if not eof and process.returncode is None:
                process.kill()
            code = await process.wait()
            self._fail(self._exit_error(code))
            self._exited.set()

    def _receive(self, line: _Line) -> None:
        """Handles one line of ptc's output; never raises, never ends the
        session."""
        if not line.whole:
            self._unreadable(
                line.data,
                f"a message of {line.size:,} bytes, over max_message_bytes ({self._max_message_bytes:,})",
            )
            return
        if not line.data.strip():
            return
        try:
            message = json.loads(line.data)
        except (ValueError, RecursionError) as error:
            self._unreadable(line.data, f"a line that is not JSON ({str(error)[:200]})")
            return
        if not isinstance(message, dict):
            self._unreadable(b"", f"a JSON {type(message).__name__} where a message (an object) belongs")
            return
        try:
            self._dispatch(message)
        except Exception as error:  # a message of odd shape
            asyncio.get_running_loop().call_exception_handler(
                {"message": "ptc: a message from ptc serve could not be handled", "exception": error}
            )

    def _unreadable(self, data: bytes, what: str) -> None:
        """A line the session cannot read: fails what it belonged to (a
        request of ours, a run of ours, a request of ptc's), else is skipped
        with a warning."""
        head = _head(data)
        rid = head.get("id")
        method = head.get("method")
        params = head.get("params")
        params = params if isinstance(params, dict) else {}
        if isinstance(method, str):
            if isinstance(rid, (int, str)) and not isinstance(rid, bool):
                why = f"the host could not read ptc's `{method}` request: ptc sent {what}"
                if method == "tools/approve":
                    self._spawn(self._reply(rid, {"approved": False, "reason": why}))
                else:
                    self._spawn(self._reply_error(rid, -32000, why))
                return
            run_id = params.get("runId")
            if method == "run/event" and isinstance(run_id, str) and self._fail_run(run_id, what):
                return
        elif isinstance(rid, int) and not isinstance(rid, bool):
            future = self._pending.get(rid)
            if future is not None and not future.done():
                future.set_exception(ProtocolError(f"ptc's answer could not be read: ptc sent {what}"))
                return
        _log.warning("ptc: skipped a line from ptc serve: %s", what)

    def _fail_run(self, run_id: str, what: str) -> bool:
        """Fails a run of this session for an event it cannot read: its
        ``run_code`` raises, and ptc is told to cancel it."""
        run = self._runs.get(run_id)
        future = self._pending.get(run.rid) if run is not None and run.rid is not None else None
        if run is None or run.rid is None or future is None:
            return False
        if not future.done():
            future.set_exception(
                ProtocolError(f"run `{run_id}` was cancelled: ptc sent an event of it that cannot be read: {what}")
            )
            self._spawn(self._cancel(run.rid))
        return True

    async def _cancel(self, rid: int) -> None:
        try:
            await self._send({"method": "$/cancel", "params": {"id": rid}})
        except PtcError:
            pass

    def _exit_error(self, code: int) -> ServerExited:
        stderr = "".join(self._stderr)
        if self._closing:
            return ServerExited("the session is closed", code, stderr)
        if code < 0:
            try:
                how = f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"was killed by signal {-code}"
        else:
            how = f"exited with status {code}"
        message = f"ptc serve {how}"
        if stderr.strip():
            message += "; its last output on stderr:\n" + stderr.rstrip()
        return ServerExited(message, code, stderr)

    def _fail(self, failure: PtcError) -> None:
        self._failure = failure
        for future in self._pending.values():
            if not future.done():
                future.set_exception(failure)
        for task in list(self._handlers.values()):
            task.cancel()

    async def _read_stderr(self) -> None:
        process = self._process
        assert process is not None and process.stderr is not None
        while True:
            try:
                line = await process.stderr.readline()
            except ValueError:
                continue  # a huge log line: skip it
            if not line:
                return
            text = line.decode(errors="replace")
            self._stderr.append(text)
            self._stderr_size += len(text)
            while self._stderr_size > _STDERR_TAIL and len(self._stderr) > 1:
                self._stderr_size -= len(self._stderr.popleft())

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if isinstance(method, str):
            params = message.get("params")
            params = params if isinstance(params, dict) else {}
            if "id" in message:
                rid = message["id"]
                if method == "tools/call":
                    self._handle(rid, self._answer_call(rid, params))
                elif method == "tools/approve":
                    self._handle(rid, self._answer_approve(rid, params))
                else:
                    self._spawn(self._reply_error(rid, -32601, f"unknown method `{method}`"))
            elif method == "run/event":
                self._on_event(message.get("params"))
            elif method == "$/cancel":
                task = self._handlers.get(params.get("id"))
                if task is not None:
                    task.cancel()
            return
        rid = message.get("id")
        future = self._pending.get(rid) if isinstance(rid, int) else None
        if future is None or future.done():
            return
        if "error" in message:
            error = message["error"] if isinstance(message["error"], dict) else {}
            future.set_exception(
                ProtocolError(str(error.get("message", "error")), error.get("code"), error.get("data"))
            )
        else:
            future.set_result(message.get("result"))

    def _handle(self, rid: Any, coro: Awaitable[None]) -> None:
        task = self._spawn(coro)
        self._handlers[rid] = task
        task.add_done_callback(lambda _: self._handlers.pop(rid, None))

    def _on_event(self, params: object) -> None:
        run_id = params.get("runId") if isinstance(params, dict) else None
        kind = params.get("event") if isinstance(params, dict) else None
        if not isinstance(params, dict) or not isinstance(run_id, str) or not isinstance(kind, str):
            what = "a `run/event` without a string `runId` and `event`"
            if not (isinstance(run_id, str) and self._fail_run(run_id, what)):
                _log.warning("ptc: skipped a line from ptc serve: %s", what)
            return
        data = {k: v for k, v in params.items() if k not in ("runId", "event")}
        event = Event(kind, run_id, data)
        run = self._runs.get(run_id)
        if run is not None:
            run.add(event)
        for listener in (run.listener if run is not None else None, self.on_event):
            if listener is None:
                continue
            try:
                listener(event)
            except Exception as error:  # a listener's bug ends neither the run nor the session
                asyncio.get_running_loop().call_exception_handler(
                    {"message": "ptc: an on_event listener raised", "exception": error}
                )

    async def _reply(self, rid: Any, result: Any) -> None:
        try:
            await self._send({"id": rid, "result": result})
        except PtcError:
            pass  # the process is gone: no one waits for the answer

    async def _reply_error(
        self, rid: Any, code: int, message: str, data: dict[str, Any] | None = None
    ) -> None:
        error: dict[str, Any] = {"code": code, "message": message}
        if data:
            error["data"] = data
        try:
            await self._send({"id": rid, "error": error})
        except PtcError:
            pass

    async def _answer_call(self, rid: Any, params: dict[str, Any]) -> None:
        name = params.get("name")
        t = self._tools.get(name) if isinstance(name, str) else None
        if t is None:
            await self._reply_error(rid, -32000, f"no Python tool is named `{name}`")
            return
        arguments = params.get("arguments")
        try:
            value, content = await t(arguments if isinstance(arguments, dict) else {})
        except asyncio.CancelledError:
            return  # ptc stopped waiting ($/cancel) or the session ended
        except ToolError as error:
            data: dict[str, Any] = {"code": error.code}
            if error.detail is not None:
                data["detail"] = error.detail
            await self._reply_error(rid, -32000, error.message, data)
            return
        except Exception as error:
            await self._reply_error(rid, -32000, f"{type(error).__name__}: {error}")
            return
        result: dict[str, Any] = {"value": value}
        if content:
            result["content"] = content
        await self._reply(rid, result)

    async def _answer_approve(self, rid: Any, params: dict[str, Any]) -> None:
        kind = str(params.get("kind", "call"))
        run_id = params.get("runId")
        approval = Approval(kind, run_id if isinstance(run_id, str) else None, params)
        if self.approver is None:
            what = f"`{approval.name}`" if kind == "call" else "the escalation"
            await self._reply(rid, {"approved": False, "reason": f"no approver is set for {what}"})
            return
        try:
            if inspect.iscoroutinefunction(self.approver):
                answer = await self.approver(approval)
            else:
                answer = await asyncio.to_thread(self.approver, approval)
                if inspect.isawaitable(answer):
                    answer = await answer
        except asyncio.CancelledError:
            return
        except Exception as error:
            reason = f"the approver failed: {type(error).__name__}: {error}"
            await self._reply(rid, {"approved": False, "reason": reason})
            return
        await self._reply(rid, _approval_reply(answer))


def _outcome(result: Any, run: _Run | None) -> Outcome:
    if not isinstance(result, dict):
        raise ProtocolError(f"run_code's result is not an object: {result!r}")
    return Outcome(
        run_id=str(result.get("runId", "")),
        is_error=bool(result.get("isError")),
        kind=result.get("kind"),
        content=list(result.get("content", [])),
        sub_calls=int(result.get("subCalls", 0)),
        elapsed_ms=float(result.get("elapsedMs", 0.0)),
        cpu_ms=float(result.get("cpuMs", 0.0)),
        events=run.events if run is not None else [],
        dropped_events=int(result.get("droppedEvents", 0)),
        events_not_kept=run.not_kept if run is not None else 0,
        session=_string(result, "session"),
    )
