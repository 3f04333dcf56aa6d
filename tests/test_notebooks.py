"""Every notebook runs top to bottom, and matches the script it is generated from."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
sys.path.insert(0, str(ROOT / "tools"))

from make_notebook import cells_of  # noqa: E402


def test_there_are_notebooks() -> None:
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = json.loads(path.read_text())
    namespace: dict[str, object] = {"__name__": "__main__"}
    for number, cell in enumerate(document["cells"]):
        if cell["cell_type"] == "code":
            code = "".join(cell["source"])
            exec(compile(code, f"{path.name} cell {number}", "exec"), namespace)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_generated_from_its_script(path: Path) -> None:
    script = ROOT / "notebooks" / "src" / (path.stem + ".py")
    assert script.exists(), f"{path.name} has no source script in notebooks/src/"
    assert json.loads(path.read_text())["cells"] == cells_of(script.read_text()), (
        f"regenerate: python tools/make_notebook.py {script.relative_to(ROOT)} "
        f"{path.relative_to(ROOT)}"
    )
