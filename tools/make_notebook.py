"""Write a Jupyter notebook (nbformat 4) from a plain Python script with ``# %%`` cell markers.

    python tools/make_notebook.py notebooks/src/01_ulids.py notebooks/01_ulids.ipynb

Cells starting with ``# %% [markdown]`` become markdown (their ``# `` comment prefixes
stripped). Keeping the source as a script keeps notebooks reviewable and diffable.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def cells_of(source: str) -> list[dict[str, object]]:
    cells: list[dict[str, object]] = []
    for chunk in source.split("# %%")[1:]:
        header, _, body = chunk.partition("\n")
        body = body.strip("\n")
        if header.strip() == "[markdown]":
            text = "\n".join(
                line[2:] if line.startswith("# ") else line.lstrip("#")
                for line in body.splitlines()
            )
            cells.append(
                {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)}
            )
        else:
            cells.append(
                {
                    "cell_type": "code",
                    "metadata": {},
                    "execution_count": None,
                    "outputs": [],
                    "source": body.splitlines(keepends=True),
                }
            )
    return cells


def main(script: str, notebook: str) -> None:
    document = {
        "cells": cells_of(Path(script).read_text()),
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    Path(notebook).write_text(json.dumps(document, indent=1) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
