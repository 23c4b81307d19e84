"""The package map in docs/ARCHITECTURE.md, checked against the code: which part of retrieval_core may
import which, that no part imports one that imports it back (directly or through others), and that the
runtime package never imports development code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "shared" / "retrieval_core"
BASE = {"errors", "context", "models", "backend_calls", "aws", "base64url"}
ALLOWED: dict[str, set[str]] = {
    **{part: BASE for part in BASE},
    "config": BASE | {"policy", "retrieval"},
    "ports": BASE,
    "packing": BASE,
    "policy": BASE | {"config"},
    "embedding": BASE | {"ports", "config"},
    "graph": BASE | {"ports"},
    "lineage": BASE | {"ports"},
    "understanding": BASE | {"ports", "documents"},  # a held dictionary (documents.name_dictionary)
    "retrieval": BASE | {"ports", "graph", "policy", "packing", "understanding"},
    "adapters": BASE | {"ports", "config", "policy", "lifecycle", "documents"},
    "lifecycle": BASE,
    "loading": BASE | {"ports"},
    "documents": BASE | {"ports"},
    "ingest": BASE | {"loading", "documents", "ports"},
    "knowledge_bases": BASE | {"documents", "ingest"},
    "entrypoints": BASE | {"policy", "retrieval", "knowledge_bases", "bootstrap"},
}
DEVELOPMENT = ("retrieval_dev", "dev", "bench", "tests")


def _part(module: Path) -> str:
    return module.relative_to(PACKAGE).parts[0].removesuffix(".py")


def _imported_parts(module: Path) -> set[str]:
    """Top-level parts of retrieval_core this module imports (relative or absolute)."""
    depth = len(module.relative_to(PACKAGE).parts) - 1
    parts = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                up = node.level - 1
                if up < depth:
                    continue  # inside its own part
                target = (node.module or "").split(".")
                names = [alias.name for alias in node.names]
                parts.add(target[0] if target[0] else names[0])
            elif node.module and node.module.startswith("retrieval_core."):
                parts.add(node.module.split(".")[1])
    return parts


def _import_graph() -> dict[str, set[str]]:
    """Every part of retrieval_core (the map's and any other, ``bootstrap`` included) -> the parts it
    imports, lazy and type-checking imports counted: a loop through them is still a loop to read."""
    graph: dict[str, set[str]] = {}
    for module in PACKAGE.rglob("*.py"):
        part = _part(module)
        graph.setdefault(part, set()).update(_imported_parts(module) - {part})
    return graph


def _cycle_through(graph: dict[str, set[str]], start: str) -> list[str] | None:
    """The shortest import path from ``start`` back to itself, or None (breadth-first, so the path
    named in a failure is the tightest loop)."""
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for part in sorted(frontier):
            for imported in sorted(graph.get(part, ())):
                if imported == start:
                    return [*paths[part], start]
                if imported not in paths:
                    paths[imported] = [*paths[part], imported]
                    following.append(imported)
        frontier = following
    return None


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if _part(p) in ALLOWED and p.name != "__init__.py")


@pytest.mark.parametrize("module", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_each_part_imports_only_what_the_map_allows(module: Path) -> None:
    part = _part(module)
    assert _imported_parts(module) - {part} <= ALLOWED[part]


def test_every_part_is_on_the_map() -> None:
    """A new top-level module or package must say what it may import (only the root composes all)."""
    assert set(_import_graph()) - set(ALLOWED) <= {"bootstrap", "__init__"}


def test_no_part_imports_one_that_imports_it_back() -> None:
    graph = _import_graph()
    cycles = {" -> ".join(cycle) for part in graph if (cycle := _cycle_through(graph, part))}
    assert not cycles, sorted(cycles)


def _module_name(module: Path) -> str:
    parts = module.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(module: Path, known: set[str]) -> set[str]:
    """The modules of retrieval_core this one imports, lazy and type-checking imports counted."""
    name = _module_name(module).split(".")
    package = name if module.name == "__init__.py" else name[:-1]
    found = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        written = (node.module or "").split(".")
        if node.level:
            path = [*package[: len(package) - node.level + 1], *written]
        elif written[0] == "retrieval_core":
            path = written[1:]
        else:
            continue
        target = ".".join(part for part in path if part)
        for alias in node.names:
            inner = f"{target}.{alias.name}" if target else alias.name
            found.add(inner if inner in known else target)
    return (found & known) - {_module_name(module)}


def test_no_module_imports_one_that_imports_it_back() -> None:
    """Inside a part too: two modules that import each other (even lazily) are one module to read."""
    modules = {_module_name(m): m for m in PACKAGE.rglob("*.py")}
    graph = {name: _imported_modules(path, set(modules)) for name, path in modules.items()}
    cycles = {" -> ".join(cycle) for name in graph if (cycle := _cycle_through(graph, name))}
    assert not cycles, sorted(cycles)


def test_the_cycle_check_sees_a_loop_through_a_third_part() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycle_through(graph, "a") == ["a", "b", "c", "a"]
    assert _cycle_through(graph, "d") is None


def test_the_runtime_package_never_imports_development_code() -> None:
    for module in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            assert not [n for n in names if n.split(".")[0] in DEVELOPMENT], module
