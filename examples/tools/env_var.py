#!/usr/bin/env python3
"""A manifest tool that fails on purpose for unknown names: a non-zero exit
reaches the program as a TOOL_ERROR carrying the end of stderr."""
import json
import os
import sys

name = json.load(sys.stdin)["name"]
if name not in os.environ:
    sys.exit(f"no variable named {name!r}")
print(json.dumps(os.environ[name]))
