"""`resources/directory/read` (SEP-2640's directoryRead) against a server of
our own: the client core follows every cursor, only asks a server that
declares it, `inspector read --directory` prints the children, and the
Resources pane lists a directory resource and descends into it."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from textual.pilot import Pilot

from inspector.commands import exitcodes
from inspector.core.protocol.client import Client
from inspector.core.protocol.errors import JsonRpcError, ProtocolError
from inspector.core.record.traffic import Frame
from inspector.core.servers.spec import ServerSpec
from inspector.tui.app import InspectorApp
from inspector.tui.panes.resources import DirectoryListing, ResourcesPane, parent_uri
from inspector.tui.widgets.content_view import BlockView

from .peers import SERVERS, run_inspector
from .tui_helpers import select, settle, wait_connected, wait_for

SERVER = str(SERVERS / "directory_tree.py")
ROOT = "skill://pdf-processing"
TEMPLATES = f"{ROOT}/templates"


def tree(*extra: str, era: str = "auto") -> ServerSpec:
    return ServerSpec(command=sys.executable, args=[SERVER, *extra], timeout=30, era=era)


def sent(client: Client, method: str) -> list[dict[str, object]]:
    return [frame.message for frame in client.traffic if frame.direction == "out" and frame.method == method]


@pytest.mark.parametrize("era", ["modern", "legacy"])
async def test_every_page_is_followed_with_the_uri_and_cursor(era: str) -> None:
    client = Client(tree(era=era))
    await client.connect()
    try:
        assert client.era == era
        assert client.directory_read
        listing = await client.read_directory(TEMPLATES)
        assert [item.key for item in listing.items] == [
            f"{TEMPLATES}/invoice.md",
            f"{TEMPLATES}/purchase-order.md",
            f"{TEMPLATES}/credit-note.md",
            f"{TEMPLATES}/regional",
            f"{TEMPLATES}/letter.md",
        ]
        assert listing.complete and len(listing.pages) == 3
        requests = sent(client, "resources/directory/read")
        # The stateless era's envelope rides on the extension's method too.
        assert all(("_meta" in message["params"]) == (era == "modern") for message in requests)  # type: ignore[operator]
        params = [
            {k: v for k, v in message["params"].items() if k != "_meta"}  # type: ignore[attr-defined]
            for message in requests
        ]
        assert params == [
            {"uri": TEMPLATES},
            {"uri": TEMPLATES, "cursor": "2"},
            {"uri": TEMPLATES, "cursor": "4"},
        ]
        empty = await client.read_directory(f"{ROOT}/empty")
        assert empty.items == [] and empty.complete
        page = await client.read_directory_page(TEMPLATES, "4")
        assert [entry["name"] for entry in page["resources"]] == ["letter.md"]
        with pytest.raises(JsonRpcError) as refused:
            await client.read_directory(f"{ROOT}/SKILL.md")
        assert refused.value.code == -32602
    finally:
        await client.close()


async def test_a_server_that_does_not_declare_it_is_not_asked() -> None:
    client = Client(tree("--no-directory-read"))
    await client.connect()
    try:
        assert not client.directory_read
        with pytest.raises(ProtocolError, match="directoryRead"):
            await client.read_directory(ROOT)
        with pytest.raises(ProtocolError):
            await client.read_directory_page(ROOT)
        # The server would have answered: the client refused to send.
        assert sent(client, "resources/directory/read") == []
    finally:
        await client.close()


def test_read_directory_command() -> None:
    server = ["--", sys.executable, SERVER]
    result = run_inspector("read", "--directory", TEMPLATES, "--json", *server)
    assert result.returncode == exitcodes.OK, result.stderr
    listed = json.loads(result.stdout)
    assert [entry["name"] for entry in listed["resources"]] == [
        "invoice.md",
        "purchase-order.md",
        "credit-note.md",
        "regional",
        "letter.md",
    ]
    assert "nextCursor" not in listed
    human = run_inspector("read", "--directory", TEMPLATES, "--human", *server)
    assert human.returncode == exitcodes.OK, human.stderr
    assert "5 entries (3 pages)" in human.stdout
    assert f"{TEMPLATES}/regional  (inode/directory)" in human.stdout
    short = run_inspector("read", "--directory", TEMPLATES, "--max-pages", "1", "--json", *server)
    assert short.returncode == exitcodes.PROTOCOL_ERROR
    assert json.loads(short.stdout) == {
        "resources": [
            {"uri": f"{TEMPLATES}/invoice.md", "name": "invoice.md", "mimeType": "text/markdown"},
            {"uri": f"{TEMPLATES}/purchase-order.md", "name": "purchase-order.md", "mimeType": "text/markdown"},
        ],
        "nextCursor": "2",
    }
    assert "incomplete" in short.stderr


def test_read_directory_command_errors() -> None:
    not_a_directory = run_inspector("read", "--directory", f"{ROOT}/SKILL.md", "--", sys.executable, SERVER)
    assert not_a_directory.returncode == exitcodes.PROTOCOL_ERROR
    assert "-32602" in not_a_directory.stderr
    undeclared = run_inspector("read", "--directory", ROOT, "--", sys.executable, SERVER, "--no-directory-read")
    assert undeclared.returncode == exitcodes.PROTOCOL_ERROR
    assert "does not declare resources/directory/read" in undeclared.stderr


SIZE = (150, 50)


def listing_of(app: InspectorApp) -> DirectoryListing | None:
    found = app.query_one("#resource-contents").query(DirectoryListing)
    return found.first() if found else None


async def open_entry(pilot: Pilot[Any], listing: DirectoryListing, index: int) -> None:
    """Press enter on the listing's entry at `index`, as a person would."""
    listing.focus()
    listing.highlighted = index
    await settle(pilot, "the highlight")
    await pilot.press("enter")


