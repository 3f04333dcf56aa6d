# Every target sets itself up: a fresh clone needs only Python 3.10+ and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-test

.PHONY: test lint typecheck unit demo bench bench-report notebooks docs docs-serve docs-browser dist clean

# The suite's branch coverage may only rise: `make test` fails below this floor (measured
# 95.05-95.28% over this session's runs; hypothesis draws differ run to run, so the floor keeps
# half a point of room). The suite runs on both cores (pytest-xdist): tracing coverage doubles
# its CPU time.
COVERAGE_FLOOR := 94.5

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
	$(BIN)/ruff check ulidkeys tests benchmarks examples docs/hooks
	$(BIN)/ruff format --check ulidkeys tests benchmarks examples docs/hooks
	$(BIN)/mypy ulidkeys
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest -n 2 --cov=ulidkeys --cov-branch \
		--cov-report=term:skip-covered --cov-fail-under=$(COVERAGE_FLOOR)

# The documentation site, built strictly (a broken link, reference or docstring fails) into site/:
# installs only the docs extra (the package itself and mkdocs).
$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[docs]'
	touch $@

docs: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

# Opens the built home page, a how-to and a reference page in headless Chromium (Debian's
# chromium package: apt-get install chromium) and fails on a blank page, a broken image or a
# console error. Not part of `make test`.
docs-browser: docs
	$(BIN)/python docs/hooks/browser_check.py site index.html howto/s3/index.html reference/s3/index.html

# sdist + wheel, checked with twine, the wheel installed into a fresh venv and imported.
dist: $(STAMP)
	rm -rf dist .venv-dist
	$(PYTHON) -m venv .venv-dist
	.venv-dist/bin/python -m pip install -q build twine
	.venv-dist/bin/python -m build --outdir dist .
	.venv-dist/bin/python -m twine check --strict dist/*
	$(PYTHON) -m venv .venv-dist/try
	.venv-dist/try/bin/python -m pip install -q dist/*.whl
	.venv-dist/try/bin/ulidkeys --version
	.venv-dist/try/bin/python -c "import ulidkeys, ulidkeys.ids, ulidkeys.s3, ulidkeys.dynamodb, ulidkeys.config, ulidkeys.planning; print('imports: ok')"

demo: $(VENV)/.installed-demo
	$(BIN)/ulidkeys demo

# Rewrite each notebooks/*.ipynb from its notebooks/src/*.py (jupytext pairing), then run it in
# a kernel and keep the outputs (plots included), so a notebook opened on GitHub shows them.
notebooks: $(STAMP)
	$(BIN)/jupytext --sync notebooks/src/*.py
	MPLBACKEND=module://matplotlib_inline.backend_inline $(BIN)/jupyter execute --inplace \
		--timeout=300 notebooks/*.ipynb

bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	$(BIN)/python benchmarks/generate.py
	$(BIN)/python benchmarks/plan.py   # both also write their charts to docs/img/

# One report of every benchmark (each in a fresh process) into docs/benchmarks.md: half an
# hour or more; QUICK=1 runs smaller sizes in a few minutes.
bench-report: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	PYTHONPATH=$(CURDIR) $(BIN)/python benchmarks/report.py $(if $(QUICK),--quick)

clean:
	rm -rf $(VENV) .venv-dist dist site .pytest_cache .mypy_cache .ruff_cache .hypothesis
