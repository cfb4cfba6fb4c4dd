"""Sweep progress: the library's counts (mm_sweep_progress) as a named tuple, and a plain progress
bar for a terminal or a notebook."""
import collections
import sys
import time

Progress = collections.namedtuple("Progress", [
    "chunks_done", "chunks_total", "combos_done", "combos_total", "updates_done", "elapsed_s", "final",
    "updates_total", "combos_finished", "updates_finished"])


def from_c(p):
    return Progress(*(getattr(p, f) for f in Progress._fields))


def _clock(s):
    s = int(round(s))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Bar:
    """One line rewritten in place ('\\r'; Jupyter renders it the same): a bar, done/total
    combinations, the rate, elapsed time and the ETA (from the finished work, as `mmsim sweep`'s
    line). At most 4 updates a second, and the final one."""

    def __init__(self, stream=None, width=30):
        self.stream = stream or sys.stderr
        self.width = width
        self.last = 0.0
        self.shown = False

    def __call__(self, p):
        now = time.monotonic()
        if not p.final and now - self.last < 0.25:
            return
        self.last = now
        total = max(p.combos_total, 1)
        done = p.combos_finished if p.combos_finished else p.combos_done
        frac = p.updates_finished / p.updates_total if p.updates_total else done / total
        frac = min(max(frac, 0.0), 1.0)
        fill = int(round(frac * self.width))
        rate = done / p.elapsed_s if p.elapsed_s > 0 else 0.0
        eta = (p.elapsed_s * (1 - frac) / frac) if 0 < frac < 1 else 0.0
        line = (f"\rsweep [{'#' * fill}{'.' * (self.width - fill)}] {100 * frac:3.0f}% "
                f"{done:,}/{p.combos_total:,} combos, {rate:,.0f}/s, {_clock(p.elapsed_s)}"
                + (f", ETA {_clock(eta)}" if not p.final and frac > 0 else ""))
        self.stream.write(line)
        if p.final:
            self.stream.write("\n")
        self.stream.flush()
        self.shown = True


def default_display():
    """A bar where a person watches: a terminal, or a notebook's kernel."""
    try:
        if sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):
        pass
    return "ipykernel" in sys.modules
