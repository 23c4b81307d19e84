# The two commands a newcomer needs: `make test` and `make demo`. Everything else is a building block.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | md5sum | cut -c1-8)
SCALE ?= small

.PHONY: install up down test demo bench eval lint format check-prereqs

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

down:
	@test -x $(PY) && $(PY) -m dev.stack down || true

lint: install
	@$(VENV)/bin/ruff check .
	@$(VENV)/bin/ruff format --check .

format: install
	@$(VENV)/bin/ruff format .
	@$(VENV)/bin/ruff check --fix .

# Installs, starts the stack, runs every test, and always stops the stack; exits non-zero on any failure.
test: install check-prereqs
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
