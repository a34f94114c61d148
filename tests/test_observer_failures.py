"""An observer that raises never breaks the client: its failure is logged on
the traffic log, where someone debugging it will look, and the connection goes on."""

from __future__ import annotations

from inspector.core.protocol.client import Client
from inspector.core.servers.spec import demo_spec


async def test_a_failing_state_observer_is_logged_and_the_client_goes_on() -> None:
    client = Client(demo_spec())
    seen: list[str] = []

    def broken(state: str, _detail: str | None) -> None:
        raise RuntimeError(f"observer bug at {state}")

    client.on_state(broken)
    client.on_state(lambda state, _detail: seen.append(state))
    try:
        await client.connect()
        result = await client.call_tool("echo", {"message": "still here"})
        assert "still here" in str(result)
    finally:
        await client.close()
    # The observer after the broken one still heard every change.
    assert "connected" in seen and seen[-1] == "closed"
    notes = [frame.note or "" for frame in client.traffic.frames]
    assert any("state observer failed: RuntimeError('observer bug at connected')" in note for note in notes), notes
