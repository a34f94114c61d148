"""Focus in a tall form is always where the person can see it: tabbing
through every field and button scrolls each into view."""

from __future__ import annotations

from typing import Any

from textual.widget import Widget
from textual.widgets import Input

from inspector.core.servers.spec import demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.arguments import ArgumentsEditor
from inspector.tui.widgets.form_focus import FOCUSABLE, row_of
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.schema_form import SchemaForm

from .tui_helpers import burst, focus, select, wait_connected, wait_for

# plan_trip with every optional part opened: the tallest form the demo has.
PLAN_TRIP_OPEN = {
    "name": "Trip",
    "traveller": {
        "full_name": "Ana",
        "home": {"city": "London", "country": "GB", "coordinates": {"lat": 51.5, "lon": -0.1}},
        "contact": {"email": "ana@example.com", "phone": None},
    },
    "start": "2026-08-01",
    "stops": [
        {"place": {"city": "Rome", "country": "IT"}, "nights": 2, "activities": ["forum", "pasta"]},
        {"place": {"city": "Paris", "country": "FR"}},
        {"place": {"city": "Oslo", "country": "NO"}, "activities": ["fjord"]},
    ],
    "transport": {"mode": "flight", "airline": "KLM"},
    "tags": ["summer", "rail"],
    "return_stop": {"city": "Lisbon", "country": "PT"},
}

# A long flat form, the shape of many real servers' tools.
TALL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{f"field_{i:02}": {"type": "string", "description": f"field number {i}"} for i in range(30)},
        "flag": {"type": "boolean"},
        "choice": {"type": "string", "enum": ["a", "b", "c"]},
        "items": {"type": "array", "items": {"type": "string"}},
        "last": {"type": "integer"},
    },
    "required": ["field_00", "last"],
}


def _scroller(widget: Widget) -> Widget:
    for ancestor in widget.ancestors:
        if isinstance(ancestor, SchemaForm):
            return ancestor
    raise AssertionError(f"{widget!r} is not in the form")


def _in_view(widget: Widget) -> bool:
    region = widget.region
    visible = _scroller(widget).scrollable_content_region
    return bool(region.area) and visible.contains_region(region)


async def _tab_through(pilot: Any, app: InspectorApp, key: str = "tab") -> int:
    """Tab from the form's first widget to its last (shift+tab: from the last
    to the first); each must be in view once focused (and scrolled there).
    A row still sketched (below the first screenful) is one stop: tabbed
    to, it is built and its editor takes focus."""
    form = app.query_one(ArgumentsEditor).form
    await wait_for(pilot, lambda: not form._rebuild_pending, "the form drawn")
    chain = [w for w in form.query(f"{FOCUSABLE}, FieldRow") if w.focusable]
    await focus(pilot, chain[0] if key == "tab" else chain[-1])
    await pilot.wait_for_animation()
    assert not all(_in_view(w) for w in chain), "the form fits: nothing to scroll"
    seen: list[Widget] = []
    for _ in range(len(chain) - 1):
        await burst(pilot, key)
        await pilot.wait_for_animation()
        focused = app.focused
        assert focused is not None, f"tab left the form after {seen[-1:]}"
        stop: Widget = focused
        row = row_of(focused)
        if row in chain:
            # A sketch tabbed to: its editor, built since, has focus.
            assert row is not None and not row.sketched and row.query_one(FOCUSABLE) is focused
            stop = row
        assert stop in chain, f"tab left the form after {seen[-1:]}: {focused!r}"
        assert _in_view(focused), (
            f"{focused!r} at {focused.region} is out of view {_scroller(focused).scrollable_content_region}"
        )
        seen.append(stop)
    assert len(set(seen)) == len(chain) - 1
    return len(chain)


async def test_tab_scrolls_every_widget_of_plan_trip_into_view() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "plan_trip")
        app.query_one(ArgumentsEditor).form.load_value(PLAN_TRIP_OPEN)
        count = await _tab_through(pilot, app)
        assert count > 40  # every part of the form was opened
        assert await _tab_through(pilot, app, "shift+tab") == count


async def test_tab_scrolls_every_widget_of_a_tall_flat_form_into_view() -> None:
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "register_user")
        await _tab_through(pilot, app)
        app.query_one(ArgumentsEditor).load_schema(TALL_SCHEMA, key="tall")
        assert await _tab_through(pilot, app) == 34


async def test_the_first_required_field_below_the_first_screenful_takes_focus() -> None:
    """Enter on the list focuses it (the first field the person must fill):
    its row is still a sketch, so focused it is built, its editor takes
    focus and the keys typed right after enter land in it."""
    schema = {
        "type": "object",
        "properties": {f"field_{i:02}": {"type": "string"} for i in range(40)},
        "required": ["field_39"],
    }
    app = InspectorApp(demo_spec())
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "register_user")
        editor = app.query_one(ArgumentsEditor)
        editor.load_schema(schema, key="deep")
        await wait_for(pilot, lambda: not editor.form._rebuild_pending, "the form drawn")
        last = next(row for row in editor.form.query(FieldRow) if row.node.path == ("field_39",))
        assert last.sketched
        tools = app.query_one("#tool-list", ItemList)
        tools.focus_list()
        await wait_for(pilot, lambda: app.focused is not None and tools in app.focused.ancestors_with_self, "the list")
        await burst(pilot, "enter", *"deep")
        assert not last.sketched and app.focused is last.query_one(Input)
        assert editor.form.value() == {"field_39": "deep"}
