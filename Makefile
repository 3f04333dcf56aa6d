# Every target sets itself up: a fresh clone needs only Python 3.10+ and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-test

.PHONY: test lint typecheck unit demo bench notebooks clean

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
	$(BIN)/ruff check ulidkeys tests benchmarks examples
	$(BIN)/ruff format --check ulidkeys tests benchmarks examples
	$(BIN)/mypy ulidkeys
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest

demo: $(VENV)/.installed-demo
	$(BIN)/ulidkeys demo

# Rewrite each notebooks/*.ipynb from its notebooks/src/*.py (jupytext pairing), no outputs.
notebooks: $(STAMP)
	$(BIN)/jupytext --sync notebooks/src/*.py

bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	$(BIN)/python benchmarks/generate.py
	$(BIN)/python benchmarks/plan.py   # both also write their charts to docs/img/

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
