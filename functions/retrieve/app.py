"""retrieve: POST /v1/retrieve, GET /v1/sessions/{session_id}, the caller's ingested files' statuses (GET
/v1/documents, GET /v1/documents/{key}) and Bedrock Knowledge Bases' Retrieve
(POST /knowledgebases/{knowledgeBaseId}/retrieve; RetrieveAndGenerate and its stream answer what to do
instead), or a direct (IAM-trusted) invocation."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Annotated, cast
from urllib.parse import unquote

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query
from retrieval_core.bootstrap import container
from retrieval_core.context import CallerContext
from retrieval_core.documents.listing import MAX_KEY_CHARS, DocumentList, list_request
from retrieval_core.documents.status import DocumentStatus
from retrieval_core.entrypoints.api import (
    api_function,
    current_caller,
    door_validated,
    lambda_entry,
    model_response,
    serialised,
    validated_body,
)
from retrieval_core.entrypoints.bedrock import route as knowledge_base
from retrieval_core.entrypoints.direct import DirectInvocation
from retrieval_core.entrypoints.snapstart import refreshed, register, warm_routes
from retrieval_core.entrypoints.wire import IDEMPOTENCY_HEADER, SESSION_HEADER, answer_json, header_values
from retrieval_core.policy import SessionView
from retrieval_core.retrieval.requests import (
    SERVED_MODES,
    RetrieveRequest,
    checked_idempotency_key,
    checked_session_id,
)
from retrieval_core.retrieval.responses import RetrieveResponse

tools, app = api_function()


class _ServedModes(Mapping[str, tuple[str, ...]]):
    """The modes the current container serves beyond the public ones, and their needs: read only when a
    request names a mode outside ``Mode`` (``retrieval.modes``), so a public mode's request costs nothing."""

    def __getitem__(self, mode: str) -> tuple[str, ...]:
        return container().modes.served_needs[mode]

    def __iter__(self) -> Iterator[str]:
        return iter(container().modes.served_needs)

    def __len__(self) -> int:
        return len(container().modes.served_needs)


SERVED = {SERVED_MODES: _ServedModes()}
"""A retrieve request's validation context."""


@app.post(
    "/v1/retrieve",
    responses=model_response(RetrieveResponse),
    enable_validation=False,
    middlewares=[validated_body(RetrieveRequest, "query", SERVED)],
)
def retrieve(query: RetrieveRequest) -> Response[str]:
    caller = current_caller(app)
    tools.logger.append_keys(mode=query.mode)
    # The raw event's headers: the event's ``headers`` property builds a case-insensitive copy per read.
    session_header, idempotency_header = header_values(
        app.current_event.raw_event.get("headers"), SESSION_HEADER, IDEMPOTENCY_HEADER
    )
    answer = container().retrieve.retrieve(
        caller.context,
        query,
        session_id=query.session_id or checked_session_id(session_header, SESSION_HEADER),
        claim_limit=caller.claim_session_limit,
        principal=caller.principal,
        idempotency_key=checked_idempotency_key(idempotency_header, IDEMPOTENCY_HEADER),
    )
    return serialised(_counted(answer))


@app.post(knowledge_base.ROUTE, responses=knowledge_base.RESPONSES)
def knowledge_base_retrieve(knowledgeBaseId: str) -> Response[str]:
    settings = container().settings
    base = knowledge_base.KnowledgeBase(
        retrieve=lambda *args, **kwargs: _counted(container().retrieve.retrieve(*args, **kwargs)),
        context_claim=settings.context_claim,
        default_mode=settings.knowledge_base_search_type,
        rerank_model=settings.rerank_model,
        context_of=container().knowledge_bases.context_of,
        region=settings.aws_region,
    )
    return knowledge_base.answer_retrieve(app.current_event.raw_event, knowledgeBaseId, base, tools.logger)


@app.post(knowledge_base.GENERATE_ROUTES[0], responses=knowledge_base.GENERATE_RESPONSES)
def retrieve_and_generate() -> Response[str]:
    return knowledge_base.generation_refused()


