"""``retrieval knowledge-base create --context C`` and ``retrieval knowledge-base list``: the ten-character
ids under which contexts are served as Bedrock knowledge bases (SSM parameters under the deployment's
``RETRIEVAL_KNOWLEDGE_BASE_PARAMETER_PATH``; locally the dev stack's moto, after ``make up``).

``create`` is idempotent: a context that has an id keeps it, and the command prints it either way.
``grant --context C --principal ARN`` lists C's knowledge base for an IAM user or role, so that its
``ListKnowledgeBases`` answers it (IAM itself decides what it may call: docs/BEDROCK.md).
"""

from __future__ import annotations

import argparse
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser("create", help="Print the context's knowledge base id, made on first use.")
    create.add_argument("--context", required=True, help="The context to serve (e.g. acme).")
    actions.add_parser("list", help="Print every knowledge base id and the context it serves.")
    grant = actions.add_parser("grant", help="List the context's knowledge base for an IAM principal.")
    grant.add_argument("--context", required=True, help="The context whose knowledge base to list.")
    grant.add_argument("--principal", required=True, help="The IAM user's or role's ARN.")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from botocore.exceptions import BotoCoreError, ClientError
    from retrieval_core.adapters.ssm_knowledge_bases import SsmKnowledgeBases
    from retrieval_core.context import CONTEXT_ID_PATTERN

    from .environment import local_settings, use_local_stack_env

    use_local_stack_env()
    settings = local_settings()
    directory = SsmKnowledgeBases(settings.knowledge_base_parameter_path, settings.aws_region)
    try:
        if args.action == "create":
            if not CONTEXT_ID_PATTERN.fullmatch(args.context):
                print("retrieval knowledge-base: --context must be a context id (e.g. acme)", file=sys.stderr)
                return 2
            print(directory.create(args.context))
        elif args.action == "grant":
            if not CONTEXT_ID_PATTERN.fullmatch(args.context):
                print("retrieval knowledge-base: --context must be a context id (e.g. acme)", file=sys.stderr)
                return 2
            knowledge_base_id = directory.create(args.context)
            try:
                directory.grant(args.principal, knowledge_base_id)
            except ValueError as refused:
                print(f"retrieval knowledge-base: {refused}", file=sys.stderr)
                return 2
            print(knowledge_base_id)
        else:
            for knowledge_base_id, context_id in directory.served().items():
                print(f"{knowledge_base_id}\t{context_id}")
    except (BotoCoreError, ClientError) as error:
        print(f"retrieval knowledge-base: SSM refused or did not answer: {error}", file=sys.stderr)
        return 3
    return 0
