"""Typed sidecars declare their keys (issue 53): on the local stack, `retrieval sync` of a folder whose
Bedrock sidecars type ``year`` as a NUMBER makes ``year`` a number of that context's index, so a range
filter works with no declaration anywhere; another context's ``year`` stays its own. A file whose
sidecar types the key otherwise fails alone with one line naming the declaration and the rebuild, and a
key the context already indexes as exact strings keeps working, the report saying once what to do."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_process import RETRIEVAL
from hostile_folder import Deployment, deployment
from retrieval_core import bootstrap
from retrieval_core.config import Settings
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import invoke

from tests.processes import finished

RANGE = {"gte": {"key": "metadata.year", "value": 2020}}


@pytest.fixture
def docs(fresh_settings: Settings) -> Iterator[Deployment]:
    with deployment(fresh_settings.model_copy(update={"metadata_fields": {}}), "typed") as scratch:
        yield scratch


def _write(folder: Path, name: str, text: str, attributes: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    sidecar = {"metadataAttributes": attributes}
    (folder / f"{name}.metadata.json").write_text(json.dumps(sidecar))


def _number(value: int) -> dict[str, Any]:
    return {"value": {"type": "NUMBER", "numberValue": value}}


def _sync(scratch: Deployment, folder: Path, context_id: str, *, json_report: bool = True) -> Any:
    command = [RETRIEVAL, "sync", folder, "--context", context_id, *(["--json"] if json_report else [])]
    done = finished(command, env=scratch.env(), check=False)
    assert "Traceback" not in done.stderr, done.stderr
    return {e["key"]: e for e in json.loads(done.stdout)["files"]} if json_report else done.stdout


def _retrieve(context_id: str, where: dict[str, Any]) -> tuple[int, Any]:
    body = {"mode": "lexical", "text": "harbour tide", "top_k": 10, "filter": where}
    response = invoke("retrieve", api_event("POST", "/v1/retrieve", context_id, body=body))
    return response["statusCode"], json.loads(response["body"])


def _files(context_id: str) -> set[str]:
    code, body = _retrieve(context_id, RANGE)
    assert code == 200, body
    return {hit["id"].split("#")[0].split("/", 1)[1] for hit in body["hits"]}


def test_typed_sidecar_values_make_range_filters_work_per_context(docs: Deployment, tmp_path: Path) -> None:
    acme = tmp_path / "acme"
    for name, year in (("old.md", 2019), ("mid.md", 2023), ("new.md", 2024)):
        text = f"# Harbour log {year}\n\nThe tide turned at noon in {year}."
        _write(acme, name, text, {"year": _number(year)})
    report = _sync(docs, acme, "acme")
    assert {k: (e["status"], e["reason"]) for k, e in report.items()} == {
        name: ("indexed", None) for name in ("old.md", "mid.md", "new.md")
    }
    assert _files("acme") == {"mid.md", "new.md"}  # year >= 2020 as numbers: no declaration made
    # A rebuild (of any declaration change) keeps what the typed sidecars declared.
    (switch,) = bootstrap.container().rebuilder(lambda _: None).rebuild("acme")
    assert switch.target != switch.source
    assert _files("acme") == {"mid.md", "new.md"}

    # Another context's year is its own: a plain string there, so a range on it is refused, as before.
    other = tmp_path / "other"
    _write(other, "roman.md", "# Harbour log\n\nThe tide turned in MMXX.", {"year": "MMXX"})
    assert _sync(docs, other, "other")["roman.md"]["status"] == "indexed"
    code, body = _retrieve("other", RANGE)
    assert code == 422 and body["key"] == "metadata.year", body
    assert _files("acme") == {"mid.md", "new.md"}


def test_a_conflicting_type_is_one_line_naming_the_declaration_and_the_rebuild(
    docs: Deployment, tmp_path: Path
) -> None:
    acme = tmp_path / "acme"
    _write(acme, "a.md", "# Harbour log\n\nThe tide turned at noon.", {"year": _number(2024)})
    assert _sync(docs, acme, "acme")["a.md"]["status"] == "indexed"
    boolean = {"year": {"value": {"type": "BOOLEAN", "booleanValue": True}}}
    _write(acme, "b.md", "# Harbour notes\n\nThe tide was late.", boolean)
    report = _sync(docs, acme, "acme")
    failed = report["b.md"]
    assert failed["status"] == "failed" and "\n" not in failed["reason"]
    assert "metadata.year" in failed["reason"] and '{"year": "boolean"}' in failed["reason"]
    assert "RETRIEVAL_METADATA_FIELDS and run `retrieval rebuild`" in failed["reason"]
    assert report["a.md"]["status"] in {"indexed", "unchanged"}
    assert _files("acme") == {"a.md"}  # nothing broken: the number still ranges

    # A key this context already indexes as exact strings (a plain value came first) stays one: the
    # typed file is indexed, and the report says once, in one line, which declaration and rebuild.
    other = tmp_path / "other"
    _write(other, "plain.md", "# Harbour log\n\nThe tide turned.", {"year": "2019"})
    assert _sync(docs, other, "other")["plain.md"]["status"] == "indexed"
    for name in ("typed1.md", "typed2.md"):
        _write(other, name, f"# Harbour {name}\n\nThe tide turned again.", {"year": _number(2024)})
    printed = _sync(docs, other, "other", json_report=False)
    notes = [line for line in printed.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1, printed
    assert "year as keyword" in notes[0] and '{"year": "number"}' in notes[0]
    assert notes[0].endswith("then `retrieval rebuild`")
    fates = {line.split()[-1]: line.split()[0] for line in printed.splitlines() if line.endswith(".md")}
    assert fates == {"plain.md": "unchanged", "typed1.md": "indexed", "typed2.md": "indexed"}
