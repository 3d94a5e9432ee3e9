"""Inside the web package imports go one way too: from the app down to storage.

docs/architecture.md holds the order of the web package's parts ("The rooms of the web
package"), top first; every file of `src/cantstop/web` is in one of them by the first
pattern it matches. A file may import its own level and those below it, never one above.
The import walk is test_file_cycles.py's: every import that runs, at the top or inside a
function (one under `if TYPE_CHECKING:` only names a type, and does not count).
"""

from __future__ import annotations

import ast
import re
from fnmatch import fnmatchcase
from pathlib import Path

from test_file_cycles import PACKAGE, file_graph

ROOT = PACKAGE.parents[1]
WEB = "cantstop.web"
ROW = re.compile(r"^\|\s*(\d+)\s*\|([^|]*)\|([^|]*)\|\s*$")
MARKER = "<!-- web levels: the test reads this table -->"


def levels() -> list[tuple[int, str, list[str]]]:
    """The table after the marker in docs/architecture.md: (level, its name, module patterns)."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split(MARKER, 1)[1]
    found = []
    for line in table.strip().splitlines():
        if not line.startswith("|"):
            break
        match = ROW.match(line)
        if match:
            found.append((int(match.group(1)), match.group(2).strip(), [p.strip().strip("`") for p in match.group(3).split(",")]))
    return found


def level_of(module: str, table: list[tuple[int, str, list[str]]]) -> int | None:
    """The level of `cantstop.web.games.live` (as `games/live`), by the first pattern it matches."""
    path = module.removeprefix(f"{WEB}.").replace(".", "/") if module != WEB else "__init__"
    for level, _, patterns in table:
        if any(fnmatchcase(path, p) or fnmatchcase(f"{path}/__init__", p) for p in patterns):
            return level
    return None


def upward(table: list[tuple[int, str, list[str]]], edges: dict[str, set[str]]) -> list[str]:
    """Every import in the web package that runs up the table, as 'a (level) -> b (level)'."""
    wrong = []
    for module, targets in sorted(edges.items()):
        if not module.startswith(WEB):
            continue
        here = level_of(module, table)
        for target in sorted(targets):
            there = level_of(target, table) if target.startswith(WEB) else None
            if here is not None and there is not None and there < here:
                wrong.append(f"{module} ({here}) -> {target} ({there})")
    return wrong


def web_modules() -> list[str]:
    return sorted(m for m in file_graph() if m == WEB or m.startswith(f"{WEB}."))


def test_every_web_module_has_a_level() -> None:
    table = levels()
    assert [n for n, _, _ in table] == list(range(1, len(table) + 1)), "levels are numbered 1, 2, 3... top first"
    missing = [m for m in web_modules() if level_of(m, table) is None]
    assert not missing, f"add a pattern for these to the web table of docs/architecture.md: {missing}"


def test_no_import_in_the_web_package_runs_upward() -> None:
    wrong = upward(levels(), file_graph())
    assert not wrong, f"imports that run up the web package's levels: {wrong}"


def test_the_walk_finds_an_upward_import() -> None:
    table = [(1, "top", ["app"]), (2, "routes", ["*/routes"]), (3, "shared", ["errors"])]
    edges = {f"{WEB}.errors": {f"{WEB}.games.routes"}, f"{WEB}.app": {f"{WEB}.errors", "cantstop.core"}}
    assert upward(table, edges) == [f"{WEB}.errors (3) -> {WEB}.games.routes (2)"]
    assert level_of(f"{WEB}.games", [(1, "rooms", ["games/*"])]) == 1  # a package is its __init__
def route_modules() -> list[Path]:
    table = levels()
    routes = next(level for level, name, _ in table if name == "routes")
    web = PACKAGE / "web"
    return [path for path in sorted(web.rglob("*.py"))
            if level_of(f"{WEB}.{'.'.join(path.relative_to(web).with_suffix('').parts)}", table) == routes]


def test_routes_reach_storage_only_through_a_service() -> None:
    """No route module imports storage, nor reads a service's `storage` or `recorder`: what a
    route needs from the database, a room's service asks for (and can be tested without HTTP)."""
    wrong = []
    for path in route_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in ("storage", "recorder"):
                wrong.append(f"{path.name}:{node.lineno} .{node.attr}")
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(f"{WEB}.db.") and node.module not in (
                f"{WEB}.db.values",  # the values storage hands out, which services pass on
            ):
                wrong.append(f"{path.name}:{node.lineno} imports {node.module}")
    assert route_modules(), "the walk found no route module"
    assert not wrong, f"routes that reach storage themselves: {wrong}"
