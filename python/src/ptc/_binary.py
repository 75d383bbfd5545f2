"""Where the `ptc` binary is: the one the wheel installed beside Python."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

from ._errors import BinaryNotFound

_EXE = "ptc.exe" if sys.platform == "win32" else "ptc"


def find_binary(explicit: str | os.PathLike[str] | None = None) -> str:
    """The path of the `ptc` binary to run.

    In this order: ``explicit`` when given, the ``PTC_BINARY`` environment
    variable, the scripts folder of this Python (where the wheel installs
    it), then ``PATH``.

    Raises:
        BinaryNotFound: none of these names an executable file.
    """
    tried: list[str] = []
    if explicit is not None:
        return _checked(Path(explicit), "the binary given")
    from_env = os.environ.get("PTC_BINARY")
    if from_env:
        return _checked(Path(from_env), "PTC_BINARY")
    for scheme_path in _scripts_dirs():
        candidate = scheme_path / _EXE
        tried.append(str(candidate))
        if _is_executable(candidate):
            return str(candidate)
    on_path = shutil.which("ptc")
    if on_path:
        return on_path
    tried.append("PATH")
    raise BinaryNotFound(
        "the `ptc` binary was not found (looked in "
        + ", ".join(tried)
        + "); install it (`pip install ptc-runtime`), set PTC_BINARY, or pass binary="
    )


def _scripts_dirs() -> list[Path]:
    dirs = [Path(sysconfig.get_path("scripts"))]
    user = sysconfig.get_path("scripts", f"{os.name}_user")
    if user:
        dirs.append(Path(user))
    # A virtual environment's Python may be a symlink to a base interpreter:
    # its own folder is where the environment's scripts are.
    dirs.append(Path(sys.executable).parent)
    unique: list[Path] = []
    for d in dirs:
        if d not in unique:
            unique.append(d)
    return unique


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _checked(path: Path, source: str) -> str:
    if not _is_executable(path):
        raise BinaryNotFound(f"{source} ({path}) is not an executable file")
    return str(path)
