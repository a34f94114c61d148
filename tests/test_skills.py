"""Skills (SEP-2640) against our skills test server: entries are listed and got
without a file being read, files are read only when asked and verified
(size, digest, frontmatter), and the CLI's exit codes say which check failed."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from inspector.commands import exitcodes
from inspector.core.extensions.skill_verification import parse_frontmatter
from inspector.core.extensions.skills import (
    declares_skills,
    get_skill,
    list_skills,
    load_skill,
    read_skill_file,
)
from inspector.core.protocol.client import Client
from inspector.core.protocol.errors import JsonRpcError
from inspector.core.servers.spec import ServerSpec
from inspector.forms import JSONValue

from .peers import PYTHON, SERVERS, run_inspector

SERVER = str(SERVERS / "skills_server.py")


def asked(log: Path) -> list[dict[str, JSONValue]]:
    """Every request and notification the server received, in order."""
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def reads(log: Path) -> list[JSONValue]:
    return [m["params"]["uri"] for m in asked(log) if m["method"] == "resources/read"]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "asked.jsonl"


@pytest.fixture
async def client(log: Path) -> AsyncIterator[Client]:
    client = Client(ServerSpec(command=PYTHON, args=[SERVER, str(log)], timeout=30))
    await client.connect()
    try:
        yield client
    finally:
        await client.close()


async def test_listing_follows_every_page_and_reads_no_file(client: Client, log: Path) -> None:
    assert declares_skills(client)
    listing = await list_skills(client)
    assert listing.complete
    assert [e.uri for e in listing.entries][:3] == [
        "skill://pdf-processing/SKILL.md",
        "skill://acme/billing/refunds/SKILL.md",
        "skill://acme/support/refunds/SKILL.md",
    ]
    assert len(listing.entries) == 8
    cursors = [m["params"].get("cursor") for m in asked(log) if m["method"] == "skills/list"]
    assert cursors == [None, "2", "4", "6"]
    assert [e.uri for e in listing.named("refunds")] == [
        "skill://acme/billing/refunds/SKILL.md",
        "skill://acme/support/refunds/SKILL.md",
    ]
    entry = await get_skill(client, "skill://pdf-processing/SKILL.md")
    assert entry.frontmatter == {
        "name": "pdf-processing",
        "description": "Extract, fill, and assemble PDF documents",
        "license": "Apache-2.0",
    }
    assert entry.files() == [
        "skill://pdf-processing/SKILL.md",
        "skill://pdf-processing/references/FORMS.md",
        "skill://pdf-processing/scripts/extract.bin",
    ]
    assert entry.problems == []
    # No prefetch: listing and getting fetched entries only.
    assert reads(log) == []


async def test_an_honest_skill_verifies_file_by_file_when_asked(client: Client, log: Path) -> None:
    entry = await get_skill(client, "skill://pdf-processing/SKILL.md")
    loaded = await load_skill(client, entry)
    assert loaded.verified and loaded.problems == []
    assert loaded.text().startswith("---\nname: pdf-processing\n")
    assert reads(log) == ["skill://pdf-processing/SKILL.md"]
    binary = await read_skill_file(client, entry, "skill://pdf-processing/scripts/extract.bin")
    assert binary.verified and binary.data == bytes(range(256))
    assert reads(log) == ["skill://pdf-processing/SKILL.md", "skill://pdf-processing/scripts/extract.bin"]


async def test_an_unlisted_file_is_refused_without_asking_the_server(client: Client, log: Path) -> None:
    entry = await get_skill(client, "skill://pdf-processing/SKILL.md")
    refused = await read_skill_file(client, entry, "skill://pdf-processing/scripts/other.py")
    assert not refused.sent and not refused.verified
    assert [p.rule for p in refused.problems] == ["skill-unlisted-file"]
    assert reads(log) == []


async def test_tampered_digest_same_length(client: Client) -> None:
    entry = await get_skill(client, "skill://tampered-digest/SKILL.md")
    loaded = await load_skill(client, entry)
    assert not loaded.verified
    [problem] = loaded.problems
    assert problem.rule == "skill-digest-mismatch" and problem.severity == "error"
    assert problem.path == "skill://tampered-digest/SKILL.md"
    assert "verification-on-read" in problem.url and "MUST verify" in problem.spec
    # The failure is in the traffic log too, as a finding pointing at the read's answer.
    [local] = [f for f in client.traffic.frames if f.kind == "transport" and f.findings]
    [finding] = local.findings
    assert finding.rule == "skill-digest-mismatch"
    answer = client.traffic.by_seq(finding.seq or 0)
    assert answer is not None and answer.method == "resources/read" and answer.kind == "response"


async def test_wrong_size_is_caught_before_the_digest(client: Client) -> None:
    entry = await get_skill(client, "skill://wrong-size/SKILL.md")
    assert (await load_skill(client, entry)).verified
    guide = await read_skill_file(client, entry, "skill://wrong-size/references/GUIDE.md")
    assert [p.rule for p in guide.problems] == ["skill-size-mismatch"]
    assert "45 bytes read, the entry lists 8" in guide.problems[0].message


async def test_frontmatter_is_compared_field_by_field(client: Client) -> None:
    entry = await get_skill(client, "skill://bad-frontmatter/SKILL.md")
    loaded = await load_skill(client, entry)
    # Size and digest match what was served: only the frontmatter tells.
    assert [p.rule for p in loaded.problems] == ["skill-frontmatter-mismatch"]
    assert loaded.problems[0].path == "frontmatter.description"
    assert "Exfiltrate credentials" in loaded.problems[0].message
    missing = await load_skill(client, await get_skill(client, "skill://no-frontmatter/SKILL.md"))
    assert [p.rule for p in missing.problems] == ["skill-frontmatter-invalid"]


async def test_unknown_skill_is_the_servers_invalid_params(client: Client) -> None:
    with pytest.raises(JsonRpcError) as caught:
        await get_skill(client, "skill://nowhere/SKILL.md")
    assert caught.value.code == -32602


def test_frontmatter_parsing_refuses_what_is_not_a_mapping() -> None:
    assert parse_frontmatter("---\nname: a\ndescription: b\n---\nbody")[0] == {"name": "a", "description": "b"}
    assert parse_frontmatter("---\n- a\n---\n")[0] is None
    assert parse_frontmatter("---\nname: [unclosed\n---\n")[0] is None
    assert parse_frontmatter("no block")[0] is None
    # Aliases that expand a few lines into 10**30 values are refused, not walked.
    bomb = "k0: &k0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"k{i}: &k{i} [{', '.join([f'*k{i - 1}'] * 10)}]\n" for i in range(1, 30)
    )
    parsed, why = parse_frontmatter(f"---\nname: n\ndescription: d\n{bomb}---\n")
    assert parsed is None and "aliases expanded" in why


# -- the CLI ---------------------------------------------------------------------------


def skills(*args: str, log: Path | None = None) -> tuple[int, dict[str, JSONValue] | str, str]:
    server = ["--", PYTHON, SERVER, *([str(log)] if log else [])]
    result = run_inspector("skills", *args, *server)
    try:
        out: dict[str, JSONValue] | str = json.loads(result.stdout)
    except ValueError:
        out = result.stdout
    return result.returncode, out, result.stderr


def test_cli_list_prints_every_entry_as_received(log: Path) -> None:
    code, out, _err = skills("list", "--json", log=log)
    assert code == exitcodes.OK
    assert isinstance(out, dict)
    listed = out["skills"]
    assert isinstance(listed, list) and len(listed) == 8
    assert listed[-1]["resources"] == "dynamic"
    assert reads(log) == []


def test_cli_get_without_verify_reads_nothing(log: Path) -> None:
    code, out, _err = skills("get", "pdf-processing", "--human", log=log)
    assert code == exitcodes.OK, out
    assert isinstance(out, str)
    assert "skill://pdf-processing/references/FORMS.md  23 bytes  sha256:" in out
    assert reads(log) == []


def test_cli_verify_an_honest_skill(log: Path) -> None:
    code, out, _err = skills("get", "pdf-processing", "--verify", "--json", log=log)
    assert code == exitcodes.OK, out
    assert isinstance(out, dict)
    verification = out["verification"]
    assert isinstance(verification, dict) and verification["loaded"] is True
    assert [f["verified"] for f in verification["files"]] == [True, True, True]
    assert out["problems"] == []
    assert len(reads(log)) == 3


@pytest.mark.parametrize(
    ("name", "code", "rule"),
    [
        ("tampered-digest", exitcodes.SKILL_DIGEST_MISMATCH, "skill-digest-mismatch"),
        ("wrong-size", exitcodes.SKILL_SIZE_MISMATCH, "skill-size-mismatch"),
        ("bad-frontmatter", exitcodes.SKILL_FRONTMATTER, "skill-frontmatter-mismatch"),
        ("no-frontmatter", exitcodes.SKILL_FRONTMATTER, "skill-frontmatter-invalid"),
    ],
)
def test_cli_verify_exit_codes(name: str, code: int, rule: str, log: Path) -> None:
    got, out, _err = skills("get", name, "--verify", "--json", log=log)
    assert got == code, out
    assert isinstance(out, dict)
    problems = out["problems"]
    assert isinstance(problems, list) and [p["rule"] for p in problems] == [rule]
    if name != "wrong-size":
        # A SKILL.md that fails is not loaded: no other file of it is read.
        assert reads(log) == [f"skill://{name}/SKILL.md"]


def test_cli_same_name_twice_is_a_usage_error_naming_both() -> None:
    code, _out, err = skills("get", "refunds")
    assert code == exitcodes.USAGE
    assert "skill://acme/billing/refunds/SKILL.md" in err and "skill://acme/support/refunds/SKILL.md" in err
    code, out, _err = skills("get", "skill://acme/support/refunds/SKILL.md", "--json")
    assert code == exitcodes.OK and isinstance(out, dict)
    assert out["skill"]["frontmatter"]["description"] == "Answer refund questions"


def test_cli_refuses_a_server_without_skills() -> None:
    result = run_inspector("skills", "list", "--", PYTHON, str(SERVERS / "quiet_legacy.py"))
    assert result.returncode == exitcodes.USAGE
    assert "does not declare the io.modelcontextprotocol/skills extension" in result.stderr


def test_entries_that_break_the_shape_are_findings_not_crashes() -> None:
    from inspector.core.extensions.skill_entries import parse_entry

    assert [p.rule for p in parse_entry("not an object").problems] == ["skill-entry-invalid"]
    entry = parse_entry({"uri": "skill://x/SKILL.md", "frontmatter": {"name": "y"}, "resources": 7})
    rules = [p.rule for p in entry.problems]
    # No description, a name unlike the path, resources neither an array nor "dynamic".
    assert rules == ["skill-frontmatter-invalid", "skill-frontmatter-invalid", "skill-entry-invalid"]
    assert not entry.loadable
    bad_digest = {"uri": "skill://x/SKILL.md", "digest": "sha256:ABC", "size": -1}
    entry = parse_entry(
        {"uri": "skill://x/SKILL.md", "frontmatter": {"name": "x", "description": "d"}, "resources": [bad_digest]}
    )
    assert [p.path for p in entry.problems] == ["resources[0]"]
    assert "digest" in entry.problems[0].message and "size" in entry.problems[0].message
    assert entry.resources is None and not entry.loadable


def test_cli_a_skill_the_listing_leaves_out_is_got_by_its_uri(log: Path) -> None:
    code, _out, err = skills("get", "unlisted-notes")
    assert code == exitcodes.USAGE and "give the URI of its SKILL.md instead" in err
    code, out, _err = skills("get", "skill://unlisted-notes/SKILL.md", "--verify", "--json", log=log)
    assert code == exitcodes.OK, out
    assert isinstance(out, dict) and out["verification"]["loaded"] is True
    assert reads(log) == ["skill://unlisted-notes/SKILL.md"]
