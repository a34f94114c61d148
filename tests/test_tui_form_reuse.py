"""Moving between tools whose forms have rows of the same shape reuses the
rows on screen (bench/servers/raw_server.py: `query`, `limit`, and `exact` on
even tools): a reused row shows the new tool's field, note and value, never
what was typed or picked in the other tool's form."""

from __future__ import annotations

import sys
from functools import partial

import pytest
from textual.geometry import Region
from textual.widgets import Input, Select, Static

from inspector.core.servers.spec import ServerSpec, demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.arguments import ArgumentsEditor
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.item_list import ItemList

from .test_tui_big_lists import RAW_SERVER, first_form, form_of
from .tui_helpers import burst, field_row, focus, settle, wait_connected, wait_for

TOOLS = 30
SIZE = (140, 40)


def raw_spec() -> ServerSpec:
    return ServerSpec(
        transport="stdio", command=sys.executable, args=[str(RAW_SERVER), "--tools", str(TOOLS)], timeout=60
    )


def shown_paths(app: InspectorApp) -> set[tuple[object, ...]]:
    """The paths of the form's rows (a vacant row, kept blank for a later tool, shows none)."""
    return {row.node.path for row in app.screen.query(FieldRow) if not row.vacant}


def note(row: FieldRow) -> str:
    return str(row.query_one(".field-description", Static).render())


def label(row: FieldRow) -> str:
    return str(row.query_one(".field-label", Static).render())


async def show(pilot: object, app: InspectorApp, tools: ItemList, index: int) -> None:
    tools.highlight_index(index)
    key = f"tool_{index:05d}"
    await wait_for(pilot, lambda: form_of(app, key), f"the form of {key}")  # type: ignore[arg-type]


async def test_a_reused_row_shows_the_new_tools_field_and_none_of_the_old_value() -> None:
    app = InspectorApp(raw_spec())
    async with app.run_test(size=SIZE) as pilot:
        tools = await first_form(pilot, app, TOOLS)
        editor = app.query_one(ArgumentsEditor)
        # tool_00000 (customer): type a query, a limit, and pick exact = true.
        query = field_row(app, ("query",)).query_one(Input)
        await focus(pilot, query)
        await pilot.press(*"abc")
        await focus(pilot, field_row(app, ("limit",)).query_one(Input))
        await pilot.press(*"42")
        field_row(app, ("exact",)).query_one(Select).value = "true"
        await wait_for(
            pilot, lambda: editor.arguments()[0] == {"query": "abc", "limit": 42, "exact": True}, "the typed value"
        )
        rows = {row.node.path: row for row in app.screen.query(FieldRow) if not row.vacant}
        await focus(pilot, tools.options)
        # tool_00002 (ticket) has the same three rows: the same widgets show it.
        await show(pilot, app, tools, 2)
        assert {row.node.path: row for row in app.screen.query(FieldRow) if not row.vacant} == rows
        root = editor.form.root
        assert root is not None and all(row.node.root is root for row in rows.values())
        assert rows[("query",)].query_one(Input).value == ""
        assert rows[("limit",)].query_one(Input).value == ""
        assert rows[("exact",)].query_one(Select).value == Select.NULL
        assert "ticket records" in note(rows[("query",)]) and "customer" not in note(rows[("query",)])
        assert editor.arguments() == ({}, [])
        # Typing in the reused row changes this tool's value only.
        await focus(pilot, rows[("query",)].query_one(Input))
        await pilot.press(*"xy")
        await wait_for(pilot, lambda: editor.arguments()[0] == {"query": "xy"}, "the second tool's value")
        await focus(pilot, tools.options)
        # tool_00001 (two rows): the first two rows are reused; `exact`'s is
        # left blank and out of reach where it stands (no layout), for the next tool.
        exact = rows[("exact",)]
        await show(pilot, app, tools, 1)
        assert exact.vacant and exact.disabled and exact.node.path != ("exact",)
        assert not any(widget.focusable for widget in exact.query("*"))
        shown = {row.node.path: row for row in app.screen.query(FieldRow) if not row.vacant}
        assert set(shown) == {("query",), ("limit",)}
        assert shown[("query",)] is rows[("query",)] and shown[("query",)].query_one(Input).value == ""
        assert "invoice records" in note(shown[("query",)])
        assert "query" in label(shown[("query",)]) and "*" in label(shown[("query",)])
        # Back on the first tool: what was typed there is there (kept per tool), in whatever rows.
        await show(pilot, app, tools, 0)
        await wait_for(pilot, lambda: ("exact",) in shown_paths(app), "3 rows")
        assert field_row(app, ("query",)).query_one(Input).value == "abc"
        assert field_row(app, ("limit",)).query_one(Input).value == "42"
        assert field_row(app, ("exact",)).query_one(Select).value == "true"
        assert editor.arguments()[0] == {"query": "abc", "limit": 42, "exact": True}
        await show(pilot, app, tools, 2)
        assert field_row(app, ("query",)).query_one(Input).value == "xy"
        assert field_row(app, ("exact",)).query_one(Select).value == Select.NULL