@app.post(knowledge_base.GENERATE_ROUTES[1], responses=knowledge_base.GENERATE_RESPONSES)
def retrieve_and_generate_stream() -> Response[str]:
    return knowledge_base.generation_refused()


@app.get("/v1/sessions/<session_id>")
def session(
    # Checked below, once decoded: API Gateway hands the path over percent-encoded (a ':' may come as
    # %3A). The OpenAPI document states the pattern (``retrieval openapi``).
    session_id: Annotated[str, Path(description="A session id.")],
) -> SessionView:
    caller = current_caller(app)
    # The route's regex captures "s" of "s\n" (its "$" matches before a final newline): check the raw value.
    raw = unquote((app.current_event.path_parameters or {}).get("session_id", session_id))
    view = container().policy.describe(
        context_id=caller.context.context_id,
        # Given a str, it returns the str (or raises the 422); its signature also admits an absent header.
        session_id=cast(str, checked_session_id(raw, "session_id")),
        claim_limit=caller.claim_session_limit,
        principal=caller.principal,
    )
    tools.count("SessionsDescribed")
    return view


@app.get("/v1/documents", responses=model_response(DocumentList))
def documents(
    prefix: Annotated[str, Query(max_length=MAX_KEY_CHARS, description="Keys starting with this.")] = "",
    limit: Annotated[
        str | None, Query(description="A whole number of at least 1, clamped to 100 (default 100).")
    ] = None,
    next_token: Annotated[
        str | None, Query(max_length=4 * MAX_KEY_CHARS, description="The previous page's next_token.")
    ] = None,
) -> Response[str]:
    request = list_request(prefix, limit, next_token)  # a malformed limit or token: 400 naming it
    listing = container().document_listing.list(current_caller(app).context.context_id, request)
    tools.count("DocumentsListed", len(listing.documents))
    return serialised(listing)


@app.get("/v1/documents/<key>", responses=model_response(DocumentStatus))
def document(
    key: Annotated[
        str, Path(description="The file's key relative to contexts/<context_id>/, '/' encoded as %2F.")
    ],
) -> Response[str]:
    # The path arrives as the client encoded it: decoded once here, '%2F' is a folder's '/'.
    status = container().document_listing.get(current_caller(app).context.context_id, unquote(key))
    tools.count("DocumentsDescribed")
    return serialised(status)


def _direct(context: CallerContext, invocation: DirectInvocation) -> RetrieveResponse:
    request = door_validated(RetrieveRequest, invocation.request, SERVED)
    tools.logger.append_keys(mode=request.mode)
    answer = container().retrieve.retrieve(
        context,
        request,
        session_id=invocation.session_id,
        idempotency_key=checked_idempotency_key(invocation.idempotency_key, "idempotency_key"),
    )
    return _counted(answer)


def _counted(response: RetrieveResponse) -> RetrieveResponse:
    tools.count(f"Retrieve_{response.mode}")
    return response


def _before_snapshot() -> None:
    """What the first request would build: the container's services and clients (the OpenSearch and
    DynamoDB clients, the embedder, the ranking pipeline, the paging key), the request and response
    models' first use, and the resolver's tables (by a request its validation refuses: nothing is read)."""
    _ = container().retrieve  # built, with everything it holds
    schema_extra = cast(dict[str, list[object]], RetrieveResponse.model_config.get("json_schema_extra"))
    answer_json(RetrieveResponse.model_validate(schema_extra["examples"][0]))
    warm_routes(app, [_refused_request()])


def _refused_request() -> dict[str, object]:
    return {
        "resource": "/v1/retrieve",
        "path": "/v1/retrieve",
        "httpMethod": "POST",
        "headers": {"Content-Type": "application/json"},
        "body": '{"mode": "lexical"}',  # no text: a 422 before the route runs
        "requestContext": {"resourcePath": "/v1/retrieve", "httpMethod": "POST", "stage": "live"},
    }


lambda_handler = lambda_entry(app, _direct, tools)
SNAPSTART_HOOKS = register(_before_snapshot, refreshed(tools.logger))
