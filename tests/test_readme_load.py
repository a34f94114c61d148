"""The README's Locust commands (*Load testing*), run as written.

The `inspector load` lines run with every other README command (in
test_readme_commands.py); the `locust` lines need a remote server, so here
the README's own example server (the Python SDK one, served over Streamable
HTTP) stands at the example URL's port, the README's collection file is
`checks.yaml`; the single run lasts 5 s instead of a minute and the
master stops once it has counted a request.  The shell expands `$(python -m inspector.commands.load.locustfile)`
as a person's would; `python` and `locust` are this virtualenv's.
"""

from __future__ import annotations

import csv
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from .peers import PYTHON, free_port, serving
from .test_readme_commands import README, SDK_SERVER, readme_collection
from .waiting import eventually_sync

HTTP_SERVER = SDK_SERVER.replace(
    "server.run()",
    "import sys\nimport uvicorn\n\n"
    'app = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")\n'
    'uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")',
)


def locust_commands() -> list[str]:
    section = README.read_text(encoding="utf-8").split("## Load testing", 1)[1].split("\n## ", 1)[0]
    return [
        line.strip()
        for block in re.findall(r"```sh\n(.*?)```", section, re.S)
        for line in block.splitlines()
        if line.startswith("locust ")
    ]


def test_the_readme_shows_a_single_run_a_master_and_workers() -> None:
    commands = locust_commands()
    assert len(commands) == 4
    assert sum("--master " in command for command in commands) == 1
    assert sum("--worker " in command for command in commands) == 2


@pytest.mark.timeout(400)
def test_the_readme_locust_commands_run_as_written(tmp_path: Path) -> None:
    (tmp_path / "checks.yaml").write_text(readme_collection())
    (tmp_path / "server_http.py").write_text(HTTP_SERVER)
    port = free_port()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    # The example URL's port is this server's.  The single run's minute is
    # shortened to 5 s: it is asserted to run and report its figures, which
    # it does however few requests a busy machine lets it send.  The master
    # keeps its minute, and stops once the first request is in its figures:
    # five seconds were not always enough for a worker to start its user and
    # open a session on a machine oversubscribed four times over.
    single, master, *workers = [command.replace(":3001/", f":{port}/") for command in locust_commands()]
    single = single.replace("--run-time 1m", "--run-time 5s")
    # Two masters cannot share the default port between tests run in parallel: the workers find this one.
    master_port = free_port()
    master += f" --master-bind-port {master_port}"
    workers = [f"{worker} --master-port {master_port}" for worker in workers]
    stats = tmp_path / "load_stats.csv"

    def shell(command: str) -> subprocess.Popen[str]:
        # exec: the shell expands the command as written, then Locust takes its
        # place, so the master's SIGTERM below reaches Locust, not the shell.
        return subprocess.Popen(
            ["sh", "-c", f"exec {command}"],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    with serving([PYTHON, str(tmp_path / "server_http.py"), str(port)], port):
        alone = shell(single)
        _out, err = alone.communicate(timeout=240)
        # Locust exits 1 when any request failed.
        assert alone.returncode == 0, err[-3000:]
        assert "Aggregated" in err, err[-3000:]
        started = [shell(master), *(shell(worker) for worker in workers)]
        try:
            # The master rewrites its CSV figures every second while it runs.
            eventually_sync(
                lambda: started[0].poll() is not None or requests_in(stats) > 0,
                "the master to count a request or end its run",
                timeout=240,
                poll=0.5,
            )
            if started[0].poll() is None:
                # Locust's SIGTERM: stop the run, print and write the figures, exit 0 unless a request failed.
                started[0].send_signal(signal.SIGTERM)
            _out, err = started[0].communicate(timeout=240)
        finally:
            for process in started:
                if process.poll() is None:
                    process.terminate()
                process.communicate(timeout=30)
    assert started[0].returncode == 0, err[-3000:]
    assert "Aggregated" in err, err[-3000:]
    assert requests_in(stats) > 0, stats.read_text()
    assert aggregated(stats)["Failure Count"] == "0", stats.read_text()


def aggregated(stats: Path) -> dict[str, str]:
    """The Aggregated row of a Locust stats CSV, by column."""
    rows = list(csv.reader(stats.read_text().splitlines()))
    return next(dict(zip(rows[0], row, strict=True)) for row in rows[1:] if "Aggregated" in row)


def requests_in(stats: Path) -> int:
    """The requests a Locust stats CSV counts so far (0 before it is written, or caught mid-write)."""
    try:
        return int(aggregated(stats)["Request Count"])
    except (FileNotFoundError, StopIteration, IndexError, KeyError, ValueError):
        return 0
