"""An interrupt leaves no temporary file (issue 27, item 5; docs/bad-inputs.md, "Signals").

Every writer of mmsim puts its output in "<output>.tmp.<pid>" and renames it into place. For each command
below the test starts it, waits until that temporary exists, stops the process (SIGSTOP) while it still
exists, sends SIGINT and lets it go on (SIGCONT): the process must end by SIGINT, leaving neither the
temporary nor the output. A run that finishes before its temporary is seen is tried again on a larger
input (the window is the time the writer spends writing). Then an interrupted `rerun -o F` must say how
to finish it, and `rerun -o F --resume` must finish it with the stored content hash.

Usage: signals.py MMSIM
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

MMSIM = sys.argv[1]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


def mm(args, cwd, **kw):
    return subprocess.run([MMSIM] + args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, **kw)


def interrupt_when_written(args, out, cwd, deadline_s=60):
    """Run mmsim args; SIGINT it while out's temporary exists. Returns (caught, returncode, stderr)."""
    p = subprocess.Popen([MMSIM] + args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    tmp = os.path.join(cwd, f"{out}.tmp.{p.pid}")
    caught = False
    end = time.monotonic() + deadline_s
    while p.poll() is None and time.monotonic() < end:
        if os.path.exists(tmp):
            os.kill(p.pid, signal.SIGSTOP)
            if os.path.exists(tmp):  # still writing: interrupt it there
                caught = True
                os.kill(p.pid, signal.SIGINT)
            os.kill(p.pid, signal.SIGCONT)
            break
    _, err = p.communicate(timeout=deadline_s)
    return caught, p.returncode, err


def leftovers(cwd):
    return sorted(n for n in os.listdir(cwd) if ".tmp." in n)


with tempfile.TemporaryDirectory() as d:
    subprocess.run([MMSIM, "gen", "--seed", "3", "--events", "400000", "--symbol", "SYN", "-o", "day.h5"],
                   cwd=d, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([MMSIM, "sweep", "day.h5", "--grid", "spread=1:200", "--grid", "inv_limit=1:100", "-o",
                    "big.h5", "--quiet"], cwd=d, check=True, stdout=subprocess.DEVNULL)
    cases = [
        ("gen", lambda k: ["gen", "--seed", "4", "--events", str(500000 * k), "--symbol", "G", "-o", "g.h5"], "g.h5"),
        ("export", lambda k: ["export", "big.h5", "-o", "e.csv"], "e.csv"),
        ("report", lambda k: ["report", "big.h5", "-o", "rep.html"], "rep.html"),
        ("run --trace", lambda k: ["run", "day.h5", "--spread", "1", "--inv-limit", "50", "--trace", "tr.csv"],
         "tr.csv"),
        ("run --curve", lambda k: ["run", "day.h5", "--spread", "1", "--curve", "c.html"], "c.html"),
    ]
    for name, make, out in cases:
        caught = False
        for k in range(1, 9):
            caught, rc, err = interrupt_when_written(make(k), out, d)
            if caught:
                break
            check(rc == 0, f"{name}: a run that was not interrupted exits 0 (got {rc}: {err.strip()})")
            os.remove(os.path.join(d, out))
        check(caught, f"{name}: its temporary was never seen while the command ran (8 tries)")
        if caught:
            check(rc == -signal.SIGINT, f"{name}: ended by SIGINT (returncode {rc}, stderr {err.strip()!r})")
            check(not leftovers(d), f"{name}: temporaries left: {leftovers(d)}")
            check(not os.path.exists(os.path.join(d, out)), f"{name}: {out} exists after the interrupt")
            print("ok  ", name, "interrupted while writing; nothing left")

    # rerun -o F interrupted during its sweep, then finished with --resume.
    rr = mm(["sweep", "day.h5", "--grid", "spread=1:20", "--grid", "inv_limit=1:10", "--chunk", "1", "--workers",
             "1", "-o", "rr.h5", "--quiet"], d)
    check(rr.returncode == 0, f"sweep rr.h5: {rr.stderr}")
    p = subprocess.Popen([MMSIM, "rerun", "rr.h5", "-o", "again.h5", "--workers", "1"], cwd=d,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    journal = os.path.join(d, "again.h5.journal")
    end = time.monotonic() + 60
    while p.poll() is None and time.monotonic() < end and not (
            os.path.exists(journal) and os.path.getsize(journal) > 4096):
        time.sleep(0.001)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    check(p.returncode != 0, "the rerun was interrupted (it finished before 4 KB were journaled)")
    if p.returncode != 0:
        check(p.returncode == 130, f"interrupted rerun: exit 130, got {p.returncode}: {err.strip()}")
        want = ("the same rerun command plus --resume finishes again.h5 (-o again.h5 --resume)")
        check(want in err and err.startswith("mmsim: rerun: interrupted: "),
              f"interrupted rerun says how to finish: {err.strip()!r}")
        check(not leftovers(d), f"interrupted rerun: temporaries left: {leftovers(d)}")
        fin = subprocess.run([MMSIM, "rerun", "rr.h5", "-o", "again.h5", "--resume"], cwd=d,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(fin.returncode == 0 and "reproduced" in fin.stdout,
              f"rerun --resume finishes it: {fin.returncode} {fin.stdout.strip()} {fin.stderr.strip()}")
        print("ok   rerun interrupted, then finished by rerun --resume")

if failures:
    print(f"0 passed, {len(failures)} failed")
    sys.exit(1)
print("signals: every interrupted command left nothing behind")
