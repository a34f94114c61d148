"""Errors of the authorization layer."""

from __future__ import annotations

from inspector.core.protocol.errors import ConnectError

__all__ = ["AuthError", "LoginAborted", "LoginTimedOut"]


class AuthError(ConnectError):
    """Authorization failed; `step` names the step of the flow that failed."""

    def __init__(self, message: str, *, step: str | None = None, detail: str | None = None) -> None:
        super().__init__(message, detail=detail)
        self.step = step


class LoginAborted(AuthError):
    """The login was cancelled, denied by the person, or timed out."""


class LoginTimedOut(LoginAborted):
    """Nobody came back from the browser within the login timeout (`--oauth-timeout`)."""
