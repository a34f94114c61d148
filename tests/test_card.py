"""`inspector card`: a registry server.json against the live server, read
from a file or over loopback HTTP, reaching the server named or the
card's own remotes."""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from inspector import __version__
from inspector.commands import exitcodes

from .peers import EVERYTHING, NODE, PYTHON, SERVERS, free_port, require, run_inspector, serving

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
ODD = [PYTHON, str(SERVERS / "matrix_odd.py")]


def card(**changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "$schema": SCHEMA,
        "name": "io.github.example/inspector-demo",
        "description": "The inspector's demo server",
        "version": __version__,
        "packages": [
            {"registryType": "pypi", "identifier": "inspector", "version": __version__, "transport": {"type": "stdio"}}
        ],
    }
    document.update(changes)
    return document


def write(tmp_path: Path, document: dict[str, Any]) -> str:
    path = tmp_path / "server.json"
    path.write_text(json.dumps(document))
    return str(path)


def inspector(*args: str) -> subprocess.CompletedProcess[str]:
    return run_inspector("card", *args, timeout=120)


@contextlib.contextmanager
def card_server(site: Path, document: dict[str, Any]) -> Iterator[str]:
    """The card as `server.json` of a static site in `site`, served over loopback HTTP by Python's
    http.server, as a registry or a website would; yields the site's base URL."""
    site.mkdir()
    write(site, document)
    port = free_port()
    with serving([PYTHON, "-m", "http.server", "--bind", "127.0.0.1", "--directory", str(site), str(port)], port):
        yield f"http://127.0.0.1:{port}"


def test_a_matching_card_exits_0(tmp_path: Path) -> None:
    result = inspector(write(tmp_path, card()), "--json")
    assert result.returncode == exitcodes.OK, (result.stdout, result.stderr)
    report = json.loads(result.stdout)
    assert report["matches"] and report["schemaProblems"] == []
    (live,) = report["live"]
    assert live["serverInfo"]["name"] == "inspector-demo" and live["differences"] == []
    record = tmp_path / "card.jsonl"
    human = inspector(write(tmp_path, card()), "--human", "--record", str(record))
    assert human.returncode == exitcodes.OK
    assert "the card matches the server" in human.stdout
    # The live side's traffic is recorded like any session.
    methods = [json.loads(line).get("method") for line in record.read_text().splitlines()]
    assert "initialize" in methods or "server/discover" in methods


def test_a_differing_card_names_each_difference(tmp_path: Path) -> None:
    document = card(version="9.9.9", tools=["clock", "export"], title="Odd")
    result = inspector(write(tmp_path, document), "--json", "--", *ODD)
    assert result.returncode == exitcodes.DIFFERENCES, result.stderr
    (live,) = json.loads(result.stdout)["live"]
    differences = {d["what"]: d for d in live["differences"]}
    assert differences["name"]["live"] == "matrix-odd"
    assert differences["version"] == {"what": "version", "card": "9.9.9", "live": "1.0.0"}
    assert differences["tools missing from the server"]["card"] == ["export"]
    assert "shaped" in differences["tools the card does not list"]["live"]
    human = inspector(write(tmp_path, document), "--human", "--", *ODD)
    assert human.returncode == exitcodes.DIFFERENCES
    assert "differs: version: card 9.9.9 ≠ live 1.0.0" in human.stdout
    assert "\x1b" not in human.stdout, "the hostile tool's name is shown inert"
    assert "evil␛]0;pwned␇␛[31mred" in human.stdout


def test_a_card_of_server_everything_names_the_tool_it_lacks(tmp_path: Path) -> None:
    """The reference TypeScript server against a card that lists two of its
    tools and one it does not serve."""
    everything = [NODE, str(require(EVERYTHING)), "stdio"]
    document = card(tools=["echo", "get-sum", "no-such-tool"])
    result = inspector(write(tmp_path, document), "--json", "--", *everything)
    assert result.returncode == exitcodes.DIFFERENCES, result.stderr
    (live,) = json.loads(result.stdout)["live"]
    differences = {d["what"]: d for d in live["differences"]}
    assert differences["tools missing from the server"]["card"] == ["no-such-tool"]
    # The tools the card leaves out are named too (server-everything serves more).
    unlisted = differences["tools the card does not list"]["live"]
    assert "get-tiny-image" in unlisted and "get-sum" not in unlisted and "echo" not in unlisted


def test_a_card_without_a_stdio_package_differs_from_a_stdio_server(tmp_path: Path) -> None:
    document = card(packages=[], remotes=[{"type": "streamable-http", "url": "https://mcp.example.com/mcp"}])
    result = inspector(write(tmp_path, document), "--json", "--", PYTHON, "-m", "inspector.demo")
    assert result.returncode == exitcodes.DIFFERENCES, result.stderr
    (live,) = json.loads(result.stdout)["live"]
    assert [d["what"] for d in live["differences"]] == ["transport"]


def test_a_card_over_loopback_http_reaches_its_remotes(tmp_path: Path) -> None:
    port = free_port()
    with serving([PYTHON, "-m", "inspector", "demo-server", "--http", str(port)], port):
        remote = f"http://127.0.0.1:{port}/mcp"
        document = card(remotes=[{"type": "streamable-http", "url": remote}])
        with card_server(tmp_path / "site", document) as base:
            result = inspector(f"{base}/server.json", "--json")
            assert result.returncode == exitcodes.OK, (result.stdout, result.stderr)
            (live,) = json.loads(result.stdout)["live"]
            assert live["server"] == remote and live["fromCard"] and live["differences"] == []
            # The same card served at an address with nothing there is no card.
            missing = inspector(f"{base}/nothing.json")
            assert missing.returncode == exitcodes.USAGE
            assert "HTTP 404" in missing.stderr
        # A remote that does not answer is a difference, named.
        dead = free_port()
        document = card(remotes=[{"type": "streamable-http", "url": f"http://127.0.0.1:{dead}/mcp"}])
        with card_server(tmp_path / "dead-remote", document) as base:
            result = inspector(f"{base}/server.json", "--json", "--timeout", "20")
        assert result.returncode == exitcodes.DIFFERENCES, result.stderr
        (live,) = json.loads(result.stdout)["live"]
        assert live["differences"][0]["what"] == "reachable"


def test_a_card_that_breaks_the_schema_or_is_no_json(tmp_path: Path) -> None:
    document = card(name="no-slash")
    del document["description"]
    result = inspector(write(tmp_path, document), "--json")
    assert result.returncode == exitcodes.DIFFERENCES, result.stderr
    problems = json.loads(result.stdout)["schemaProblems"]
    assert any("description" in problem for problem in problems)
    assert any(problem.startswith("name:") for problem in problems)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    result = inspector(str(broken))
    assert result.returncode == exitcodes.USAGE and "not JSON" in result.stderr
