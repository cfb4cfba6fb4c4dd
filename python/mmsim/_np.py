"""numpy, imported on first use: `import mmsim` and mmsim.sweep() run without it (about 80 ms of a
fresh interpreter's start; tools/bench-python), a DataFrame or a column imports it."""
import importlib


class _Lazy:
    def __getattr__(self, name):
        mod = importlib.import_module("numpy")
        globals()["np"] = mod
        return getattr(mod, name)


np = _Lazy()
