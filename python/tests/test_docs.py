"""The README and docs/: the "Your own data" commands run as written, and every relative link
points at a file of the checkout. (Their Python blocks run in test_distributed_genotypes.py.)"""
import re
import shlex
import subprocess
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def quickstart_commands():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Your own data", 1)[1].split("\n## ", 1)[0]
    commands = [shlex.split(line, comments=True) for line in section.splitlines() if line.startswith("    strata ")]
    assert len(commands) >= 5, section
    return commands


def test_readme_quickstart_runs_as_written(strata_cli, tmp_path):
    subprocess.run([strata_cli, "simulate", "--samples", "300", "--variants", "3000", "--pops", "3", "--fst", "0.05",
                    "--missing", "0.01", "--seed", "5", "--out", str(tmp_path / "cohort"), "-q"], check=True)
    ids = [line.split()[:2] for line in (tmp_path / "cohort.fam").read_text().splitlines()]
    bmi = np.random.default_rng(5).normal(25, 4, len(ids))
    (tmp_path / "pheno.txt").write_text("#FID\tIID\tBMI\n" + "".join(f"{f}\t{i}\t{b:.2f}\n" for (f, i), b in zip(ids, bmi)))
    commands = quickstart_commands()
    assert [c[1] for c in commands] == ["qc", "prune", "pca", "king", "gwas"]
    for argv in commands:
        r = subprocess.run([strata_cli, *argv[1:]], cwd=tmp_path, capture_output=True, text=True)
        assert r.returncode == 0, f"{shlex.join(argv)}: {r.stderr}"
    for name in ["qc.smiss", "qc.vmiss", "qc.het", "qc.hardy", "ld.prune.in", "pcs.eigenvec", "pcs.eigenval",
                 "pcs.svg", "rel.kin0", "assoc.BMI.glm.linear"]:
        assert (tmp_path / name).stat().st_size > 0, name
    rows = (tmp_path / "assoc.BMI.glm.linear").read_text().splitlines()
    assert re.match(r"#CHROM\tPOS\tID\tREF\tALT\tA1\tTEST\tOBS_CT\tBETA\tSE\tT_STAT\tP", rows[0])
    assert len(rows) == 1 + 3000  # one ADD row per variant: the PCs are covariates, hidden (plink2 hide-covar)


def test_relative_links_resolve():
    """A link to a path outside the repository (../shared/...) breaks in a clone; so does a page
    moved or renamed without its links."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = (page.parent / target.split("#", 1)[0]).resolve()
            if not path.exists() or ROOT.resolve() not in path.parents:
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, broken
