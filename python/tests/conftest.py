"""Fixtures of the Python package's tests (python/tests; run by `meson test --suite python`, which sets
MMSIM_LIB and MMSIM_BIN to the build's library and command, and by hand with PYTHONPATH=python)."""
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("MMSIM_BIN", str(ROOT / "build" / "src" / "cli" / "mmsim"))
SHARED = pathlib.Path(os.environ.get("MMSIM_SHARED_DATA", ROOT.parent / "shared" / "data"))
FIXTURES = ROOT / "fixtures"


def cli(*args, check=True, cwd=None):
    """The command line, for comparison: (exit status, stdout, stderr). A call that takes over 120 s
    (each takes well under a second) fails its test rather than hanging the suite."""
    p = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"mmsim {' '.join(map(str, args))}: exit {p.returncode}: {p.stderr}")
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    return json.loads(cli(*args)[1])


@pytest.fixture(scope="session")
def day(tmp_path_factory):
    """A 20,000-event synthetic day written by the command line (mmsim gen)."""
    d = tmp_path_factory.mktemp("day")
    path = d / "syn.h5"
    cli("gen", "--seed", 42, "--events", 20000, "--symbol", "SYN", "-o", path)
    return str(path)


@pytest.fixture(scope="session")
def two(tmp_path_factory):
    """A file of two instruments (two seeds), for the tape axis."""
    d = tmp_path_factory.mktemp("two")
    path = d / "two.h5"
    cli("gen", "--seed", 1, "--events", 5000, "--symbol", "AAA", "-o", path)
    cli("gen", "--seed", 2, "--events", 5000, "--symbol", "BBB", "-o", path)
    return str(path)
