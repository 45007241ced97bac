"""Shared fixtures: the HapMap3 fileset from ../shared/data, the installed CLI, plink2."""
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def shared_data() -> Path:
    return Path(os.environ.get("STRATA_SHARED_DATA", ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def hapmap3() -> str:
    prefix = shared_data() / "hapmap3" / "HM3_thinned_autosomal_overlap"
    if not Path(str(prefix) + ".bed").exists():
        pytest.skip(f"HapMap3 not found at {prefix} (set STRATA_SHARED_DATA to the shared data folder)")
    return str(prefix)


@pytest.fixture(scope="session")
def vcf_dir() -> Path:
    d = shared_data() / "vcf"
    if not d.is_dir():
        pytest.skip(f"the VCF edge cases are not at {d} (set STRATA_SHARED_DATA to the shared data folder)")
    return d


@pytest.fixture(scope="session")
def strata_cli() -> str:
    from strata._cli import executable

    exe = executable()
    assert os.access(exe, os.X_OK), f"the package has no CLI at {exe}"
    return exe


@pytest.fixture(scope="session")
def plink2() -> str:
    exe = shutil.which("plink2")
    if exe is None:
        pytest.skip("plink2 is not installed (scripts/install-deps.sh installs it)")
    return exe


@pytest.fixture(scope="session")
def cli_pca(hapmap3, strata_cli, tmp_path_factory):
    """`strata pca` on HapMap3 (k = 4): its Zarr output, read back."""
    import zarr

    out = tmp_path_factory.mktemp("cli") / "hm3"
    subprocess.run([strata_cli, "pca", hapmap3, "-k", "4", "--out", str(out), "-q"], check=True)
    g = zarr.open_group(str(out) + ".zarr", mode="r")
    return {name: np.asarray(g[name][...]) for name in ("eigenvalues", "eigenvectors", "loadings", "sample_id")}


@pytest.fixture(scope="session")
def hm3_dosages(hapmap3) -> np.ndarray:
    import strata

    return strata.open_genotypes(hapmap3)[:, :]


@pytest.fixture(scope="module")
def cluster():
    """A dask.distributed LocalCluster of 2 worker processes, 1 thread each (one per module)."""
    distributed = pytest.importorskip("distributed")
    try:
        c = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    except Exception as e:  # a sandbox without the sockets or process spawning a cluster needs
        pytest.skip(f"dask.distributed cannot start a 2-process LocalCluster here: {e!r}")
    with c:
        yield c
