"""A real PostgreSQL server the tests start themselves from the machine's own binaries.

``initdb`` makes a cluster in a temporary folder and ``postgres`` serves it on a Unix socket in
that folder only (no TCP port), until :meth:`Cluster.stop`. PostgreSQL refuses to run as root,
so as root (as in CI) both run as the ``postgres`` system user, in a folder that user owns.
The binaries are looked for in ``MAPLE_TEST_PG_BIN``, the newest ``/usr/lib/postgresql/*/bin``
and on ``PATH``; without them the PostgreSQL tests skip (and fail under ``MAPLE_TEST_STRICT=1``).
``.ci/run`` installs Debian's ``postgresql`` where it is missing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["MISSING", "Cluster", "find_binaries"]

MISSING = (
    "PostgreSQL's server binaries (initdb, pg_ctl, postgres) are not installed; install Debian's "
    "postgresql package (apt-get install -y postgresql), or set MAPLE_TEST_PG_BIN to their folder"
)
_USER = "maple"


def find_binaries() -> Path | None:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``, or ``None``."""
    candidates: list[Path] = []
    if configured := os.environ.get("MAPLE_TEST_PG_BIN"):
        candidates.append(Path(configured))
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
        reverse=True,
    )
    candidates += versions
    if found := shutil.which("pg_ctl"):
        candidates.append(Path(os.path.realpath(found)).parent)
    for folder in candidates:
        if all((folder / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            return folder
    return None


def _as_server_user() -> list[str]:
    """The prefix that runs a command as the ``postgres`` user when we are root."""
    if os.geteuid() != 0:
        return []
    runuser = shutil.which("runuser")
    if runuser is None:
        return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]
    return [runuser, "-u", "postgres", "--"]


class Cluster:
    """A PostgreSQL cluster in a folder of its own, served on a Unix socket there.

    Args:
        binaries: the folder :func:`find_binaries` found.
        fsync: flush commits to disk (on for benchmarks and crash tests; off saves time).
    """

    def __init__(self, binaries: Path, *, fsync: bool = False) -> None:
        self.binaries = binaries
        self.fsync = fsync
        self.base = Path(tempfile.mkdtemp(prefix="maple-pg-"))
        self.data = self.base / "data"
        self.log = self.base / "server.log"
        self._prefix = _as_server_user()
        if self._prefix:
            shutil.chown(self.base, "postgres", "postgres")
        init = ("-D", str(self.data), "-A", "trust", "-U", _USER, "-E", "UTF8", "--no-sync")
        self._run("initdb", *init, "--no-instructions")

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run(
            [*self._prefix, str(self.binaries / tool), *args],
            cwd=self.base,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stderr or done.stdout}")

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        options = (
            f"-k {self.base} -c listen_addresses='' -c max_connections=300 "
            f"-c fsync={'on' if self.fsync else 'off'} -c synchronous_commit=on "
            "-c shared_buffers=64MB"
        )
        where = ("-D", str(self.data), "-l", str(self.log))
        self._run("pg_ctl", *where, "-o", options, "-w", "-t", "60", "start")

    def stop(self) -> None:
        """Stop the server (fast shutdown: open connections are closed)."""
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def kill(self) -> None:
        """Kill the server with SIGKILL, as a crash would: it recovers from its log on start."""
        pid = int((self.data / "postmaster.pid").read_text().split()[0])
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.02)
        # The killed postmaster's children end once they see it gone; wait for the socket's
        # lock file to be released before a restart.
        time.sleep(0.5)

    def remove(self) -> None:
        """Stop the server and delete the cluster's folder."""
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        """``MAPLE_DATABASE_URL`` for ``database`` on this server."""
        return f"postgresql://{_USER}@/{database}?host={self.base}"

    def create_database(self, name: str) -> str:
        """Create ``name`` and return its URL."""
        import psycopg

        with psycopg.connect(host=str(self.base), user=_USER, dbname="postgres") as connection:
            connection.autocommit = True
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)
