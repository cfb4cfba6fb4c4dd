#!/usr/bin/python3
"""The commands the documentation tells a new user to paste, run as written (issue 29), so that they
cannot rot: every line must exit 0, print no "(no rows)" (a follow-up that finds nothing shows
nothing) and, in a release build, take under a minute.

  readme    README.md's ```sh block of the "Use" section, top to bottom in one scratch folder where
            build/ (a link to this build), fixtures/ and docs/ resolve as they do at the repository
            root, so `build/src/cli/mmsim` works as the README writes it;
  examples  the examples `mmsim help` prints (one scratch folder), the commands in the comments of
            each docs/examples/*.ini (indented by two spaces or more; a scratch folder per file) and the ```sh blocks of
            docs/examples/README.md (one scratch folder; a block after an HTML comment
            "<!-- not run by tests/check_walk.py: WHY -->" is skipped, and says why).

Commands named `mmsim` run the built binary (a link on PATH). A line ending in a backslash continues on
the next; blank lines and lines of only a comment are skipped.
Usage: check_walk.py MMSIM SOURCE_ROOT readme|examples [--no-time-limit]"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

MMSIM, SRC, MODE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
LIMIT_S = None if "--no-time-limit" in sys.argv[4:] else 60.0
# build/src/cli/mmsim -> build
BUILD = os.path.dirname(os.path.dirname(os.path.dirname(MMSIM)))
failures = []
scratches = []


def scratch():
    d = tempfile.mkdtemp(prefix="mmsim-walk-")
    scratches.append(d)
    os.symlink(BUILD, os.path.join(d, "build"))
    for name in ("fixtures", "docs"):
        os.symlink(os.path.join(SRC, name), os.path.join(d, name))
    os.mkdir(os.path.join(d, ".bin"))
    os.symlink(MMSIM, os.path.join(d, ".bin", "mmsim"))
    return d


def logical_lines(text):
    """Lines with their backslash continuations joined; no blank or comment-only line."""
    out, cur = [], ""
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.endswith("\\"):
            cur += line[:-1] + " "
            continue
        line = cur + line
        cur = ""
        if line.strip() and not line.lstrip().startswith("#"):
            out.append(line.strip())
    assert not cur, "a continuation line ends the block"
    return out


def run_lines(where, lines, cwd):
    env = dict(os.environ, PATH=os.path.join(cwd, ".bin") + os.pathsep + os.environ.get("PATH", ""))
    total = 0.0
    for line in lines:
        t0 = time.monotonic()
        try:
            r = subprocess.run(["bash", "-c", line], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=600)
            rc, out = r.returncode, r.stdout + r.stderr
        except subprocess.TimeoutExpired:
            rc, out = "timeout (600 s)", ""
        dt = time.monotonic() - t0
        total += dt
        print("%6.2f s  %s: %s" % (dt, where, line if len(line) < 110 else line[:107] + "..."))
        bad = []
        if rc != 0:
            bad.append("exit %s" % rc)
        if "(no rows)" in out:
            bad.append('printed "(no rows)"')
        if LIMIT_S is not None and dt > LIMIT_S:
            bad.append("took %.1f s (more than %.0f s)" % (dt, LIMIT_S))
        if bad:
            tail = "\n".join(out.splitlines()[-8:])
            failures.append("%s: %s: %s\n    %s" % (where, ", ".join(bad), line, tail.replace("\n", "\n    ")))
    print("%6.2f s  %s: %d lines" % (total, where, len(lines)))
    return total


def sh_blocks(md):
    """(text, skip reason or None) of every ```sh block of a Markdown text."""
    blocks = []
    for m in re.finditer(r"^```sh\n(.*?)^```", md, re.S | re.M):
        before = md[:m.start()].rstrip().splitlines()[-1:] or [""]
        skip = re.match(r"<!-- not run by tests/check_walk.py: (.*) -->", before[0])
        blocks.append((m.group(1), skip.group(1) if skip else None))
    return blocks


def readme():
    md = open(os.path.join(SRC, "README.md"), encoding="utf-8").read()
    use = md[md.index("\n## Use\n"):]
    use = use[:use.find("\n## ", 5)]
    blocks = sh_blocks(use)
    assert blocks and blocks[0][1] is None, "no ```sh block in README.md's Use section"
    lines = logical_lines(blocks[0][0])
    assert len(lines) >= 10 and all(l.startswith("build/src/cli/mmsim ") for l in lines), lines
    run_lines("README.md Use", lines, scratch())


def examples():
    usage = subprocess.run([MMSIM, "help"], capture_output=True, text=True, check=True).stdout
    part = usage[usage.index("\nexamples"):].split("\n\n")[0]
    lines = logical_lines("\n".join(part.strip().splitlines()[1:]))
    assert len(lines) >= 5 and all(l.startswith("mmsim ") for l in lines), lines
    run_lines("mmsim help", lines, scratch())
    for ini in sorted(glob.glob(os.path.join(SRC, "docs", "examples", "*.ini"))):
        text = open(ini, encoding="utf-8").read()
        # Indented commands in comments (";   mmsim ..."); calibrate's header "# mmsim calibrate ..." is not one.
        lines = [m.group(1).strip() for m in re.finditer(r"^[;#]  +(mmsim .*)$", text, re.M)]
        if lines:
            run_lines(os.path.relpath(ini, SRC), lines, scratch())
    md = open(os.path.join(SRC, "docs", "examples", "README.md"), encoding="utf-8").read()
    cwd, n = scratch(), 0
    for text, skip in sh_blocks(md):
        if skip:
            print("  skipped  docs/examples/README.md block (%s)" % skip)
            continue
        n += 1
        run_lines("docs/examples/README.md block %d" % n, logical_lines(text), cwd)
    assert n >= 1, "no block of docs/examples/README.md is run"


try:
    {"readme": readme, "examples": examples}[MODE]()
finally:
    for d in scratches:
        shutil.rmtree(d, ignore_errors=True)
if failures:
    print("\nFAILED:\n" + "\n".join(failures))
    sys.exit(1)
print("check_walk %s: ok" % MODE)
