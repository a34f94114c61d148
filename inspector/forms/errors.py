"""Exceptions raised by the forms layer."""

from __future__ import annotations

from dataclasses import dataclass

from inspector.forms.paths import Path, format_path

__all__ = ["AssignmentError", "AssignmentProblem", "FormValueError"]


class FormValueError(ValueError):
    """Text (or a value) that a field cannot take.

    ``str(err)`` reads ``"count: expected an integer, got '3.5'"``; the parts are
    available as ``path`` and ``message`` so a UI can show the message next to
    the field.
    """

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(path, message)
        self.path = path
        self.message = message

    @property
    def display_path(self) -> str:
        """``address.city`` / ``items[2].qty``; ``"value"`` at the root."""
        return format_path(self.path) or "value"

    def __str__(self) -> str:
        return f"{self.display_path}: {self.message}"


@dataclass(frozen=True, slots=True)
class AssignmentProblem:
    """One bad ``key=value`` argument: the key as the user typed it, and what is wrong."""

    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.key}: {self.message}" if self.key else self.message


class AssignmentError(ValueError):
    """Every problem found in a list of ``key=value`` arguments, reported together."""

    def __init__(self, problems: list[AssignmentProblem]) -> None:
        super().__init__(problems)
        self.problems = tuple(problems)

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)
