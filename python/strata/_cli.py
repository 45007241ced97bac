"""The `strata` console script: runs the CLI binary installed inside the package."""
import os
import sys
from pathlib import Path


def executable() -> str:
    return str(Path(__file__).resolve().parent / "bin" / "strata")


def main() -> None:
    exe = executable()
    if not os.access(exe, os.X_OK):
        sys.exit(f"strata: the command-line tool is missing from this installation ({exe})")
    os.execv(exe, [exe, *sys.argv[1:]])
