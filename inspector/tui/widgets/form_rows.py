"""A form's rows, drawn from its model and rebuilt in place.

A rebuild folds every request made while one is scheduled or running into
one pass; rows on screen of the same shape as the new ones take their nodes
instead of being built anew; the screen is laid out once per rebuild; a big
form's first screenful is mounted at once and the rest after it is painted,
keys waiting until the last row is in.  Rows below the first screenful
start as sketches (`form_sketch`), built once shown or focused: the rest
of a big form is one cheap widget a row.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual import on
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widget import Widget
from textual.widgets import Button, Static

from inspector.forms import FormNode
from inspector.tui.widgets.form_focus import FOCUSABLE, FocusPlace, focus_target, focused_place, row_of
from inspector.tui.widgets.form_row import FieldRow
from inspector.tui.widgets.form_row_plan import (
    FIRST_LINES,
    ROW_CHUNK,
    SPARE_ROWS,
    RowSpec,
    child_shape,
    chunk_to_mount,
    match_rows,
    row_specs,
    rows_to_fill,
    spec_shape,
)

__all__ = ["FormRows"]


class FormRows(VerticalScroll):
    """The rows of a form model (`root`), rebuilt in place when its structure changes."""

    # Its height is its parent's: rows added or removed change only what it
    # scrolls (a scrollbar shown or hidden lays the screen out by itself).
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.root: FormNode | None = None
        self._rebuild_scheduled = False
        self._rebuild_pending = False
        self._dirty = False
        self._mounting = 0
        self._focus_after_rebuild = False
        self._focus_to: FocusPlace | None = None
        # Sketched rows shown on screen, to build in the next batch.
        self._to_build: list[FieldRow] = []

    def _show_new_form(self) -> None:
        """The rows of a new schema.  Rows of the same shape as the ones on
        screen take the new nodes at once (in order, wherever they sit), the
        others leave the screen at once, and the few rows left to build follow
        before the next frame: moving between similar tools lays the screen
        out once at most, and a tool like the last builds nothing.  Otherwise
        the previous schema's rows go from the screen at once and the new ones
        are mounted after the next refresh (a big form takes a while)."""
        if not self._rebuild_scheduled and self._focused_place() is None:
            specs = self._specs()
            plan = self._plan(specs)
            built = sum(1 for row in plan if row is None)
            if built <= ROW_CHUNK:
                self._rebind(specs, plan)
                if self._retire(plan) or built:
                    self.rebuild(soon=True)
                return
        for child in self.children:
            child.display = False
        self.rebuild()

    def _plan(self, specs: list[RowSpec]) -> list[Widget | None]:
        """For each row *specs* asks for, a row on screen of the same shape
        to take its node (None: one is built), in the order they stand: the
        longest run of matching shapes (a field added or dropped keeps the
        rows around it)."""
        children = list(self.children)
        matches = match_rows([spec_shape(spec) for spec in specs], [child_shape(child) for child in children])
        return [children[j] if j is not None else None for j in matches]

    def _retire(self, plan: list[Widget | None]) -> list[Widget]:
        """The rows on screen *plan* leaves out: those after the last one it
        keeps, of a shape another node can take, stay where they are, blank
        (`FieldRow.vacate`, SPARE_ROWS at most: no layout now, nor when a
        later form takes them); the others are hidden, and returned to be removed."""
        kept = {id(row) for row in plan if row is not None}
        children = list(self.children)
        last = max((index for index, child in enumerate(children) if id(child) in kept), default=len(children))
        stale: list[Widget] = []
        spares = 0
        for index, child in enumerate(children):
            if id(child) in kept:
                continue
            if index > last and spares < SPARE_ROWS and isinstance(child, FieldRow) and child.can_vacate:
                spares += 1
                child.vacate()
                continue
            child.display = False
            stale.append(child)
        return stale

    @staticmethod
    def _rebind(specs: list[RowSpec], plan: list[Widget | None]) -> None:
        for spec, row in zip(specs, plan, strict=True):
            if spec is not None and isinstance(row, FieldRow):
                row.occupy()
                row.rebind(spec[0])
            if row is not None and not row.display:
                row.display = True

    def _reuse(self, specs: list[RowSpec]) -> int:
        """Give the rows on screen the nodes of *specs* from the first, as far
        as their shapes match; how many took one."""
        children = self.children
        kept = 0
        for spec, child in zip(specs, children, strict=False):
            if spec_shape(spec) is None or spec_shape(spec) != child_shape(child):
                break
            kept += 1
        for spec, child in zip(specs[:kept], children, strict=False):
            if spec is not None and isinstance(child, FieldRow):
                child.occupy()
                child.rebind(spec[0])
        return kept

    def rebuild(self, soon: bool = False) -> None:
        """Draw the rows again from the model, after the next refresh (*soon*: before it)."""
        # Requests made while a rebuild is scheduled or running fold into it:
        # the loop below draws the model as it is once the last one is done.
        # *soon*: before the next frame (a few rows to add or remove), not after it.
        self._dirty = True
        self._rebuild_pending = True
        self._hold_keys(True)
        if not self._rebuild_scheduled:
            self._rebuild_scheduled = True
            if soon:
                self.call_next(self._rebuild)
            else:
                self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        # The rows a screen can show are mounted (and painted) first; the
        # rest follow a chunk per painted frame (`_mount_more`), so a
        # 100-field form is on screen long before its last row is built.
        # The rebuild counts as pending (keys wait) until the last row is in.
        # The screen is laid out once the rows are in, not as each one mounts
        # and each of its widgets after it (a layout of the whole screen apiece).
        rest: list[Widget] = []
        focused: FocusPlace | None = None
        try:
            with self.app.batch_update():
                while self._dirty:
                    self._dirty = False
                    self._mounting += 1
                    focused = self._focused_place()
                    refocus = self._focus_to is not None
                    if refocus:
                        focused, self._focus_to = self._focus_to, None
                    specs = self._specs()
                    # Rows under the person's hands are built anew (focus and the
                    # cursor go back to them); otherwise the rows on screen that
                    # match the new ones take their nodes.  A focused row that
                    # already holds its node (focused between a tool's rows
                    # taking the new nodes and this pass) stays as it is.
                    plan = self._plan(specs)
                    in_place = focused is None or (not refocus and self._focus_keeps_its_node(specs, plan))
                    if in_place and sum(1 for row in plan if row is None) <= ROW_CHUNK:
                        await self._build_in_place(specs, plan)
                        rest = []
                        continue
                    kept = self._reuse(specs) if focused is None else 0
                    for child in self.children[:kept]:
                        if not child.display:
                            child.display = True
                    await self.remove_children(self.children[kept:])
                    rows = [self._widget(spec) for spec in specs[kept:]]
                    # A rebuild under the person's hands (focus in the form) mounts
                    # every row at once: focus goes back, and the view follows it,
                    # before the next key.
                    first = (
                        len(rows)
                        if focused is not None
                        else rows_to_fill(rows, max(0, (self.size.height or FIRST_LINES) - kept))
                    )
                    rest = rows[first:]
                    for row in rest:
                        if isinstance(row, FieldRow):
                            row.sketch()
                    await self.mount_all(rows[:first])
        finally:
            self._rebuild_scheduled = False
        if rest:
            self.call_after_refresh(self._mount_more, self._mounting, rest, focused)
        else:
            self._built(focused)

    def _focus_keeps_its_node(self, specs: list[RowSpec], plan: list[Widget | None]) -> bool:
        """Whether the row holding focus is one *plan* keeps, for the node it holds."""
        focused = self.app.focused
        row = row_of(focused) if focused is not None else None
        if row is None:
            return False
        pairs = zip(specs, plan, strict=True)
        return any(kept is row and spec is not None and spec[0] is row.node for spec, kept in pairs)

    async def _build_in_place(self, specs: list[RowSpec], plan: list[Widget | None]) -> None:
        """The rows of *plan* take their nodes where they stand; the others
        go, and a row is built for each spec that has none, in its place."""
        self._rebind(specs, plan)
        stale = self._retire(plan)
        if stale:
            # Not awaited: awaiting the removal runs its layout request a
            # second time, after the batch (a second layout of the screen).
            self.remove_children(stale)
            # Textual signals the removal's end only through the awaitable
            # not awaited above; each turn hands the loop to the removal.
            while any(child.is_attached for child in stale):  # noqa: ASYNC110
                await asyncio.sleep(0)
            await asyncio.sleep(0)
        waits = []
        pending: list[Widget] = []
        for spec, row in zip(specs, plan, strict=True):
            if row is None:
                pending.append(self._widget(spec))
            elif pending:
                waits.append(self.mount_all(pending, before=row))
                pending = []
        if pending:
            # Rows of the end go before the blank rows kept there (`_retire`).
            spare = next((child for child in self.children if isinstance(child, FieldRow) and child.vacant), None)
            waits.append(self.mount_all(pending, before=spare) if spare is not None else self.mount_all(pending))
        for wait in waits:
            await wait

    async def _mount_more(self, generation: int, rest: list[Widget], focused: FocusPlace | None) -> None:
        if generation != self._mounting or self._dirty or not self.is_attached:
            return  # a newer rebuild replaces these rows
        count = chunk_to_mount(rest)
        chunk, rest = rest[:count], rest[count:]
        await self.mount_all(chunk)
        if generation != self._mounting or self._dirty:
            return
        if rest:
            self.call_after_refresh(self._mount_more, generation, rest, focused)
        else:
            self._built(focused)

    @on(FieldRow.SketchShown)
    def _sketch_shown(self, event: FieldRow.SketchShown) -> None:
        event.stop()
        if not self._to_build:
            self.call_later(self._build_sketches)
        self._to_build.append(event.row)

    async def _build_sketches(self) -> None:
        """Build the sketched rows shown since the last frame, together (one layout)."""
        rows, self._to_build = self._to_build, []
        await asyncio.gather(*(row.build() for row in rows if row.sketched and row.parent is self))

    def _built(self, focused: FocusPlace | None) -> None:
        """Every row is mounted: focus goes back where it was, keys flow again."""
        if focused is not None:
            self._refocus(*focused)
        self._rebuild_pending = False
        if self._focus_after_rebuild:
            self._focus_after_rebuild = False
            self.focus_first()
        self._hold_keys(False)

    def _hold_keys(self, hold: bool) -> None:
        # Keys typed while the rows are replaced wait for the new rows
        # (inspector.tui.key_order), so none lands on a row being removed.
        order = getattr(self.app, "key_order", None)
        if order is not None:
            if hold:
                order.busy(self)
            else:
                order.done(self)

    def on_unmount(self) -> None:
        self._hold_keys(False)

    def _rows_shown(self) -> int:
        """How many rows the form shows (the blank ones kept at its end aside: `_retire`)."""
        return sum(1 for child in self.children if not (isinstance(child, FieldRow) and child.vacant))

    def _specs(self) -> list[RowSpec]:
        """The rows the model asks for (`row_specs`)."""
        return row_specs(self.root)

    @staticmethod
    def _widget(spec: RowSpec) -> Widget:
        if spec is None:
            return Static(Text("no arguments", style="dim"), classes="no-arguments")
        return FieldRow(*spec)

    def _focused_place(self) -> FocusPlace | None:
        """The row holding focus, and which of its buttons has it."""
        return focused_place(self.app.focused, self)

    def _refocus(self, path: tuple[Any, ...], button: str | None = None) -> None:
        """Focus the row at *path* (`focus_target`)."""
        target = focus_target(list(self.query(FieldRow)), path, button)
        if target is not None:
            target.focus()

    def focus_first(self) -> None:
        """Focus the editor of the first required field still empty (what the
        person must type first), else the first widget."""
        if self._rebuild_pending:
            # The rows are about to be replaced: focus the new ones instead.
            self._focus_after_rebuild = True
            return
        # A row still sketched is focusable itself (focused, it builds and hands focus to its editor).
        widgets = [w for w in self.query(f"{FOCUSABLE}, FieldRow") if w.focusable]
        for widget in widgets:
            row = row_of(widget)
            if row is not None and not isinstance(widget, Button) and row.node.required and not row.node.is_set:
                widget.focus()
                return
        if widgets:
            widgets[0].focus()
