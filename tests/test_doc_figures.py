"""The docs' seeded figures are what their commands give (scripts/doc_figures.py): every
figure is found once in its doc, and a sample of the cheap ones is rerun and must match to
the digit. The rest are rerun by `python scripts/doc_figures.py` (minutes to an hour)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).parent.parent / "scripts" / "doc_figures.py"
# Rerun here: the exact odds, the random bot's solitaire figure, and the smallest solved
# boards' rows (a solve and 4,000 games of each heuristic; the two-player first chance).
SAMPLE = (
    "readme.odds",
    "rules.odds.*",
    "bots.solitaire.random",
    "solving.ladder.solitaire+faces=3+heights=1.2.3.2.1.*",
    "solving.duo.faces=3+heights=1.2.3.2.1.first",
    "solving.duo.faces=3+heights=1.2.3.2.1.edge",
)


@pytest.fixture(scope="module")
def figures() -> ModuleType:
    spec = importlib.util.spec_from_file_location("doc_figures", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["doc_figures"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_figure_is_found_exactly_once_in_its_doc_and_every_run_is_used(figures: ModuleType) -> None:
    for item in figures.FIGURES:
        text = (figures.ROOT / item.doc).read_text(encoding="utf-8")
        assert figures.found(text, item) is not None, f"{item.name}: {item.pattern!r} is not in {item.doc} exactly once"
        assert all(name in figures.RUNS for name in item.runs), item.name
    used = {name for item in figures.FIGURES for name in item.runs}
    assert used == set(figures.RUNS), set(figures.RUNS) - used
    names = [item.name for item in figures.FIGURES]
    assert len(names) == len(set(names))


def test_a_sample_of_the_cheap_figures_is_what_their_commands_give(figures: ModuleType) -> None:
    sample = figures.select(list(SAMPLE), cheap=False)
    assert len(sample) >= 15 and all(figures.RUNS[name].cheap for item in sample for name in item.runs)
    outcomes = figures.check(sample, jobs=1, say=lambda line: None)
    wrong = [f"{o.figure.name}: the doc says {o.said}, the command gives {o.made} {o.problem}" for o in outcomes if not o.ok]
    assert not wrong, "\n".join(wrong)


def test_a_figure_that_differs_is_reported_and_update_writes_it(figures: ModuleType, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("best {6, 7, 8} 91.99%; and more\n", encoding="utf-8")
    monkeypatch.setattr(figures, "ROOT", tmp_path)
    outcomes = figures.check(figures.select(["rules.odds.best-triple"], cheap=False), say=lambda line: None)
    assert [(o.said, o.made, o.ok) for o in outcomes] == [("91.99%", "91.98%", False)]
    assert figures.update(outcomes) == 1
    assert (tmp_path / "docs" / "rules.md").read_text(encoding="utf-8") == "best {6, 7, 8} 91.98%; and more\n"
