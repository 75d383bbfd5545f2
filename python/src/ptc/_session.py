"""A session: one `ptc serve` process and the Python tools it calls back."""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import inspect
import itertools
import json
import os
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
    maxParallelSubCalls: int
    defaultTimeoutMs: int
    maxTimeoutMs: int
    outputCapBytes: int
    memoryLimitBytes: int
    descriptionBudgetBytes: int
    escalatedMaxTimeoutMs: int
    escalatedOutputCapBytes: int
    escalatedMemoryLimitBytes: int


def _string(data: dict[str, Any], key: str) -> str | None:
    """``data[key]`` when it is a string, else ``None``."""
    value = data.get(key)
    return value if isinstance(value, str) else None


@dataclasses.dataclass(frozen=True)
class Event:
    """One ``run/event`` of a run: ``kind`` is ``"started"`` (a sub-call
    began: ``id``, ``name``, ``title``, ``arguments``), ``"settled"`` (it
    ended: ``id``, ``title``, ``ok`` and ``value`` or ``error``),
    ``"progress"`` (a sub-call's note while it runs: ``id``, ``message``) or
    ``"log"`` (a console line: ``level``, ``text``, or ``truncated``).
    ``data`` is the notification's params as sent."""

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


@dataclasses.dataclass(frozen=True)
class Outcome:
    """The result of ``run_code`` (docs/host-protocol.md): ``text`` is
    exactly what the model gets back (docs/contracts.md §7), ``kind`` why
    the run failed (``syntax``, ``runtime``, ``timeout``, ``memory``,
    ``cancelled``, ``denied``) or None, ``events`` the run's events in
    order."""

    run_id: str
    is_error: bool
    kind: str | None
    content: list[dict[str, Any]]
    sub_calls: int
    elapsed_ms: float
    events: list[Event]
    dropped_events: int = 0

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
``async``. A plain function runs in a worker thread (it may prompt)."""

EventHandler = Callable[[Event], None]
"""Called on the event loop for each event as it comes; it must not block."""

_STDERR_TAIL = 4096


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
    ``max_message_bytes`` bounds one line from ptc: a longer one ends the
    session with a :class:`ProtocolError`.
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
        max_message_bytes: int = 64 * 1024 * 1024,
    ) -> None:
        self._initial_tools = list(tools)
        self.approver = approver
        self.on_event = on_event
        self._config = config
        self._binary = binary
        self._env = dict(env) if env is not None else None
        self._max_message_bytes = max_message_bytes
        self._tools: dict[str, Tool] = {}
        self._process: asyncio.subprocess.Process | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._runs: dict[str, tuple[list[Event], EventHandler | None]] = {}
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
            limit=self._max_message_bytes,
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
        run_id: str | None = None,
        justification: str | None = None,
        on_event: EventHandler | None = None,
    ) -> Outcome:
        """Runs a program; its failures (syntax, runtime, timeout, memory,
        cancelled, denied) are outcomes with ``is_error``, not exceptions.

        ``justification``, when given, asks for an escalated run (the
        approver decides before it starts). Cancelling the awaiting task
        cancels the run (ptc gets ``$/cancel``; tools still running are
        cancelled).

        Raises:
            ProtocolError: a malformed request (``timeout_ms`` out of range,
                a ``run_id`` already running).
            ServerExited: the process ended.
        """
        run_id = run_id or f"py-{uuid.uuid4().hex[:16]}"
        params: dict[str, Any] = {"code": code, "description": description, "runId": run_id}
        if timeout_ms is not None:
            params["timeoutMs"] = timeout_ms
        if justification is not None:
            params["sandboxPermissions"] = "require_escalated"
            params["justification"] = justification
        events: list[Event] = []
        self._runs[run_id] = (events, on_event)
        try:
            result = await self._request("run_code", params, cancellable=True)
        finally:
            del self._runs[run_id]
        return _outcome(result, events)

    async def invoke(self, name: str, arguments: Any) -> CallResult:
        """Answers a tool call the model made, as it made it (``run_code``
        included): the full pipeline runs (visibility, validation, policy).
        Cancelling the awaiting task cancels the call."""
        result = await self._request(
            "tools/invoke", {"name": name, "arguments": arguments}, cancellable=True
        )
        content = list(result.get("content", []))
        outcome = _outcome(result, []) if "runId" in result else None
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

    async def _request(self, method: str, params: dict[str, Any], cancellable: bool = False) -> Any:
        if self._failure is not None:
            raise self._failure
        if self._closing:
            raise PtcError("the session is closed")
        rid = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
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
        failure: PtcError | None = None
        eof = False
        try:
            while True:
                try:
                    line = await process.stdout.readline()
                except ValueError:
                    failure = ProtocolError(
                        f"ptc sent a line longer than max_message_bytes ({self._max_message_bytes})"
                    )
                    break
                if not line:
                    eof = True
                    break
                if not line.strip():
                    continue
                try:
                    message = json.loads(line)
                except ValueError as error:
                    failure = ProtocolError(f"ptc sent a line that is not JSON: {error}")
                    break
                if isinstance(message, dict):
                    try:
                        self._dispatch(message)
                    except Exception as error:  # an on_event that raised, a message of odd shape
                        asyncio.get_running_loop().call_exception_handler(
                            {"message": "ptc: a message from ptc serve could not be handled", "exception": error}
                        )
        finally:
            # Ended other than by ptc closing its output (a bad line, the
            # event loop ending without close(), an error here): no process
            # may outlive its reader.
            if not eof and process.returncode is None:
                process.kill()
            code = await process.wait()
            if failure is None:
                failure = self._exit_error(code)
            self._fail(failure)
            self._exited.set()

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
                self._on_event(params)
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

    def _on_event(self, params: dict[str, Any]) -> None:
        run_id = params.get("runId")
        data = {k: v for k, v in params.items() if k not in ("runId", "event")}
        event = Event(str(params.get("event")), run_id if isinstance(run_id, str) else None, data)
        run = self._runs.get(run_id) if isinstance(run_id, str) else None
        if run is not None:
            run[0].append(event)
            if run[1] is not None:
                run[1](event)
        if self.on_event is not None:
            self.on_event(event)

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
        if isinstance(answer, Decision):
            reply: dict[str, Any] = {"approved": answer.approved}
            if answer.reason is not None:
                reply["reason"] = answer.reason
        else:
            reply = {"approved": bool(answer)}
        await self._reply(rid, reply)


def _outcome(result: Any, events: list[Event]) -> Outcome:
    if not isinstance(result, dict):
        raise ProtocolError(f"run_code's result is not an object: {result!r}")
    return Outcome(
        run_id=str(result.get("runId", "")),
        is_error=bool(result.get("isError")),
        kind=result.get("kind"),
        content=list(result.get("content", [])),
        sub_calls=int(result.get("subCalls", 0)),
        elapsed_ms=float(result.get("elapsedMs", 0.0)),
        events=events,
        dropped_events=int(result.get("droppedEvents", 0)),
    )
