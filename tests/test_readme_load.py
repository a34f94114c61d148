"""The README's Locust commands (*Load testing*), run as written.

The `inspector load` lines run with every other README command (in
test_readme_commands.py); the `locust` lines need a remote server, so here
the README's own example server (the Python SDK one, served over Streamable
HTTP) stands at the example URL's port, the README's collection file is
`checks.yaml`, and a run of a minute lasts 5 s.  The shell expands `$(python -m inspector.commands.load.locustfile)`
as a person's would; `python` and `locust` are this virtualenv's.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .peers import PYTHON, free_port, serving
from .test_readme_commands import README, SDK_SERVER, readme_collection

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
    # The example URL's port is this server's; a minute is shortened to 5 s.  The
    # run time starts once Locust is up (a master's, once its workers are), and
    # a user connects and sends within a second even on a busy machine: room
    # for many requests, which is all that is asserted.
    single, master, *workers = [
        command.replace(":3001/", f":{port}/").replace("--run-time 1m", "--run-time 5s")
        for command in locust_commands()
    ]
    # Two masters cannot share the default port between tests run in parallel: the workers find this one.
    master_port = free_port()
    master += f" --master-bind-port {master_port}"
    workers = [f"{worker} --master-port {master_port}" for worker in workers]

    def shell(command: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            ["sh", "-c", command], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    with serving([PYTHON, str(tmp_path / "server_http.py"), str(port)], port):
        alone = shell(single)
        _out, err = alone.communicate(timeout=240)
        # Locust exits 1 when any request failed.
        assert alone.returncode == 0, err[-3000:]
        assert "Aggregated" in err, err[-3000:]
        started = [shell(master), *(shell(worker) for worker in workers)]
        try:
            _out, err = started[0].communicate(timeout=240)
        finally:
            for process in started:
                if process.poll() is None:
                    process.terminate()
                process.communicate(timeout=30)
    assert started[0].returncode == 0, err[-3000:]
    rows = (tmp_path / "load_stats.csv").read_text().splitlines()
    header = rows[0].split(",")
    total = next(row.split(",") for row in rows if ",Aggregated," in row)
    assert int(total[header.index("Request Count")]) > 0
    assert int(total[header.index("Failure Count")]) == 0
