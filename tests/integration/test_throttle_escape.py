"""No token shape escapes its tier under `retrieval serve --tiers dev/tiers.json` (initech is basic: a
burst of 2, 1 request a second): a token with an empty or malformed member is a 401 every time, and a
multi-context token selecting initech with X-Context-Id is throttled as initech, and a selection outside
the token is a 403 every time that spends no bucket. Each of the first two was served 20 of 20 before
(issue 52)."""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest
from cli_process import json_call, serving
from retrieval_dev.cli.tiers import TIERS

from tests.processes import REPO

FLOOD = 20
BASIC = TIERS["basic"]


@pytest.fixture(scope="module")
def base_url(stack_settings: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("serve-tiers")
    tiers = json.loads((REPO / "dev" / "tiers.json").read_text()) | {"default_tier": "standard"}
    tiers["contexts"] |= {"ab": "basic", "ab--": "basic", "home-basic": "basic"}
    (folder / "tiers.json").write_text(json.dumps(tiers))
    log = folder / "serve.log"
    args = ["serve", "--tiers", str(folder / "tiers.json")]
    with serving(args, log, os.environ | stack_settings.to_env()) as url:
        yield url


def _flood(base_url: str, headers: dict[str, str]) -> tuple[Counter[int], float]:
    """FLOOD retrieve calls with an empty body (a 422 from the function when admitted: no backend is
    read), their statuses and the seconds they took."""
    started = time.monotonic()
    statuses = Counter(
        json_call(f"{base_url}/v1/retrieve", "POST", headers | {"Content-Type": "application/json"}, {})[0]
        for _ in range(FLOOD)
    )
    return statuses, time.monotonic() - started


def _most_admitted(seconds: float) -> int:
    return BASIC.burst + int(BASIC.rate_per_second * seconds) + 1


@pytest.mark.parametrize("token", ["Bearer dev:,initech", "Bearer dev:initech,", "Bearer dev:acme,,initech"])
def test_a_token_with_an_empty_member_is_refused_every_time(base_url: str, token: str) -> None:
    statuses, _ = _flood(base_url, {"Authorization": token})
    assert statuses == Counter({401: FLOOD})


def test_x_context_id_is_throttled_as_the_context_it_selects(base_url: str) -> None:
    headers = {"Authorization": "Bearer dev:acme,initech", "X-Context-Id": "initech"}
    statuses, seconds = _flood(base_url, headers)
    assert set(statuses) <= {422, 429}
    assert statuses[422] <= _most_admitted(seconds)
    assert statuses[429] == FLOOD - statuses[422]


def test_a_selection_outside_the_token_is_denied_every_time_and_spends_no_bucket(base_url: str) -> None:
    # initech is not the token's: denied (403) before the meter, as the deployed authorizer denies it, so
    # neither initech's bucket nor the token's home's (a basic context) is spent.
    statuses, _ = _flood(base_url, {"Authorization": "Bearer dev:home-basic", "X-Context-Id": "initech"})
    assert statuses == Counter({403: FLOOD})
    headers = {"Authorization": "Bearer dev:home-basic", "Content-Type": "application/json"}
    assert [json_call(f"{base_url}/v1/retrieve", "POST", headers, {})[0] for _ in range(BASIC.burst)] == [
        422
    ] * BASIC.burst


def _signed(url: str, body: bytes) -> dict[str, str]:
    """SigV4 headers of a dev IAM caller (``dev-acme``), as boto3 signs a Bedrock call."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    from retrieval_dev.cli.sigv4 import dev_credentials

    request = AWSRequest("POST", url, data=body, headers={"Content-Type": "application/json"})
    SigV4Auth(Credentials(*dev_credentials("acme")), "bedrock", "us-east-1").add_auth(request)
    return dict(request.headers)


def test_every_route_is_metered_or_refused_cleanly(base_url: str) -> None:
    # The IAM routes carry no authorizer: RetrieveAndGenerate's were metered as a token route's and
    # answered 500 (TypeError in usage_gate.metered_context) to a correctly signed call.
    from retrieval_dev.serving import routes

    answers = {}
    for method, _, _, resource in routes.ROUTES:
        path = re.sub(r"\{[^}]+\}", "acme", resource)
        body = b"{}" if method == "POST" else None
        if resource in routes.SIGV4_RESOURCES:
            headers = _signed(base_url + path, body or b"")
        else:
            headers = {"Authorization": "Bearer dev:acme", "Content-Type": "application/json"}
        request = Request(base_url + path, data=body, method=method, headers=headers)
        try:
            with urlopen(request, timeout=60) as response:
                answers[f"{method} {resource}"] = response.status
        except HTTPError as error:
            answers[f"{method} {resource}"] = error.code
    assert len(answers) == len(routes.ROUTES)
    assert {route: status for route, status in answers.items() if status >= 500} == {}


def test_the_home_of_the_same_token_keeps_its_own_tier(base_url: str) -> None:
    statuses, _ = _flood(base_url, {"Authorization": "Bearer dev:acme,initech", "X-Context-Id": "acme"})
    assert statuses == Counter({422: FLOOD})  # premium: a burst far above 20


def test_a_short_context_and_its_spelled_out_padding_are_two_buckets(base_url: str) -> None:
    # Both on basic: spending "ab--" (it was "ab"'s own key) must leave "ab" its whole burst.
    spent, _ = _flood(base_url, {"Authorization": "Bearer dev:ab--"})
    assert spent[429] > 0
    headers = {"Authorization": "Bearer dev:ab", "Content-Type": "application/json"}
    first = [json_call(f"{base_url}/v1/retrieve", "POST", headers, {})[0] for _ in range(BASIC.burst)]
    assert first == [422] * BASIC.burst
