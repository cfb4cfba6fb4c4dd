"""Execute a notebook with nbclient and fail on any error (meson test 'notebook', suite python):
run_notebook.py NOTEBOOK WORKDIR [--without-shared]. The notebook runs in WORKDIR (its files go
there), with MMSIM_EXAMPLES pointing at the notebook's folder; --without-shared hides ../shared/data
(the path a CI machine without it takes). The executed copy is WORKDIR/<name>."""
import os
import pathlib
import sys
import time

import nbformat
from nbclient import NotebookClient


def main():
    nb_path, work = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2])
    if "--without-shared" in sys.argv:
        os.environ["MMSIM_SHARED_DATA"] = str(work / "no-shared-data")
        work = work / "without-shared"
    work.mkdir(parents=True, exist_ok=True)
    os.environ["MMSIM_EXAMPLES"] = str(nb_path.parent)
    # the kernel runs in WORKDIR: a relative PYTHONPATH (PYTHONPATH=python) must not change meaning
    os.environ["PYTHONPATH"] = os.pathsep.join(
        str(pathlib.Path(p).resolve()) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # ipykernel's debugger note on stderr
    nb = nbformat.read(nb_path, as_version=4)
    t0 = time.monotonic()
    NotebookClient(nb, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(work)}}).execute()
    nbformat.write(nb, work / nb_path.name)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    if errors:  # execute() raises on an error already; this is the belt to its braces
        print(errors[0]["ename"], errors[0]["evalue"])
        return 1
    print(f"{nb_path.name}: {sum(c.cell_type == 'code' for c in nb.cells)} cells in {time.monotonic() - t0:.1f} s, "
          f"written to {work / nb_path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
