"""Collections: saved calls with expectations, run as tests.

A collection is a YAML file of named steps (list, call, read, get, a raw
JSON-RPC message), each with what its answer must show.  This package
reads such files (`reading`), runs them on a connected client (`running`),
judges the answers (`expectations`), rewrites expectations from the current
answers (`updating`) and writes JUnit XML (`junit`).  No UI imports: the
`inspector test` command and the TUI both build on it.
"""

from __future__ import annotations

from inspector.collections.expectations import Answer, Check
from inspector.collections.model import Collection, CollectionError, Expect, Step
from inspector.collections.reading import load_collection
from inspector.collections.running import CollectionResult, CollectionRunner, StepResult

__all__ = [
    "Answer",
    "Check",
    "Collection",
    "CollectionError",
    "CollectionResult",
    "CollectionRunner",
    "Expect",
    "Step",
    "StepResult",
    "load_collection",
]
