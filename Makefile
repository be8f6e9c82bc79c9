# The two commands: `make run` serves the whole product locally, `make test` runs every check.
# Both work on a fresh machine: they create the virtual environment and install what they need.

SHELL := /bin/bash
.DEFAULT_GOAL := help
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
SAM_ENV := .tools/sam
SAM := $(SAM_ENV)/bin/sam
SAM_CLI_VERSION := 1.170.0
export SAM_CLI_TELEMETRY := 0
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: help run test lint typecheck unit sam-check browsers bench soak crash fuzz clean

help:
	@echo "make run    - start the local stack (API, GraphQL, admin pages, webhook delivery)"
	@echo "make test   - install everything the tests need and run them all"
	@echo "make bench  - run the benchmarks and print the table"
	@echo "make soak   - run the bounded soak test"
	@echo "make crash  - kill the local stack at random moments and prove nothing is lost"
	@echo "make fuzz   - run the fuzzers long (200 examples per operation; make test runs them short)"
	@echo "make lint   - ruff and mypy only"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.local-installed: pyproject.toml layers/core/requirements.txt | $(PY)
	$(PY) -m pip install -q -e '.[local]'
	touch $@

$(VENV)/.dev-installed: pyproject.toml layers/core/requirements.txt | $(PY)
	$(PY) -m pip install -q -e '.[dev]'
	touch $@ $(VENV)/.local-installed

# The SAM CLI pins older boto3 and pydantic than the app, so it lives in its own environment.
$(SAM):
	$(PYTHON) -m venv $(SAM_ENV)
	$(SAM_ENV)/bin/pip install -q 'aws-sam-cli==$(SAM_CLI_VERSION)'

run: $(VENV)/.local-installed
	$(PY) -m infra.local_stack

# Debian's Chromium for the Playwright tests (Playwright cannot download browsers here).
browsers:
	@if [ ! -x /usr/bin/chromium ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	fi

lint: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

sam-check: $(SAM)
	$(SAM) validate --lint --region us-east-1
	$(SAM) build --build-dir .aws-sam/build --cache-dir .aws-sam/cache

# Two workers, each with its own local stack; a test file stays on one worker (module fixtures).
test: $(VENV)/.dev-installed browsers lint sam-check
	$(PY) -m pytest -n 2 --dist loadfile

bench: $(VENV)/.dev-installed
	$(PY) -m bench

soak: $(VENV)/.dev-installed
	$(PY) -m bench.soak

crash: $(VENV)/.dev-installed
	$(PY) -m bench.crash

fuzz: $(VENV)/.dev-installed
	FUZZ_EXAMPLES=200 $(PY) -m pytest tests/fuzz

clean:
	rm -rf .aws-sam .mypy_cache .ruff_cache .pytest_cache test-output
