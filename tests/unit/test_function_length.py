"""No function in ``shared/`` (the product's ``retrieval_core`` and the CLI and dev tools'
``retrieval_dev``, every subpackage) is over 50 lines: a stage, a rule or a step that does not fit is
two of them (docs/ARCHITECTURE.md, "The ranking pipeline")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
PACKAGES = ("retrieval_core", "retrieval_dev")
LIMIT = 50


def long_functions(package: Path) -> list[str]:
    """``path:line name (n lines)`` of every function or method in ``package`` longer than ``LIMIT``,
    its decorators, docstring and body counted."""
    found = []
    for module in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                lines = (node.end_lineno or node.lineno) - first + 1
                if lines > LIMIT:
                    found.append(f"{module.relative_to(package)}:{first} {node.name} ({lines} lines)")
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_no_function_is_over_fifty_lines(package: str) -> None:
    assert long_functions(SHARED / package) == []


def test_every_package_under_shared_is_checked() -> None:
    packages = {path.parent.name for path in SHARED.glob("*/__init__.py")}
    assert packages == set(PACKAGES)


def test_the_check_sees_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    (tmp_path / "long.py").write_text(f"def long() -> None:\n{body}\n", encoding="utf-8")
    (tmp_path / "short.py").write_text("def short() -> None:\n    pass\n", encoding="utf-8")
    assert [entry.split(" ", 1)[1] for entry in long_functions(tmp_path)] == [f"long ({LIMIT + 1} lines)"]
