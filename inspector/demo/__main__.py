"""`python -m inspector.demo`: run the demo server (stdio unless `--http`/`--sse` is given)."""

from inspector.demo.server import main

raise SystemExit(main())