async def test_a_burst_of_arrows_shows_the_last_tools_description_in_reused_rows() -> None:
    app = InspectorApp(raw_spec())
    async with app.run_test(size=SIZE) as pilot:
        tools = await first_form(pilot, app, TOOLS)
        await focus(pilot, tools.options)
        for count, last in ((7, "tool_00007"), (6, "tool_00013"), (1, "tool_00014")):
            await burst(pilot, *["down"] * count)
            await wait_for(pilot, partial(form_of, app, last), f"the form of {last}")
            index = int(last[-5:])
            subject = ("customer", "invoice", "ticket", "shipment", "article", "sensor")[index % 6]
            assert f"{subject} records" in note(field_row(app, ("query",)))
            rows = shown_paths(app)
            assert (("exact",) in rows) == (index % 2 == 0)
            assert last in str(app.query_one("#tool-header-text", Static).render())
            assert app.query_one(ArgumentsEditor).arguments() == ({}, [])


async def test_a_row_left_out_at_the_end_is_kept_blank_and_taken_again() -> None:
    """Moving to a form of fewer rows leaves the last ones blank where they
    stand (no layout), a later form of that shape takes them back, and rows
    a form adds at its end go before the blank ones, never after."""
    q = {"type": "string", "description": "what to look for"}
    flag = {"type": "boolean"}
    forms = {
        "three": {"type": "object", "properties": {"q": q, "n": {"type": "integer"}, "flag": flag}},
        "two": {"type": "object", "properties": {"q": q, "n": {"type": "integer"}}},
        "other": {"type": "object", "properties": {"q": q, "n": {"type": "integer"}, "extra": {"type": "string"}}},
    }
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        editor = app.query_one(ArgumentsEditor)
        form = editor.form

        def rows() -> list[object]:
            return [row.node.path if not row.vacant else "blank" for row in form.query(FieldRow)]

        async def show_form(key: str) -> None:
            editor.load_schema(forms[key], key=key)
            await wait_for(pilot, lambda: not form._rebuild_pending, f"the form {key}")
            await settle(pilot, f"the form {key} drawn")

        # From no form at all: nothing is kept blank.
        editor.clear()
        await wait_for(pilot, lambda: not form._rebuild_pending and not form.query(FieldRow), "no form")
        await show_form("three")
        flag_row = field_row(app, ("flag",))
        await show_form("two")
        assert rows() == [("q",), ("n",), "blank"]
        assert flag_row.vacant and flag_row.disabled and not flag_row.focusable
        await show_form("three")
        assert rows() == [("q",), ("n",), ("flag",)] and field_row(app, ("flag",)) is flag_row
        assert not flag_row.disabled and flag_row.query_one(Select).focusable
        await show_form("other")
        assert rows() == [("q",), ("n",), ("extra",), "blank"]
        await show_form("three")
        assert rows() == [("q",), ("n",), ("flag",)]


def _text_in(app: InspectorApp, region: Region) -> str:
    """The characters the screen shows in *region* (whatever their colours)."""
    strips = app.screen._compositor.render_strips()
    return "".join(
        segment.text for strip in strips[region.y : region.bottom] for segment in strip.crop(region.x, region.right)
    )


@pytest.mark.parametrize("theme", ["ansi-dark", "textual-light"])
async def test_a_row_kept_blank_shows_nothing_on_any_theme(theme: str) -> None:
    """The row kept blank for a later tool draws no character: on an ANSI
    theme, whose colours cannot be blended away, the other tool's field, its
    type and its note stayed on screen under the new tool's header."""
    app = InspectorApp(raw_spec(), theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        tools = await first_form(pilot, app, TOOLS)
        await settle(pilot)
        exact = field_row(app, ("exact",))
        where = exact.region
        assert "exact" in _text_in(app, where)
        await focus(pilot, tools.options)
        # tool_00001 has no `exact`: its row stays where it stood, blank.
        await show(pilot, app, tools, 1)
        await settle(pilot)
        assert exact.vacant
        assert not _text_in(app, where).strip(), _text_in(app, where)
        # And shows again, with the field, for the next tool that has one.
        await show(pilot, app, tools, 2)
        await settle(pilot)
        assert not exact.vacant and "exact" in _text_in(app, where)


async def test_a_row_kept_blank_through_a_change_of_theme_comes_back_undimmed() -> None:
    """A blank row is disabled without a restyle (a restyle costs an arrow
    key tens of milliseconds); a theme chosen meanwhile restyles it as
    disabled, faded, and it must not stay faded once a tool takes it again."""
    app = InspectorApp(raw_spec())
    async with app.run_test(size=SIZE) as pilot:
        tools = await first_form(pilot, app, TOOLS)
        exact = field_row(app, ("exact",))
        select = exact.query_one(Select)
        assert select.styles.opacity == 1.0
        await focus(pilot, tools.options)
        await show(pilot, app, tools, 1)
        assert exact.vacant
        app.theme = "textual-light"
        await wait_for(pilot, lambda: select.styles.opacity < 1.0, "the blank row restyled as disabled")
        await show(pilot, app, tools, 2)
        assert not exact.vacant
        await wait_for(pilot, lambda: select.styles.opacity == 1.0, "the row shown again at full opacity")
