"""The errors of the host library, and the one a tool raises."""

from __future__ import annotations

from typing import Any


class PtcError(Exception):
    """Base of the errors the host library raises."""


class BinaryNotFound(PtcError):
    """The `ptc` binary could not be found or is not executable."""


class ServerExited(PtcError):
    """The `ptc serve` process ended (crashed, was killed, or was closed).

    Every request in flight and every later one raises it. ``returncode`` is
    the process's exit status (negative: killed by that signal), ``stderr``
    the last lines it wrote there.
    """

    def __init__(self, message: str, returncode: int | None, stderr: str) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


class ProtocolError(PtcError):
    """`ptc serve` answered a request with a JSON-RPC error (a bad request:
    for example a tool whose schema cannot be checked, or a ``timeout_ms``
    out of range), or sent something that is not the protocol.

    ``code`` is the JSON-RPC error code, ``data`` its data (for a refused
    registration, ``{"tool", "path"}``).
    """

    def __init__(self, message: str, code: int | None = None, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data


class ToolError(Exception):
    """Raised by a tool to fail its call with a chosen contract code.

    ``message`` is what the program (and so the model) reads; ``code`` one of
    docs/contracts.md §3 (``TOOL_ERROR`` by default, ``DENIED``, …);
    ``detail`` a user-facing detail kept out of the model's text (it reaches
    ``settled`` events). Any other exception a tool raises fails the call as
    ``TOOL_ERROR`` with the message ``<ExceptionType>: <text>``.
    """

    def __init__(self, message: str, *, code: str = "TOOL_ERROR", detail: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.detail = detail
