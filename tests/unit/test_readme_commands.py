"""Every shell command in the README works when pasted: each is split as a shell splits it and checked
against what runs it (a make target against the Makefile, a `retrieval` command against the CLI's own
parser and the files it names, a curl against the routes `retrieval serve` answers and the body's
model). A command of a kind this test cannot check fails it, so a new one gets a check."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from retrieval_core.retrieval.requests import RetrieveRequest
from retrieval_dev.cli import parser
from retrieval_dev.serving.routes import ROUTES

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
MAKE_TARGETS = set(re.findall(r"^([a-z][a-z0-9-]*):", (REPO / "Makefile").read_text(), re.MULTILINE))
SEPARATORS = {";", "&", "&&", "|", "||"}
HARMLESS = {("kill", "%1")}
"""Shell built-ins the README uses as they are."""


def shell_blocks(markdown: str) -> list[str]:
    return re.findall(r"```(?:bash|sh|shell)\n(.*?)```", markdown, re.DOTALL)


def commands(block: str) -> list[list[str]]:
    """Each simple command of a block: continuations joined, comments dropped, split at ; & && | ||."""
    found: list[list[str]] = []
    for line in block.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        found.append([])
        for token in lexer:
            if token in SEPARATORS:
                found.append([])
            else:
                found[-1].append(token)
    return [command for command in found if command]


README_COMMANDS = [command for block in shell_blocks(README) for command in commands(block)]


def test_the_readme_has_commands_to_check() -> None:
    assert len(README_COMMANDS) >= 8
    assert any(command[:2] == ["make", "test"] for command in README_COMMANDS)


@pytest.mark.parametrize("command", README_COMMANDS, ids=lambda command: " ".join(command)[:60])
def test_each_readme_command_exists_as_written(command: list[str]) -> None:
    program, *args = command
    if program == "make":
        assert args and all(target in MAKE_TARGETS for target in args if "=" not in target), command
    elif program.endswith("/retrieval"):
        assert program == ".venv/bin/retrieval", "the README runs the venv's retrieval"
        try:
            parsed = parser().parse_args(args)
        except SystemExit:
            pytest.fail(f"the CLI's parser refused {command}")
        for value in vars(parsed).values():
            if isinstance(value, Path):
                assert (REPO / value).exists(), f"{value} does not exist"
    elif program == "curl":
        _check_curl(args)
    else:
        assert tuple(command) in HARMLESS, f"no check for {command}: add one to this test"


def _check_curl(args: list[str]) -> None:
    url = next(arg for arg in args if arg.startswith(("127.0.0.1", "http")))
    path = "/" + url.split("/", 1)[1] if "/" in url.removeprefix("http://") else "/"
    method = "POST" if "-d" in args else "GET"
    assert any(m == method and pattern.fullmatch(path.split("?")[0]) for m, pattern, _, _ in ROUTES), url
    if "-d" in args:
        body = json.loads(args[args.index("-d") + 1])
        RetrieveRequest.model_validate(body)
        assert "Content-Type: application/json" in args
