"""The ctypes structs of mmsim/_lib.py against the C headers: a C program prints every field's offset and
every struct's size (compiled with the system's cc), and they must be the package's. A field added to a
public struct without the package following fails here."""
import ctypes as C
import os
import shutil
import subprocess

import pytest

from mmsim import _lib as L
from conftest import ROOT


def _c_program():
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "mmsim/mmsim.h"', '#include "mmsim/import.h"',
             '#include "mmsim/results.h"', '#include "mmsim/sweep.h"', '#include "mmsim/select.h"', "int main(void) {"]
    for cname, py in L.ABI_STRUCTS.items():
        lines.append(f'printf("{cname} size %zu\\n", sizeof({cname}));')
        for f in py._fields_:
            if not f[0].startswith("_"):
                lines.append(f'printf("{cname}.{f[0]} %zu\\n", offsetof({cname}, {f[0]}));')
    for cname in L.ABI_OPAQUE:
        lines.append(f'printf("{cname} size %zu\\n", sizeof({cname}));')
    lines += ["return 0; }"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("abi")
    (d / "abi.c").write_text(_c_program())
    subprocess.run([cc, "-std=c11", "-I", str(ROOT / "include"), str(d / "abi.c"), "-o", str(d / "abi")], check=True)
    out = subprocess.run([str(d / "abi")], capture_output=True, text=True, check=True).stdout
    return {k: int(v) for k, v in (l.rsplit(" ", 1) for l in out.splitlines())}


@pytest.mark.parametrize("cname", sorted(L.ABI_STRUCTS))
def test_struct_layout_is_the_headers(layout, cname):
    py = L.ABI_STRUCTS[cname]
    for f in py._fields_:
        if not f[0].startswith("_"):
            assert getattr(py, f[0]).offset == layout[f"{cname}.{f[0]}"], f"{cname}.{f[0]}"
    spare = [f for f in py._fields_ if f[0] == "_spare"]
    if spare:
        # the C struct ends where the spare bytes begin (rounded up to its alignment)
        end, align = py._spare.offset, max(C.alignment(f[1]) for f in py._fields_)
        assert layout[f"{cname} size"] == (end + align - 1) // align * align, cname
    else:
        assert layout[f"{cname} size"] == C.sizeof(py), cname


def test_opaque_params_fit_the_buffer(layout):
    for cname, py in L.ABI_OPAQUE.items():
        assert layout[f"{cname} size"] <= C.sizeof(py), cname
