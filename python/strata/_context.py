"""Contexts: the threads, memory budget, progress and run report of strata calls."""
from __future__ import annotations

import json
import os
import sys

from . import _core


def library_defaults(params):
    """The fields of a library parameter struct (``_core.PcaParams()`` …) as plain Python values.
    Module-level defaults hold these rather than the struct: a bound instance still alive when
    the extension shuts down (a module kept by another library's cache) is reported as a leak."""
    from types import SimpleNamespace

    return SimpleNamespace(**{name: getattr(params, name) for name in dir(params)
                              if not name.startswith("_") and not callable(getattr(params, name))})


def _threads(threads) -> int:
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive integer (or None for all cores), got {threads!r}")
    return threads


class _TqdmProgress:
    """Forwards strata's progress events to one tqdm bar per task. The library weighs its passes
    by their cost (units of "work", not variants), so the bar shows a percentage and the ETA, with
    the task and its current phase ("pca: eigensolve") as the description."""

    _FORMAT = "{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]"

    def __init__(self):
        from tqdm.auto import tqdm

        self._tqdm = tqdm
        self._bar = None
        self._label = "strata"

    def __call__(self, event, done, total, label, unit):
        if event == "begin":
            self._label = label or "strata"
            self._bar = self._tqdm(total=total or None, desc=self._label, bar_format=self._FORMAT, leave=False)
        elif self._bar is None:
            return
        elif event == "phase":
            self._bar.set_description_str(self._label if label in ("", self._label) else f"{self._label}: {label}")
        else:
            if total and self._bar.total != total:
                self._bar.total = total
            self._bar.update(done - self._bar.n)
            if event == "end":
                self._bar.close()
                self._bar = None


def _interactive() -> bool:
    """Whether a person watches: stderr is a terminal, or the call runs in a Jupyter kernel."""
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):  # a replaced or closed stderr
        pass
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ip = shell.get_ipython()
    except Exception:
        return False
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def _progress_callback(progress):
    """None (the default): a tqdm bar when a person watches (_interactive) and tqdm is installed;
    True: a tqdm bar (if tqdm is installed); False: none; a callable: the raw events."""
    if progress is False:
        return None
    if progress is None:
        progress = _interactive()
        if not progress:
            return None
    if progress is True:
        try:
            return _TqdmProgress()
        except ImportError:
            return None
    if callable(progress):
        return progress
    raise TypeError("progress must be None, True, False or a callable(event, done, total, label, unit)")


class Context:
    """Resources for strata calls: ``threads`` (None = all cores), ``memory`` budget (bytes or
    "2G"; None = the library's default, half the physical memory, as every ``strata`` command
    without ``--memory``) and ``progress``: None (default) = a tqdm bar when stderr is a terminal
    or in a Jupyter notebook, True = always a bar, False = none, or a callable
    ``f(event, done, total, label, unit)`` with event "begin", "update", "phase" (``label`` =
    the phase's name) or "end".

    Pass it as ``context=`` to reuse one thread pool across calls; by default each call makes its
    own. A Context runs one call at a time (its report is the last call's)."""

    def __init__(self, threads=None, memory=None, progress=None):
        # The library parses, checks and defaults the budget (as the CLI's --memory).
        self._core = _core.make_context(_threads(threads), memory, _progress_callback(progress))

    @property
    def threads(self) -> int:
        return self._core.threads

    @property
    def memory(self) -> int:
        return self._core.memory

    def report(self) -> dict:
        """The run report of the last call: phases with seconds, passes, bytes read, peaks, threads."""
        return json.loads(self._core.report_json())

    def cancel(self) -> None:
        """Ask the running computation to stop (it raises RuntimeError 'Cancelled…'; Ctrl-C
        cancels it too and raises KeyboardInterrupt)."""
        self._core.cancel()

    def __repr__(self):
        return f"strata.Context(threads={self.threads}, memory={self.memory})"


def resolve(context=None, threads=None, memory=None, progress=None) -> Context:
    """The Context a call runs on: `context` (its report cleared) or a new one."""
    if context is not None:
        if not isinstance(context, Context):
            raise TypeError("context must be a strata.Context")
        context._core.clear_report()
        return context
    return Context(threads=threads, memory=memory, progress=progress)


def cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
