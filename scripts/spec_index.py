"""Write tests/spec_index.json from the spec's sources: every page and heading
anchor of every revision, and a digest of each revision's schema.json.

    .venv/bin/python scripts/spec_index.py [SPEC_DIR]

SPEC_DIR defaults to `shared/spec` beside the repository ($INSPECTOR_SPEC_DIR
overrides it).  The suite checks spec links against the index, so it runs
where the sources are not; where they are, a test rebuilds it and compares.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.spec_links import INDEX, SPEC_DIR, build_index  # noqa: E402


def main(argv: list[str]) -> int:
    spec_dir = Path(argv[0]) if argv else SPEC_DIR
    if not (spec_dir / "specification").is_dir():
        print(f"spec_index: no specification/ under {spec_dir}", file=sys.stderr)
        return 2
    INDEX.write_text(json.dumps(build_index(spec_dir), indent=1, sort_keys=True) + "\n", "utf-8")
    print(f"wrote {INDEX.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
