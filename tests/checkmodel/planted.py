#!/usr/bin/env python3
"""checkmodel's planted bugs: test-only variants of the kernel headers (docs/testing.md, "Planted bugs").

Each bug is (checkmodel kernel, mutant name, header under src/core, exact original text, replacement).
The product headers hold the correct code only; the build makes the buggy copies from this table, and
tools/mutants reads the same table (--list0), so each is also a mutant.

  planted.py BUG SRC_CORE OUT_DIR STAMP DEPFILE
      Copy every header of SRC_CORE into OUT_DIR (a directory of its own per bug), with BUG's original text
      replaced in its header; write STAMP (a header naming the bug) and DEPFILE (Make syntax: the headers
      and this script). The bug's ck_*bug.c is compiled with -iquote OUT_DIR, so that every quote include of
      a kernel header, from the test file or from another kernel header (those look beside themselves
      first), finds the copies. Fails (status 1) when the original text does not occur exactly once:
      a change to the product code cannot silently turn a self-test off.
  planted.py --list0
      Print mutant name, file, original and replacement of each bug, each followed by a NUL, the texts
      without their last newline (tools/mutants).
"""
import os
import sys

SKIP = "src/core/accel/mm_skip.h"

PLANTED = [
    # Kind 4's time guard of a time-varying strategy (AS with horizon 0) taken without proof and twice
    # too long: its targets may have moved with the time left while it skips.
    ("timebug", "time_guard_unproved_and_too_long", SKIP,
     "        if (!mm__tv_same(d, fair, kqd, tl, tn, t)) continue;\n",
     "        tl = tn - 2.0 * del;\n        if (tl < 0) tl = 0;\n"),
    # Kind 3's microprice band a quarter tick too wide below and unchecked: the targets may have moved
    # while it skips.
    ("bandbug", "band_too_wide_below_and_unchecked", SKIP,
     "    hi -= 1e-9 * mag;\n",
     "    hi -= 1e-9 * mag;\n    lo -= 0.25;\n    *flo = lo;\n    *fhi = hi;\n    return;\n"),
    # The skip test's bound for a buy inside the spread ignoring seller-initiated trades: the trade's
    # fill is skipped.
    ("skipbug", "skip_inside_buy_ignores_sell_trades", SKIP,
     "    if (sell_trade && ev->tpx < x) x = ev->tpx;\n",
     ""),
    # The shared states' test of a clean step looking at the fills only: a fill report taken into a
    # leader's known position leaves its members' known positions behind.
    ("sharebug", "share_clean_ignores_the_known_position", "src/core/accel/sim_share.h",
     "    return pre->fills[0] == post->fills[0] && pre->fills[1] == post->fills[1] &&\n"
     "           pre->kq == post->kq;\n",
     "    return pre->fills[0] == post->fills[0] && pre->fills[1] == post->fills[1];\n"),
    # book = l2, l3 (docs/model.md 4.5): the skip test's depth touch looking at the bid only, so a
    # depth row at a live ask's price behind the best does not step it and its queue misses the
    # level's changes. Only depth rows behind the best show it: the generated tapes' depth streams.
    ("touchbug", "depth_touch_ignores_the_ask", SKIP,
     "        if (st->s[k].qty > 0 && dv->px[j] == st->s[k].px) return 1;\n",
     "        if (k == 0 && st->s[k].qty > 0 && dv->px[j] == st->s[k].px) return 1;\n"),
    # A leader that a split made joins its group of loose leaders one event late (lanes kernel).
    ("loosebug", "lanes_loose_leader_joins_late", "src/core/accel/sim_lanes_group.h",
     "        from[l] = at ? at[l] : 0;\n",
     "        from[l] = at ? at[l] : 0;\n        if (at && from[l] + 1 < r->w1 - r->w0) from[l]++;\n"),
]


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w") as f:
        f.write(text)


def plant(bug, src_core, out_dir, stamp, depfile):
    rows = [p for p in PLANTED if p[0] == bug]
    if len(rows) != 1:
        sys.exit(f"planted.py: no planted bug '{bug}' (have: {', '.join(p[0] for p in PLANTED)})")
    _, name, path, old, new = rows[0]
    target = os.path.basename(path)
    os.makedirs(out_dir, exist_ok=True)
    # The model's headers and the fast kernels' (accel/), copied side by side: no two share a name.
    where = {}
    for d in (src_core, os.path.join(src_core, "accel")):
        for h in os.listdir(d):
            if h.endswith(".h"):
                if h in where:
                    sys.exit(f"planted.py: two headers named {h} ({where[h]}, {d})")
                where[h] = d
    headers = sorted(where)
    if target not in headers:
        sys.exit(f"planted.py: {bug}: no header {path}")
    for h in headers:
        with open(os.path.join(where[h], h)) as f:
            text = f.read()
        if h == target:
            n = text.count(old)
            if n != 1:
                sys.exit(f"planted.py: {bug} ({name}): {path}: the original text occurs {n} times "
                         f"(want exactly 1), update tests/checkmodel/planted.py:\n{old}")
            text = text.replace(old, new)
        write_if_changed(os.path.join(out_dir, h), text)
    # Copies of headers since removed from src/core would shadow nothing, but leave no stale ones.
    for h in os.listdir(out_dir):
        if h.endswith(".h") and h not in headers:
            os.remove(os.path.join(out_dir, h))
    with open(stamp, "w") as f:
        f.write(f"/* checkmodel's planted bug {bug} ({name}): {path} in {out_dir} */\n")
    deps = [os.path.abspath(__file__), os.path.abspath(src_core),
            os.path.abspath(os.path.join(src_core, "accel"))] + \
        [os.path.abspath(os.path.join(where[h], h)) for h in headers]
    with open(depfile, "w") as f:
        f.write(stamp.replace(" ", "\\ ") + ": " + " ".join(d.replace(" ", "\\ ") for d in deps) + "\n")


def main(argv):
    if argv[1:] == ["--list0"]:
        out = sys.stdout
        for _, name, path, old, new in PLANTED:  # the last newline left out (--list prints one line)
            out.write(f"{name}\0{path}\0{old[:-1]}\0{new[:-1] if new else new}\0")
        return
    if len(argv) != 6:
        sys.exit(__doc__)
    plant(*argv[1:])


if __name__ == "__main__":
    main(sys.argv)
