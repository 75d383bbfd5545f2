"""`python -m ptc ARGS`: the `ptc` binary the package installed, run with ARGS."""

from __future__ import annotations

import os
import sys

from ._binary import find_binary
from ._errors import BinaryNotFound


def main() -> None:
    try:
        binary = find_binary()
    except BinaryNotFound as error:
        sys.stderr.write(f"ptc: {error}\n")
        sys.exit(2)
    # Replaced, not wrapped: signals, stdin and the exit status are the binary's.
    os.execv(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    main()
