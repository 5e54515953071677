# maple: the two commands are `make demo` and `make test`; both set up .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SOURCES := src tests contract_tests bench conftest.py

.PHONY: venv test lint bench demo docs clean

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

test: lint
	$(BIN)/pytest

bench: venv
	$(BIN)/python -m compileall -q src  # measure the installed state: pip byte-compiles on install
	$(BIN)/python bench/run.py

demo: venv
	$(BIN)/maple demo

docs: venv
	$(BIN)/python -c 'from maple_core.environment import render_markdown as r; print(r(), end="")' > docs/configuration.md

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
