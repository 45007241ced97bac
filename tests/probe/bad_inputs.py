#!/usr/bin/python3
"""Probe the strata CLI with hostile and careless inputs.

Usage:
    /usr/bin/python3 tests/probe/bad_inputs.py --strata build/tools/cli/strata \
        [--workdir DIR] [--only CLASS[,CLASS]] [--list] [--keep] [--timeout S]

Every case runs in its own throwaway directory under the work dir (default: a fresh
folder under /tmp).  A case is "handled cleanly" when ALL of these hold:
  * no crash (signal, or exit status >= 128) and no timeout (a timeout is a hang);
  * the exit code is one the case expects (0 ok, 1 data/runtime error, 2 usage error);
  * on failure, stderr's first line starts with "strata: error:" and stderr holds no raw
    C++ text ("std::", "basic_string", "what():", ": Success") and, for usage errors, no
    "0.000000" / "1797" style numbers;
  * every file under the case's directory is byte-identical afterwards, except the outputs
    the case may create or replace (on success only);
  * after a failure no new visible file or directory appears, and after any exit no hidden
    ".strata-stage-*" folder remains (unless the case killed the process itself);
  * a success case's stated property holds (outputs exist, numbers match an oracle, ...).

Prints a table "class | cases tried | handled cleanly" and every case not handled cleanly,
with a reproduction.  Exit status 0 iff every case is handled cleanly.
Needs Debian's python3 (numpy, python3-zarr 2.x), and for some cases bcftools and plink2.
"""

import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases_cohort  # noqa: E402
import cases_hostile  # noqa: E402
import cases_inputs  # noqa: E402
import cases_models  # noqa: E402
import cases_outputs  # noqa: E402
import probe_harness as h  # noqa: E402

ORDER = ["data-loss", "symlinks", "kill", "usage", "data-errors", "wrong-answers", "report", "cohort"]
BUILDERS = {"data-loss": cases_outputs.cases_data_loss, "symlinks": cases_outputs.cases_symlinks, "kill": cases_outputs.cases_kill, "usage": cases_inputs.cases_usage,
            "data-errors": cases_inputs.cases_data, "wrong-answers": cases_inputs.cases_wrong, "report": cases_outputs.cases_report,
            "cohort": cases_cohort.cases_cohort}
cases_models.register(ORDER, BUILDERS)
ORDER += list(cases_hostile.CLASSES); BUILDERS.update(cases_hostile.CLASSES)  # noqa: E702


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--strata", required=True)
    ap.add_argument("--workdir")
    ap.add_argument("--only", help="comma-separated classes: " + ",".join(ORDER))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the work dir")
    ap.add_argument("--timeout", type=float, default=60.0)
    a = ap.parse_args()
    h.STRATA = os.path.abspath(a.strata)
    h.TIMEOUT = a.timeout
    classes = ORDER if not a.only else [c.strip() for c in a.only.split(",")]
    for c in classes:
        if c not in BUILDERS:
            ap.error("unknown class %r (classes: %s)" % (c, ", ".join(ORDER)))
    root = os.path.abspath(a.workdir) if a.workdir else tempfile.mkdtemp(prefix="strata-probe-")
    os.makedirs(root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="run-", dir=root)
    h.FIX = os.path.join(root, "fixtures")
    t_start = time.monotonic()
    if not a.list:
        h.build_fixtures()
    else:
        h.FIX = os.path.join(root, "fixtures")
        os.makedirs(h.FIX, exist_ok=True)
        h.write(os.path.join(h.FIX, "v.vcf.gz"), b"", "wb")
    for c in classes:
        BUILDERS[c]()
    if a.list:
        for c in h.CASES:
            print("%-14s %-55s expect %s" % (c.cls, c.name, "/".join(map(str, sorted(c.expect)))))
        print("%d cases" % len(h.CASES))
        shutil.rmtree(root)
        return 0
    cases_root = os.path.join(root, "cases")
    os.makedirs(cases_root)
    stats = {}
    failures = []
    for i, case in enumerate(h.CASES):
        tried, clean = stats.setdefault(case.cls, [0, 0])
        stats[case.cls][0] += 1
        if case.gate:
            why = case.gate()
            if why:
                failures.append((case, [why], "(not run)", None, 0.0))
                h.RESULTS[case.name] = False
                continue
        try:
            probs, repro, p, el = h.run_case(case, cases_root, i)
        except Exception as e:
            probs, repro, p, el = ["probe error: %s: %s" % (type(e).__name__, e)], "(setup failed)", None, 0.0
        h.RESULTS[case.name] = not probs
        if probs:
            failures.append((case, probs, repro, p, el))
        else:
            stats[case.cls][1] += 1
        sys.stderr.write("%s %-14s %s\n" % ("ok  " if not probs else "FAIL", case.cls, case.name))
    total = time.monotonic() - t_start
    print()
    print("%-18s | %11s | %15s" % ("class", "cases tried", "handled cleanly"))
    print("-" * 18 + "-+-" + "-" * 11 + "-+-" + "-" * 15)
    for c in ORDER:
        if c in stats:
            print("%-18s | %11d | %15d" % (c, stats[c][0], stats[c][1]))
    print("%-18s | %11d | %15d" % ("TOTAL", sum(s[0] for s in stats.values()), sum(s[1] for s in stats.values())))
    print()
    if failures:
        print("Cases not handled cleanly:")
        for case, probs, repro, p, el in failures:
            print("- [%s] %s (expect exit %s)" % (case.cls, case.name, "/".join(map(str, sorted(case.expect)))))
            for m in probs:
                print("    * " + m)
            if p is not None:
                first = (p.stderr.decode(errors="replace").strip().splitlines() or [""])[0]
                print("    rc=%d  %.1fs  stderr: %s" % (p.returncode, el, first[:240]))
            print("    repro: " + repro)
    print("runtime %.1fs; work dir %s" % (total, root))
    if not a.keep and not failures:
        shutil.rmtree(root, ignore_errors=True)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
