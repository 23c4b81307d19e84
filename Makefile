# The two commands a newcomer needs: `make test` and `make demo`. Everything else is a building block.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | md5sum | cut -c1-8)
SCALE ?= small

.PHONY: install up up-cluster down test unit demo bench sync-check docs-check eval lint format typecheck check-prereqs \
  test-cluster test-latest-clients load fuzz

check-prereqs:
	@bash dev/check_prereqs.sh

$(STAMP): pyproject.toml
	@bash dev/check_prereqs.sh python
	@echo "installing the dev environment into $(VENV) (pyproject.toml changed or first run; about a minute):"
	@test -x $(PY) || { echo "  a virtual environment ($(PYTHON) -m venv $(VENV))"; $(PYTHON) -m venv $(VENV); }
	@echo "  pip itself (upgrade)"
	@$(PY) -m pip install --quiet --upgrade pip
	@echo "  the project, editable, with its dev tools: $$($(PY) -c 'import re, tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; print(", ".join(sorted({re.split(r"[<>=!~\[; ]", d)[0] for d in p["dependencies"] + p["optional-dependencies"]["dev"]})))')"
	@$(PY) -m pip install --quiet -e '.[dev]'
	@rm -f $(VENV)/.installed-* && touch $@
	@echo "installed dev environment into $(VENV)"

install: $(STAMP)

up: install check-prereqs
	@$(PY) -m dev.stack up

# Three OpenSearch nodes (one replica per shard, zones a/b/c) instead of one: docs/CLUSTER.md.
up-cluster: install check-prereqs
	@STACK_OPENSEARCH_NODES=3 $(PY) -m dev.stack up

down:
	@bash dev/workbench.sh stop
	@test -x $(PY) && $(PY) -m dev.stack down || true

lint: install
	@$(VENV)/bin/ruff check .
	@$(VENV)/bin/ruff format --check .
	@$(VENV)/bin/cfn-lint template.yaml
	@$(MAKE) --no-print-directory typecheck

# mypy strict on the runtime package and on every function's handler (one run each: they are all
# `app.py`, which one mypy run would take for one module); the test fakes are checked against their ports,
# and the bench (whose figures the docs quote) is checked too.
typecheck: install
	@$(VENV)/bin/mypy
	@for handler in functions/*/app.py; do $(VENV)/bin/mypy --no-error-summary $$handler || exit 1; done
	@MYPYPATH=shared:tests/unit $(VENV)/bin/mypy --follow-imports=silent tests/unit/port_conformance.py
	@MYPYPATH=shared $(VENV)/bin/mypy --follow-imports=silent --no-error-summary bench

# Fast feedback: the unit tests only (in-memory fakes, no stack), in seconds.
unit: install
	@$(PY) -m pytest tests/unit -q

# The hostile-input fuzz (tests/unit/test_fuzz_hostile_strings.py) as a long campaign: `make test` runs
# its fixed-seed sample of 300 examples per route; FUZZ_EXAMPLES=N sets the campaign's size.
# The documents campaign (tests/unit/fuzz_documents.py, never in `make test`): random files, sidecars and
# names through the ingest use case and the sync's name checks; FUZZ_DOCUMENT_EXAMPLES=N sets its size.
# The crash matrix (tests/integration/fuzz_crash_matrix.py, on the stack it starts and stops): `retrieval
# load` and `retrieval sync` SIGKILLed at CRASH_POINTS seeded points (CRASH_SEED), a CRASH_NOTES-item update.
fuzz: install
	@FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-20000} $(PY) -m pytest tests/unit/test_fuzz_hostile_strings.py -q
	@FUZZ_DOCUMENT_EXAMPLES=$${FUZZ_DOCUMENT_EXAMPLES:-2000} $(PY) -m pytest tests/unit/fuzz_documents.py -q
	@$(PY) -m dev.stack up
	@status=0; $(PY) -m pytest tests/integration/fuzz_crash_matrix.py -q -m long || status=$$?; \
	  $(PY) -m dev.stack down; \
	  exit $$status

format: install
	@$(VENV)/bin/ruff format .
	@$(VENV)/bin/ruff check --fix .

# Installs, starts the stack, runs every test, and always stops the stack; exits non-zero on any failure.
test: install sam-install check-prereqs
	@$(PY) -m dev.stack up
	@status=0; bash dev/run_tests.sh $(PY) $(PYTEST_ARGS) || status=$$?; \
	  $(PY) -m dev.stack down; \
	  exit $$status

# KEEP=1 leaves the stack running and starts the workbench (`retrieval serve`) on WORKBENCH_PORT.
WORKBENCH_PORT ?= 3000
demo: install check-prereqs
	@$(PY) -m dev.stack up
	@status=0; $(VENV)/bin/retrieval demo || status=$$?; \
	  if [ -z "$(KEEP)" ]; then $(PY) -m dev.stack down; \
	  elif [ $$status -eq 0 ]; then bash dev/workbench.sh start $(WORKBENCH_PORT) || status=$$?; fi; \
	  exit $$status

# Quality through the real handler: every configuration of evaluation/compare.py on Cranfield's dev half,
# CACM, the multi-hop sets (multihop/<set>/beir, as pages) and the agent questions, in one multi-collection
# table (docs/QUALITY.md), then auto beside hybrid
# on the agent questions. QUERIES=... QRELS=... [DOCUMENTS=...] or BEIR=DIR [SPLIT=test] evaluate one
# other collection instead of the suite (AS_FILES=1: as files, a BEIR corpus as Markdown pages, and auto
# measured too: the multi-hop sets, docs/QUALITY.md). Embeddings are cached in .eval/embeddings.sqlite. The collections
# are read from ../shared/data beside the checkout (never committed); DATA=DIR or RETRIEVAL_EVAL_DATA=DIR
# names another folder holding cranfield/, cacm/ and optionally multihop/ (`retrieval eval` itself has no
# default folder).
EVAL_DATA = $(or $(DATA),$(RETRIEVAL_EVAL_DATA),../shared/data)
eval: install check-prereqs
	@$(PY) -m dev.stack up
	@status=0; \
	  if [ -n "$(QUERIES)$(BEIR)" ]; then \
	    $(VENV)/bin/retrieval eval $(if $(BEIR),--beir $(BEIR) --split $(or $(SPLIT),test)) --data $(EVAL_DATA) \
	      $(if $(DOCUMENTS),--documents $(DOCUMENTS)) $(if $(QUERIES),--queries $(QUERIES)) \
	      $(if $(QRELS),--qrels $(QRELS)) $(if $(AS_FILES),--as-files --modes lexical vector hybrid auto) \
	      || status=$$?; \
	  else \
	    $(VENV)/bin/retrieval eval --suite --data $(EVAL_DATA) || status=$$?; \
	    $(VENV)/bin/retrieval eval-questions || status=$$?; \
	  fi; \
	  [ -n "$(KEEP)" ] || $(PY) -m dev.stack down; exit $$status

# The node-loss test in its full form (a larger load, the killed node restarted and rejoining); its
# reduced form runs in `make test`. docs/CLUSTER.md.
test-cluster: install check-prereqs
	@$(PY) -m dev.stack up
	@status=0; RETRIEVAL_CLUSTER_FULL=1 $(PY) -m pytest -s tests/integration/test_node_loss.py || status=$$?; \
	  [ -n "$(KEEP)" ] || $(PY) -m dev.stack down; exit $$status

# Starts the stack, sizes a fresh `sam build` (skipped with NO_PACKAGE=1), measures at SCALE
# (small|medium|large|xlarge; see docs/PERFORMANCE.md) and stops the stack unless KEEP=1. Report on stdout and
# in .bench/. ONLY="filtered vectors" runs only those sections; RESUME=1 skips the sections a stopped run of
# the same scale saved (.bench/partial-SCALE.json); VECTORS=int8 loads int8 (sq) vectors instead of fp32.
# The sections knn (k-NN parameters) and int8 (the fp32 index rebuilt into sq) run last: they rebuild the index.
BENCH_SAM_DIR := .bench/sam-build
bench: install check-prereqs
	@$(PY) -m dev.stack up
	@status=0; \
	  mkdir -p .bench; if [ -z "$(NO_PACKAGE)" ]; then \
	    $(MAKE) --no-print-directory sam-build SAM_BUILD_DIR=$(BENCH_SAM_DIR) >.bench/sam-build.log 2>&1 \
	      || echo "sam build failed (see .bench/sam-build.log): package sizes not measured" >&2; \
	  fi; \
	  $(PY) -m bench --scale $(SCALE) --sam-build-dir $(BENCH_SAM_DIR) $(if $(ONLY),--only $(ONLY)) \
	    $(if $(RESUME),--resume) $(if $(VECTORS),--vectors $(VECTORS)) $(if $(DOCUMENTS_ONLY),--documents-only) \
	    || status=$$?; \
	  [ -n "$(KEEP)" ] || $(PY) -m dev.stack down; exit $$status

# `retrieval sync` on a generated folder of FILES text files with sidecars, a PDF and a corrupt PDF, then an
# edit and a removal (bench/documents_sync.py; docs/DOCUMENTS.md, "A few thousand files"): checks every promise
# and reports files/s; the first sync stops at MAX_SECONDS. Stops the stack unless KEEP=1.
FILES ?= 2500
MAX_SECONDS ?= 1800
sync-check: install check-prereqs
	@$(PY) -m dev.stack up
	@status=0; $(PY) -m bench.documents_sync --files $(FILES) --max-seconds $(MAX_SECONDS) || status=$$?; \
	  [ -n "$(KEEP)" ] || $(PY) -m dev.stack down; exit $$status

# A real documentation folder (Sphinx's manual from Debian's sphinx-doc, fetched by retrieval_dev/evaluation/debian_docs.py into the
# git-ignored .cache/debian-docs/) synced off a terminal, then checked: exit 0, no failed page (navigation-only
# pages skipped), five hits' citations open (the file exists, the anchor is in it); docs/DOCUMENTS.md, "A real
# documentation folder". Opt-in: minutes of CPU. Record in .cache/debian-docs/check.json. Stops the stack unless KEEP=1.
docs-check: install check-prereqs
	@$(PY) -m retrieval_dev.evaluation.debian_docs >/dev/null
	@$(PY) -m dev.stack up
	@status=0; $(PY) -m dev.docs_check || status=$$?; \
	  [ -n "$(KEEP)" ] || $(PY) -m dev.stack down; exit $$status

# Fair share under load (docs/FAIRSHARE.md): quiet tenants alone, then beside a tenant flooding at many
# times its tier, against `retrieval serve --tiers` on the real stack (loopback only, about 70 s). Report on
# stdout and in .bench/load-<time>.json; LOAD_ARGS passes options (e.g. --rounds 5). Stops the stack unless KEEP=1.
load: install check-prereqs
	@$(PY) -m dev.stack up
	@status=0; $(PY) -m bench.load $(LOAD_ARGS) || status=$$?; \
	  [ -n "$(KEEP)" ] || $(PY) -m dev.stack down; exit $$status

# The Bedrock client tests against the newest clients on PyPI, not the pinned ones, so an upstream
# service-model change fails here before it fails a user (docs/BEDROCK.md). Each environment is made
# anew every run: boto3, botocore, langchain-aws and the AWS CLI (v1) at their newest beside the repo;
# LlamaIndex alone (its aioboto3 pins an older botocore); Strands (strands-agents, strands-agents-tools:
# an agent's memory through bedrock-agent) alone. `make test` stays pinned.
LATEST_VENV := .venv-latest-clients
LLAMA_VENV := .venv-latest-llamaindex
STRANDS_VENV := .venv-latest-strands
LATEST_PORT ?= 3099
test-latest-clients: install check-prereqs
	@rm -rf $(LATEST_VENV) $(LLAMA_VENV) $(STRANDS_VENV)
	@$(PYTHON) -m venv $(LATEST_VENV) && $(PYTHON) -m venv $(LLAMA_VENV) && $(PYTHON) -m venv $(STRANDS_VENV)
	@$(LATEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	@$(LATEST_VENV)/bin/python -m pip install --quiet -e '.[dev]'
	@$(LATEST_VENV)/bin/python -m pip install --quiet --upgrade boto3 botocore langchain-aws awscli 2>&1 \
	  | grep -v "dependency conflicts\|requires boto\|incompatible" || true
	@$(LLAMA_VENV)/bin/python -m pip install --quiet --upgrade pip
	@$(LLAMA_VENV)/bin/python -m pip install --quiet llama-index-retrievers-bedrock pytest
	@$(STRANDS_VENV)/bin/python -m pip install --quiet --upgrade pip
	@$(STRANDS_VENV)/bin/python -m pip install --quiet strands-agents strands-agents-tools boto3 pytest
	@echo "newest clients:"; $(LATEST_VENV)/bin/python -m pip list 2>/dev/null \
	  | grep -iE '^(boto3|botocore|langchain-aws|awscli) '; $(LLAMA_VENV)/bin/python -m pip list 2>/dev/null \
	  | grep -iE '^(llama-index-retrievers-bedrock|boto3|botocore) '; $(STRANDS_VENV)/bin/python -m pip list \
	  2>/dev/null | grep -iE '^(strands-agents|strands-agents-tools|boto3) '
	@$(PY) -m dev.stack up
	@status=0; $(VENV)/bin/retrieval load dev/sample/corpus.jsonl >/dev/null || status=$$?; \
	  $(VENV)/bin/retrieval serve --port $(LATEST_PORT) >.stack/serve-latest-clients.log 2>&1 & serve=$$!; \
	  for _ in $$(seq 100); do curl -s -o /dev/null 127.0.0.1:$(LATEST_PORT) && break; sleep 0.2; done; \
	  $(LATEST_VENV)/bin/python -m pytest -q tests/integration/test_bedrock_clients.py || status=$$?; \
	  RETRIEVAL_SERVE_URL=http://127.0.0.1:$(LATEST_PORT) $(LATEST_VENV)/bin/python -m pytest -q \
	    -o addopts=-ra tests/latest_clients/test_aws_cli.py || status=$$?; \
	  RETRIEVAL_SERVE_URL=http://127.0.0.1:$(LATEST_PORT) $(LLAMA_VENV)/bin/python -m pytest -q \
	    -o addopts=-ra -p no:cacheprovider tests/latest_clients/test_llamaindex.py || status=$$?; \
	  RETRIEVAL_SERVE_URL=http://127.0.0.1:$(LATEST_PORT) $(STRANDS_VENV)/bin/python -m pytest -q \
	    -o addopts=-ra -p no:cacheprovider tests/latest_clients/test_strands_memory.py || status=$$?; \
	  kill $$serve; [ -n "$(KEEP)" ] || $(PY) -m dev.stack down; exit $$status

# --- SAM CLI (own venv: its pins conflict with ours) -------------------------------------------------
SAM_VENV := .venv-sam
SAM := $(SAM_VENV)/bin/sam
SAM_VERSION := 1.170.0
SAM_STAMP := $(SAM_VENV)/.installed-$(SAM_VERSION)
SAM_BUILD_DIR ?= .aws-sam/build
# The SAM venv runs on the Lambda runtime's Python, so `sam build` finds a matching python3.12 on PATH.
SAM_PYTHON ?= $(firstword $(wildcard $(HOME)/.pyenv/versions/3.12*/bin/python3.12) python3.12)
SAM_RUN := PATH="$(abspath $(SAM_VENV))/bin:$$PATH" SAM_CLI_TELEMETRY=0 $(SAM)

.PHONY: sam-install sam-validate sam-build

$(SAM_STAMP):
	@test -x $(SAM_VENV)/bin/python3.12 || $(SAM_PYTHON) -m venv $(SAM_VENV)
	@$(SAM_VENV)/bin/python -m pip install --quiet --upgrade pip
	@$(SAM_VENV)/bin/python -m pip install --quiet aws-sam-cli==$(SAM_VERSION)
	@rm -f $(SAM_VENV)/.installed-* && touch $@
	@echo "installed SAM CLI $(SAM_VERSION) into $(SAM_VENV)"

sam-install: $(SAM_STAMP)

sam-validate: sam-install
	@$(SAM_RUN) validate --lint --region us-east-1

sam-build: sam-install
	@$(SAM_RUN) build --region us-east-1 --build-dir $(SAM_BUILD_DIR)
