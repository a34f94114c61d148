"""Typing into forms as a fast person does: every key queued at once, none
waiting for the one before it to be handled, and each must land in the
widget that showed focus when it was pressed."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, Static

from inspector.core.servers.spec import ServerSpec, demo_spec
from inspector.tui.app import InspectorApp
from inspector.tui.screens.confirm_call import ConfirmCallScreen
from inspector.tui.screens.jump import JumpScreen
from inspector.tui.widgets.arguments import ArgumentsEditor
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.item_list import ItemList
from inspector.tui.widgets.result_view import ResultView

from .peers import EVERYTHING, NODE, require
from .tui_helpers import burst, field_row, focus, select, wait_connected, wait_for

SMALL = (100, 30)


def result_text(app: InspectorApp) -> str:
    view = app.query_one(ResultView)
    return " ".join(str(static.render()) for static in view.query(Static))


def call_answer(app: InspectorApp) -> str:
    """The text of the answer to the last tools/call, as recorded."""
    calls = [f for f in app.traffic if f.method == "tools/call" and f.direction == "out"]
    if not calls:
        return ""
    answers = [
        f
        for f in app.traffic
        if f.direction == "in" and isinstance(f.message, dict) and f.message.get("id") == calls[-1].message["id"]
    ]
    return str(answers[-1].message) if answers else ""


def last_call_arguments(app: InspectorApp) -> object:
    calls = [f for f in app.traffic if f.method == "tools/call" and f.direction == "out"]
    assert calls, "no tools/call was sent"
    return calls[-1].message["params"]["arguments"]


async def test_divide_typed_at_full_speed_from_the_list() -> None:
    """From the tool list: down to `divide`, enter, `8`, tab, `2`, call, yes,
    all in one burst; the call carries both numbers and the answer is 4."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SMALL) as pilot:
        await wait_connected(pilot, app)
        tools = app.query_one("#tool-list", ItemList)
        tools.focus_list()
        await wait_for(pilot, lambda: app.focused is tools.options, "focus on the tool list")
        start = tools.options.highlighted or 0
        keys = ["down"] * ([item.key for item in tools.shown].index("divide") - start)
        await burst(pilot, *keys, "enter", "8", "tab", "2", "ctrl+j")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
        await burst(pilot, "y")
        await wait_for(pilot, lambda: "= 4" in result_text(app), "the result 4")
        assert last_call_arguments(app) == {"dividend": 8, "divisor": 2}


def _everything() -> ServerSpec:
    return ServerSpec(transport="stdio", command=NODE, args=[str(require(EVERYTHING)), "stdio"], timeout=20)


@pytest.mark.parametrize(
    ("server", "start", "wanted", "typed", "expected"),
    [
        (demo_spec, "plan_trip", "divide", ["8", "tab", "2"], {"dividend": 8, "divisor": 2}),
        (_everything, "echo", "get-sum", ["3", "tab", "4"], {"a": 3, "b": 4}),
    ],
    ids=["demo", "everything"],
)
@pytest.mark.parametrize("size", [SMALL, (200, 50)], ids=["100x30", "200x50"])
async def test_from_a_form_through_the_filter_at_full_speed(
    server: Callable[[], ServerSpec],
    start: str,
    wanted: str,
    typed: list[str],
    expected: dict[str, int],
    size: tuple[int, int],
) -> None:
    """In a tool's form: escape to the list, `/`, the tool's name, enter (to
    the list), enter (to the form), two numbers a tab apart, call — in one
    burst.  Each key goes where focus is by then: the name into the filter,
    the numbers into the new tool's fields."""
    app = InspectorApp(server())
    async with app.run_test(size=size) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", start)
        editor = app.query_one(ArgumentsEditor)
        await focus(pilot, editor.form.query("Input, TextArea").first())
        await burst(pilot, "escape", "/", *wanted, "enter", "enter", *typed, "ctrl+j")
        await wait_for_confirmation(pilot, app)
        assert app.query_one("#tool-list", ItemList).filter_text == wanted
        await burst(pilot, "y")
        await wait_for(pilot, lambda: call_answer(app), "the answer")
        assert last_call_arguments(app) == expected


async def test_text_after_tab_lands_in_the_next_field() -> None:
    """ "London⇥GB": the city keeps London and the country gets GB."""
    app = InspectorApp(demo_spec())
    async with app.run_test(size=SMALL) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "plan_trip")
        city = field_row(app, ("traveller", "home", "city")).query_one(Input)
        city.focus()
        await burst(pilot, *"London", "tab", "G", "B")
        assert city.value == "London"
        country = field_row(app, ("traveller", "home", "country")).query_one(Input)
        assert country.value == "GB"
        assert app.focused is country


def watch_keys_back(app: InspectorApp) -> list[tuple[str, bool]]:
    """Notes, each time the app starts on a key back from the focused
    widget, whether the key order would let the next key go then."""
    noted: list[tuple[str, bool]] = []
    handle = app.on_event

    async def on_event(event: events.Event) -> None:
        if isinstance(event, events.Key) and event.is_forwarded:
            noted.append((event.key, app.key_order._ready()))
        await handle(event)

    app.on_event = on_event  # type: ignore[method-assign]
    return noted


