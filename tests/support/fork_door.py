"""A door through which another program starts Python children forked from a server that has imported
what they run, for a child that program starts itself (so `support.forked`, whose children the test
process holds, does not fit): the MCP conformance suite, under Node, starts one client process per
scenario, and each spent ~1.5 s of CPU importing the MCP SDK (pydantic models) before its first request.

The server (`serve`, in a process that has imported the client) listens on a Unix socket. The program
runs this file instead of the client: `python -I -S fork_door.py SOCKET ARGS...` imports nothing but the
standard library, hands its stdin, stdout and stderr, its arguments and its environment through the
socket, and exits with the child's code. The server forks a child per knock: a real OS process (its own
pid) whose fds 0, 1 and 2 are the knocker's, whose environment is the knocker's, and which runs
`run(args)`; it exits when the knocker goes (the program gave up on it). The server started no thread
before it forks: the fork copies a process in which nothing runs but the main thread.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
import traceback
from collections.abc import Callable

_MESSAGE = 1 << 20  # the arguments and the environment, as JSON: one packet


def serve(path: str, run: Callable[[list[str]], int]) -> None:
    """Forks a child that runs `run(args)` for each knock on the socket at `path`, until killed."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    ready = f"{path}.binding"
    listener.bind(ready)
    listener.listen(64)
    os.rename(ready, path)  # the socket appears only once it accepts
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the children are reaped as they end
    while True:
        conn, _ = listener.accept()
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork() == 0:
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _child(conn, run)
        conn.close()


def _child(conn: socket.socket, run: Callable[[list[str]], int]) -> None:
    message, fds, _flags, _addr = socket.recv_fds(conn, _MESSAGE, 3)
    knock = json.loads(message)
    for fd, std in zip(fds, (0, 1, 2), strict=True):
        os.dup2(fd, std)
        os.close(fd)
    os.environ.clear()
    os.environ.update(knock["env"])
    os.chdir(knock["cwd"])
    sys.argv = [sys.argv[0], *knock["args"]]
    threading.Thread(target=_gone, args=(conn,), daemon=True).start()
    try:
        code = run(knock["args"])
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    for std in (0, 1, 2):
        os.close(std)
    conn.sendall(str(code).encode())
    os._exit(code)


def _gone(conn: socket.socket) -> None:
    """The knocker sends nothing more: its end closing means it was killed, and the child ends with it."""
    conn.recv(1)
    os._exit(1)


def knock(path: str, args: list[str]) -> int:
    """Has the server at `path` fork a child for `args` on this process's stdio; its exit code."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as conn:
        conn.connect(path)
        message = json.dumps({"args": args, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
        socket.send_fds(conn, [message], [0, 1, 2])
        answer = b""
        while chunk := conn.recv(16):
            answer += chunk
    if not answer:
        print(f"the child forked through {path} ended without an exit code", file=sys.stderr)
        return 1
    return int(answer)


if __name__ == "__main__":
    sys.exit(knock(sys.argv[1], sys.argv[2:]))
