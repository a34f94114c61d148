"""A big form's rows below its first screenful start as sketches: what a
sketch draws (the label, the value or what a blank one shows, the note) and
which rows may start as one."""

from __future__ import annotations

from typing import Any

from inspector.forms import FormNode, build_form
from inspector.tui.widgets.form_row import row_shape
from inspector.tui.widgets.form_sketch import LABEL_WIDTH, can_sketch, sketch_height, sketch_text

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "what to look for"},
        "limit": {"type": "integer", "default": 10},
        "secret": {"type": "string", "format": "password"},
        "mode": {"type": "string", "enum": ["fast", "slow"]},
        "flag": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "notes": {"type": "string", "format": "textarea"},
        "evil": {"type": "string", "description": "bell \x07 and escape \x1b[31m"},
    },
    "required": ["query"],
}


def nodes(value: dict[str, Any] | None = None) -> dict[str, FormNode]:
    root = build_form(SCHEMA)
    if value is not None:
        root.load_value(value)
    return {str(node.key): node for node in root.children()}


def lines(node: FormNode) -> list[str]:
    return sketch_text(node).plain.split("\n")


def test_a_sketch_draws_the_label_the_value_and_the_note() -> None:
    fields = nodes({"query": "cats", "secret": "hunter2", "mode": "slow", "flag": True})
    query = lines(fields["query"])
    assert query[0].startswith("query *") and query[0][LABEL_WIDTH:] == " cats"
    assert query[1].strip() == "what to look for"
    assert lines(fields["secret"])[0][LABEL_WIDTH:] == " " + "•" * len("hunter2")
    assert lines(fields["mode"])[0][LABEL_WIDTH:] == " slow"
    assert lines(fields["flag"])[0][LABEL_WIDTH:] == " true"


def test_a_blank_field_sketch_shows_what_its_editor_would() -> None:
    fields = nodes()
    # The default is a hint, as the select's prompt and the input's placeholder show it.
    assert "10" in lines(fields["limit"])[0][LABEL_WIDTH:]
    assert lines(fields["mode"])[0][LABEL_WIDTH:] == " Select"
    assert sketch_height(fields["limit"]) == 2 and sketch_height(fields["flag"]) == 1


def test_server_text_in_a_sketch_is_made_visible() -> None:
    text = sketch_text(nodes()["evil"]).plain
    assert "\x07" not in text and "\x1b" not in text


def test_only_rows_of_one_editor_beside_the_label_start_as_sketches() -> None:
    fields = nodes()
    sketched = {key for key, node in fields.items() if can_sketch(node, row_shape(node, 0))}
    assert {"query", "limit", "secret", "mode", "flag"} <= sketched
    # An array's buttons and a multi-line editor's block are always built.
    assert "tags" not in sketched and "notes" not in sketched
