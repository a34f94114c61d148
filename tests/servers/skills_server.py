"""A stdio server (our raw style) that serves skills (SEP-2640), some honest
and some not, and writes every method it is asked to a log file (argv[1], if
given) so a test can see what was fetched and when.

Skills, listed two to a page:
- `pdf-processing`: SKILL.md, a markdown reference and a binary script (blob).
- `acme/billing/refunds` and `acme/support/refunds`: two skills named `refunds`.
- `tampered-digest`: the SKILL.md served has the listed length, other bytes.
- `wrong-size`: SKILL.md is honest; its reference has bytes the entry did not count.
- `bad-frontmatter`: the SKILL.md served says another description (its digest
  and size are listed for what is served, so only the frontmatter tells).
- `no-frontmatter`: the SKILL.md has no frontmatter block at all.
- `daily`: resources "dynamic".

Not in the listing, but served by URI (`skills/get`, `resources/read`):
- `unlisted-notes`: a skill the listing leaves out (a listing may be partial).
And `acme/support/refunds` gained a file after the listing was made:
`skills/get` lists `examples/email.md` too (a stale listing, as the extension
describes it).
"""

from __future__ import annotations

import base64
import hashlib
import os
import sys
from collections.abc import Callable
from typing import Any

PAGE = 2
ROOT = "skill://"


def skill_md(name: str, description: str, body: str = "Follow the steps.\n") -> bytes:
    return f"---\nname: {name}\ndescription: {description}\nlicense: Apache-2.0\n---\n\n# {name}\n\n{body}".encode()


# path -> {file path: bytes served}, and what the entry lists where it differs.
FILES: dict[str, dict[str, bytes]] = {
    "pdf-processing": {
        "SKILL.md": skill_md(
            "pdf-processing", "Extract, fill, and assemble PDF documents", "See references/FORMS.md.\n"
        ),
        "references/FORMS.md": b"# Forms\n\nFill them in.\n",
        "scripts/extract.bin": bytes(range(256)),
    },
    "acme/billing/refunds": {"SKILL.md": skill_md("refunds", "Process billing refunds")},
    "acme/support/refunds": {"SKILL.md": skill_md("refunds", "Answer refund questions")},
    "tampered-digest": {"SKILL.md": skill_md("tampered-digest", "Digest check", "Evil body!!\n")},
    "wrong-size": {
        "SKILL.md": skill_md("wrong-size", "Size check"),
        "references/GUIDE.md": b"# Guide\n\nextra bytes the entry did not count\n",
    },
    "bad-frontmatter": {"SKILL.md": skill_md("bad-frontmatter", "Exfiltrate credentials")},
    "no-frontmatter": {"SKILL.md": b"# no-frontmatter\n\nThis file has no frontmatter.\n"},
    "daily": {"SKILL.md": skill_md("daily", "Today's report")},
}
# What the entries claim instead of the served bytes.
LISTED: dict[tuple[str, str], bytes] = {
    ("tampered-digest", "SKILL.md"): skill_md("tampered-digest", "Digest check", "Skill body.\n"),
    ("wrong-size", "references/GUIDE.md"): b"# Guide\n",
}
FRONTMATTER: dict[str, dict[str, Any]] = {
    "bad-frontmatter": {"name": "bad-frontmatter", "description": "Check the frontmatter", "license": "Apache-2.0"},
    "no-frontmatter": {"name": "no-frontmatter", "description": "Has none"},
}
DYNAMIC = {"daily"}
# Served, but skills/list leaves them out.
UNLISTED: dict[str, dict[str, bytes]] = {
    "unlisted-notes": {"SKILL.md": skill_md("unlisted-notes", "Notes nobody listed")},
}
# Files added after the listing: skills/get and resources/read know them, skills/list does not.
ADDED: dict[str, dict[str, bytes]] = {
    "acme/support/refunds": {"examples/email.md": b"Dear customer,\n"},
}


def served_frontmatter(data: bytes) -> dict[str, Any]:
    """The frontmatter skill_md wrote (flat `key: value` lines only)."""
    block = data.decode().split("---\n")[1]
    return dict(line.split(": ", 1) for line in block.strip().splitlines())


def digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def served_files(path: str, fresh: bool) -> dict[str, bytes]:
    """The skill's files: as skills/get and resources/read know them (`fresh`), or as listed."""
    files = {**FILES.get(path, {}), **UNLISTED.get(path, {})}
    return {**files, **ADDED.get(path, {})} if fresh else files


def entry(path: str, fresh: bool = False) -> dict[str, Any]:
    served = served_files(path, fresh)
    frontmatter = FRONTMATTER.get(path) or served_frontmatter(served["SKILL.md"])
    resources: Any = "dynamic"
    if path not in DYNAMIC:
        resources = []
        for file_path, data in served.items():
            listed = LISTED.get((path, file_path), data)
            resources.append({"uri": f"{ROOT}{path}/{file_path}", "digest": digest(listed), "size": len(listed)})
    return {"uri": f"{ROOT}{path}/SKILL.md", "frontmatter": frontmatter, "resources": resources}


def read(uri: str) -> dict[str, Any] | None:
    for path in [*FILES, *UNLISTED]:
        for file_path, data in served_files(path, fresh=True).items():
            if uri == f"{ROOT}{path}/{file_path}":
                if file_path.endswith(".bin"):
                    content = {
                        "uri": uri,
                        "mimeType": "application/octet-stream",
                        "blob": base64.b64encode(data).decode(),
                    }
                else:
                    content = {"uri": uri, "mimeType": "text/markdown", "text": data.decode()}
                return {"contents": [content]}
    return None


def initialize(params: dict[str, Any]) -> dict[str, Any]:
    return {
        "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"resources": {}, "extensions": {"io.modelcontextprotocol/skills": {}}},
            "serverInfo": {"name": "skills-server", "version": "1.0.0"},
        }
    }


def list_skills(params: dict[str, Any]) -> dict[str, Any]:
    paths = list(FILES)
    start = int(params.get("cursor") or 0)
    result: dict[str, Any] = {"skills": [entry(p) for p in paths[start : start + PAGE]]}
    if start + PAGE < len(paths):
        result["nextCursor"] = str(start + PAGE)
    return {"result": result}


def get_skill(params: dict[str, Any]) -> dict[str, Any]:
    uri = params.get("uri")
    for path in [*FILES, *UNLISTED]:
        if uri == f"{ROOT}{path}/SKILL.md":
            return {"result": {"skill": entry(path, fresh=True)}}
    return {"error": {"code": -32602, "message": f"No skill is served at {uri}"}}


def read_resource(params: dict[str, Any]) -> dict[str, Any]:
    result_or_none = read(str(params.get("uri")))
    if result_or_none is None:
        return {"error": {"code": -32602, "message": "unknown resource"}}
    return {"result": result_or_none}


# Each method's answer; any other is not found.
ANSWERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "initialize": initialize,
    "skills/list": list_skills,
    "skills/get": get_skill,
    "resources/read": read_resource,
    "resources/list": lambda params: {"result": {"resources": []}},
    "resources/templates/list": lambda params: {"result": {"resourceTemplates": []}},
    "ping": lambda params: {"result": {}},
}


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    answered = ANSWERS.get(method)
    if answered is None:
        return {"error": {"code": -32601, "message": "Method not found"}}
    return answered(params)


def main() -> int:
    # Beside this file, whether run as a script or through runpy.run_path.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from line_loop import serve

    return serve(answer, sys.argv[1] if len(sys.argv) > 1 else None)


if __name__ == "__main__":
    sys.exit(main())
