"""Files import one way: no two files of src/cantstop import each other, directly or in a ring.

test_layers.py holds the layers apart; this holds the files inside a layer apart too (two
files that need each other share a third below them). Every import that runs counts, at the
top or inside a function; one under `if TYPE_CHECKING:` never runs and only names a type for
the checker, so it does not (that is what lets two files' types mention each other).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "cantstop"

def module_name(path: Path, root: Path) -> str:
    """`src/cantstop/tui/app.py` -> `cantstop.tui.app`; a package's `__init__.py` is the package."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def type_only(tree: ast.Module) -> set[int]:
    """The ids of the nodes under `if TYPE_CHECKING:` (its `else:` runs, so it is not among them)."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            hidden.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return hidden


def imported_names(path: Path, module: str) -> set[str]:
    """Every dotted name a file imports when it runs, relative imports made absolute (`from a import b`
    gives a.b)."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    names: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hidden = type_only(tree)
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            source = ".".join([*base, *([node.module] if node.module else [])])
            names.update(f"{source}.{alias.name}" for alias in node.names)
    return names


def file_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """File -> the files it imports: for each name, the longest prefix that is one of our files."""
    files = {module_name(path, root): path for path in root.rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for module, path in files.items():
        targets = set()
        for name in imported_names(path, module):
            parts = name.split(".")
            found = next((".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in files), None)
            if found is not None and found != module:
                targets.add(found)
        edges[module] = targets
    return edges


def rings(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of files that can reach one another (strongly connected, more than one file).

    Tarjan's algorithm, kept iterative so a deep graph cannot hit the recursion limit.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, nexts = work[-1]
            step = next(nexts, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(edges.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def describe(ring: list[str], edges: dict[str, set[str]]) -> str:
    members = set(ring)
    return "; ".join(f"{a} -> {b}" for a in ring for b in sorted(edges[a] & members))


def test_no_files_import_each_other() -> None:
    edges = file_graph()
    found = rings(edges)
    assert not found, "files in a ring (move what both need into a file below them):\n" + "\n".join(
        describe(ring, edges) for ring in found
    )


def test_the_walk_sees_what_it_must() -> None:
    edges = file_graph()
    # top-level, relative, inside-a-function and package imports are all seen
    assert "cantstop.tui.game_screen" in edges["cantstop.tui.app"]
    assert "cantstop.arena.ray_backend" in edges["cantstop.arena.runner"]  # inside a function
    assert "cantstop.table.table" in edges["cantstop.table"]  # a package's __init__ re-exports
    assert "cantstop.core.state" in edges["cantstop"]


def test_rings_are_found_and_only_rings() -> None:
    assert rings({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert rings({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
    assert sorted(rings({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c", "a"}})) == [["a", "b"], ["c", "d"]]


def test_a_ring_written_in_files_is_caught(tmp_path: Path) -> None:
    package = tmp_path / "cantstop" / "tui"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "app.py").write_text("from cantstop.tui.screen import Screen\n")
    (package / "screen.py").write_text("def again():\n    from .app import App\n")
    # only for the type checker: never run, so no ring with app; the else branch does run
    (package / "typed.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import app\nelse:\n    from . import screen\n"
    )
    (package / "base.py").write_text("import cantstop.tui.typed\n")
    edges = file_graph(tmp_path / "cantstop")
    assert rings(edges) == [["cantstop.tui.app", "cantstop.tui.screen"]]
    assert edges["cantstop.tui.typed"] == {"cantstop.tui.screen"}
    assert edges["cantstop.tui.base"] == {"cantstop.tui.typed"}
