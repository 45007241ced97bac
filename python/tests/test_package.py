"""The installed package: version, console script, the CLI inside it."""
import subprocess
import sys

import strata


def test_version_is_the_cli_version(strata_cli):
    out = subprocess.run([strata_cli, "--version"], check=True, capture_output=True, text=True).stdout.strip()
    assert out == f"strata {strata.__version__}"


def test_console_script_runs_the_cli():
    bindir = __import__("pathlib").Path(sys.executable).parent
    out = subprocess.run([str(bindir / "strata"), "--version"], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == f"strata {strata.__version__}"


def test_distribution_metadata_matches():
    from importlib.metadata import version

    assert version("strata-genomics") == strata.__version__
