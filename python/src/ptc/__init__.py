"""ptc for Python: run model-written TypeScript against Python tools.

A :class:`Session` drives a `ptc serve` process (the binary this package
installs): register Python functions as tools with :func:`tool`, then
``await session.run_code(code)``; the program's ``tools.*`` calls come back
to your functions. See docs/python.md.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

from ._binary import find_binary
from ._errors import BinaryNotFound, ProtocolError, PtcError, ServerExited, ToolError
from ._session import (
    Approval,
    Approver,
    CallResult,
    Config,
    Decision,
    Event,
    EventHandler,
    Mode,
    Outcome,
    Presentation,
    Session,
    ToolSpec,
)
from ._tools import Policy, Tool, ToolResult, tool

try:
    __version__ = _version("ptc-runtime")
except PackageNotFoundError:  # run from a source tree
    __version__ = "0.0.0"

__all__ = [
    "Approval",
    "Approver",
    "BinaryNotFound",
    "CallResult",
    "Config",
    "Decision",
    "Event",
    "EventHandler",
    "Mode",
    "Outcome",
    "Policy",
    "Presentation",
    "ProtocolError",
    "PtcError",
    "ServerExited",
    "Session",
    "Tool",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "find_binary",
    "tool",
]
