"""The fast extra is optional: a clear ImportError without it, everything else unaffected."""

from __future__ import annotations

import os
import subprocess
import sys

from platformdirs import user_cache_dir

# Run in a fresh interpreter where numba cannot be imported (as if the extra were missing).
WITHOUT_NUMBA = "import sys; sys.modules['numba'] = None\n"


def run(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )


def test_import_without_numba_names_the_extra() -> None:
    done = run(WITHOUT_NUMBA + "import cantstop.fast")
    assert done.returncode != 0
    assert "ImportError: cantstop.fast needs the 'fast' extra (numba is not installed)" in done.stderr
    assert "pip install -e '.[fast]'" in done.stderr


def test_the_package_and_front_ends_import_without_numba() -> None:
    code = WITHOUT_NUMBA + (
        "import cantstop, cantstop.cli, cantstop.cli.solitaire, cantstop.cli.arena\n"
        "import cantstop.web.app, cantstop.bots.expert\n"
        "from cantstop import new_game\n"
        "print(new_game('classic', 2).roll((2, 4, 5, 5)).legal_actions())"
    )
    done = run(code)
    assert done.returncode == 0, done.stderr
    assert "(6, 10)" in done.stdout


def test_kernels_cache_in_the_user_cache_folder_unless_told_otherwise() -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    show = "import os, cantstop.fast; print(os.environ['NUMBA_CACHE_DIR'])"
    folder = run(show, env).stdout.strip()
    assert os.path.dirname(folder) == os.path.join(user_cache_dir("cantstop"), "numba")
    assert len(os.path.basename(folder)) == 16  # the digest of the package's source
    assert run(show, {**env, "NUMBA_CACHE_DIR": "/tmp/elsewhere"}).stdout.strip() == "/tmp/elsewhere"


def test_the_compiled_bots_copy_the_python_bots_constants() -> None:
    from dataclasses import astuple

    from cantstop.bots import expert, heuristic
    from cantstop.fast import bots as fast_bots
    from cantstop.fast import expert as fast_expert

    assert astuple(heuristic.RULE_OF_28) == fast_bots.RULE_OF_28
    assert astuple(heuristic.GLENN_ALOI) == fast_bots.GLENN_ALOI
    for name in ("ALPHA", "SPARE", "RIVAL", "LEAD", "THREAT_SCALE", "WIN_BONUS", "LOOKAHEAD", "SHARPNESS"):
        assert getattr(fast_expert, name) == getattr(expert, name), name


def test_the_cache_digest_covers_every_file_with_compiled_functions() -> None:
    """A compiled function keeps the code of the compiled functions it calls, and numba checks
    its cache against its own file only: a file with compiled functions left out of the digest
    could run a stale copy of a changed kernel of another file (and give wrong values)."""
    import importlib
    from pathlib import Path

    from numba.core.registry import CPUDispatcher

    import cantstop.fast as fast

    root = Path(fast.__file__).parent.parent
    found = set()
    for path in root.rglob("*.py"):
        if "numba" not in path.read_text(encoding="utf-8"):
            continue
        name = ".".join(path.relative_to(root.parent).with_suffix("").parts).removesuffix(".__init__")
        module = importlib.import_module(name)
        if any(isinstance(v, CPUDispatcher) and v.py_func.__module__ == name for v in vars(module).values()):
            found.add(path)
    assert {root / "solve" / "rival_stops.py", root / "fast" / "kernels.py"} <= found  # the walk sees them
    assert found <= set(fast.compiled_files())
