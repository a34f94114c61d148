"""`inspector matrix`: one server under every revision, era and transport,
against the demo server, server-everything and a server whose offer
changes with the revision (tests/servers/matrix_odd.py), and a server behind
OAuth (tests/servers/auth_server.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx2

from inspector.commands import exitcodes
from inspector.core.protocol.versions import HANDSHAKE_VERSIONS, KNOWN_VERSIONS

from .peers import EVERYTHING, NODE, PYTHON, SERVERS, free_port, require, run_inspector, serving

ODD = [PYTHON, str(SERVERS / "matrix_odd.py")]
# Every column is a fresh connection (a fresh process over stdio): far above
# what it takes, reached only by a hang.
BOUND = 600


def matrix(*args: str) -> subprocess.CompletedProcess[str]:
    return run_inspector("matrix", *args, timeout=BOUND)


def matrix_of_the_demo_server(transport: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """`inspector matrix --json --no-calls` of the demo server served over `http` or `sse`: the run
    and its report."""
    port = free_port()
    with serving([PYTHON, "-m", "inspector", "demo-server", f"--{transport}", str(port)], port):
        path = "mcp" if transport == "http" else "sse"
        result = matrix("--json", "--no-calls", "--url", f"http://127.0.0.1:{port}/{path}")
    return result, json.loads(result.stdout)


def columns(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {column["transport"] + " " + column["revision"]: column for column in report["columns"]}


def row(report: dict[str, Any], section: str, key: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [r for r in report["rows"] if r["section"] == section and r["key"] == key]
    assert len(found) == 1, f"no single row {section} {key}"
    return found[0]


def test_the_demo_server_under_both_eras_and_every_revision() -> None:
    result = matrix("--json")
    report = json.loads(result.stdout)
    by_label = columns(report)
    assert list(by_label) == [f"stdio {revision}" for revision in KNOWN_VERSIONS]
    for revision in KNOWN_VERSIONS:
        column = by_label[f"stdio {revision}"]
        assert column["status"] == "accepted", column
        assert column["negotiated"] == revision
        assert column["era"] == ("modern" if revision == "2026-07-28" else "legacy")
        assert column["serverInfo"]["name"] == "inspector-demo"
        assert column["counts"]["tools"] > 5 and column["counts"]["prompts"] > 0
        # The read-only tools that take no arguments were called in each.
        assert column["calls"]["get_json"]["outcome"] == "ok"
    counts = {json.dumps(column["counts"]) for column in report["columns"]}
    assert len(counts) == 1, "the demo offers the same under every revision"
    # Before 2025-06-18 there are no resource links: the demo's gallery sends
    # an embedded resource instead, and the matrix says so.
    gallery = row(report, "calls", "media_gallery")
    assert gallery["differs"]
    assert gallery["cells"]["stdio 2024-11-05"]["changes"]
    assert "changes" not in gallery["cells"]["stdio 2025-06-18"]
    assert result.returncode == exitcodes.DIFFERENCES, result.stderr


def test_server_everything_over_stdio_and_its_missing_stateless_era() -> None:
    result = matrix("--json", "--", NODE, str(require(EVERYTHING)), "stdio")
    report = json.loads(result.stdout)
    by_label = columns(report)
    for revision in HANDSHAKE_VERSIONS:
        column = by_label[f"stdio {revision}"]
        assert column["status"] == "accepted", column
        assert column["negotiated"] == revision
        assert column["counts"]["tools"] >= 10 and column["counts"]["resources"] > 0
        assert column["serverInfo"]["name"]
    # A handshake-era server: the stateless column is not compared.
    assert by_label["stdio 2026-07-28"]["status"] != "accepted"
    echo = row(report, "tools", "echo")
    assert all(cell["state"] == "same" for label, cell in echo["cells"].items() if label != "stdio 2026-07-28")
    assert echo["cells"]["stdio 2026-07-28"]["state"] == "n/a"
    assert result.returncode in (exitcodes.OK, exitcodes.DIFFERENCES), result.stderr
    assert result.returncode == (exitcodes.DIFFERENCES if report["differences"] else exitcodes.OK)


def test_a_url_is_asked_over_streamable_http_and_legacy_sse() -> None:
    result, report = matrix_of_the_demo_server("http")
    by_label = columns(report)
    assert [label for label in by_label if label.startswith("http ")] == [f"http {r}" for r in KNOWN_VERSIONS]
    # Legacy HTTP+SSE carries only the handshake era.
    assert [label for label in by_label if label.startswith("sse ")] == [f"sse {r}" for r in HANDSHAKE_VERSIONS]
    for revision in KNOWN_VERSIONS:
        assert by_label[f"http {revision}"]["status"] == "accepted", by_label[f"http {revision}"]
        assert by_label[f"http {revision}"]["negotiated"] == revision
    # The Streamable HTTP endpoint is no legacy SSE endpoint: those columns
    # failed, and failing to answer there is no difference between revisions.
    assert all(by_label[f"sse {r}"]["status"] == "failed" for r in HANDSHAKE_VERSIONS)
    assert not any(c["calls"] for c in report["columns"])
    assert result.returncode == exitcodes.OK, (result.stdout, result.stderr)
    assert report["differences"] == 0


def test_a_tool_missing_under_an_old_revision_shows() -> None:
    result = matrix("--json", "--", *ODD)
    assert result.returncode == exitcodes.DIFFERENCES, result.stderr
    report = json.loads(result.stdout)
    by_label = columns(report)
    assert by_label["stdio 2024-11-05"]["status"] == "not accepted"
    assert by_label["stdio 2024-11-05"]["negotiated"] == "2025-03-26"
    assert by_label["stdio 2026-07-28"]["status"] == "failed"
    assert "server/discover" in by_label["stdio 2026-07-28"]["detail"]
    report_row = row(report, "tools", "report")
    assert report_row["differs"]
    states = {label: cell["state"] for label, cell in report_row["cells"].items()}
    assert states == {
        "stdio 2024-11-05": "n/a",
        "stdio 2025-03-26": "missing",
        "stdio 2025-06-18": "same",
        "stdio 2025-11-25": "same",
        "stdio 2026-07-28": "n/a",
    }
    shaped = row(report, "calls", "shaped")
    assert shaped["cells"]["stdio 2025-03-26"]["changes"] == ["removed shape.structuredContent"]
    assert not row(report, "calls", "clock")["differs"]
    assert not row(report, "tools", "clock")["differs"]


def test_table_and_markdown_keep_server_text_inert() -> None:
    for form in (["--human"], ["--format", "markdown"]):
        result = matrix(*form, "--", *ODD)
        assert result.returncode == exitcodes.DIFFERENCES, result.stderr
        out = result.stdout
        assert "\x1b" not in out and "\x07" not in out
        # The hostile tool name is shown, its escapes made visible.
        assert "evil␛]0;pwned␇␛[31mred" in out
        assert "report" in out and "removed shape.structuredContent" in out
    markdown = matrix("--format", "markdown", "--", *ODD).stdout
    assert "| tools: report | · | — | ✓ | ✓ | · |" in markdown
    assert "| stdio | 2024-11-05 | legacy | not accepted: offered 2024-11-05; the server chose 2025-03-26 |" in markdown


def test_a_pinned_revision_is_refused() -> None:
    result = matrix("--protocol-version", "2025-06-18", "--", *ODD)
    assert result.returncode == exitcodes.USAGE
    assert "every revision" in result.stderr


def test_a_legacy_sse_url_answers_only_in_the_sse_columns() -> None:
    result, report = matrix_of_the_demo_server("sse")
    by_label = columns(report)
    for revision in HANDSHAKE_VERSIONS:
        assert by_label[f"sse {revision}"]["status"] == "accepted", by_label[f"sse {revision}"]
        assert by_label[f"sse {revision}"]["counts"]["tools"] > 5
    assert all(by_label[f"http {r}"]["status"] == "failed" for r in KNOWN_VERSIONS)
    assert result.returncode == (exitcodes.DIFFERENCES if report["differences"] else exitcodes.OK), result.stderr


def test_columns_asked_at_once_log_in_once(tmp_path: Path) -> None:
    """The columns are asked several at a time; behind OAuth the first one
    connects alone, so one login (one 401) serves every column."""
    port = free_port()
    with serving([PYTHON, str(SERVERS / "auth_server.py"), "--port", str(port)], port):
        base = f"http://127.0.0.1:{port}"
        result = run_inspector(
            "matrix",
            "--json",
            "--no-calls",
            "--url",
            f"{base}/mcp",
            "--oauth-browser",
            "headless",
            env={"INSPECTOR_CONFIG_DIR": str(tmp_path / "config")},
            timeout=BOUND,
        )
        stats = httpx2.get(f"{base}/_stats").json()
    report = json.loads(result.stdout)
    by_label = columns(report)
    assert list(by_label) == [f"http {r}" for r in KNOWN_VERSIONS] + [f"sse {r}" for r in HANDSHAKE_VERSIONS]
    for revision in KNOWN_VERSIONS:
        assert by_label[f"http {revision}"]["status"] == "accepted", by_label[f"http {revision}"]
    assert (stats["mcp_401"], stats["authorize"], stats["token"]) == (1, 1, 1), stats
    assert result.returncode in (exitcodes.OK, exitcodes.DIFFERENCES), result.stderr
