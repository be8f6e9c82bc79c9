# The two commands: `make run` serves the whole product locally, `make test` runs every check.
# Both work on a fresh machine: they create the virtual environment and install what they need.

SHELL := /bin/bash
.DEFAULT_GOAL := help
PYTHON ?= $(shell command -v python3.11 || command -v python3)
PYTHON_NEEDED := 3.11
VENV := .venv
PY := $(VENV)/bin/python
SAM_ENV := .tools/sam
SAM := $(SAM_ENV)/bin/sam
SAM_CLI_VERSION := 1.170.0
CHECKOV_ENV := .tools/checkov
CHECKOV := $(CHECKOV_ENV)/bin/checkov
CHECKOV_VERSION := 3.3.30
export SAM_CLI_TELEMETRY := 0
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: help run test check unit lint sam-check checkov build browsers nginx varnish bench soak crash fuzz clean python-check

help:
	@echo "make run    - start the local stack (API, GraphQL, admin pages, webhook delivery)"
	@echo "make test   - install everything the tests need and run them all"
	@echo "make check  - the inner loop: lint, unit tests, the integration tests that need no browser or edge"
	@echo "make bench  - run the benchmarks, print the table, write docs/benchmarks.md's table"
	@echo "make soak   - run the bounded soak test"
	@echo "make crash  - kill the local stack at random moments and prove nothing is lost"
	@echo "make fuzz   - run the fuzzers long (200 examples per operation; make test runs them short)"
	@echo "make unit   - the quickest loop: lint and the unit tests (about a minute)"
	@echo "make lint   - ruff and mypy only"
	@echo "make build  - sam build: the Lambda artifacts in .aws-sam/build"

# pyproject.toml says requires-python ">=3.11,<3.12": say so, and what to install, before pip
# fails with its own message. An existing .venv made with another Python is named too.
python-check:
	@if [ -x $(PY) ]; then found=$(PY); else found="$(PYTHON)"; fi; \
	version=$$("$${found:-python3}" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null); \
	if [ "$$version" != "$(PYTHON_NEEDED)" ]; then \
		echo "This project needs Python $(PYTHON_NEEDED) (pyproject.toml); found $${version:-no Python} at $${found:-(none)}." >&2; \
		echo "Install Python $(PYTHON_NEEDED) with its venv module, for example:" >&2; \
		echo "  Debian/Ubuntu: sudo apt-get install python$(PYTHON_NEEDED) python$(PYTHON_NEEDED)-venv" >&2; \
		echo "  macOS:         brew install python@$(PYTHON_NEEDED)" >&2; \
		echo "  pyenv:         pyenv install $(PYTHON_NEEDED) && pyenv local $(PYTHON_NEEDED)" >&2; \
		echo "then run make again (or name it: make run PYTHON=/path/to/python$(PYTHON_NEEDED))." >&2; \
		if [ -x $(PY) ]; then echo "Remove the .venv made with Python $$version first: rm -rf $(VENV)" >&2; fi; \
		exit 1; \
	fi; \
	if [ ! -x $(PY) ] && ! "$$found" -c 'import ensurepip, venv' 2>/dev/null; then \
		echo "Python $(PYTHON_NEEDED) at $$found has no venv module: install python$(PYTHON_NEEDED)-venv (Debian/Ubuntu)." >&2; \
		exit 1; \
	fi

