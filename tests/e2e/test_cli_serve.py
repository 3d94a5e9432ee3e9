"""`cantstop serve` refuses a database it cannot use before it starts listening."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from cantstop.cli import main


@pytest.mark.parametrize(
    ("url", "code", "words"),
    [
        ("not a url", 2, "Invalid value for --db: not a database URL: write e.g. postgresql"),
        ("nonsense://x", 1, "cannot open the database nonsense://x: Can't load plugin"),
    ],
)
def test_a_database_url_that_cannot_be_used_is_named(url: str, code: int, words: str) -> None:
    result = CliRunner().invoke(main, ["serve", "--db", url])
    assert result.exit_code == code and words in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
