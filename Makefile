# Every target sets itself up: a fresh clone needs only Python 3.10+ and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-test

.PHONY: test lint typecheck unit demo bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[demo]'
	touch $@

test: $(STAMP)
	$(BIN)/ruff check ulidkeys tests benchmarks tools examples
	$(BIN)/mypy ulidkeys
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest

demo: $(VENV)/.installed-demo
	$(BIN)/ulidkeys demo

bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	$(BIN)/python benchmarks/generate.py
	$(BIN)/python benchmarks/plan.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
