"""Shared helpers: every test drives a real `ptc serve` (the installed
wheel's binary, or PTC_BINARY) and bounds its own time."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

# Generous: a test that hangs fails here instead of stalling CI.
TEST_DEADLINE_S = 60


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Runs one test's coroutine on a fresh event loop, within the deadline."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, TEST_DEADLINE_S)

    return asyncio.run(bounded())
