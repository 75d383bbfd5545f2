#!/usr/bin/env python3
"""A manifest tool: the call's arguments arrive as JSON on stdin, the result
leaves as JSON on stdout (docs/contracts.md, "Manifest tools")."""
import json
import sys

args = json.load(sys.stdin)
text = args["text"]
words = text.split()
print(json.dumps({
    "lines": len(text.splitlines()),
    "words": len(words),
    "longest": max(words, key=len) if words else None,
}))
