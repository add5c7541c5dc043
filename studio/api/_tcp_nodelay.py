"""Answers leave at once on kept-alive connections: the studio's listening socket gets TCP_NODELAY.

Why: Streamlit binds the port itself (``socket.socket(family=...)``, so the socket's ``proto``
is 0) and hands the socket to uvicorn. asyncio sets TCP_NODELAY on a connection only when its
socket's ``proto`` is ``IPPROTO_TCP``, so the studio's connections kept Nagle's algorithm on.
uvicorn writes a response's head and body separately; on a kept-alive connection Nagle then
holds the body until the client acknowledges the head, which the client delays (~40 ms on
Linux): every API call, health check and page asset on a reused connection cost ~44 ms instead
of 1-5 ms. Connections accepted from a listening socket with TCP_NODELAY inherit it (Linux).

Streamlit binds before it loads ``asgi.py`` (uvicorn imports the app by name), so there is no
hook before the bind; ``nodelay_listening_sockets()`` runs in the server's lifespan, once the
port is bound and before connections are served, and sets the option on this process's
listening TCP sockets through their file descriptors.
"""

from __future__ import annotations

import os
import socket

__all__ = ["nodelay_listening_sockets"]

_FD_FOLDERS = ("/proc/self/fd", "/dev/fd")


def _open_fds() -> list[int]:
    for folder in _FD_FOLDERS:
        try:
            return [int(name) for name in os.listdir(folder) if name.isdigit()]
        except OSError:
            continue
    return []


def nodelay_listening_sockets() -> int:
    """Set TCP_NODELAY on every listening TCP socket of this process; how many were set."""
    count = 0
    for fd in _open_fds():
        try:
            sock = socket.socket(fileno=os.dup(fd))  # a duplicate: closing it leaves the server's open
        except OSError:
            continue  # not a socket, or closed meanwhile
        with sock:
            try:
                if (sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM
                        and sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    count += 1
            except OSError:
                continue
    return count
