# The two commands a newcomer needs: `make test` and `make demo`. Everything else is a building block.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | md5sum | cut -c1-8)
SCALE ?= small

.PHONY: install up up-cluster down test unit demo bench eval lint format typecheck check-prereqs test-cluster fuzz

check-prereqs:
	@bash dev/check_prereqs.sh

$(STAMP): pyproject.toml
	@bash dev/check_prereqs.sh python
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --upgrade pip
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
	@test -x $(PY) && $(PY) -m dev.stack down || true

lint: install
	@$(VENV)/bin/ruff check .
	@$(VENV)/bin/ruff format --check .
	@$(VENV)/bin/cfn-lint template.yaml
	@$(MAKE) --no-print-directory typecheck

# mypy strict on the runtime package and on every function's handler (one run each: they are all
# `app.py`, which one mypy run would take for one module); the test fakes are checked against their ports.
typecheck: install
	@$(VENV)/bin/mypy
	@for handler in functions/*/app.py; do $(VENV)/bin/mypy --no-error-summary $$handler || exit 1; done
	@MYPYPATH=shared:tests/unit $(VENV)/bin/mypy --follow-imports=silent tests/unit/port_conformance.py

# Fast feedback: the unit tests only (in-memory fakes, no stack), in seconds.
unit: install
	@$(PY) -m pytest tests/unit -q

# The hostile-input fuzz (tests/unit/test_fuzz_hostile_strings.py) as a long campaign: `make test` runs
# its fixed-seed sample of 300 examples per route; FUZZ_EXAMPLES=N sets the campaign's size.
fuzz: install
	@FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-20000} $(PY) -m pytest tests/unit/test_fuzz_hostile_strings.py -q

format: install
	@$(VENV)/bin/ruff format .
	@$(VENV)/bin/ruff check --fix .

# Installs, starts the stack, runs every test, and always stops the stack; exits non-zero on any failure.
test: install sam-install check-prereqs
	@$(PY) -m dev.stack up
	@status=0; \
	  $(MAKE) --no-print-directory lint || status=$$?; \
	  $(PY) -m pytest $(PYTEST_ARGS) || status=$$?; \
	  $(PY) -m dev.stack down; \
	  exit $$status

demo: install check-prereqs
	@$(PY) -m dev.stack up
	@status=0; $(VENV)/bin/retrieval demo || status=$$?; \
	  [ -n "$(KEEP)" ] || $(PY) -m dev.stack down; exit $$status

# Quality on Cranfield (dev queries) through the real handler; QUERIES=... QRELS=... evaluate another pair.
# Then auto beside hybrid on the judged agent questions over the sample corpus (data/agent-questions).
eval: install check-prereqs
	@$(PY) -m dev.stack up
	@status=0; $(VENV)/bin/retrieval eval $(if $(QUERIES),--queries $(QUERIES)) $(if $(QRELS),--qrels $(QRELS)) \
	  || status=$$?; $(VENV)/bin/retrieval eval-questions || status=$$?; \
	  [ -n "$(KEEP)" ] || $(PY) -m dev.stack down; exit $$status

# The node-loss test in its full form (a larger load, the killed node restarted and rejoining); its
# reduced form runs in `make test`. docs/CLUSTER.md.
test-cluster: install check-prereqs
	@$(PY) -m dev.stack up
	@status=0; RETRIEVAL_CLUSTER_FULL=1 $(PY) -m pytest -s tests/integration/test_node_loss.py || status=$$?; \
	  [ -n "$(KEEP)" ] || $(PY) -m dev.stack down; exit $$status

# Starts the stack, sizes a fresh `sam build` (skipped with NO_PACKAGE=1), measures at SCALE
# (small|medium|large; see docs/PERFORMANCE.md) and stops the stack unless KEEP=1. Report on stdout and in .bench/.
BENCH_SAM_DIR := .bench/sam-build
bench: install check-prereqs
	@$(PY) -m dev.stack up
	@status=0; \
	  mkdir -p .bench; if [ -z "$(NO_PACKAGE)" ]; then \
	    $(MAKE) --no-print-directory sam-build SAM_BUILD_DIR=$(BENCH_SAM_DIR) >.bench/sam-build.log 2>&1 \
	      || echo "sam build failed (see .bench/sam-build.log): package sizes not measured" >&2; \
	  fi; \
	  $(PY) -m bench --scale $(SCALE) --sam-build-dir $(BENCH_SAM_DIR) || status=$$?; \
	  [ -n "$(KEEP)" ] || $(PY) -m dev.stack down; exit $$status

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
