#!/usr/bin/env python3
"""strata pca's per-eigenvalue error bounds against float64 exact.

For each input (a PLINK 1 prefix) runs `strata pca` (randomized, and with --tolerance),
computes the float64 GRM X'X/M in numpy (binom2 standardization, missing calls mean-imputed,
M = variants used + monomorphic ones) and its eigh, and prints per eigenvalue the reported
bound, the true relative error |lambda - lambda_exact| / lambda and, for eigenvectors, the
reported sin-angle bound and the true sin angle. Exits 1 if any bound is below the true error.

    python bench/pca_error_bounds.py --strata build/tools/cli/strata PREFIX [PREFIX ...]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def read_bed(prefix):
    """Allele-1 (A1, the .bim fifth column) counts as float64, NaN for missing: variants x samples."""
    n = sum(1 for _ in open(prefix + ".fam"))
    m = sum(1 for _ in open(prefix + ".bim"))
    raw = np.fromfile(prefix + ".bed", dtype=np.uint8)
    assert raw[:3].tolist() == [0x6C, 0x1B, 0x01], "not a variant-major .bed"
    stride = (n + 3) // 4
    codes = raw[3:3 + m * stride].reshape(m, stride)
    two = np.stack([(codes >> s) & 3 for s in (0, 2, 4, 6)], axis=2).reshape(m, stride * 4)[:, :n]
    # PLINK 1 codes: 00 hom A1, 01 missing, 10 het, 11 hom A2; count A2 (plink2's ALT).
    lut = np.array([0.0, np.nan, 1.0, 2.0])
    return lut[two]


def exact_pca(prefix):
    g = read_bed(prefix)
    obs = ~np.isnan(g)
    p = np.nansum(g, axis=1) / (2 * obs.sum(axis=1))
    poly = (p > 0) & (p < 1)
    m_scale = g.shape[0]  # plink2 counts monomorphic variants in M
    x = (g[poly] - 2 * p[poly, None]) / np.sqrt(2 * p[poly, None] * (1 - p[poly, None]))
    x[np.isnan(x)] = 0.0
    w, v = np.linalg.eigh(x.T @ x / m_scale)
    return w[::-1], v[:, ::-1]


def read_eigenvec(path, k):
    rows = [line.split() for line in open(path) if not line.startswith("#")]
    return np.array([[float(t) for t in r[-k:]] for r in rows])


def run(strata, prefix, k, extra, out):
    cmd = [strata, "pca", prefix, "-k", str(k), "--out", out, "--report", out + ".json", "-q"] + extra
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return json.load(open(out + ".json")), read_eigenvec(out + ".eigenvec", k)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--strata", default="build/tools/cli/strata")
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("prefixes", nargs="+")
    a = ap.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for prefix in a.prefixes:
            w, v = exact_pca(prefix)
            for label, extra in (("randomized", ["--method", "randomized"]),
                                 ("tolerance 1e-6", ["--method", "randomized", "--tolerance", "1e-6"])):
                rep, vec = run(a.strata, prefix, a.k, extra, os.path.join(tmp, "p"))
                ev = np.array(rep["eigenvalues"])
                est = np.array(rep["error_estimate"])
                vb = np.array(rep.get("eigenvector_error_bound", [np.nan] * a.k))
                true = np.abs(ev - w[:a.k]) / ev
                # sin of the angle between unit vectors (the .eigenvec text has 9 significant digits:
                # sin below ~1e-8 is not measurable).
                cos = np.abs(np.sum(vec * v[:, :a.k], axis=0)) / np.linalg.norm(vec, axis=0)
                sin = np.sqrt(np.maximum(0.0, 1 - cos ** 2))
                print(f"{os.path.basename(prefix)}  {label}: {rep['passes']} passes, converged {rep['converged']}, "
                      f"bounded {rep.get('errors_bounded')}")
                print(f"{'PC':>3} {'eigenvalue':>12} {'bound':>10} {'true err':>10} {'vec bound':>10} {'true sin':>10}")
                for i in range(a.k):
                    # numpy's eigh is itself within ~n·eps·lambda_1 of exact: no comparison below that.
                    ok = est[i] * ev[i] + w.size * np.finfo(float).eps * w[0] >= true[i] * ev[i]
                    bad += not ok
                    print(f"{i + 1:>3} {ev[i]:>12.6f} {est[i]:>10.2e} {true[i]:>10.2e} {vb[i]:>10.2e} {sin[i]:>10.2e}"
                          f"{'' if ok else '  BOUND BELOW TRUE ERROR'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
