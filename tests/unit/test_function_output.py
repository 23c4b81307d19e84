"""How a locally invoked handler's output reaches the user: logs on stderr, metric lines only if asked."""

from __future__ import annotations

import argparse
import io
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from retrieval_dev.cli import invoke as invoke_command
from retrieval_dev.cli.events import api_event
from retrieval_dev.cli.lambda_runtime import (
    FunctionOutput,
    invoke,
    is_metric_line,
    lambda_environment,
    show_metrics,
)

METRIC = '{"_aws":{"Timestamp":1,"CloudWatchMetrics":[]},"service":"retrieve","Retrieve_hybrid":[1.0]}'


def test_metric_lines_go_to_the_metrics_sink_and_everything_else_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    output, sink = FunctionOutput(), io.StringIO()
    output.metrics = sink
    output.write(METRIC)  # print() writes the text and its newline separately
    output.write("\n")
    output.write('{"level":"WARNING","message":"backend slow"}\nplain text\n{"_aws" is not json\n')
    output.write('["_aws"]\nunfinished')
    output.flush()
    assert sink.getvalue() == METRIC + "\n"
    assert capsys.readouterr() == (
        "",
        '{"level":"WARNING","message":"backend slow"}\nplain text\n{"_aws" is not json\n["_aws"]\nunfinished',
    )


def test_without_a_sink_metric_lines_are_dropped(capsys: pytest.CaptureFixture[str]) -> None:
    output = FunctionOutput()
    output.write(f"{METRIC}\nlog line\n")
    assert capsys.readouterr() == ("", "log line\n")
    assert is_metric_line(METRIC) and not is_metric_line("log line")


@pytest.fixture()
def handler_environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # Loading a handler module sets Lambda's environment variables; keep them out of other tests.
    for key, value in lambda_environment("graph_path").items():
        monkeypatch.setenv(key, os.environ.get(key, value))
    yield
    show_metrics(False)


def _unauthenticated() -> dict[str, Any]:
    """Refused before any backend is touched, and counted as a client error."""
    event = api_event("GET", "/v1/graph/path", "acme", query={"from": "acme:a", "to": "acme:b"})
    event["requestContext"]["authorizer"] = None
    return event


def test_a_real_handler_metric_is_shown_only_when_asked(
    handler_environment: None, capsys: pytest.CaptureFixture[str]
) -> None:
    show_metrics(False)
    assert invoke("graph_path", _unauthenticated())["statusCode"] == 401
    quiet = capsys.readouterr()
    assert '"_aws"' not in quiet.out + quiet.err

    show_metrics(True)
    assert invoke("graph_path", _unauthenticated())["statusCode"] == 401
    shown = capsys.readouterr()
    assert shown.out == ""
    [line] = [line for line in shown.err.splitlines() if is_metric_line(line)]
    assert json.loads(line)["ClientErrors"] == [1.0]


def test_invoke_from_stdin_answers_each_event_with_one_line_and_stops_at_a_line_that_is_not_json(
    handler_environment: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    event = json.dumps(_unauthenticated())
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{event}\n\n{event}\n{{not json\n{event}\n"))
    args = argparse.Namespace(function="graph_path", event="-", body=False, show_metrics=False)
    assert invoke_command.run(args) == 2
    out, err = capsys.readouterr()
    answers = [json.loads(line) for line in out.splitlines()]
    # the blank line is skipped, and the event after the line that is not JSON is not run
    assert [answer["statusCode"] for answer in answers] == [401, 401]
    assert "stdin line 4 is not one JSON event" in err
