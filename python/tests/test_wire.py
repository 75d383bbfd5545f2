"""The session's reading of ptc's output and of an approver's answer, piece
by piece (no process): lines cut at the bound, what tells whose an
unreadable line was, the approval reply, the events a run keeps."""

from __future__ import annotations

from typing import Any, cast

import pytest

import ptc
from ptc import _session as s


def lines(limit: int, *chunks: bytes) -> list[tuple[bytes, int]]:
    reader = s._Lines(limit)
    out = [(line.data, line.size) for chunk in chunks for line in reader.feed(chunk)]
    return out + [(line.data, line.size) for line in reader.end()]


def test_lines_are_cut_at_newlines_across_chunks() -> None:
    assert lines(100, b"ab\ncd", b"e\n\nf", b"g") == [(b"ab", 2), (b"cde", 3), (b"", 0), (b"fg", 2)]
    assert lines(100, b"a\n") == [(b"a", 1)]
    assert lines(100) == []
    assert lines(3, b"abc\n") == [(b"abc", 3)]
    # A line of exactly the bound is whole, also past the head's length.
    exact = b"e" * (s._HEAD_BYTES + 1)
    assert lines(len(exact), exact + b"\n") == [(exact, len(exact))]


def test_a_line_over_the_bound_keeps_its_head_and_counts_the_rest() -> None:
    assert lines(3, b"abcd\nxy\n") == [(b"abc", 4), (b"xy", 2)]
    assert lines(3, b"ab", b"cd", b"ef\nz") == [(b"abc", 6), (b"z", 1)]
    reader = s._Lines(s._HEAD_BYTES * 4)
    big = b"y" * (s._HEAD_BYTES * 4 + 1)
    assert reader.feed(big[:1000]) + reader.feed(big[1000:]) == []
    assert reader._parts == []  # past the bound, what was read is let go
    [line] = reader.feed(b"\n")
    assert line.data == big[: s._HEAD_BYTES] and line.size == len(big) and not line.whole
    assert reader._parts == [] and reader._head is None
    [after] = reader.feed(b"ok\n")
    assert after.whole and after.data == b"ok"


def test_the_head_of_a_line_names_its_id_method_and_run() -> None:
    assert s._head(b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"runId":"r","id":"r:ptc:1","arguments":{"s":"xx') == {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"runId": "r", "id": "r:ptc:1"},
    }
    assert s._head(b' { "id" : 3 , "result" : [1, 2') == {"id": 3}
    assert s._head(b'{"a":{"b":{"c":1, "d": [') == {"a": {}}  # one level down only
    assert s._head(b'{"id":1}') == {"id": 1}
    assert s._head(b'{"id":1 "x":2}') == {}
    assert s._head(b'{"id":1') == {}
    assert s._head(b'{"id":1 , "x"') == {"id": 1}
    assert s._head(b"[1,2]") == {}
    assert s._head(b"") == {}
    assert s._head(b'{1:2}') == {}
    assert s._head(b'{X"id":1}') == {}
    assert s._head(b'x"id":1}') == {}
    assert s._head(b'{"a"x1}') == {}
    assert s._head(b'{"id":12') == {}
    assert s._head(b'{"id":"a"x"y":2}') == {}
    assert s._head(b'{"id":1}"x":2}') == {"id": 1}  # the object ended
    assert s._head(b'{"id":"a","x":"b"x"y":2}') == {"id": "a"}
    assert s._head(b'{"id"X:1}') == {}
    assert s._head(b'{"a" 1}') == {}
    assert s._head(b'{"a":' + b"[" * 100_000) == {}
    assert s._head(b'{"id":1,"m":"\xff"}') == {"id": 1, "m": "\ufffd"}
    # Only the first _HEAD_BYTES are read.
    assert s._head(b'{"pad":"' + b"x" * s._HEAD_BYTES + b'","id":1}') == {}


class Truthy:
    def __bool__(self) -> bool:
        return True


@pytest.mark.parametrize(
    "answer, reply",
    [
        (True, {"approved": True}),
        (False, {"approved": False}),
        (ptc.Decision(True), {"approved": True}),
        (ptc.Decision(True, "ok"), {"approved": True, "reason": "ok"}),
        (ptc.Decision(False), {"approved": False}),
        (ptc.Decision(False, "no"), {"approved": False, "reason": "no"}),
        (ptc.Decision(False, cast(str, 5)), {"approved": False}),
    ],
)
def test_an_explicit_answer_is_sent_as_it_is(answer: Any, reply: dict[str, Any]) -> None:
    assert s._approval_reply(answer) == reply


@pytest.mark.parametrize(
    "answer, described",
    [
        (1, "1 (int)"),
        ({"approved": True}, "{'approved': True} (dict)"),
        ("yes", "'yes' (str)"),
        (None, "None (NoneType)"),
        (Truthy(), "an object of type Truthy"),
        (ptc.Decision(cast(bool, "yes")), "a Decision whose approved is 'yes' (str)"),
        ({"a": {"b": {"c": [1, 2, 3, 4, 5]}}}, "{'a': {'b': {...}}} (dict)"),
        (list(range(10)), "[0, 1, 2, ...] (list)"),
        (type("N" * 100, (), {})(), "an object of type " + "N" * 40),
    ],
)
def test_any_other_answer_refuses_saying_what_it_was(answer: Any, described: str) -> None:
    assert s._approval_reply(answer) == {
        "approved": False,
        "reason": f"the approver's answer was not an approval: {described}; only True or Decision(True) approves",
    }


def test_a_run_keeps_its_first_events_and_counts_the_rest() -> None:
    run = s._Run(2, None)
    events = [ptc.Event("log", "r", {"text": str(i)}) for i in range(5)]
    for event in events:
        run.add(event)
    assert run.events == events[:2] and run.not_kept == 3
    none = s._Run(0, None)
    none.add(events[0])
    assert none.events == [] and none.not_kept == 1


def test_events_read_their_previews() -> None:
    started = ptc.Event("started", "r", {"argumentsPreview": '{"s":"xx', "argumentsBytes": 20000})
    assert started.arguments is None
    assert started.arguments_preview == '{"s":"xx' and started.arguments_bytes == 20000
    settled = ptc.Event("settled", "r", {"ok": True, "valuePreview": "[1,", "valueBytes": 17000})
    assert settled.value is None and settled.value_preview == "[1," and settled.value_bytes == 17000
    whole = ptc.Event("started", "r", {"arguments": {"a": 1}, "argumentsBytes": True})
    assert whole.arguments == {"a": 1} and whole.arguments_preview is None and whole.arguments_bytes is None
    assert ptc.Event("settled", "r", {"value": 3}).value == 3


def test_bad_bounds_are_refused() -> None:
    with pytest.raises(ValueError, match="max_events must be at least 0, got -1"):
        ptc.Session(max_events=-1)
    with pytest.raises(ValueError, match="max_message_bytes must be at least 1, got 0"):
        ptc.Session(max_message_bytes=0)
