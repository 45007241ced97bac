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
