"""The layers of docs/architecture.md hold: no import goes up, and no two layers import each other."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "cantstop"
ROW = re.compile(r"^\|\s*(\w+)\s*\|([^|]*)\|\s*$")


def allowed() -> dict[str, set[str]]:
    """The table after the `layers` marker in docs/architecture.md: layer -> what it may import."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("<!-- layers: the test reads this table -->", 1)[1]
    layers: dict[str, set[str]] = {}
    for line in table.strip().splitlines():
        if not line.startswith("|"):
            break
        match = ROW.match(line)
        if match and match.group(1) != "layer":
            layers[match.group(1)] = {w.strip() for w in match.group(2).split(",") if w.strip()}
    return layers


def layer_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE).parts
    if parts == ("__init__.py",):
        return "cantstop"
    return parts[0].removesuffix(".py")


def imports(path: Path) -> set[str]:
    """The cantstop layers a module imports, at the top or inside a function alike."""
    found = set()
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:  # relative: against the module's own package
                base = package[: len(package) - node.level + 1]
                names = [".".join([*base, *([node.module] if node.module else [])])]
            else:
                names = [node.module or ""]
            if names[0] == "cantstop":  # `from cantstop import core`: the names are the layers
                names = [f"cantstop.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "cantstop" and len(parts) > 1 and any(
                (PACKAGE / p).exists() for p in (parts[1], f"{parts[1]}.py")
            ):
                found.add(parts[1])
    return found


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        layer = layer_of(path)
        edges.setdefault(layer, set()).update(imports(path) - {layer})
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle's members, by depth-first search from each layer."""
    found = []
    for start in edges:
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in edges.get(node, ()):
                if nxt == start:
                    found.append(path)
                elif nxt not in path:
                    stack.append((nxt, [*path, nxt]))
    return found


def test_every_layer_is_in_the_table() -> None:
    assert set(graph()) <= set(allowed()), "add the new layer to docs/architecture.md"


def test_no_import_goes_up_the_layers() -> None:
    rules = allowed()
    wrong = {f"{layer} imports {', '.join(sorted(used - rules[layer]))}"
             for layer, used in graph().items() if used - rules[layer]}
    assert not wrong, f"imports the layer table does not allow: {sorted(wrong)}"


def test_the_layers_have_no_cycle() -> None:
    assert cycles(allowed()) == [], "the layer table itself must go one way"
    assert cycles(graph()) == []


def test_the_walk_sees_what_it_must() -> None:
    edges = graph()
    assert "table" in edges["arena"] and "protocol" in edges["arena"] and "tui" in edges["cli"]
    assert cycles({"a": {"b"}, "b": {"a"}}) and not cycles({"a": {"b"}, "b": set()})
