#!/usr/bin/env python3
"""Run every bad input documented in docs/bad-inputs.md and check its exact message and exit code.

Entry format (markdown; the indented block is the test):

    ### title
        $ shell setup line            (any number, run in order with bash in a fresh scratch directory)
        $ mmsim <args>                (the last '$' line is the checked command)
        exit N                        (expected exit status)
        stderr: <exact text>          (the whole of stderr, one line; '...' at the end: prefix match)
        absent: path                  (optional, repeatable: must not exist afterwards)
        unchanged: path               (optional, repeatable: byte-identical before and after)
        tested by: tests/file.c name  (instead of '$' lines: the case needs an environment a one-liner cannot
                                       set up; the named test checks it)

The scratch directory starts with t.h5 (mmsim gen --seed 1 --events 2000 --symbol SYN) and r.h5 (a 2 x 2
serial sweep of it); `mmsim` is on PATH and $SRC is the source tree (for files under fixtures/). Usage: bad_inputs.py MMSIM_BIN DOC|DIR [...]
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile


def parse(path):
    entries, cur = [], None
    for ln, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith("### "):
            cur = {"title": line[4:].strip(), "where": f"{path}:{ln}", "cmds": [], "absent": [], "unchanged": []}
            entries.append(cur)
            continue
        if cur is None or not line.startswith("    "):
            continue
        s = line[4:].rstrip("\n")
        if s.startswith("$ "):
            cur["cmds"].append(s[2:])
        elif s.startswith("exit "):
            cur["exit"] = int(s[5:])
        elif s.startswith("stderr: "):
            cur["stderr"] = s[8:]
        elif s.startswith("absent: "):
            cur["absent"].append(s[8:])
        elif s.startswith("unchanged: "):
            cur["unchanged"].append(s[11:])
        elif s.startswith("tested by: "):
            cur["tested_by"] = s[11:]
    return entries


def digest(p):
    return hashlib.sha256(open(p, "rb").read()).hexdigest() if os.path.isfile(p) else None


def main():
    mmsim = os.path.abspath(sys.argv[1])
    docs = []
    for a in sys.argv[2:]:
        docs += sorted(os.path.join(a, f) for f in os.listdir(a) if f.endswith(".md")) if os.path.isdir(a) else [a]
    work = tempfile.mkdtemp(prefix="mm_bad_inputs_")
    bindir = os.path.join(work, "bin")
    os.mkdir(bindir)
    os.symlink(mmsim, os.path.join(bindir, "mmsim"))
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PATH=bindir + ":" + os.environ.get("PATH", "/usr/bin:/bin"), LC_ALL="C", SRC=src)
    base = os.path.join(work, "base")
    os.mkdir(base)
    subprocess.run(["mmsim", "gen", "--seed", "1", "--events", "2000", "--symbol", "SYN", "-o", "t.h5"],
                   cwd=base, env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["mmsim", "sweep", "t.h5", "--grid", "spread=1,2", "--grid", "inv_limit=5,10", "--engine",
                    "serial", "-o", "r.h5", "--quiet"], cwd=base, env=env, check=True, stdout=subprocess.DEVNULL)
    entries = [e for d in docs for e in parse(d)]
    passed = failed = checked_elsewhere = 0
    for i, e in enumerate(entries):
        if "tested_by" in e:
            # The named test must exist: FILE (or FILE.c) under the source tree, holding the test's name.
            parts = e["tested_by"].split()
            f = os.path.join(src, parts[0]) if parts else ""
            f = f if os.path.isfile(f) else f + ".c"
            name = parts[1].split("::")[-1] if len(parts) > 1 else ""
            if not name or not os.path.isfile(f) or name not in open(f, encoding="utf-8").read():
                failed += 1
                print(f"FAIL {e['where']} {e['title']}: 'tested by: {e['tested_by']}' names no existing test")
            else:
                checked_elsewhere += 1
            continue
        problems = []
        if not e["cmds"] or "exit" not in e or "stderr" not in e:
            problems.append("entry needs '$' lines, 'exit' and 'stderr'")
        else:
            d = os.path.join(work, f"case{i}")
            shutil.copytree(base, d)
            for s in e["cmds"][:-1]:
                r = subprocess.run(["bash", "-c", s], cwd=d, env=env, capture_output=True, text=True,
                                   errors="backslashreplace", timeout=120)
                if r.returncode != 0:
                    problems.append(f"setup '{s}' failed ({r.returncode}): {r.stderr.strip()}")
            before = {p: digest(os.path.join(d, p)) for p in e["unchanged"]}
            r = subprocess.run(["bash", "-c", e["cmds"][-1]], cwd=d, env=env, capture_output=True, text=True,
                               errors="backslashreplace", timeout=300)
            err = r.stderr.rstrip("\n")
            want = e["stderr"]
            ok_msg = err.startswith(want[:-3]) if want.endswith("...") else err == want
            if r.returncode != e["exit"]:
                problems.append(f"exit {r.returncode}, want {e['exit']}")
            if not ok_msg:
                problems.append(f"stderr {err!r}, want {want!r}")
            for p in e["absent"]:
                if os.path.lexists(os.path.join(d, p)):
                    problems.append(f"{p} exists")
            for p, h in before.items():
                if digest(os.path.join(d, p)) != h:
                    problems.append(f"{p} changed")
            shutil.rmtree(d, ignore_errors=True)
        if problems:
            failed += 1
            print(f"FAIL {e['where']} {e['title']}: " + "; ".join(problems))
        else:
            passed += 1
            print(f"ok   {e['where']} {e['title']}")
    shutil.rmtree(work, ignore_errors=True)
    print(f"bad inputs: {passed} passed, {failed} failed, {checked_elsewhere} checked by other tests")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
