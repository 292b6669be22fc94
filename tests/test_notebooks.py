"""The notebooks execute top to bottom (they are stored with their outputs, for readers on a code host)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path):
    notebook = nbformat.read(path, as_version=4)
    assert all(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")  # stored with outputs
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []  # executed afresh, from the top
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert outputs


def test_there_are_two_notebooks():
    assert [p.name for p in NOTEBOOKS] == ["quickstart.ipynb", "train_and_evaluate.ipynb"]
