"""Big list pages take a quick path (msgspec decodes and encodes, the depth
is scanned in bulk, collections run rarely) whose output must be the
standard library's, character for character; what that path cannot take
(NaN, lone surrogates, floats Python spells with an exponent, JSON nested
past the bound) still comes out as it did.  Against tests/servers/big_pages.py,
and the decoding functions themselves."""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from typing import Any

import pytest

from inspector.commands import exitcodes
from inspector.core.protocol import wire_json
from inspector.core.protocol.wire_json import FAST_FROM, MAX_DEPTH, TooDeep, nested_deeper_than
from inspector.core.safetext import escape_json

from .peers import PYTHON, SERVERS, run_inspector
from .servers import big_pages

BIG = str(SERVERS / "big_pages.py")


def options(*flavours: str, tools: int = 2000, pages: int = 4, depth: int = 600) -> argparse.Namespace:
    return argparse.Namespace(tools=tools, pages=pages, depth=depth, flavour=list(flavours))


def server(*flavours: str, tools: int = 2000, pages: int = 4) -> list[str]:
    words = [PYTHON, BIG, "--tools", str(tools), "--pages", str(pages)]
    for flavour in flavours:
        words += ["--flavour", flavour]
    return words


def expected_listing(*flavours: str, tools: int = 2000, pages: int = 4) -> str:
    """What `list tools --json` printed before the quick path: every item as
    json.loads read it, written by json.dumps, controls escaped."""
    items: list[Any] = []
    for page in big_pages.pages(options(*flavours, tools=tools, pages=pages)):
        items += json.loads(page)["tools"]
    return escape_json(json.dumps({"tools": items}, ensure_ascii=False)) + "\n"


def list_json(*flavours: str, tools: int = 2000, pages: int = 4) -> subprocess.CompletedProcess[str]:
    return run_inspector("list", "tools", "--json", "--", *server(*flavours, tools=tools, pages=pages), timeout=120)


def test_the_pages_are_big_enough_for_the_quick_path() -> None:
    sizes = [len(page) for page in big_pages.pages(options("plain"))]
    assert len(sizes) == 4 and min(sizes) > FAST_FROM


@pytest.mark.parametrize(
    "flavours",
    [("plain",), ("floats", "escapes", "broken"), ("nan",), ("surrogate", "escapes"), ("controls",)],
    ids=["plain", "floats-escapes-broken", "nan", "surrogate", "ascii-controls"],
)
def test_a_big_listing_prints_what_the_standard_library_wrote(flavours: tuple[str, ...]) -> None:
    result = list_json(*flavours)
    assert result.returncode == exitcodes.OK, result.stderr
    if "controls" in flavours:
        # All ASCII, yet not to be written as encoded: DEL is escaped on the way out.
        assert result.stdout.count("\x7f") == 0  # (`not in` would have pytest diff a megabyte)
        assert "bell \\u0007 \\u001b[31m red \\u007f delete #0" in result.stdout
    assert result.stdout == expected_listing(*flavours)
    if "broken" in flavours:
        # Every 11th tool lacks inputSchema (the 0th too), and item 4 is a string.
        broken = len([index for index in range(2000) if index % 11 == 0]) + 1
        assert f"inspector: {broken} item(s) with problems (kept, see above)" in result.stderr
    else:
        assert "problems" not in result.stderr
    if "surrogate" in flavours:
        # No UTF-8 output can carry a lone surrogate: it is written as its escape.
        assert "half a pair: \\ud800 here" in result.stdout
        assert json.loads(result.stdout)["tools"][2]["description"] == "half a pair: \ud800 here"


@pytest.mark.parametrize(
    "flavours",
    [("plain",), ("floats", "escapes", "broken"), ("nan",), ("surrogate", "escapes"), ("controls",)],
    ids=["plain", "floats-escapes-broken", "nan", "surrogate", "ascii-controls"],
)
def test_a_short_listing_prints_what_the_standard_library_wrote(flavours: tuple[str, ...]) -> None:
    """`list` loads msgspec before the first page comes: pages too small for
    its decoder are decoded by the standard library, yet written by msgspec
    until a float it spells apart is seen (the same bookkeeping)."""
    assert len(max(big_pages.pages(options(*flavours, tools=40, pages=4)), key=len)) < FAST_FROM
    result = list_json(*flavours, tools=40, pages=4)
    assert result.returncode == exitcodes.OK, result.stderr
    assert result.stdout == expected_listing(*flavours, tools=40, pages=4)


def test_a_lone_surrogate_is_shown_as_its_escape_in_human_output() -> None:
    result = run_inspector("list", "tools", "--human", "--", *server("surrogate", tools=40, pages=1), timeout=120)
    assert result.returncode == exitcodes.OK, result.stderr
    assert "Traceback" not in result.stderr
    assert "half a pair: \\ud800 here" in result.stdout


def test_a_big_page_nested_past_the_bound_is_refused_unparsed() -> None:
    result = list_json("deep")
    assert result.returncode == exitcodes.PROTOCOL_ERROR, result.stderr
    assert f"nested deeper than {MAX_DEPTH} levels" in result.stderr
    assert "Traceback" not in result.stderr


