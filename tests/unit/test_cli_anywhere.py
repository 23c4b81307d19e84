"""The CLI from any directory: it finds the checkout it was installed from (its handlers, the stack's
settings file, or the file ``RETRIEVAL_STACK_ENV`` names), and a stack that is down or a missing
settings file is one line with the command that starts it, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from retrieval_dev.cli import expected_failure, main
from retrieval_dev.cli.environment import stack_env_file, use_local_stack_env
from retrieval_dev.cli.lambda_runtime import FUNCTIONS_DIR
from retrieval_dev.cli.stack_check import StackUnavailableError, require_local_stack, start_command
from retrieval_dev.project import project_path, project_root

from dev.processes import free_port

REPO = Path(__file__).resolve().parents[2]
VARIABLES = ("RETRIEVAL_OPENSEARCH_ENDPOINT", "RETRIEVAL_DYNAMODB_ENDPOINT", "RETRIEVAL_STACK_ENV")


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory outside the checkout, with no stack settings in the environment."""
    monkeypatch.chdir(tmp_path)
    for name in VARIABLES:  # set first, so monkeypatch restores them even when a command exports them
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    return tmp_path


def test_the_checkout_is_found_from_another_directory(elsewhere: Path) -> None:
    assert project_root() == REPO
    assert project_path("functions") == REPO / "functions" and FUNCTIONS_DIR.resolve() == REPO / "functions"
    (elsewhere / "functions").mkdir()
    assert project_path("functions") == elsewhere / "functions"  # the working directory's own wins


def test_the_settings_file_is_the_named_one_else_the_checkouts(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    named = elsewhere / "my.env"
    named.write_text("RETRIEVAL_OPENSEARCH_ENDPOINT=http://127.0.0.1:1\nALREADY=file\n")
    monkeypatch.setenv("RETRIEVAL_STACK_ENV", str(named))
    monkeypatch.setenv("ALREADY", "process")
    assert stack_env_file() == named and use_local_stack_env() == named
    import os

    assert os.environ["RETRIEVAL_OPENSEARCH_ENDPOINT"] == "http://127.0.0.1:1"
    assert os.environ["ALREADY"] == "process"  # the environment wins over the file
    monkeypatch.delenv("RETRIEVAL_STACK_ENV")
    found = stack_env_file()
    assert found is None or found == REPO / ".stack" / "env"


def test_a_closed_local_port_is_one_line_with_the_start_command(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    closed = free_port()
    settings = elsewhere / "down.env"
    settings.write_text(
        f"RETRIEVAL_OPENSEARCH_ENDPOINT=http://127.0.0.1:{closed}\nRETRIEVAL_DYNAMODB_ENDPOINT=http://127.0.0.1:8000\n"
    )
    monkeypatch.setenv("RETRIEVAL_STACK_ENV", str(settings))
    (elsewhere / "kb").mkdir()
    for argv in (["search", "who leads payments", "--context", "acme"], ["sync", "kb", "--context", "acme"]):
        assert main(argv) == 3
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert f"127.0.0.1:{closed} refuses connections" in err
        assert f"`STACK_OPENSEARCH_PORT={closed} make -C {REPO} up`" in err
    assert main(["schema"]) == 0  # a command that needs no backend is not checked


def test_no_settings_at_all_says_so(elsewhere: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("retrieval_dev.cli.stack_check.stack_env_file", lambda: None)
    with pytest.raises(StackUnavailableError, match=r"no local stack settings found .*`make -C"):
        require_local_stack()
    monkeypatch.setenv("RETRIEVAL_OPENSEARCH_ENDPOINT", "https://search.example.com")
    require_local_stack()  # a deployment's endpoint is not probed


def test_expected_conditions_are_one_line_and_bugs_are_not_hidden() -> None:
    from botocore.exceptions import NoCredentialsError
    from retrieval_core.errors import BackendUnavailableError

    assert "no AWS credentials" in (expected_failure(NoCredentialsError()) or "")
    assert "stopped answering" in (expected_failure(BackendUnavailableError("opensearch down")) or "")
    assert expected_failure(KeyError("bug")) is None
    assert start_command({"STACK_OPENSEARCH_PORT": 9200}) == f"make -C {REPO} up"
