#!/usr/bin/env python3
"""strata.array_api against the public Array API test suite (data-apis/array-api-tests), beside Dask.

    .venv/bin/python bench/array_api_conformance.py                      # both, default settings
    .venv/bin/python bench/array_api_conformance.py --libs strata --modules test_creation_functions

Sets the suite up from two local snapshots (the suite, and the spec repository whose commit the
suite's `array-api` submodule pins), then runs it once per library with the same suite commit,
ARRAY_API_TESTS_VERSION, Hypothesis settings (--max-examples, a fixed --hypothesis-seed,
derandomized, no deadline) and parses pytest's JUnit XML. Prints passed / failed / errors /
skipped per test module for each library and strata's passes as a share of Dask's.

Dask runs through array_api_compat.dask.array (its Array API wrapper). No xfail list is applied
to either library: array-api-compat's dask-xfails.txt only turns failures into xfails, and
XPASSes would not count as passes, so raw outcomes compare like with like.

The suite needs pytest, hypothesis and ndindex (requirements.txt pins them); --deps adds a
folder (pip install --target) to the suite's PYTHONPATH, and --pythonpath the strata build."""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

# Git clones of github.com/data-apis/array-api-tests and github.com/data-apis/array-api.
SUITE_MIRROR = os.environ.get("ARRAY_API_TESTS_DIR", "")
SPEC_MIRROR = os.environ.get("ARRAY_API_SPEC_DIR", "")
SPEC_COMMIT = "5f847a3858875c682ae901aa22b0413bf24be9da"  # the suite's array-api submodule
LIBRARIES = {"strata": "strata.array_api", "dask": "array_api_compat.dask.array"}


def git(repo, *args, **kw):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, **kw).stdout


def set_up_suite(suite_repo: str, spec_repo: str, dest: Path) -> str:
    """The suite at its snapshot's HEAD in dest, with the spec stubs checked out in array-api/.
    Returns the suite's commit."""
    for what, path in (("array-api-tests suite", suite_repo), ("array-api spec", spec_repo)):
        if not Path(path).exists():
            sys.exit(f"the {what} snapshot is absent: {path} (a git repository; pass --suite / --spec)")
    commit = git(suite_repo, "rev-parse", "HEAD").decode().strip()
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    subprocess.run(f"git -C {suite_repo} archive HEAD | tar -x -C {dest}", shell=True, check=True)
    (dest / "array-api").mkdir(exist_ok=True)
    subprocess.run(f"git -C {spec_repo} archive {SPEC_COMMIT} | tar -x -C {dest / 'array-api'}", shell=True,
                   check=True)
    return commit


def run_suite(dest: Path, lib: str, args, junit: Path) -> float:
    module = LIBRARIES[lib]
    env = dict(os.environ)
    env["ARRAY_API_TESTS_MODULE"] = module
    env["ARRAY_API_TESTS_VERSION"] = args.api_version
    paths = [p for p in (args.pythonpath, args.deps) if p] + [env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    targets = [f"array_api_tests/{m}.py" for m in args.modules] if args.modules else ["array_api_tests/"]
    cmd = [sys.executable, "-m", "pytest", *targets, "-q", "-p", "no:cacheprovider", f"--junitxml={junit}",
           f"--max-examples={args.max_examples}", f"--hypothesis-seed={args.seed}", "--disable-deadline",
           "--derandomize", "-o", "junit_family=xunit1", *args.pytest_args]
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=dest, env=env, capture_output=True, text=True, timeout=args.timeout)
    if not junit.exists():
        sys.exit(f"the suite did not run for {module} (exit {p.returncode}):\n{(p.stdout + p.stderr)[-3000:]}")
    return time.monotonic() - t0


def outcomes(junit: Path) -> dict:
    """{test module: Counter(passed, failed, errors, skipped)} from pytest's JUnit XML."""
    by_module = collections.defaultdict(collections.Counter)
    for case in ET.parse(junit).getroot().iter("testcase"):
        parts = case.get("classname", "").split(".")  # ...test_module[.TestClass]
        module = next((p for p in reversed(parts) if p.startswith("test_")), parts[-1] or "?")
        tags = {child.tag for child in case}
        kind = ("failed" if "failure" in tags else "errors" if "error" in tags
                else "skipped" if "skipped" in tags else "passed")
        by_module[module][kind] += 1
    return by_module


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default=SUITE_MIRROR, help="git repository of data-apis/array-api-tests")
    ap.add_argument("--spec", default=SPEC_MIRROR, help="git repository of data-apis/array-api (has the pinned commit)")
    ap.add_argument("--work", default=None, help="folder for the suite checkout and reports (default: a temporary one)")
    ap.add_argument("--libs", nargs="+", default=list(LIBRARIES), choices=list(LIBRARIES))
    ap.add_argument("--modules", nargs="*", default=None, help="test modules (e.g. test_linalg); default all")
    ap.add_argument("--api-version", default="2023.12")
    ap.add_argument("--max-examples", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=3600, help="seconds per library")
    ap.add_argument("--deps", default=os.environ.get("ARRAY_API_TESTS_DEPS"), help="extra site folder (hypothesis, ndindex)")
    ap.add_argument("--pythonpath", default=None, help="folder with the strata package to test")
    ap.add_argument("--json", default=None, help="also write the counts here")
    ap.add_argument("pytest_args", nargs="*", help="passed to pytest after --")
    args = ap.parse_args()

    work = Path(args.work or tempfile.mkdtemp(prefix="array-api-tests-"))
    suite = work / "array-api-tests"
    commit = set_up_suite(args.suite, args.spec, suite)
    print(f"suite {commit} (spec {SPEC_COMMIT}), API {args.api_version}, max-examples {args.max_examples}, "
          f"seed {args.seed}, derandomized, no deadline")
    results, walls = {}, {}
    for lib in args.libs:
        junit = work / f"{lib}.xml"
        walls[lib] = run_suite(suite, lib, args, junit)
        results[lib] = outcomes(junit)
    modules = sorted(set().union(*(r.keys() for r in results.values())))
    kinds = ("passed", "failed", "errors", "skipped")
    head = f"{'module':40s}" + "".join(f" | {lib:>6s} {'p/f/e/s':>15s}" for lib in args.libs)
    if {"strata", "dask"} <= set(args.libs):
        head += " | strata/dask passes"
    print(head)
    totals = {lib: collections.Counter() for lib in args.libs}
    for m in modules + ["TOTAL"]:
        row = f"{m:40s}"
        for lib in args.libs:
            c = totals[lib] if m == "TOTAL" else results[lib].get(m, collections.Counter())
            if m != "TOTAL":
                totals[lib].update(c)
            row += f" | {lib:>6s} {'/'.join(str(c[k]) for k in kinds):>15s}"
        if {"strata", "dask"} <= set(args.libs):
            s = (totals if m == "TOTAL" else {k: results[k].get(m, {}) for k in ("strata", "dask")})
            sp, dp = s["strata"].get("passed", 0), s["dask"].get("passed", 0)
            row += f" | {sp / dp:6.1%}" if dp else " |      -"
        print(row)
    print("wall seconds: " + ", ".join(f"{lib} {w:.0f}" for lib, w in walls.items()))
    if args.json:
        Path(args.json).write_text(json.dumps({
            "suite_commit": commit, "spec_commit": SPEC_COMMIT, "api_version": args.api_version,
            "max_examples": args.max_examples, "seed": args.seed, "wall_s": walls,
            "results": {lib: {m: dict(c) for m, c in r.items()} for lib, r in results.items()}}, indent=1))


if __name__ == "__main__":
    main()
