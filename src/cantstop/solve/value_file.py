"""The value file on disk: a header, then one float64 per position (numpy memmap).

The header (`HEADER_BYTES`, JSON after a magic line) names the variant, the player
count, the sizes, how far the solve got (layers finished from the top, anchors finished
in the next layer) and a checksum of the values. Opening checks all of it: a value file
of another variant or player count, a truncated file or values that do not match their
checksum are refused, never read. While a solve writes, the header says so; a run
killed outright leaves that mark, and the file is refused until it is solved again from
scratch.

Value files were called tables before (`KEY.table`, magic line `cantstop-solve-table`):
such a file is read as it is, under its old name, with the same checks.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cantstop.solve.errors import SolveError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


class Layout(Protocol):
    """What a value file records of the board it holds (both solver boards have it)."""

    @property
    def key(self) -> str: ...
    @property
    def heights(self) -> tuple[int, ...]: ...
    @property
    def anchors(self) -> int: ...
    @property
    def players(self) -> int: ...

MAGIC = b"cantstop-value-file\n"
LEGACY_MAGIC = b"cantstop-solve-table\n"  # the same format, written before value files had their name
FORMAT = 1
HEADER_BYTES = 4096
SUFFIX = ".values"
LEGACY_SUFFIX = ".table"


@dataclass(frozen=True)
class Header:
    key: str  # the solver key of the variant (see board.solver_key)
    heights: tuple[int, ...]
    anchors: int  # positions between turns (one value each)
    layers: int
    layers_done: int = 0  # layers finished, counted from the most advanced
    anchors_done: int = 0  # anchors of the next layer finished (in the solver's order)
    checksum: str = ""  # blake2b of the values as they were when the header was written
    writing: bool = False  # set while a solve may be changing values
    seconds: float = 0.0  # solving time so far
    format: int = FORMAT
    players: int = 1  # 1: expected turns to finish; 2: the mover's chance to win

    @property
    def complete(self) -> bool:
        return self.layers_done == self.layers

    def encode(self) -> bytes:
        text = json.dumps(asdict(self), sort_keys=True).encode()
        data = MAGIC + text + b"\n"
        if len(data) > HEADER_BYTES:
            raise SolveError(f"value file header too long ({len(data)} bytes) for {self.key!r}")
        return data.ljust(HEADER_BYTES, b" ")

    @staticmethod
    def decode(data: bytes, path: Path) -> Header:
        magic = next((m for m in (MAGIC, LEGACY_MAGIC) if data.startswith(m)), None)
        if magic is None:
            raise SolveError(f"{path} is not a value file of the solver (no value file header)")
        try:
            fields = json.loads(data[len(magic) :].decode())
            fields["heights"] = tuple(fields["heights"])
            header = Header(**fields)
        except (ValueError, TypeError, KeyError) as error:
            raise SolveError(f"{path}: damaged value file header ({error}); solve again with --restart") from None
        if header.format != FORMAT:
            raise SolveError(
                f"{path}: value file format {header.format}, this solver reads {FORMAT}; solve again with --restart"
            )
        return header


def data_folder() -> Path:
    """Where value files go unless told otherwise: the user's data folder for cantstop."""
    from platformdirs import user_data_path

    override = os.environ.get("CANTSTOP_SOLVE_DIR")
    return Path(override) if override else user_data_path("cantstop") / "solve"


def default_path(board: Layout) -> Path:
    """The board's value file in the data folder: `file_name`, or the file of its old name when
    only that one is there (it is read, and a solve resumes it, where it is)."""
    path = data_folder() / file_name(board.key, board.players)
    legacy = path.with_suffix(LEGACY_SUFFIX)
    return legacy if legacy.exists() and not path.exists() else path


def file_name(key: str, players: int = 1) -> str:
    """The file of a variant's values: its key, and the player count when there are rivals."""
    return re.sub(r"[^A-Za-z0-9.=+_-]", "_", key) + ("" if players == 1 else f".{players}p") + SUFFIX


def value_files(folder: Path) -> list[Path]:
    """The value files in `folder`, of either name, by name."""
    if not folder.is_dir():
        return []
    return sorted(path for suffix in (SUFFIX, LEGACY_SUFFIX) for path in folder.glob(f"*{suffix}"))


def checksum(path: Path) -> str:
    """blake2b of the values in the file at `path`, read past the page cache.

    Holes of a sparse file (layers not solved yet) are hashed as the zeros they read
    as, without reading them, and the pages read are dropped from the cache: the full
    board's value file is larger than most machines' memory.
    """
    digest = hashlib.blake2b(digest_size=16)
    block = 1 << 22
    zeros = bytes(block)
    with path.open("rb") as file:
        fd = file.fileno()
        end = os.fstat(fd).st_size
        position = HEADER_BYTES
        while position < end:
            data = _next_data(fd, position, end)
            while position < data:  # a hole
                size = min(block, data - position)
                digest.update(zeros[:size])
                position += size
            hole = _next_hole(fd, position, end)
            while position < hole:
                chunk = os.pread(fd, min(block, hole - position), position)
                digest.update(chunk)
                if hasattr(os, "posix_fadvise"):
                    os.posix_fadvise(fd, position, len(chunk), os.POSIX_FADV_DONTNEED)
                position += len(chunk)
    return digest.hexdigest()


