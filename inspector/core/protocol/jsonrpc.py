"""JSON-RPC as the session writes and matches it: a message encoded for the
wire, and ids compared as the spec means them (of one type, or different ids)."""

from __future__ import annotations

import json
from typing import Any

from inspector.core.protocol.raw_json import encode_message

__all__ = ["dumps", "encode", "hashable_id", "near_miss", "same_id"]

dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def encode(message: Any) -> bytes:
    """The message's bytes; arguments a person wrote as raw JSON go out as written (raw_json.py)."""
    return encode_message(message, dumps).encode("utf-8", errors="surrogatepass")


def same_id(ours: Any, theirs: Any) -> bool:
    """JSON-RPC ids of different types are different ids (Python alone would
    match "3" never, but 3.0 and true to 3 and 1)."""
    return type(ours) is type(theirs)


def hashable_id(msg_id: Any) -> bool:
    """Whether `msg_id` can be a key of the tables of ids (a number or a string)."""
    return isinstance(msg_id, (int, float, str))


def near_miss(msg_id: Any) -> Any:
    """The id of ours that `msg_id` would equal but for its type, if any."""
    if isinstance(msg_id, bool):
        return int(msg_id)
    if isinstance(msg_id, float) and msg_id.is_integer():
        return int(msg_id)
    if isinstance(msg_id, str):
        text = msg_id.strip()
        if text.lstrip("-").isdigit() and len(text) < 20:
            return int(text)
    return None
