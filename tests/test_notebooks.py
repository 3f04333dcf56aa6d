"""Every notebook runs top to bottom in a real Jupyter kernel, draws at least one plot, holds
exactly the cells of its jupytext source (notebooks/src/NAME.py, py:percent), and is committed
with the outputs of a run (so it shows its plots when opened on GitHub)."""

from __future__ import annotations

import os
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

#: Every notebook in a Jupyter kernel: left out of `make test`, run by `make test-all` and CI.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SOURCES = sorted((ROOT / "notebooks" / "src").glob("*.py"))
FIX = (
    "edit notebooks/src/NAME.py, then `make notebooks` rewrites the .ipynb (jupytext --sync) and "
    "runs it to keep its outputs"
)


def cells(notebook: nbformat.NotebookNode) -> list[tuple[str, str]]:
    return [(cell.cell_type, cell.source) for cell in notebook.cells]


def test_every_notebook_has_its_source_and_no_source_is_unpaired() -> None:
    assert NOTEBOOKS
    assert [p.stem for p in NOTEBOOKS] == [p.stem for p in SOURCES], FIX


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_matches_its_source(path: Path) -> None:
    source = jupytext.read(ROOT / "notebooks" / "src" / f"{path.stem}.py")
    notebook = nbformat.read(path, as_version=4)
    assert cells(notebook) == cells(source), f"{path.name} drifted from its source: {FIX}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_with_the_outputs_of_a_clean_run(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    counts = [cell.get("execution_count") for cell in code]
    assert counts == list(range(1, len(code) + 1)), f"{path.name}: not one run top to bottom: {FIX}"
    outputs = [output for cell in code for output in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"], f"{path.name}: an error"
    assert any("image/png" in o.get("data", {}) for o in outputs), f"{path.name}: no plot: {FIX}"


def test_a_drifted_notebook_is_caught() -> None:
    """The comparison sees a one-character edit on either side."""
    source = jupytext.read(SOURCES[0])
    edited = jupytext.reads(SOURCES[0].read_text().replace("ULID", "ULlD", 1), fmt="py:percent")
    assert cells(edited) != cells(source)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_in_a_kernel_and_plots(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    # the inline backend, whatever MPLBACKEND the test run has: plots become image/png outputs
    env = {**os.environ, "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    client.execute(env=env)  # raises CellExecutionError, with the cell, on any error
    images = [
        output
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if "image/png" in output.get("data", {})
    ]
    assert images, f"{path.name} draws no plot"
