"""Python functions as ptc tools."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar, overload

from ._schema import JsonSchema, Signature, signature_of, to_json

Policy = Literal["allow", "ask", "deny"]
"""A tool's default decision before each call (docs/contracts.md §2)."""

F = TypeVar("F", bound=Callable[..., Any])


@dataclasses.dataclass(frozen=True)
class ToolResult:
    """What a tool may return instead of a bare value: the value and content
    blocks beside it (``{"type": "image", "data": <base64>, "mimeType":
    "image/png"}`` or ``{"type": "text", "text": …}``), which a run appends
    after its text (docs/contracts.md §7, Images)."""

    value: Any = None
    content: Sequence[Mapping[str, Any]] = ()


@dataclasses.dataclass(frozen=True)
class Tool:
    """A Python function registered as a tool; made by :func:`tool`.

    ``handler`` is called with the call's arguments as keyword arguments
    (or, with an explicit ``parameters`` schema, with the arguments object as
    its one positional argument); it may be a plain function (run in a
    worker thread, so it may block) or an ``async def`` (run on the
    session's event loop, and cancelled when ptc stops waiting for it).
    """

    name: str
    handler: Callable[..., Any]
    parameters: JsonSchema
    description: str | None = None
    output: JsonSchema | None = None
    read_only: bool = False
    policy: Policy = "allow"
    timeout_ms: int | None = None
    call_title: str | None = None
    result_title: str | None = None
    requires_escalation: bool = False
    _signature: Signature | None = dataclasses.field(default=None, repr=False, compare=False)

    def definition(self) -> dict[str, Any]:
        """The tool's entry for ``tools/register`` (docs/host-protocol.md)."""
        entry: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description:
            entry["description"] = self.description
        if self.output is not None:
            entry["output"] = self.output
        if self.read_only:
            entry["readOnly"] = True
        if self.policy != "allow":
            entry["policy"] = self.policy
        if self.timeout_ms is not None:
            entry["timeoutMs"] = self.timeout_ms
        if self.call_title is not None:
            entry["callTitle"] = self.call_title
        if self.result_title is not None:
            entry["resultTitle"] = self.result_title
        if self.requires_escalation:
            entry["requiresEscalation"] = True
        return entry

    def with_policy(self, policy: Policy) -> Tool:
        """The same tool with another policy."""
        return dataclasses.replace(self, policy=policy)

    async def __call__(self, arguments: Mapping[str, Any]) -> tuple[Any, list[dict[str, Any]]]:
        """Runs the handler on a call's arguments: its value as JSON and its
        content blocks."""
        if self._signature is None:
            args: list[Any] = [dict(arguments)]
            kwargs: dict[str, Any] = {}
        else:
            args, kwargs = self._signature.call(arguments)
        if inspect.iscoroutinefunction(self.handler):
            returned = await self.handler(*args, **kwargs)
        else:
            returned = await asyncio.to_thread(functools.partial(self.handler, *args, **kwargs))
            if inspect.isawaitable(returned):
                returned = await returned
        where = f"the value of tool `{self.name}`"
        if isinstance(returned, ToolResult):
            blocks = [to_json(dict(b), f"a content block of tool `{self.name}`") for b in returned.content]
            return to_json(returned.value, where), blocks
        return to_json(returned, where), []


@overload
def tool(fn: F, /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: Mapping[str, Any] | None = None,
    output: Mapping[str, Any] | None = None,
    read_only: bool = False,
    policy: Policy = "allow",
    timeout_ms: int | None = None,
    call_title: str | None = None,
    result_title: str | None = None,
    requires_escalation: bool = False,
) -> Callable[[F], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    parameters: Mapping[str, Any] | None = None,
    output: Mapping[str, Any] | None = None,
    read_only: bool = False,
    policy: Policy = "allow",
    timeout_ms: int | None = None,
    call_title: str | None = None,
    result_title: str | None = None,
    requires_escalation: bool = False,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Makes a tool of a function: ``@tool`` or ``@tool(read_only=True, …)``.

    By default the name is the function's, the description its docstring,
    the parameters schema comes from its annotations (docs/python.md, "Types
    as JSON Schema") and the output schema from its return annotation. With
    ``parameters``, the schema is taken as given and the handler receives the
    arguments object as one ``dict``. A lone parameter annotated with a
    pydantic model takes the whole arguments object as that model.

    The other fields are the protocol's (docs/contracts.md §2): ``read_only``
    (parallel-safe), ``policy`` (``"allow"``, ``"ask"``: the session's
    approver decides each call, ``"deny"``), ``timeout_ms``, ``call_title``
    and ``result_title`` templates, ``requires_escalation``.

    Raises:
        TypeError: an annotation has no JSON Schema, or a parameter is
            positional-only or variadic.
    """

    def make(f: Callable[..., Any]) -> Tool:
        tool_name = name or getattr(f, "__name__", None)
        if not tool_name:
            raise TypeError("a tool needs a name: pass name=")
        doc = description if description is not None else inspect.getdoc(f)
        if parameters is not None:
            sig = None
            params: JsonSchema = dict(parameters)
            out = dict(output) if output is not None else None
        else:
            sig = signature_of(f, tool_name)
            params = sig.parameters
            # A ToolResult's schema is not its value's: no output schema then.
            inferred = None if sig.returns is ToolResult else sig.output
            out = dict(output) if output is not None else inferred
        return Tool(
            name=tool_name,
            handler=f,
            parameters=params,
            description=doc or None,
            output=out,
            read_only=read_only,
            policy=policy,
            timeout_ms=timeout_ms,
            call_title=call_title,
            result_title=result_title,
            requires_escalation=requires_escalation,
            _signature=sig,
        )

    if fn is not None:
        return make(fn)
    return make