def test_brackets_and_escapes_in_strings_are_no_nesting_in_a_big_text() -> None:
    padding = ['[{\\"]}' * 40 + "\\\\"] * (FAST_FROM // 200)
    within = json.dumps({"pad": padding, "s": "[" * 2000 + '\\"{' * 600, "deep": _nested(MAX_DEPTH - 1)}).encode()
    assert len(within) > FAST_FROM
    assert wire_json.parse(within) == json.loads(within)
    beyond = json.dumps({"pad": padding, "deep": _nested(MAX_DEPTH)}).encode()
    assert nested_deeper_than(beyond)
    with pytest.raises(TooDeep):
        wire_json.parse(beyond)
    # Closers inside strings do not hide real nesting either.
    hidden = json.dumps({"pad": padding, "s": "]" * 5000, "deep": _nested(MAX_DEPTH)}).encode()
    with pytest.raises(TooDeep):
        wire_json.parse(hidden)


def _nested(levels: int) -> Any:
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return value


def test_the_quick_depth_scan_agrees_with_the_exact_one_on_valid_json() -> None:
    generator = random.Random(14)
    pieces = ["[", "]", "{", "}", '"', "\\", "a", " "]
    for _ in range(300):
        strings = ["".join(generator.choice(pieces) for _ in range(generator.randint(0, 12))) for _ in range(20)]
        levels = generator.choice([3, MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 5])
        value: Any = strings
        for index in range(levels):
            value = [value] if index % 2 else {"k": value, "s": generator.choice(strings)}
        raw = json.dumps(value).encode()
        assert wire_json._deeper_if_valid(raw, MAX_DEPTH) == nested_deeper_than(raw, MAX_DEPTH), raw[:200]


BIG_PAD = "x" * FAST_FROM


@pytest.mark.parametrize(
    "text",
    [
        b'{"a": 1, "a": 2, "b": [1.5, -0, -0.0, 1E2, 12345678901234567890123], "pad": "%s"}',
        b'{"n": NaN, "i": -Infinity, "pad": "%s"}',
        b'{"s": "\\ud800", "pad": "%s"}',
        b'\xef\xbb\xbf{"bom": true, "pad": "%s"}',
        b'{"raw": "\xed\xa0\x80", "pad": "%s"}',
        b'{"f": 1e400, "g": 1e-05, "pad": "%s"}',
        b'{"control": "a\x01b", "pad": "%s"}',
        b'{"trailing": 1, "pad": "%s"} x',
        b'{"unfinished": [1, 2, "pad": "%s"',
    ],
    ids=["duplicates", "nan", "surrogate", "bom", "surrogate-bytes", "exponents", "control", "extra", "unfinished"],
)
def test_decoding_a_big_text_gives_what_json_loads_gives(text: bytes) -> None:
    raw = text.replace(b"%s", BIG_PAD.encode())
    assert len(raw) > FAST_FROM
    try:
        expected: Any = json.loads(raw)
    except ValueError as exc:
        with pytest.raises(type(exc)) as raised:
            wire_json.parse(raw)
        assert str(raised.value) == str(exc)
        with pytest.raises(type(exc)):
            wire_json.loads(raw)
        return
    for decode in (wire_json.parse, wire_json.loads):
        value = decode(raw)
        # json.dumps tells floats from ints and keeps the key order.
        assert json.dumps(value) == json.dumps(expected)
        assert wire_json.dumps(value) == json.dumps(expected, ensure_ascii=False)


def test_the_quick_encoder_writes_what_json_dumps_writes() -> None:
    # A fresh interpreter: no float that msgspec spells apart has been decoded
    # yet there, so the quick encoder is in use until one is.
    script = """
import json, sys
from inspector.core.protocol import wire_json
pages = sys.stdin.buffer.read().split(b"\\n")
for page in pages:
    value = wire_json.parse(page)
    assert wire_json._DECODED.msgspec is not None, "the big page went the slow way"
    quick = not wire_json._DECODED.divergent
    assert wire_json.dumps(value) == json.dumps(value, ensure_ascii=False)
    print("quick" if quick else "standard")
"""
    plain = big_pages.pages(options("plain", "escapes"))[0]
    # Floats whose repr has no exponent are written alike by both.
    alike = b'{"a": [0.5, -0.0, 100.0, 1E2, 2.50], "pad": "' + BIG_PAD.encode() + b'"}'
    floats = big_pages.pages(options("floats"))[0]
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=b"\n".join([plain, alike, floats, plain]),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    # After the first float written with an exponent, the standard library writes.
    assert done.stdout.decode().split() == ["quick", "quick", "standard", "standard"]


def test_pages_encoded_in_one_buffer_join_to_the_whole_list() -> None:
    """`ListPieces` encodes every page in the same buffer: a short page after
    a long one, or one msgspec gives up on halfway (a lone surrogate), leaves
    nothing of the one before.  In a fresh interpreter, where no float spelled
    apart has been decoded yet, so msgspec does the encoding."""
    script = """
import json, sys
from inspector.core.protocol import wire_json
long, short, odd = (wire_json.parse(page)["tools"] for page in sys.stdin.buffer.read().split(b"\\n"))
odd[3]["description"] = "half a pair: \\ud800 here"
pieces = wire_json.ListPieces("tools")
parts = [*pieces.items(long), *pieces.items(short), *pieces.items(odd), *pieces.items(short), *pieces.end({"n": 1})]
whole = {"tools": [*long, *short, *odd, *short], "n": 1}
assert wire_json._DECODED.msgspec is not None and not wire_json._DECODED.divergent
assert b"".join(parts) == json.dumps(whole, ensure_ascii=False).encode("utf-8", "surrogatepass")
"""
    long = big_pages.pages(options("plain", "escapes"))[0]
    short = big_pages.pages(options("plain", tools=40))[-1]
    odd = big_pages.pages(options("escapes", tools=400))[0]
    assert len(short) < len(odd) < len(long)
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=b"\n".join([long, short, odd]),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
