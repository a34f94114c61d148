"""A JSON value as a tree you can fold: objects and arrays are branches with
their size, scalars are leaves coloured by type.  Problems found at a path
(a schema violation, say) are written on that node.

Tree labels given as `str` are read as markup, and keys and values come
from the server, so every label is built as a `rich.text.Text`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from rich.text import Text
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from inspector.core.safetext import one_line
from inspector.tui import looks
from inspector.tui.legible import legible

__all__ = ["JsonTree"]

Path = tuple[str | int, ...]

# Past this many children a branch shows the first ones and says how many more.
MAX_CHILDREN = 200
# Branches up to this depth start unfolded.
OPEN_DEPTH = 2
# At most this many nodes in all: a value of 200 items of 200 items of …
# would otherwise build millions, on the UI loop.
MAX_NODES = 5_000

_SCALAR_STYLE = {
    str: looks.JSON_STRING,
    bool: looks.JSON_LITERAL,
    type(None): looks.JSON_LITERAL,
    int: looks.JSON_NUMBER,
    float: looks.JSON_NUMBER,
}


def _scalar(value: Any) -> Text:
    return Text(one_line(json.dumps(value, ensure_ascii=False), 200), style=_SCALAR_STYLE.get(type(value), ""))


def _key_text(key: str | int | None) -> Text:
    if key is None:
        return Text()
    if isinstance(key, int):
        return Text(f"[{key}] ", style="dim")
    return Text.assemble(Text(one_line(key, 80), style="bold"), Text(": ", style="dim"))


class JsonTree(Tree[Path]):
    """`JsonTree(value, problems={path: [message, …]})`; the data of each node is its path."""

    DEFAULT_CSS = """
    JsonTree { height: auto; max-height: 24; background: transparent; padding: 0; }
    """

    def __init__(
        self,
        value: Any,
        *,
        label: str = "value",
        problems: Mapping[Path, Iterable[str]] | None = None,
        id: str | None = None,
    ) -> None:
        self.value = value
        self.problems = {path: list(messages) for path, messages in (problems or {}).items()}
        super().__init__(self._label(Text(label, style="bold"), value, ()), data=(), id=id)
        self.show_root = True
        self.guide_depth = 2
        self._budget = MAX_NODES
        self._fill(self.root, value, (), 0)
        self.root.expand()

    def _label(self, key: Text, value: Any, path: Path) -> Text:
        text = key.copy()
        if isinstance(value, dict):
            text.append(f"{{…}} {len(value)} key{'s' if len(value) != 1 else ''}", style="dim")
        elif isinstance(value, list):
            text.append(f"[…] {len(value)} item{'s' if len(value) != 1 else ''}", style="dim")
        else:
            text.append_text(_scalar(value))
        for message in self.problems.get(path, ()):
            text.append("  ✖ ", style=looks.ERROR_STRONG)
            text.append(one_line(message, 120), style=looks.ERROR)
        return text

    def _fill(self, node: TreeNode[Path], value: Any, path: Path, depth: int) -> None:
        children: list[tuple[str | int, Any]]
        if isinstance(value, dict):
            children = list(value.items())
        elif isinstance(value, list):
            children = list(enumerate(value))
        else:
            return
        for count, (key, child) in enumerate(children[:MAX_CHILDREN]):
            if self._budget <= 0:
                node.add_leaf(
                    Text(f"… {len(children) - count} more (the traffic view has the whole value)", style="dim")
                )
                return
            self._budget -= 1
            child_path = (*path, key)
            label = self._label(_key_text(key), child, child_path)
            if isinstance(child, (dict, list)) and child:
                branch = node.add(label, data=child_path, expand=depth + 1 < OPEN_DEPTH)
                self._fill(branch, child, child_path, depth + 1)
            else:
                node.add_leaf(label, data=child_path)
        if len(children) > MAX_CHILDREN:
            node.add_leaf(
                Text(f"… {len(children) - MAX_CHILDREN} more (the traffic view has the whole value)", style="dim")
            )

    def render_line(self, y: int) -> Strip:
        """The line at *y*; on the cursor's, text too faint for its background takes the cursor's text colour."""
        strip = super().render_line(y)
        if y + int(self.scroll_y) != self.cursor_line:
            return strip
        return legible(strip, self.get_component_rich_style("tree--cursor").color)

    def node_at(self, path: Path) -> TreeNode[Path] | None:
        """The node of a path (for tests and for jumping to a problem)."""
        stack = [self.root]
        while stack:
            node = stack.pop()
            if node.data == path:
                return node
            stack.extend(node.children)
        return None
