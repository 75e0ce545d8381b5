"""A bot uploaded as a zip archive: its files read, checked and bounded before anything is stored.

The archive holds `main.py` (the file the sandbox runs, as a single-file bot's) and whatever else the
bot imports or reads: more modules, packages, data files such as a weights table. An archive whose
files all sit in one folder (as GitHub's "Download ZIP" makes them) is read from inside that folder.

The web server never extracts an archive to disk: it reads the members into memory within the limits
(member count, each member's and the total's unpacked size, counted as they are read, never trusted
from the archive's own headers), so a zip bomb stops at the limit. Paths that could leave the bot's
directory (absolute, `..`, backslashes, links) are refused, and every `.py` file must compile.
"""

from __future__ import annotations

import io
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath

from django.conf import settings

from core.errors import Rejected

ENTRY = "main.py"
ZIP_MAGIC = b"PK\x03\x04"
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class ArchiveLimits:
    archive_bytes: int = 1024 * 1024  # the upload itself
    files: int = 200
    unpacked_bytes: int = 8 * 1024 * 1024  # all members together, unpacked

    @classmethod
    def from_settings(cls) -> ArchiveLimits:
        return cls(**getattr(settings, "SNAKEPIT_BOTS_ARCHIVE_LIMITS", {}))


def is_archive(data: bytes) -> bool:
    return data.startswith(ZIP_MAGIC)


def archive_files(data: bytes, *, limits: ArchiveLimits) -> dict[str, bytes]:
    """The archive's files by their path inside the bot's directory, `main.py` among them; or a
    `Rejected` naming the first thing wrong (`bot/too_large`, `bot/bad_archive`, `bot/not_python`)."""
    if len(data) > limits.archive_bytes:
        raise Rejected(f"a bot archive is at most {limits.archive_bytes} bytes", code="bot/too_large")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [member for member in archive.infolist() if not member.is_dir()]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as error:
        raise Rejected(f"the archive cannot be read as a zip file: {error}", code="bot/bad_archive") from None
    if len(members) > limits.files:
        raise Rejected(f"a bot archive holds at most {limits.files} files", code="bot/too_large")
    paths = [_safe_path(member) for member in members]
    prefix = _common_folder(paths)
    files: dict[str, bytes] = {}
    unpacked = 0
    for member, path in zip(members, paths, strict=True):
        relative = str(PurePosixPath(*path.parts[len(prefix) :]))
        if relative in files:
            raise Rejected(f"the archive holds {relative} twice", code="bot/bad_archive")
        content = _read_bounded(archive, member, limits.unpacked_bytes - unpacked)
        unpacked += len(content)
        files[relative] = content
    if ENTRY not in files:
        raise Rejected(f"a bot archive has {ENTRY} at its top (or in its one folder)", code="bot/bad_archive")
    for relative, content in files.items():
        if relative.endswith(".py"):
            try:
                compile(content, relative, "exec", dont_inherit=True)  # compiled, never run, here
            except (SyntaxError, ValueError) as error:
                raise Rejected(f"{relative} is not valid Python: {error}", code="bot/not_python") from None
    return files


def _safe_path(member: zipfile.ZipInfo) -> PurePosixPath:
    name = member.filename
    mode = member.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise Rejected(f"the archive's {name!r} is a link: only plain files", code="bot/bad_archive")
    path = PurePosixPath(name)
    if (
        "\\" in name
        or "\x00" in name
        or path.is_absolute()
        or any(part in ("", ".", "..") for part in name.split("/"))
        or len(name) > 200
    ):
        raise Rejected(f"the archive's path {name!r} could leave the bot's folder", code="bot/bad_archive")
    return path


def _common_folder(paths: list[PurePosixPath]) -> tuple[str, ...]:
    """The one folder every file sits in, when there is one and `main.py` is not at the top."""
    if any(path == PurePosixPath(ENTRY) for path in paths):
        return ()
    tops = {path.parts[0] for path in paths if len(path.parts) > 1}
    if len(tops) == 1 and all(len(path.parts) > 1 for path in paths):
        return (tops.pop(),)
    return ()


def _read_bounded(archive: zipfile.ZipFile, member: zipfile.ZipInfo, allowed: int) -> bytes:
    """The member's bytes, stopping as soon as they pass `allowed` (the header's size is the
    archive's word, not a fact)."""
    parts, size = [], 0
    try:
        with archive.open(member) as stream:
            while chunk := stream.read(_CHUNK):
                size += len(chunk)
                if size > allowed:
                    raise Rejected("the archive unpacks to more than its limit", code="bot/too_large")
                parts.append(chunk)
    except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, EOFError, ValueError) as error:
        raise Rejected(
            f"the archive's {member.filename!r} cannot be read: {error}", code="bot/bad_archive"
        ) from None
    return b"".join(parts)
