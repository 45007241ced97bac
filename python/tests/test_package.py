"""The installed package: version, console script, the CLI inside it."""
import subprocess
import sys

import strata


def test_version_is_the_cli_version(strata_cli):
    out = subprocess.run([strata_cli, "--version"], check=True, capture_output=True, text=True).stdout.split("\n")
    assert out[0] == f"strata {strata.__version__}"
    # The backends this build has: the wheel is CPU-only.
    assert out[1].startswith("backends: cpu (") and "cuda" not in out[1]


def test_console_script_runs_the_cli():
    bindir = __import__("pathlib").Path(sys.executable).parent
    out = subprocess.run([str(bindir / "strata"), "--version"], check=True, capture_output=True, text=True)
    assert out.stdout.split("\n")[0] == f"strata {strata.__version__}"


def test_distribution_metadata_matches():
    from importlib.metadata import version

    assert version("strata-genomics") == strata.__version__


LEVELS = ["portable", "avx2", "avx2-vnni", "avx512", "avx512-vnni", "avx512-amx", "neon"]


def _pinned(level, code):
    env = dict(__import__("os").environ, STRATA_CPU=level)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


def test_cpu_level_names_the_level_and_the_pin():
    c = strata.cpu_level()
    assert set(c) == {"level", "detected", "pinned"}
    assert c["level"] in LEVELS and c["detected"] in LEVELS
    assert LEVELS.index(c["level"]) <= LEVELS.index(c["detected"])
    r = _pinned("portable", "import strata; print(strata.cpu_level())")
    assert r.returncode == 0, r.stderr
    assert eval(r.stdout) == {"level": "portable", "detected": c["detected"], "pinned": "portable"}


def test_a_misspelt_pin_refuses_to_import():
    r = _pinned("avx3", "import strata")
    assert r.returncode != 0
    assert "ValueError: STRATA_CPU='avx3': not a CPU level (one of portable, avx2" in r.stderr


def test_random_sum_is_the_same_bits_at_every_level():
    code = ("import strata; x = strata.random.normal(10, 1, shape=(700, 900), chunks=(300, 400), seed=3);"
            "print(repr(float(((x + 1)[::2, ::2]).sum().compute())))")
    here = strata.cpu_level()["detected"]
    sums = {}
    for level in LEVELS[: LEVELS.index(here) + 1]:  # on aarch64 the x86 pins run portable
        r = _pinned(level, code)
        assert r.returncode == 0, r.stderr
        sums[level] = r.stdout.strip()
    assert len(set(sums.values())) == 1, sums
