"""Which libmmsim the package loads: the one it is told of or its own, never one the loader would find."""
import os
import subprocess
import sys

import mmsim
from conftest import ROOT

PRINT = "import mmsim; print(mmsim.LIB_PATH)"


def py(env):
    base = {k: v for k, v in os.environ.items() if k != "MMSIM_LIB"}
    base.update(env)
    return subprocess.run([sys.executable, "-c", PRINT], capture_output=True, text=True, env=base)


def test_mmsim_lib_names_the_library():
    p = py({"MMSIM_LIB": str(mmsim.LIB_PATH), "PYTHONPATH": str(ROOT / "python")})
    assert p.returncode == 0 and p.stdout.strip() == str(mmsim.LIB_PATH)
    p = py({"MMSIM_LIB": "/nonexistent/libmmsim.so", "PYTHONPATH": str(ROOT / "python")})
    assert p.returncode != 0 and "MMSIM_LIB=/nonexistent/libmmsim.so: no such file" in p.stderr


def test_a_library_on_the_loaders_path_is_never_taken(tmp_path):
    decoy = tmp_path / "libmmsim.so"
    decoy.write_bytes(b"not a library")
    p = py({"PYTHONPATH": str(ROOT / "python"), "LD_LIBRARY_PATH": str(tmp_path)})
    tree = ROOT / "build" / "src" / "libmmsim.so"
    if tree.exists():  # a source tree with build/: that build's library
        assert p.returncode == 0 and p.stdout.strip() == str(tree), p.stderr
    else:
        assert p.returncode != 0 and "libmmsim not found" in p.stderr
    assert str(decoy) not in p.stdout


def test_the_wheel_installs_every_module():
    """python/meson.build lists the package's files for pip install . (install_sources): all of them."""
    text = (ROOT / "python" / "meson.build").read_text()
    for f in sorted((ROOT / "python" / "mmsim").glob("*.py")):
        assert f"'mmsim/{f.name}'" in text, f"{f.name} is not in python/meson.build's install_sources"
