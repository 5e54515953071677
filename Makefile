# maple: the two commands are `make demo` and `make test`; both set up .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SOURCES := src tests contract_tests bench conftest.py setup.py

.PHONY: venv test lint jslint overlay bench demo docs clean

venv: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

lint: venv
	$(BIN)/ruff check $(SOURCES)
	$(BIN)/ruff format --check $(SOURCES)
	$(BIN)/mypy
	$(BIN)/lint-imports

# The review overlay's JavaScript: tsc (checkJs, strict) and eslint, pinned in package-lock.json.
# Without node and npm this step is skipped, unless MAPLE_TEST_STRICT=1, where it fails.
jslint:
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	  { [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --silent; } && \
	  npm run --silent check; \
	elif [ "$$MAPLE_TEST_STRICT" = 1 ]; then \
	  echo "jslint: MAPLE_TEST_STRICT=1 and node or npm is missing (apt-get install -y nodejs npm)" >&2; \
	  exit 1; \
	else \
	  echo "jslint: skipped, node or npm is missing (apt-get install -y nodejs npm)"; \
	fi

# Writes the joined overlay, review/overlay.js (generated, not committed), to read it. The wheel's
# build writes it (setup.py) and `maple review` from a checkout joins the modules by itself.
overlay: venv
	$(BIN)/python -m maple_entrypoints.review.bundle

test: lint jslint
	$(BIN)/pytest

bench: venv
	$(BIN)/python -m compileall -q src  # measure the installed state: pip byte-compiles on install
	$(BIN)/python bench/run.py

demo: venv
	$(BIN)/maple demo

docs: venv
	$(BIN)/python -c 'from maple_core.environment import render_markdown as r; print(r(), end="")' > docs/configuration.md

clean:
	rm -rf $(VENV) node_modules .mypy_cache .ruff_cache .pytest_cache .hypothesis
