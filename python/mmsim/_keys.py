"""The model's keys, read from the library's key table (src/core/params_keys.c through
mm_params_key_name / _kind), and values as the command line writes them."""
import ctypes as C
import difflib
import math
import re

from . import _lib as L

ALIASES = {"half_spread": "spread"}  # src/cli/cli_keys.c: spread is a half-spread


def keys():
    """Every model key with its help text, in the table's order."""
    out = {}
    for i in range(L.mm_params_key_count()):
        h = C.c_char_p()
        k = L.mm_params_key_name(i, C.byref(h)).decode()
        out[k] = h.value.decode() if h.value else ""
    return out


def kind(key):
    """(MM_KEY_INT | MM_KEY_REAL | MM_KEY_ENUM, enum value names or None); kind < 0 for no key."""
    names = C.POINTER(C.c_char_p)()
    k = L.mm_params_key_kind(key.encode(), C.byref(names))
    vals = None
    if k == 3 and names:
        vals, i = [], 0
        while names[i]:
            vals.append(names[i].decode())
            i += 1
    return k, vals


def canon(key):
    """A key as a user wrote it: '-' read as '_', an alias replaced by its key."""
    k = str(key).replace("-", "_")
    return ALIASES.get(k, k)


def hint(key):
    """' (did you mean KEY?)' for a mistyped key, else ''."""
    near = difflib.get_close_matches(key, list(keys()) + list(ALIASES), n=1, cutoff=0.75)
    return f" (did you mean {near[0]}? mmsim.keys() lists them)" if near else " (mmsim.keys() lists them)"


def fmt_shortest(v):
    """The shortest %.Ng text that reads back as v; an integer below 2^53 as one (mm__fmt_shortest)."""
    v = float(v)
    if math.isfinite(v) and v == int(v) and abs(v) < 2 ** 53:
        return "-0" if v == 0 and math.copysign(1.0, v) < 0 else str(int(v))
    for n in range(1, 18):
        s = "%.*g" % (n, v)
        if float(s) == v:
            return s
    return repr(v)


def text(v):
    """A value as the command line would write it: numbers in decimal, booleans as 1/0, enum names as
    given."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int) or (hasattr(v, "dtype") and getattr(v.dtype, "kind", "") in "iu"):
        return str(int(v))
    if isinstance(v, float) or (hasattr(v, "dtype") and getattr(v.dtype, "kind", "") == "f"):
        return fmt_shortest(v)
    return str(v)


_DEC_INT = re.compile(r"-?[0-9]+")
_DEC_REAL = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def is_decimal(s, integer):
    return bool((_DEC_INT if integer else _DEC_REAL).fullmatch(s))


def strategy_of(key):
    """The strategy that reads a key (0 fixed, 1 as, 2 glft), or -1 for every strategy
    (docs/model.md 1.1; src/cli/cli_keys.c cli_key_strategy)."""
    if key in ("spread", "skew"):
        return 0
    if key.startswith("as_"):
        return 1
    if key.startswith("glft_"):
        return 2
    return -1


STRATEGIES = ("fixed", "as", "glft")


def set_param(p, key, value, where):
    """mm_params_set with the command line's checks (a number must be a complete decimal); errors name
    where the key came from ("run", "grid", "set")."""
    k = canon(key)
    kd, _ = kind(k)
    s = text(value)
    if kd < 0:
        raise L.UsageError(f"{where}: {k}: unknown key{hint(k)}", L.MM_EUSAGE)
    if kd != 3 and not is_decimal(s, kd == 1):
        raise L.UsageError(f"{where}: {k}: '{s}' is not a decimal {'integer' if kd == 1 else 'number'}",
                           L.MM_EUSAGE)
    err = L.mm_error()
    rc = L.mm_params_set(p, k.encode(), s.encode(), C.byref(err))
    if rc:
        raise L.error(err.code or rc, f"{where}: {L.pymsg(err.msg.decode())}")
    return k, s


def get_param(p, key):
    buf = C.create_string_buffer(256)
    L.mm_params_get(p, key.encode(), buf, 256)
    return buf.value.decode()


def params_dict(p):
    """Every key's value, typed: ints, floats, enum names."""
    out = {}
    for k in keys():
        s = get_param(p, k)
        kd, _ = kind(k)
        out[k] = int(s) if kd == 1 else float(s) if kd == 2 else s
    return out


def _int(where, name, v, lo, hi):
    s = text(v)
    if not is_decimal(s, True):
        raise L.UsageError(f"{where}: {name}: '{s}' is not a decimal integer", L.MM_EUSAGE)
    if not lo <= int(s) <= hi:
        raise L.UsageError(f"{where}: {name}: {s} is out of range [{lo}, {hi}]", L.MM_EUSAGE)
    return int(s)


def _real(where, name, v, lo, hi):
    s = text(v)
    if not is_decimal(s, False):
        raise L.UsageError(f"{where}: {name}: '{s}' is not a finite decimal number", L.MM_EUSAGE)
    if not lo <= float(s) <= hi:
        raise L.UsageError(f"{where}: {name}: {s} is out of range [{lo:g}, {hi:g}]", L.MM_EUSAGE)
    return float(s)


_SMALLER_BETTER = {"max_drawdown", "fees", "rejects", "rejects_per_s", "held", "max_abs_q", "mean_abs_q"}


def smaller_is_better(metric):
    """The direction a metric ranks in when none is given (src/cli/cli_keys.c
    cli_metric_smaller_is_better): a spread (std) and a probability of loss smallest first; a
    location (mean, percentile, CVaR) as its metric."""
    if metric.endswith("_std") or metric.startswith("p_loss"):
        return True
    for suf in ("_mean", "_p5", "_p50", "_p95", "_cvar5"):
        if metric.endswith(suf) and len(metric) > len(suf):
            return smaller_is_better(metric[:-len(suf)])
    return metric in _SMALLER_BETTER
