"""The public API's docstring examples run as tests, so what they show cannot drift."""

from __future__ import annotations

import doctest
import importlib

import pytest

# The modules of the names `cantstop` exports, and of `Table` and `Move`.
MODULES = (
    "cantstop.core.state",
    "cantstop.core.variant",
    "cantstop.core.choices",
    "cantstop.core.dice",
    "cantstop.core.errors",
    "cantstop.table.table",
    "cantstop.table.move",
)


@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_hold(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"


def test_every_public_module_shows_at_least_one_example() -> None:
    for name in MODULES:
        finder = doctest.DocTestFinder()
        examples = sum(len(test.examples) for test in finder.find(importlib.import_module(name)))
        assert examples > 0, f"{name} has no docstring example"