def _next_data(fd: int, position: int, end: int) -> int:
    """Where data starts at or after `position` (`end` if a hole runs to the end)."""
    if not hasattr(os, "SEEK_DATA"):
        return position
    try:
        return os.lseek(fd, position, os.SEEK_DATA)
    except OSError as error:
        return end if error.errno == errno.ENXIO else position


def _next_hole(fd: int, position: int, end: int) -> int:
    """Where the data from `position` ends."""
    if not hasattr(os, "SEEK_HOLE"):
        return end
    try:
        return min(end, os.lseek(fd, position, os.SEEK_HOLE))
    except OSError:
        return end


def read_header(path: Path) -> Header:
    try:
        with path.open("rb") as file:
            data = file.read(HEADER_BYTES)
    except OSError as error:
        raise SolveError(f"cannot read value file {path}: {error.strerror}") from None
    if len(data) < HEADER_BYTES:
        raise SolveError(f"{path} is truncated: shorter than a value file header; solve again with --restart")
    return Header.decode(data.rstrip(b" "), path)


class ValueFile:
    """An open value file: `values[anchor]` (float64, memory-mapped) under a checked header."""

    def __init__(self, path: Path, header: Header, values: Any, checksum_seconds: float = 0.0) -> None:
        self.path = path
        self.header = header
        self.values: npt.NDArray[np.float64] = values
        self.checksum_seconds = checksum_seconds  # how long the last check of the values took

    @staticmethod
    def create(path: Path, board: Layout, layers: int) -> ValueFile:
        """A fresh value file for `board`, with its header written.

        The values start as a sparse file of zeros: no disk is used until layers are
        solved (the full board's file is 55 GiB). The header says which are solved,
        and the solver reads an anchor only once its layer is.
        """
        import numpy as np

        path.parent.mkdir(parents=True, exist_ok=True)
        header = Header(
            key=board.key, heights=board.heights, anchors=board.anchors, layers=layers, players=board.players
        )
        partial = path.with_suffix(".partial")
        with partial.open("wb") as file:
            file.write(header.encode())
            file.truncate(HEADER_BYTES + 8 * board.anchors)
        values = np.memmap(partial, np.float64, "r+", HEADER_BYTES, (board.anchors,))
        made = ValueFile(partial, header, values)
        made.save(header)
        partial.replace(path)
        made.path = path
        return made

    @staticmethod
    def open(path: Path, board: Layout, writable: bool = False) -> ValueFile:
        """The value file at `path` for `board`, after checking header, size and checksum.

        Raises SolveError when the file is not `board`'s (another variant or player count), is
        truncated or padded, its header is damaged, its values fail their checksum, or it was
        being written when its solve was killed; each message says what to do.
        """
        import numpy as np

        header = _checked_header(path, board)
        if header.writing:
            raise SolveError(
                f"{path} was being written when its solve was killed: its values cannot be "
                "trusted; solve again with --restart"
            )
        started = time.monotonic()
        if checksum(path) != header.checksum:
            raise SolveError(
                f"{path} is corrupt: its values do not match the header's checksum; solve again with --restart"
            )
        values = np.memmap(path, np.float64, "r+" if writable else "r", HEADER_BYTES, (header.anchors,))
        return ValueFile(path, header, values, time.monotonic() - started)

    @staticmethod
    def open_view(path: Path, board: Layout) -> ValueFile:
        """The value file as a worker of a running solve reads it: read-only, header and size checked.

        The solve that hands out the work holds the file open for writing (its header
        says so) and checked its checksum when it opened it; a worker only reads the
        layers above its own and returns the values it finds.
        """
        import numpy as np

        header = _checked_header(path, board)
        return ValueFile(path, header, np.memmap(path, np.float64, "r", HEADER_BYTES, (header.anchors,)))

    def save(self, header: Header) -> None:
        """Flush the values and write `header` with their checksum (the resume point)."""
        self.flush()
        started = time.monotonic()
        header = replace(header, checksum=checksum(self.path), writing=False)
        self.checksum_seconds = time.monotonic() - started
        self._write_header(header)

    def flush(self) -> None:
        """Write the values changed so far to the file (for other processes reading it)."""
        flush = getattr(self.values, "flush", None)
        if flush is not None:
            flush()

    def begin_writing(self) -> None:
        self._write_header(replace(self.header, writing=True))

    def _write_header(self, header: Header) -> None:
        with self.path.open("r+b") as file:
            file.write(header.encode())
            file.flush()
            os.fsync(file.fileno())
        self.header = header

    def value(self, anchor: int) -> float:
        return float(self.values[anchor])


def _checked_header(path: Path, board: Layout) -> Header:
    """The header at `path`, refused unless it is `board`'s and the file has every value."""
    header = read_header(path)
    flag = "" if board.players == 1 else f" --players {board.players}"
    own = f"solve its own with `cantstop solve '{board.key}'{flag}`"
    if header.players != board.players:
        raise SolveError(
            f"{path} holds the {header.players}-player values of {header.key!r}, not the "
            f"{board.players}-player values of {board.key!r}: {own}"
        )
    if header.key != board.key or header.heights != board.heights or header.anchors != board.anchors:
        raise SolveError(
            f"{path} holds the values of {header.key!r} ({header.anchors} anchors), "
            f"not of {board.key!r} ({board.anchors} anchors): {own}"
        )
    expected = HEADER_BYTES + 8 * header.anchors
    size = path.stat().st_size
    if size != expected:
        raise SolveError(
            f"{path} is truncated or padded: {size} bytes, a full value file has {expected}; solve again with --restart"
        )
    return header
