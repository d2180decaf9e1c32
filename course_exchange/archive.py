"""Folders travel as uncompressed zip archives; unpacking trusts nothing in them.

An archive from a student is hostile: names may climb out of the target folder, claim to be links,
repeat, or promise more bytes than the course accepts. `check` refuses all of that before anything
is stored, and `unpack` checks again before it writes a byte.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import os
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MAX_MEMBERS = 2000


class ArchiveError(ValueError):
    """The archive is malformed or unsafe; the message says why, for the person who sent it."""


@dataclass(frozen=True)
class Member:
    name: str
    size: int


def pack(folder: Path, *, ignore: list[str] = (), max_file_bytes: int | None = None) -> bytes:
    """The regular files under `folder` (links skipped, names matching `ignore` left out), stored
    uncompressed: notebooks are small, and packing then costs no CPU time."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for directory, subdirs, files in os.walk(folder):
            subdirs[:] = sorted(
                d for d in subdirs if not _ignored(d, ignore) and not os.path.islink(os.path.join(directory, d))
            )
            for name in sorted(files):
                path = Path(directory) / name
                if _ignored(name, ignore) or path.is_symlink() or not path.is_file():
                    continue
                if max_file_bytes is not None and path.stat().st_size > max_file_bytes:
                    continue
                archive.write(path, path.relative_to(folder).as_posix())
    return buffer.getvalue()


def _ignored(name: str, patterns) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in patterns)


def _safe_name(name: str) -> str:
    if not name.rstrip("/"):
        raise ArchiveError(f"an empty file name in the archive: {name!r}")
    if (
        PurePosixPath(name).is_absolute()
        or "\\" in name
        or any(part in ("", ".", "..") for part in name.rstrip("/").split("/"))
    ):
        raise ArchiveError(f"the file name {name!r} points outside the assignment folder")
    if any(ord(ch) < 32 for ch in name):
        raise ArchiveError(f"the file name {name!r} holds control characters")
    return name


def check(data: bytes, *, max_bytes: int) -> list[Member]:
    """The archive's files, or ArchiveError if it is not a plain archive of at most `max_bytes`."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ArchiveError(f"not a zip archive ({exc})") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise ArchiveError(f"{len(infos)} files; at most {MAX_MEMBERS} are accepted")
        members, seen, total = [], set(), 0
        for info in infos:
            name = _safe_name(info.filename)
            kind = stat.S_IFMT(info.external_attr >> 16)  # 0 when the archiver recorded no file type
            if info.is_dir():
                continue
            if kind and kind != stat.S_IFREG:
                raise ArchiveError(f"{name!r} is not a regular file")
            if name in seen:
                raise ArchiveError(f"{name!r} appears twice")
            seen.add(name)
            total += info.file_size
            if total > max_bytes:
                raise ArchiveError(f"the files add up to more than {max_bytes} bytes")
            members.append(Member(name, info.file_size))
        bad = archive.testzip()
        if bad is not None:
            raise ArchiveError(f"{bad!r} is damaged")
    return members


def digests(data: bytes) -> dict[str, str]:
    """{file name: SHA-256 of its bytes} of an archive that passed `check`."""
    out = {}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            if not info.is_dir():
                with archive.open(info) as member:
                    out[info.filename] = hashlib.sha256(member.read()).hexdigest()
    return out


def unpack(data: bytes, target: Path, *, max_bytes: int) -> list[Path]:
    """Write the archive's files under `target` (created), after `check`; never follows a link."""
    members = check(data, max_bytes=max_bytes)
    target.mkdir(parents=True, exist_ok=True)
    root = target.resolve()
    written = []
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for member in members:
            parts = member.name.split("/")
            folder = root
            for part in parts[:-1]:
                folder = folder / part
                if folder.is_symlink():
                    raise ArchiveError(f"{folder} is a link")
                folder.mkdir(exist_ok=True)
            path = folder / parts[-1]
            if path.is_symlink():
                path.unlink()
            with archive.open(member.name) as source:
                content = source.read(member.size + 1)
            if len(content) != member.size:
                raise ArchiveError(f"{member.name!r} is not the size it claims")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
            with os.fdopen(fd, "wb") as out:
                out.write(content)
            written.append(path)
    return written
