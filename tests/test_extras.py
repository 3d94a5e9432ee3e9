"""A module whose optional extra is missing says which extra to install."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from cantstop.cli import main
from cantstop.extras import missing_extra


def hide(monkeypatch: pytest.MonkeyPatch, package: str, module: str) -> None:
    """Make `package` unimportable and forget `module` (and its submodules) so it imports afresh."""
    for name in [n for n in sys.modules if n == module or n.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, package, None)  # `import package` now raises ImportError


@pytest.mark.parametrize(
    ("package", "module", "extra"),
    [
        ("gymnasium", "cantstop.envs", "envs"),
        ("pettingzoo", "cantstop.envs", "envs"),
        ("numpy", "cantstop.envs", "envs"),
        ("numpy", "cantstop.encoding", "fast"),
        ("pyspiel", "cantstop.envs.openspiel_game", "openspiel"),
        ("ray", "cantstop.arena.ray_backend", "ray"),
    ],
)
def test_a_missing_package_names_its_extra(
    monkeypatch: pytest.MonkeyPatch, package: str, module: str, extra: str
) -> None:
    import cantstop.envs  # noqa: F401  (loaded first, so that only `module` imports afresh)

    hide(monkeypatch, package, module)
    with pytest.raises(ImportError) as error:
        importlib.import_module(module)
    message = str(error.value)
    assert f"needs the '{extra}' extra ({package} is not installed)" in message
    assert message.endswith(f"pip install -e '.[{extra}]'")
    assert error.value.name == package


def test_arena_with_ray_missing_stops_before_writing_anything(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hide(monkeypatch, "ray", "cantstop.arena.ray_backend")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["arena", "random", "random", "--games", "2", "--ray", "auto", "--out", str(out)]
    )
    assert result.exit_code == 2
    assert "pip install -e '.[ray]'" in result.output and not out.exists()


def test_only_real_extras_are_named() -> None:
    with pytest.raises(ValueError, match="unknown extra 'gym'; extras: envs, fast, openspiel, train, ray"):
        missing_extra("gym", "x", ImportError("no"))
    error = missing_extra("fast", "cantstop.fast", ModuleNotFoundError("No module named 'numba'", name="numba"))
    assert str(error) == (
        "cantstop.fast needs the 'fast' extra (numba is not installed): from a checkout run "
        "pip install -e '.[fast]'"
    )


@pytest.mark.parametrize("module", ["cantstop.fast", "cantstop.envs.vector_kernels", "cantstop.solve.kernels"])
def test_compiled_kernels_cache_in_the_user_folder_not_beside_the_source(module: str) -> None:
    """numba reads its cache folder once, when it is imported: every module with kernels
    sets it first (the vector env's kernels used to import numba before it and cached into
    the package's own __pycache__)."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    code = f"import {module}, numba, cantstop.fast as f; print(numba.config.CACHE_DIR); print(f.CACHE_ROOT)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout.split()
    assert out[0].startswith(out[1]) and "site-packages" not in out[0] and "/src/" not in out[0]
