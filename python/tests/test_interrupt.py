"""Ctrl-C cancels a running computation (KeyboardInterrupt, nothing written); progress bars appear
only where a person watches."""
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import strata
from strata import _context

# A computation far longer than the test waits: 12.8 GB of normal draws written to Zarr.
_LONG_WRITE = """
import sys, strata
x = strata.random.normal(shape=(40_000, 40_000), chunks=(2_000, 2_000))
print("started", flush=True)
try:
    x.to_zarr(sys.argv[1], compressor="zstd:3", threads=2, progress=False)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    raise SystemExit(42)
print("finished", flush=True)
"""


def _interrupt_after(script: str, args, delay: float = 1.0):
    """Run `script` in a fresh interpreter, SIGINT it `delay` s after it starts computing; the
    seconds it took to exit after the signal, and its exit code and output."""
    p = subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    assert p.stdout.readline().strip() == "started", p.stderr.read()
    time.sleep(delay)
    assert p.poll() is None, "the computation ended before the signal: make it longer"
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail("the process did not stop within 30 s of SIGINT")
    return time.monotonic() - sent, p.returncode, out, err


def test_sigint_cancels_to_zarr_and_writes_nothing(tmp_path):
    target = tmp_path / "big.zarr"
    waited, code, out, err = _interrupt_after(_LONG_WRITE, [str(target)])
    assert code == 42 and "KeyboardInterrupt" in out, (code, out, err)
    assert waited < 2.0, f"exited {waited:.2f} s after SIGINT"
    assert not target.exists()
    assert [p.name for p in tmp_path.iterdir()] == [], "staged output was left behind"


def _write_bed(prefix: Path, variants: int, samples: int):
    """A random PLINK 1 fileset (codes 0-3, missing included) on chromosome 1."""
    import numpy as np

    rng = np.random.default_rng(7)
    row = (samples + 3) // 4
    with open(f"{prefix}.bed", "wb") as f:
        f.write(bytes([0x6C, 0x1B, 0x01]))
        f.write(rng.integers(0, 256, size=(variants, row), dtype=np.uint8).tobytes())
    Path(f"{prefix}.bim").write_text("".join(f"1\tv{i}\t0\t{i + 1}\tA\tG\n" for i in range(variants)))
    Path(f"{prefix}.fam").write_text("".join(f"s{i}\ts{i}\t0\t0\t0\t-9\n" for i in range(samples)))


def test_sigint_cancels_one_long_grm(tmp_path):
    """One strata.grm call of many seconds (100k variants x 2,000 samples) stops within 2 s."""
    _write_bed(tmp_path / "big", 100_000, 2_000)
    script = textwrap.dedent("""
        import sys, time, strata
        g = strata.open_genotypes(sys.argv[1])
        print("started", flush=True)
        t = time.monotonic()
        try:
            strata.grm(g, threads=2, progress=False)
        except KeyboardInterrupt:
            print("KeyboardInterrupt", flush=True)
            raise SystemExit(42)
        print(f"finished in {time.monotonic() - t:.1f} s", flush=True)
    """)
    waited, code, out, err = _interrupt_after(script, [str(tmp_path / "big")])
    assert code == 42 and "KeyboardInterrupt" in out, (code, out, err)
    assert waited < 2.0, f"exited {waited:.2f} s after SIGINT"


def test_context_is_usable_after_an_interrupt():
    """A SIGINT during a call raises KeyboardInterrupt from it; the Context's cancellation is
    cleared, so the next call on it runs."""
    ctx = strata.Context(threads=2, progress=False)
    x = strata.random.normal(shape=(3_000, 3_000), chunks=(250, 250))  # blocks of ~0.1 s
    import threading

    sent = []
    timer = threading.Timer(0.3, lambda: (sent.append(time.monotonic()), os.kill(os.getpid(), signal.SIGINT)))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        (x @ x).sum().compute(context=ctx)  # one call of ~10 s
    stopped = time.monotonic()
    timer.join()
    assert stopped - sent[0] < 2.0, f"stopped {stopped - sent[0]:.2f} s after SIGINT"
    small = strata.random.normal(shape=(10, 10), chunks=(5, 5))
    assert small.sum().compute(context=ctx).shape == ()


def test_progress_defaults_to_a_bar_only_where_a_person_watches(monkeypatch):
    monkeypatch.setattr(_context, "_interactive", lambda: False)
    assert _context._progress_callback(None) is None
    monkeypatch.setattr(_context, "_interactive", lambda: True)
    pytest.importorskip("tqdm")
    assert isinstance(_context._progress_callback(None), _context._TqdmProgress)
    assert _context._progress_callback(False) is None
    assert isinstance(_context._progress_callback(True), _context._TqdmProgress)
    f = lambda *e: None  # noqa: E731
    assert _context._progress_callback(f) is f
    with pytest.raises(TypeError):
        _context._progress_callback("yes")


def test_pytest_is_not_interactive():
    """Under pytest stderr is captured (not a terminal): the default is no bar."""
    assert not sys.stderr.isatty()
    assert _context._interactive() is False


def test_bar_shows_the_phase_and_a_percentage(hm3_dosages):
    """The tqdm bar's description follows the library's phases; it counts the task's weighted
    units to 100 %, not variants."""
    import io

    pytest.importorskip("tqdm")
    bar = _context._TqdmProgress()
    out = io.StringIO()
    descriptions = []
    real = bar._tqdm

    def tqdm(**kw):
        b = real(file=out, mininterval=0, **kw)
        orig = b.set_description_str
        b.set_description_str = lambda d, **k: (descriptions.append(d), orig(d, **k))[1]
        return b

    bar._tqdm = tqdm
    events = []

    def record(*e):
        events.append(e)
        bar(*e)

    strata.pca(hm3_dosages[:3000], k=2, progress=record)
    phases = [e[3] for e in events if e[0] == "phase"]
    assert phases, events
    assert any(d.startswith("pca") and ":" in d for d in descriptions), descriptions
    text = out.getvalue()
    assert "%" in text and "variants" not in text, text
    assert events[-1][0] == "end" and events[-1][1] == events[-1][2]
