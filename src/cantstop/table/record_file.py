"""A game record on disk, kept up to date one move at a time.

The file is written whole once (atomically: a temporary file renamed over the old
one), then each move appends its few characters and is flushed to the disk, so a
quit, a crash or a closed terminal never loses a move and a long game costs no more
per move than a short one. When the game ends, the `Result` tag (a single character
written as `*` until then) is set in place. Undo cuts the last move off again.
Out-of-band moves that change no position (a fallback, a forfeit in a match) are kept
as `{comments}` with their reason: readers of records pass over them, people read them.
A seat leaving a game among people is an event of the record (`resign:B`).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from cantstop.core.notation import seat_letter
from cantstop.core.record import Record, event_layout, header_text, record_body
from cantstop.core.state import State
from cantstop.table.move import Move


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step: readers see the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_BRACES = str.maketrans("{}", "()")  # a reason must not end its comment early


class RecordFile:
    """A `Table` sink: appends every move of the table's game to `path`."""

    def __init__(self, path: Path, record: Record) -> None:
        self.path = path
        header = header_text(record)  # Result "*" is its last tag
        self._result_at = len(header.encode()) - len('*"]\n\n')
        body, final = record_body(record)
        self._size = len((header + body).encode())
        self._new_line = not body or body.endswith("\n")
        self._undo: tuple[int, bool] | None = None
        write_atomically(path, header + body)
        if final.is_over:
            self._set_result(final)

    def append(self, move: Move, before: State, after: State) -> None:
        if move.out_of_band and after is before:  # a comment on a line of its own, or inside the turn's line
            reason = " ".join(move.reason.translate(_BRACES).split())
            note = f"{{{move.text} {reason}}}"
            text = note + "\n" if self._new_line else " " + note
        else:
            text = event_layout(move.event, before, after, self._new_line)
        self._undo = (self._size, self._new_line)
        self._write(text)
        self._new_line = text.endswith("\n")
        if after.is_over:
            self._set_result(after)

    def undo(self) -> None:
        """Cut off the last move written (the table allows undoing one choice)."""
        assert self._undo is not None, "nothing written to undo"
        self._size, self._new_line = self._undo
        self._undo = None
        with open(self.path, "r+b") as stream:
            stream.truncate(self._size)
            os.fsync(stream.fileno())

    def _write(self, text: str) -> None:
        data = text.encode()
        with open(self.path, "ab") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        self._size += len(data)

    def _set_result(self, final: State) -> None:
        with open(self.path, "r+b") as stream:
            stream.seek(self._result_at)
            stream.write(seat_letter(final.seat).encode())
            os.fsync(stream.fileno())