async def test_the_next_key_waits_while_the_app_runs_a_keys_bindings() -> None:
    """Textual stops a key as it bubbles from the screen to the app that sent
    it, and only then does the app run the key's bindings (tab's focus
    move): the key typed after tab waits until that is done, and lands in
    the field tab moved to.  (Once a busy machine let `G` of "London⇥GB"
    into the city this way.)"""
    app = InspectorApp(demo_spec())
    next_key_free = watch_keys_back(app)
    async with app.run_test(size=SMALL) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "tools", "plan_trip")
        city = field_row(app, ("traveller", "home", "city")).query_one(Input)
        await focus(pilot, city)
        await burst(pilot, "tab", "G")
        assert next_key_free and all(key == "tab" for key, _ in next_key_free)
        assert not any(free for _, free in next_key_free)
        assert city.value == ""
        assert field_row(app, ("traveller", "home", "country")).query_one(Input).value == "G"


async def jump_keys(pilot: Pilot[int], app: InspectorApp, wanted: Callable[[Widget], bool]) -> list[str]:
    """Open the jump overlay and read the letter it shows beside the wanted
    widget, as the person reads it; returns the keys pressed (2)."""
    await pilot.wait_for_animation()  # what the person sees has stopped scrolling
    await burst(pilot, "ctrl+l")
    await wait_for(pilot, lambda: isinstance(app.screen, JumpScreen), "the jump overlay")
    screen = app.screen
    assert isinstance(screen, JumpScreen)
    letters = [letter for letter, widget in screen.targets.items() if wanted(widget)]
    assert letters, f"not in view: {[(w, w.region) for w in screen.targets.values()]}"
    letter = letters[0]
    await burst(pilot, letter)
    return ["ctrl+l", letter]


def in_row(path: tuple[object, ...], kind: str) -> Callable[[Widget], bool]:
    def wanted(widget: Widget) -> bool:
        row = next((a for a in widget.ancestors if isinstance(a, FieldRow)), None)
        return row is not None and row.node.path == path and widget.has_class(kind)

    return wanted


async def test_plan_trip_filled_by_keyboard_and_called() -> None:
    """The whole plan_trip form from the tool list, with tab, the jump key
    and the item keys, as few keys as the form allows: a nested object
    (traveller › home), array items added, reordered and removed, a oneOf
    variant chosen, a nullable field given a value; the recorded tools/call
    carries exactly what was typed and nothing else."""
    app = InspectorApp(demo_spec())
    pressed: list[str] = []
    typed: list[str] = []

    async def keys(*sent: str) -> None:
        pressed.extend(sent)
        await burst(pilot, *sent)

    async def text(value: str) -> None:
        typed.extend(value)
        await keys(*value)

    async def jump(wanted: Callable[[Widget], bool]) -> None:
        pressed.extend(await jump_keys(pilot, app, wanted))

    async with app.run_test(size=(200, 50)) as pilot:
        await wait_connected(pilot, app)
        tools = app.query_one("#tool-list", ItemList)
        tools.focus_list()
        await wait_for(pilot, lambda: app.focused is tools.options, "focus on the tool list")
        await keys("down", "enter")  # plan_trip: focus in its first required field
        await text("A")  # traveller.full_name
        await keys("tab")
        await text("L")  # traveller.home.city
        await keys("tab")
        await text("GB")
        await jump(in_row(("start",), "text-input"))
        await text("2026-08-01")
        await keys("tab", "enter")  # stops: + add, typing goes on in stops[0]
        await text("P")
        await keys("tab")
        await text("FR")
        await keys("alt+n")  # stops[1]
        await text("R")
        await keys("tab")
        await text("IT")
        await keys("alt+up")  # Rome first
        await keys("alt+n", "alt+x")  # a third stop, removed again
        await jump(in_row(("transport",), "union-editor"))
        await keys("enter", "f", "enter", "tab")  # the Flight variant, on to its airline
        await text("K")
        await jump(in_row(("return_stop",), "object-include"))  # not null: a place
        await keys("enter")
        await text("L")
        await keys("tab")
        await text("PT")
        await keys("ctrl+j")
        await wait_for_confirmation(pilot, app)
        await keys("y")
        await wait_for(pilot, lambda: call_answer(app), "the answer")
        assert "Route: L → R → P" in call_answer(app), call_answer(app)
        assert last_call_arguments(app) == {
            "traveller": {"full_name": "A", "home": {"city": "L", "country": "GB"}},
            "start": "2026-08-01",
            "stops": [{"place": {"city": "R", "country": "IT"}}, {"place": {"city": "P", "country": "FR"}}],
            "transport": {"mode": "flight", "airline": "K"},
            "return_stop": {"city": "L", "country": "PT"},
        }
        moves = len(pressed) - len(typed)  # keys other than the values' own characters
        print(f"plan_trip: {len(pressed)} keys from the tool list to the call, {moves} of them not typed text")
        assert moves < 40


async def wait_for_confirmation(pilot: Pilot[int], app: InspectorApp) -> None:
    try:
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmCallScreen), "the confirmation")
    except AssertionError:
        notes = [str(n.message) for n in app._notifications]
        raise AssertionError(f"{app.query_one(ArgumentsEditor).arguments()} {notes} focus {app.focused}") from None
