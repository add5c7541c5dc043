"""Files only their owner can read: the data folder (0700) and what the studio keeps in it (0600).

Plans, runs, reviews and the API token are the user's alone, whatever the umask. Files are
created private rather than tightened afterwards, so there is no moment when another local
user could open them. SQLite gives its ``-wal`` and ``-shm`` files the mode of the database
they belong to, so a private database keeps its log private too.

A folder or file made by an older version (or copied in) with looser modes is tightened when
the studio next opens it. Entries owned by someone else are left as they are (the studio
cannot change them, and they are not its own), and so are symlinks: their targets are not
the studio's to change. Only POSIX has these modes; elsewhere these are plain ``mkdir``.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path
from typing import Callable

from ._errors import StorageError

__all__ = ["FILE_MODE", "FOLDER_MODE", "private_file", "private_folder", "private_secret", "private_sqlite",
           "tighten_file"]

FOLDER_MODE = 0o700
FILE_MODE = 0o600
_POSIX = os.name == "posix"
_SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def private_folder(folder: Path, *, tighten_files: bool = True) -> Path:
    """``folder``, made 0700 if missing, tightened to 0700 if looser; with ``tighten_files``
    the files directly in it are tightened to 0600 too. Returns the folder, ``~`` expanded."""
    folder = Path(folder).expanduser()
    try:
        folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        if not _POSIX:
            return folder
        _tighten(folder, FOLDER_MODE)
        if tighten_files:
            for entry in folder.iterdir():
                _tighten(entry, FILE_MODE, files_only=True)
    except OSError as exc:
        raise StorageError(f"cannot use {folder} as a private data folder: {exc.strerror or exc}") from exc
    return folder


def private_file(path: Path) -> Path:
    """``path`` as an existing file only its owner can read: created empty with mode 0600 if
    missing (its folder 0700 if that is missing too), tightened to 0600 if looser."""
    path = Path(path).expanduser()
    if not path.parent.exists():
        path.parent.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    # O_CREAT without O_TRUNC: an existing file keeps its content (and another process may be
    # creating the same file right now; whichever wins, the mode is 0600).
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
    except IsADirectoryError:
        return path  # not a file at all: the caller's open says so in its own words
    if _POSIX:
        _tighten(path, FILE_MODE, files_only=True)
    return path


def private_sqlite(path: Path) -> Path:
    """A SQLite database file made private before SQLite opens it, with its ``-wal``, ``-shm``
    and ``-journal`` files tightened if a looser earlier run left them."""
    path = private_file(path)
    if _POSIX:
        for suffix in _SQLITE_COMPANIONS:
            _tighten(path.with_name(path.name + suffix), FILE_MODE, files_only=True)
    return path


def private_secret(path: Path, make: Callable[[], str], what: str) -> str:
    """The text of the secret file at ``path`` (stripped), made from ``make()`` with mode 0600
    if there is none yet: the API token, the link secret. Made in a private temporary file and
    linked into place, so two processes starting at once agree on one secret and nobody ever
    reads a half-written one. ``StorageError`` names ``what`` when it cannot be read or made."""
    path = Path(path).expanduser()
    try:
        text = _read_secret(path, what)
        tighten_file(path)  # one an older version, or a copy, left readable by others
        return text
    except FileNotFoundError:
        pass
    try:
        private_folder(path.parent, tighten_files=False)
        draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(make() + "\n")
        try:
            os.link(draft, path)
        except FileExistsError:
            pass  # another process made it first: theirs is the secret
        finally:
            draft.unlink()
        return _read_secret(path, what)
    except OSError as exc:
        raise StorageError(f"cannot make {what} in {path.parent}: {exc.strerror or exc}") from exc


def _read_secret(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise StorageError(f"cannot read {what} {path}: {exc}") from exc


def tighten_file(path: Path) -> None:
    """Tighten an existing file of the user's to 0600 if it is looser; a missing one is left missing."""
    if _POSIX:
        _tighten(Path(path).expanduser(), FILE_MODE, files_only=True)


def _tighten(path: Path, mode: int, *, files_only: bool = False) -> None:
    try:
        info = path.lstat() if files_only else path.stat()
    except FileNotFoundError:
        return
    if files_only and not stat.S_ISREG(info.st_mode):
        return  # a symlink, a folder, a socket: not one of the studio's files
    if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & ~mode == 0:
        return
    os.chmod(path, stat.S_IMODE(info.st_mode) & mode)
