"""strata.project against plink2 --score and the held-aside property of OADP."""
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import strata


def _run(*args, cwd=None):
    subprocess.run([str(a) for a in args], check=True, cwd=cwd, capture_output=True)


@pytest.fixture(scope="module")
def cohort(tmp_path_factory, strata_cli):
    d = tmp_path_factory.mktemp("project")
    _run(strata_cli, "simulate", "--samples", 400, "--variants", 4000, "--pops", 3, "--missing", 0.01,
         "--out", d / "c", "-q")
    return d


def test_matches_plink2_score_and_reproduces_reference(cohort, strata_cli):
    if shutil.which("plink2") is None:
        pytest.skip("no oracle: plink2 not on PATH")
    _run(strata_cli, "pca", cohort / "c", "-k", 4, "--out", cohort / "p", "-q")
    _run("plink2", "--bfile", "c", "--read-freq", "p.afreq", "--score", "p.eigenvec.var", 2, 3, "header-read",
         "no-mean-imputation", "variance-standardize", "--score-col-nums", "5-8", "--out", "p2", cwd=cohort)
    r = strata.project(str(cohort / "c"), str(cohort / "p"))
    want = pd.read_csv(cohort / "p2.sscore", sep="\t")
    np.testing.assert_array_equal(r.allele_ct, want["ALLELE_CT"].to_numpy())
    for j in range(4):
        np.testing.assert_allclose(r.sscore[:, j], want[f"PC{j + 1}_AVG"], rtol=6e-6, atol=1e-11)
    ref = pd.read_csv(cohort / "p.eigenvec", sep="\t").set_index("IID")
    got = r.to_pandas()
    np.testing.assert_allclose(got.to_numpy(), ref.loc[got.index, got.columns].to_numpy(), atol=1e-6)
    assert r.report["matched"] == 4000 and r.report["missing"] == 0


def test_oadp_held_aside(tmp_path, strata_cli):
    _run(strata_cli, "simulate", "--samples", 1000, "--variants", 40000, "--pops", 4, "--fst", 0.005,
         "--out", tmp_path / "c", "-q")
    fam = pd.read_csv(tmp_path / "c.fam", sep=r"\s+", header=None)
    hold = fam.iloc[::10, :2]
    hold.to_csv(tmp_path / "hold.txt", sep="\t", header=False, index=False)
    _run(strata_cli, "pca", tmp_path / "c", "-k", 3, "--out", tmp_path / "all", "-q")
    _run(strata_cli, "pca", tmp_path / "c", "-k", 3, "--remove", tmp_path / "hold.txt", "--out", tmp_path / "ref",
         "-q")
    g = strata.open_genotypes(str(tmp_path / "c"))
    simple = strata.project(g, tmp_path / "ref").to_pandas()
    oadp = strata.project(g, tmp_path / "ref", correction="oadp").to_pandas()
    m = len(pd.read_csv(tmp_path / "all.afreq", sep="\t"))
    la, lr = np.loadtxt(tmp_path / "all.eigenval"), np.loadtxt(tmp_path / "ref.eigenval")
    ea = pd.read_csv(tmp_path / "all.eigenvec", sep="\t").set_index("IID")
    er = pd.read_csv(tmp_path / "ref.eigenvec", sep="\t").set_index("IID")
    ids = hold[1].astype(str).to_numpy()
    for j in range(3):
        pc = f"PC{j + 1}"
        sign = np.sign(np.dot(ea.loc[er.index, pc], er[pc]))
        truth = ea.loc[ids, pc].to_numpy() * np.sqrt(la[j] * m)
        err = {}
        for name, p in (("simple", simple), ("oadp", oadp)):
            est = sign * p.loc[ids, pc].to_numpy() * np.sqrt(lr[j] * m)
            err[name] = np.linalg.norm(est - truth) / np.linalg.norm(truth)
        assert err["oadp"] < 0.15, (pc, err)
        assert err["simple"] > 2 * err["oadp"], (pc, err)