async def test_resources_pane_lists_a_directory_and_descends() -> None:
    app = InspectorApp(tree())
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "resources", ROOT)
        await pilot.press("enter")
        await wait_for(pilot, lambda: listing_of(app) is not None, "the root's listing")
        root = listing_of(app)
        assert root is not None
        assert [child.key for child in root.entries] == [f"{ROOT}/SKILL.md", TEMPLATES, f"{ROOT}/empty"]
        assert "▸" in str(root.get_option_at_index(1).prompt)
        # Into templates/: three pages gathered, five children.
        await open_entry(pilot, root, 1)

        def templates_listed() -> bool:
            listing = listing_of(app)
            return listing is not None and len(listing.entries) == 5

        await wait_for(pilot, templates_listed, "the templates listing")
        summary = app.query_one("#directory-summary")
        assert "5 entries (3 pages)" in str(summary.render())
        # `↑ ..` first: back to the root's listing, and down again.
        listing = listing_of(app)
        assert listing is not None and listing.up == ROOT
        assert "↑ .." in str(listing.get_option_at_index(0).prompt)
        await open_entry(pilot, listing, 0)

        def root_listed() -> bool:
            shown = listing_of(app)
            return shown is not None and shown.up is None and len(shown.entries) == 3

        await wait_for(pilot, root_listed, "the root listing again")
        root = listing_of(app)
        assert root is not None
        await open_entry(pilot, root, 1)
        await wait_for(pilot, templates_listed, "the templates listing again")
        # A file child is read with resources/read.
        listing = listing_of(app)
        assert listing is not None
        await open_entry(pilot, listing, 1)

        def reads() -> list[Frame]:
            return [f for f in app.traffic if f.direction == "out" and f.method == "resources/read"]

        await wait_for(pilot, reads, "the file read")
        assert reads()[-1].message["params"]["uri"] == f"{TEMPLATES}/invoice.md"
        await wait_for(pilot, lambda: listing_of(app) is None, "the listing replaced by the file")


async def test_the_keys_alone_go_down_read_a_file_and_come_back() -> None:
    """As a person drives it: enter on a directory puts the keys in its listing,
    a file read from it offers the way back (its row highlighted again), and
    escape returns to the resource list."""
    app = InspectorApp(tree())
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "resources", ROOT)
        await pilot.press("enter")
        await wait_for(pilot, lambda: listing_of(app) is not None and listing_of(app).has_focus, "the listing focused")  # type: ignore[union-attr]
        root = listing_of(app)
        assert root is not None and root.highlighted == 0  # the first child (the root has no parent)
        await pilot.press("down", "enter")

        def listed(uri: str) -> DirectoryListing | None:
            shown = listing_of(app)
            return shown if shown is not None and shown.uri == uri and shown.has_focus else None

        await wait_for(pilot, lambda: listed(TEMPLATES), "the templates listing, focused")
        templates = listed(TEMPLATES)
        assert templates is not None and templates.highlighted == 1  # its first child, under `↑ ..`
        await pilot.press("down", "down", "enter")

        def back_focused() -> bool:
            back = app.query("#directory-back")
            return bool(back) and back.first().has_focus

        await wait_for(pilot, back_focused, "the way back, focused")
        reads = [f for f in app.traffic if f.direction == "out" and f.method == "resources/read"]
        assert reads[-1].message["params"]["uri"] == f"{TEMPLATES}/credit-note.md"
        await wait_for(pilot, lambda: app.query_one("#resource-contents").query(BlockView), "the file shown")
        await pilot.press("enter")
        await wait_for(pilot, lambda: listed(TEMPLATES), "the templates listing again")
        again = listed(TEMPLATES)
        assert again is not None and again.highlighted == 3  # credit-note.md, where the person left
        # `↑ ..` from templates: the root, with templates highlighted.
        await pilot.press("home", "enter")
        await wait_for(pilot, lambda: listed(ROOT), "the root listing")
        up = listed(ROOT)
        assert up is not None and up.highlighted == 1
        await pilot.press("escape")
        pane = app.query_one(ResourcesPane)
        await wait_for(pilot, lambda: pane.query_one("#resource-list #options").has_focus, "the resource list")


async def test_resources_pane_without_directory_read_reads_the_resource() -> None:
    app = InspectorApp(tree("--no-directory-read"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_connected(pilot, app)
        await select(pilot, app, "resources", ROOT)
        pane = app.query_one(ResourcesPane)
        assert pane.current is not None and pane.current.key == ROOT
        await pilot.press("enter")
        contents = app.query_one("#resource-contents")
        await wait_for(pilot, lambda: "-32602" in " ".join(str(w.render()) for w in contents.children), "the error")
        text = " ".join(str(w.render()) for w in contents.children)
        assert "does not declare resources/directory/read" in text
        assert not [f for f in app.traffic if f.direction == "out" and f.method == "resources/directory/read"]


def test_parent_uri() -> None:
    assert parent_uri("skill://acme/billing/refunds") == "skill://acme/billing"
    assert parent_uri("skill://pdf-processing") is None
    assert parent_uri("file:///srv/data") == "file:///srv"
    assert parent_uri("no-scheme") is None