$(PY): | python-check
	@echo "==> creating the virtual environment $(VENV) (Python $(PYTHON_NEEDED): $(PYTHON))"
	@$(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -q --upgrade pip

$(VENV)/.local-installed: pyproject.toml layers/core/requirements.txt | $(PY)
	@echo "==> installing the service and its local tools into $(VENV) (about a minute the first time)"
	@$(PY) -m pip install -q -e '.[local]'
	@touch $@

$(VENV)/.dev-installed: pyproject.toml layers/core/requirements.txt | $(PY)
	@echo "==> installing the service and the test tools into $(VENV) (a few minutes the first time)"
	@$(PY) -m pip install -q -e '.[dev]'
	@touch $@ $(VENV)/.local-installed

# The SAM CLI pins older boto3 and pydantic than the app, so it lives in its own environment.
$(SAM):
	$(PYTHON) -m venv $(SAM_ENV)
	$(SAM_ENV)/bin/pip install -q 'aws-sam-cli==$(SAM_CLI_VERSION)'

run: python-check $(VENV)/.local-installed $(if $(filter varnish,$(EDGE)),varnish)
	@$(PY) -m infra.local_stack

# Debian's Chromium for the Playwright tests (Playwright cannot download browsers here), and jq,
# which the README's quickstart uses (its test runs it).
browsers:
	@if [ ! -x /usr/bin/chromium ] || ! command -v jq >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver jq >/dev/null; \
	fi

# Debian's nginx plays the CDN (CloudFront) in front of the local stack in the edge-cache tests
# and the bench; they start it themselves, on a free port, with a configuration of their own.
nginx:
	@if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; \
	fi

# Debian's Varnish with the xkey vmod (varnish-modules) is the purgeable edge: the edge-purge
# tests and bench put it in front of the local stack, and `EDGE=varnish make run` does too.
varnish:
	@if ! command -v varnishd >/dev/null && [ ! -x /usr/sbin/varnishd ] || [ -z "$(wildcard /usr/lib/*/varnish/vmods/libvmod_xkey.so)" ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq varnish varnish-modules >/dev/null; \
	fi

lint: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(PY) -m infra.function_length layers functions infra

# checkov pins its own dependencies (boto3, pydantic...) too: its own environment as well.
$(CHECKOV):
	$(PYTHON) -m venv $(CHECKOV_ENV)
	$(CHECKOV_ENV)/bin/pip install -q 'checkov==$(CHECKOV_VERSION)'

# Every finding is fixed or waived in template.yaml with its reason (docs/decisions.md, D90).
checkov: $(CHECKOV)
	$(CHECKOV) -f template.yaml --framework cloudformation --compact --quiet --skip-download

sam-check: $(SAM) checkov
	$(SAM) validate --lint --region us-east-1
	$(MAKE) --no-print-directory build

# What `sam deploy` would upload, in .aws-sam/build (the layer with its bytecode: layers/core/Makefile).
build: $(SAM)
	PYTHON=$(PYTHON) $(SAM) build --build-dir .aws-sam/build --cache-dir .aws-sam/cache

# Two workers, each with its own local stack; a test file stays on one worker (module fixtures),
# and files go out in collection order: the slow ones first (tests/conftest.py).
test: $(VENV)/.dev-installed browsers nginx varnish lint sam-check
	$(PY) -m pytest -n 2 --dist loadfile --no-loadscope-reorder

# The inner loop (docs/development.md, first section): the lint, the unit
# tests and the integration tests that need no browser, no crash run, no edge (nginx, Varnish)
# and no long wait. `make test` runs everything, these included.
CHECK_MARKERS := not browser and not slow and not crash and not edge
check: $(VENV)/.dev-installed lint
	$(PY) -m pytest tests/unit tests/integration -m "$(CHECK_MARKERS)" -n 2 --dist loadfile -q

# The quickest loop: the lint and the unit tests, which start no local stack.
unit: $(VENV)/.dev-installed lint
	$(PY) -m pytest tests/unit -n 2 --dist loadfile -q

# The cold-start suite imports the handlers from the built artifacts, as Lambda does.
bench: $(VENV)/.dev-installed nginx varnish build
	$(PY) -m bench

soak: $(VENV)/.dev-installed
	$(PY) -m harness.soak

crash: $(VENV)/.dev-installed
	$(PY) -m harness.crash
	$(PY) -m harness.crash_links
	$(PY) -m harness.crash_assets
	$(PY) -m harness.crash_audit

fuzz: $(VENV)/.dev-installed
	FUZZ_EXAMPLES=200 $(PY) -m pytest tests/fuzz

clean:
	rm -rf .aws-sam .mypy_cache .ruff_cache .pytest_cache test-output
