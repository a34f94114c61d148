"""The JSON tree of structuredContent: folded by depth, sizes on branches,
problems written on the node they are about, and server text inert."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult

from inspector.tui.widgets.json_tree import MAX_CHILDREN, MAX_NODES, JsonTree
from inspector.tui.widgets.result_view import problems_by_path, structured_violations

from .tui_helpers import settle

VALUE = {
    "[bold red]key[/]": "[link=https://evil.example]v[/link]",
    "forecast": [{"day": 1, "high": 20}, {"day": 2, "high": "hot"}],
    "many": list(range(MAX_CHILDREN + 5)),
    "empty": {},
}
SCHEMA = {
    "type": "object",
    "properties": {
        "forecast": {"type": "array", "items": {"type": "object", "properties": {"high": {"type": "integer"}}}}
    },
}


class TreeApp(App[None]):
    def compose(self) -> ComposeResult:
        yield JsonTree(
            VALUE,
            label="structuredContent ",
            problems=problems_by_path(structured_violations(SCHEMA, {"structuredContent": VALUE})),
        )


async def test_the_tree_of_a_value() -> None:
    app = TreeApp()
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, "the tree mounted")
        tree = app.query_one(JsonTree)
        assert str(tree.root.label) == "structuredContent {…} 4 keys"
        forecast = tree.node_at(("forecast",))
        assert forecast is not None and str(forecast.label) == "forecast: […] 2 items" and forecast.is_expanded
        # Deeper branches start folded; every leaf is still there.
        second = tree.node_at(("forecast", 1))
        assert second is not None and not second.is_expanded
        bad = tree.node_at(("forecast", 1, "high"))
        assert bad is not None and str(bad.label).startswith('high: "hot"  ✖ ') and "integer" in str(bad.label)
        good = tree.node_at(("forecast", 0, "high"))
        assert good is not None and str(good.label) == "high: 20"
        many = tree.node_at(("many",))
        assert many is not None and len(many.children) == MAX_CHILDREN + 1
        assert str(many.children[-1].label).startswith("… 5 more")
        empty = tree.node_at(("empty",))
        assert empty is not None and not empty.allow_expand
        # Keys and values from the server are text, never markup.
        hostile = tree.node_at(("[bold red]key[/]",))
        assert hostile is not None
        assert isinstance(hostile.label, Text)
        assert str(hostile.label) == '[bold red]key[/]: "[link=https://evil.example]v[/link]"'
        assert not [span for span in hostile.label.spans if "link" in str(span.style)]


def test_a_value_of_millions_of_nodes_builds_a_few_thousand() -> None:
    """200 items of 200 items of 20 would be 800,000 nodes, built on the UI
    loop: the tree stops at MAX_NODES and says how many are left out."""
    value = [[list(range(20)) for _ in range(200)] for _ in range(200)]
    tree = JsonTree(value)
    nodes, stack = 0, [tree.root]
    notes = []
    while stack:
        node = stack.pop()
        nodes += 1
        stack.extend(node.children)
        if "more (the traffic view has the whole value)" in str(node.label):
            notes.append(str(node.label))
    assert nodes <= MAX_NODES + 200
    assert notes and "more (the traffic view has the whole value)" in str(tree.root.children[-1].label)
    # The first items are there, whole, down to the leaves.
    assert [child.data for child in tree.root.children[0].children[0].children[:3]] == [(0, 0, 0), (0, 0, 1), (0, 0, 2)]
