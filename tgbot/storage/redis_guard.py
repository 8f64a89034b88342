"""Runs redis-server for one bot and stops it when that bot goes away, however it goes.

Started as ``python -m tgbot.storage.redis_guard redis-server ARGS...`` with its standard
input a pipe from the bot. The bot never writes to the pipe; when the bot exits or is
killed (even with SIGKILL) the system closes it, the read below ends, and the server is
stopped with SIGTERM, so it writes its append-only file on the way out. It is portable
where Linux's parent-death signal is not (macOS).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading

STOP_WAIT_S = 10.0


def _stop_when_stdin_closes(server: subprocess.Popen[bytes]) -> None:
    sys.stdin.buffer.read()  # returns at end of file: the bot is gone
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            server.kill()


def main(argv: list[str]) -> int:
    """Run the server given by `argv` until it exits or standard input closes."""
    # The terminal's Ctrl-C is the bot's to handle: it stops the server itself, in order.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    server = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
    signal.signal(signal.SIGTERM, lambda *_: server.terminate())
    threading.Thread(target=_stop_when_stdin_closes, args=(server,), daemon=True).start()
    return server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
