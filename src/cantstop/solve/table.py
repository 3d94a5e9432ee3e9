"""The value table on disk: a header, then one float64 per anchor (numpy memmap).

The header (`HEADER_BYTES`, JSON after a magic line) names the variant, the sizes,
how far the solve got (layers finished from the top, anchors finished in the next
layer) and a checksum of the values. Opening checks all of it: a table of another
variant, a truncated file or values that do not match their checksum are refused,
never read. While a solve writes, the header says so; a run killed outright leaves
that mark, and the table is refused until it is solved again from scratch.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cantstop.solve.board import Board, SolveError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MAGIC = b"cantstop-solve-table\n"
FORMAT = 1
HEADER_BYTES = 4096


@dataclass(frozen=True)
class Header:
    key: str  # the solver key of the variant (see board.solver_key)
    heights: tuple[int, ...]
    anchors: int
    layers: int
    layers_done: int = 0  # layers finished, counted from the most advanced
    anchors_done: int = 0  # anchors of the next layer finished (in the solver's order)
    checksum: str = ""  # blake2b of the values as they were when the header was written
    writing: bool = False  # set while a solve may be changing values
    seconds: float = 0.0  # solving time so far
    format: int = FORMAT

    @property
    def complete(self) -> bool:
        return self.layers_done == self.layers

    def encode(self) -> bytes:
        text = json.dumps(asdict(self), sort_keys=True).encode()
        data = MAGIC + text + b"\n"
        if len(data) > HEADER_BYTES:
            raise SolveError(f"table header too long ({len(data)} bytes) for {self.key!r}")
        return data.ljust(HEADER_BYTES, b" ")

    @staticmethod
    def decode(data: bytes, path: Path) -> Header:
        if not data.startswith(MAGIC):
            raise SolveError(f"{path} is not a solver table (no table header)")
        try:
            fields = json.loads(data[len(MAGIC) :].decode())
            fields["heights"] = tuple(fields["heights"])
            header = Header(**fields)
        except (ValueError, TypeError, KeyError) as error:
            raise SolveError(f"{path}: damaged table header ({error})") from None
        if header.format != FORMAT:
            raise SolveError(f"{path}: table format {header.format}, this solver reads {FORMAT}")
        return header


def data_folder() -> Path:
    """Where tables go unless told otherwise: the user's data folder for cantstop."""
    from platformdirs import user_data_path

    override = os.environ.get("CANTSTOP_SOLVE_DIR")
    return Path(override) if override else user_data_path("cantstop") / "solve"


def default_path(board: Board) -> Path:
    return data_folder() / file_name(board.key)


def file_name(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9.=+_-]", "_", key) + ".table"


def checksum(values: npt.NDArray[np.float64]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    chunk = 1 << 22
    for start in range(0, len(values), chunk):
        digest.update(values[start : start + chunk].tobytes())
    return digest.hexdigest()


def read_header(path: Path) -> Header:
    try:
        with path.open("rb") as file:
            data = file.read(HEADER_BYTES)
    except OSError as error:
        raise SolveError(f"cannot read table {path}: {error.strerror}") from None
    if len(data) < HEADER_BYTES:
        raise SolveError(f"{path} is truncated: shorter than a table header")
    return Header.decode(data.rstrip(b" "), path)


class Table:
    """An open table: `values[anchor]` (float64, memory-mapped) under a checked header."""

    def __init__(self, path: Path, header: Header, values: Any) -> None:
        self.path = path
        self.header = header
        self.values: npt.NDArray[np.float64] = values

    @staticmethod
    def create(path: Path, board: Board) -> Table:
        """A fresh table of NaN (not solved) for `board`, with its header written."""
        import numpy as np

        path.parent.mkdir(parents=True, exist_ok=True)
        header = Header(key=board.key, heights=board.heights, anchors=board.anchors, layers=board.layers)
        partial = path.with_suffix(".partial")
        with partial.open("wb") as file:
            file.write(header.encode())
            file.truncate(HEADER_BYTES + 8 * board.anchors)
        values = np.memmap(partial, np.float64, "r+", HEADER_BYTES, (board.anchors,))
        values[:] = np.nan
        table = Table(partial, header, values)
        table.save(header)
        partial.replace(path)
        table.path = path
        return table

    @staticmethod
    def open(path: Path, board: Board, writable: bool = False) -> Table:
        """The table at `path` for `board`, after checking header, size and checksum."""
        import numpy as np

        header = read_header(path)
        if header.key != board.key or header.heights != board.heights or header.anchors != board.anchors:
            raise SolveError(
                f"{path} holds the table of {header.key!r} ({header.anchors} anchors), "
                f"not of {board.key!r} ({board.anchors} anchors)"
            )
        expected = HEADER_BYTES + 8 * header.anchors
        size = path.stat().st_size
        if size != expected:
            raise SolveError(f"{path} is truncated or padded: {size} bytes, a full table has {expected}")
        if header.writing:
            raise SolveError(
                f"{path} was being written when its solve was killed: its values cannot be "
                "trusted; solve again with --restart"
            )
        values = np.memmap(path, np.float64, "r+" if writable else "r", HEADER_BYTES, (header.anchors,))
        if checksum(values) != header.checksum:
            raise SolveError(f"{path} is corrupt: its values do not match the header's checksum")
        return Table(path, header, values)

    def save(self, header: Header) -> None:
        """Flush the values and write `header` with their checksum (the resume point)."""
        flush = getattr(self.values, "flush", None)
        if flush is not None:
            flush()
        header = replace(header, checksum=checksum(self.values), writing=False)
        self._write_header(header)

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
