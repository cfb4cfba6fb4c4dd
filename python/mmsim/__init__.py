"""mmsim from Python: the tick store, the importers, one run and parameter sweeps of libmmsim, with the
command line's nouns, keys, defaults and messages (docs/python.md).

    import mmsim
    r = mmsim.sweep("amzn.h5", grid={"spread": "0:20", "inv_limit": [100, 200, 500]}, set={"size": 100},
                    out="results.h5")
    r.df, r.top(10), r.row(17).run().curve
    print(mmsim.sweep(..., blocks=16).select())
"""
__version__ = "0.2.0"

from ._lib import (DataError, Error, Interrupted, LockedError, NotFoundError, SystemFailure,  # noqa: E402
                   UsageError, LIB_PATH)
from ._keys import keys  # noqa: E402
from ._progress import Bar, Progress  # noqa: E402
from ._results import Results, Row  # noqa: E402
from ._run import Run, run  # noqa: E402
from ._select import DSR, Selection  # noqa: E402
from ._sweep import sweep  # noqa: E402
from ._ticks import (Depth, Tape, gen, import_binance, import_csv, import_lobster, instruments, ticks,  # noqa: E402
                     write_signal, write_ticks)


def results(path):
    """Open a results file (mmsim sweep's or mmsim.sweep's)."""
    return Results(path)


__all__ = ["ticks", "instruments", "write_ticks", "write_signal", "gen", "import_lobster", "import_binance", "import_csv",
           "run", "sweep", "results", "keys", "Tape", "Depth", "Run", "Results", "Row", "Selection", "DSR",
           "Progress", "Bar", "Error", "UsageError", "DataError", "NotFoundError", "LockedError", "Interrupted",
           "SystemFailure",
           "LIB_PATH", "__version__"]
