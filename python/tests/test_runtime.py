"""The GIL is released, two threads compute at once, progress reaches a callback, no leaks."""
import resource
import threading
import time

import numpy as np
import pytest

import strata


def test_gil_released_during_pca(hm3_dosages):
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        t0 = time.perf_counter()
        strata.pca(hm3_dosages, k=4, method="exact", threads=1)
        t1 = time.perf_counter()
    finally:
        stop.set()
        t.join()
    during = [x for x in ticks if t0 < x < t1]
    # With the GIL held through the C++ call the ticker could not run at all meanwhile.
    assert t1 - t0 > 0.05
    assert len(during) >= 10, (len(during), t1 - t0)


def test_two_threads_compute_at_once(hm3_dosages):
    x = hm3_dosages[:4000]
    want = strata.pca(x, k=3, threads=1)
    results = [None, None]

    def run(i):
        results[i] = strata.pca(x, k=3, threads=1)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        np.testing.assert_array_equal(r.eigenvalues, want.eigenvalues)
        np.testing.assert_array_equal(r.eigenvectors, want.eigenvectors)


def test_progress_callback_sees_the_task(hm3_dosages):
    events = []
    strata.pca(hm3_dosages[:3000], k=2, progress=lambda *e: events.append(e))
    kinds = [e[0] for e in events]
    assert kinds[0] == "begin" and kinds[-1] == "end"
    assert events[-1][1] > 0 and events[-1][1] == events[-1][2]


class _Stop(Exception):
    pass


def test_progress_callback_exception_propagates(hm3_dosages):
    """The callback's own exception leaves the call (it cancels the run), traceback included;
    the context it ran on works again afterwards."""
    import traceback

    armed = [True]

    def stop_once(*event):
        if armed[0] and event[0] in ("begin", "update"):
            armed[0] = False
            raise _Stop("stop from the callback")

    ctx = strata.Context(threads=2, progress=stop_once)
    with pytest.raises(_Stop, match="stop from the callback") as info:
        strata.pca(hm3_dosages, k=2, method="exact", context=ctx)
    assert "stop_once" in [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    r = strata.pca(hm3_dosages[:3000], k=2, context=ctx)  # not left cancelled
    assert r.eigenvalues.shape == (2,)

    def interrupt(*event):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        strata.random.normal(shape=(400, 400), chunks=(100, 100)).sum().compute(progress=interrupt)


def test_rss_bounded_over_100_calls(hm3_dosages):
    x = hm3_dosages[:2000, :300]
    for _ in range(5):
        strata.pca(x, k=3)
    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize()
    before = rss()
    for _ in range(100):
        r = strata.pca(x, k=3)
        strata.random.normal(shape=(200, 200), chunks=(50, 50)).sum().compute()
    del r
    assert rss() - before < 32 << 20, (before, rss())


def test_context_reuse_and_report(hm3_dosages):
    ctx = strata.Context(threads=2, memory="1G")
    assert ctx.threads == 2 and ctx.memory == 1 << 30
    r1 = strata.pca(hm3_dosages[:3000], k=2, context=ctx)
    r2 = strata.pca(hm3_dosages[:3000], k=2, context=ctx)
    np.testing.assert_array_equal(r1.eigenvectors, r2.eigenvectors)
    assert r2.report["threads"] == 2
