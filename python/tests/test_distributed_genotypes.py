"""Genotypes from strata.open_genotypes on a dask.distributed cluster of worker processes.

A Genotypes pickles as the path it was opened from; each worker process reopens the file at its
first read (once per process) and reads the same dosages as this one. strata.pca, king, grm and
pairwise_distance of a Dask array over it run on the cluster and equal the local answer, bit
for bit. The Python blocks of the README and of docs/*.md run as written."""
import os
import pickle
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import strata

distributed = pytest.importorskip("distributed")
ROOT = Path(__file__).resolve().parents[2]


def write_bed(prefix, dosages, chrom="1"):
    """A PLINK 1 fileset of (variants × samples) ALT dosages (-1 missing), A1 = ALT."""
    m, n = dosages.shape
    code = {2: 0b00, -1: 0b01, 1: 0b10, 0: 0b11}  # A1 (ALT) count 2, missing, 1, 0
    codes = np.vectorize(code.get)(dosages).astype(np.uint8)
    padded = np.zeros((m, -(-n // 4) * 4), np.uint8)
    padded[:, :n] = codes
    q = padded.reshape(m, -1, 4)
    packed = (q[..., 0] | q[..., 1] << 2 | q[..., 2] << 4 | q[..., 3] << 6).astype(np.uint8)
    with open(f"{prefix}.bed", "wb") as f:
        f.write(bytes([0x6C, 0x1B, 0x01]) + packed.tobytes())
    with open(f"{prefix}.bim", "w") as f:
        f.writelines(f"{chrom}\trs{i}\t0\t{1000 + 10 * i}\tA\tG\n" for i in range(m))
    with open(f"{prefix}.fam", "w") as f:
        f.writelines(f"F{j}\tS{j}\t0\t0\t0\t-9\n" for j in range(n))


def random_dosages(m, n, seed):
    rng = np.random.default_rng(seed)
    f = rng.uniform(0.05, 0.5, size=(m, 1))
    d = rng.binomial(2, f, size=(m, n)).astype(np.int8)
    d[rng.random((m, n)) < 0.01] = -1
    return d


@pytest.fixture(scope="module")
def cohort(tmp_path_factory):
    d = tmp_path_factory.mktemp("cohort")
    dosages = random_dosages(4000, 300, seed=1)
    write_bed(str(d / "cohort"), dosages)
    return str(d / "cohort.bed"), dosages


def test_pickles_as_its_path_and_reopens_lazily(cohort):
    path, dosages = cohort
    g = strata.open_genotypes(path)
    np.testing.assert_array_equal(g[:, :], dosages)
    blob = pickle.dumps(g)
    assert len(blob) < 1000  # the path, not the dosages
    h = pickle.loads(blob)
    assert h._view_ is None and h.shape == g.shape  # nothing opened yet
    np.testing.assert_array_equal(h[100:200, 7:300:3], dosages[100:200, 7:300:3])
    np.testing.assert_array_equal(h.sample_ids, g.sample_ids)
    assert pickle.loads(blob)._view is h._view  # one view per process and path


def test_a_changed_file_is_an_error_not_other_dosages(cohort, tmp_path):
    path, dosages = cohort
    prefix = str(tmp_path / "c")
    write_bed(prefix, dosages[:100])
    blob = pickle.dumps(strata.open_genotypes(prefix + ".bed"))
    write_bed(prefix, dosages[:90])
    from strata import _genotypes

    _genotypes._OPENED.pop(os.path.abspath(prefix + ".bed"), None)
    with pytest.raises(OSError, match=r"c\.bed: has 90 variants x 300 samples here, 100 x 300 where it was opened"):
        pickle.loads(blob)[0:1, :]


def test_in_memory_genotypes_pickle_as_their_dosages(cohort):
    _, dosages = cohort
    g = strata.from_dosages(dosages[:50], [f"s{j}" for j in range(300)])
    h = pickle.loads(pickle.dumps(g))
    np.testing.assert_array_equal(h[:, :], dosages[:50])
    np.testing.assert_array_equal(h.sample_ids, g.sample_ids)


def test_fractional_dosages_pickle_with_their_fractions(cohort):
    # A worker must compute on the fractions the local view keeps, not on their hard calls.
    _, dosages = cohort
    rng = np.random.default_rng(4)
    d = np.clip(dosages[:200].astype(np.float64) + rng.normal(0, 0.2, (200, 300)), 0, 2).round(3)
    g = strata.from_dosages(d)
    h = pickle.loads(pickle.dumps(g))
    a, b = strata.pca(g, k=3), strata.pca(h, k=3)
    np.testing.assert_array_equal(a.eigenvalues, b.eigenvalues)
    hard = strata.pca(strata.from_dosages(np.asarray(g[:, :])), k=3)
    assert not np.array_equal(a.eigenvalues, hard.eigenvalues), "the dosages must differ from their hard calls"


def test_dask_token_follows_the_file(cohort):
    from dask.base import tokenize

    path, _ = cohort
    assert tokenize(strata.open_genotypes(path)) == tokenize(strata.open_genotypes(path))


def test_blocks_read_on_worker_processes(cluster, cohort):
    import dask.array as da

    path, dosages = cohort
    with distributed.Client(cluster) as client:
        x = da.from_array(strata.open_genotypes(path), chunks=(1000, 100))
        assert int(x.sum().compute()) == int(dosages.astype(np.int64).sum())
        np.testing.assert_array_equal(x[1500:2500:7, 50:].compute(), dosages[1500:2500:7, 50:])
        # Each worker opened the file once, in its own process.
        pids = client.run(os.getpid)
        assert os.getpid() not in pids.values()
        opened = client.run(lambda: sorted(__import__("strata._genotypes")._genotypes._OPENED))
        assert all(v == [os.path.abspath(path)] for v in opened.values()), opened


@pytest.mark.parametrize("method", ["randomized", "exact"])
def test_pca_on_the_cluster_equals_local(cluster, cohort, method):
    import dask.array as da

    path, _ = cohort
    g = strata.open_genotypes(path)
    local = strata.pca(g, k=4, method=method)  # the float64 check pass runs on the workers too
    with distributed.Client(cluster):
        r = strata.pca(da.from_array(g, chunks=(1000, -1)), k=4, method=method)
    for name in ("eigenvalues", "eigenvectors", "variants_used", "error_estimate"):
        np.testing.assert_array_equal(getattr(r, name), getattr(local, name), err_msg=name)
    assert r.summary["errors_bounded"] == local.summary["errors_bounded"] == (method == "randomized")


def test_king_grm_distance_on_the_cluster_equal_local(cluster, cohort):
    import dask.array as da

    path, _ = cohort
    g = strata.open_genotypes(path)
    local = (strata.king(g), strata.grm(g, maf=0.1), strata.pairwise_distance(g[:, :], "cityblock"))
    with distributed.Client(cluster):
        x = da.from_array(g, chunks=(700, 150))
        remote = (strata.king(x), strata.grm(x, maf=0.1), strata.pairwise_distance(x, "cityblock"))
    for a, b in zip(remote, local):
        np.testing.assert_array_equal(a, b)


def _flat(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        elif v is not None:
            yield np.asarray(v)


def test_king_grm_distance_run_as_tasks_on_the_workers(cluster, cohort):
    """The passes run on the workers, split by variants: one partial task per worker thread,
    and the driver receives the combined partials (and grm's variant counts) only, never the
    packed codes (uint8)."""
    import dask.array as da

    path, dosages = cohort
    m, n = dosages.shape
    g = strata.open_genotypes(path)
    with distributed.Client(cluster) as client:
        x = da.from_array(strata.open_genotypes(path), chunks=(700, -1))
        received = []
        gather = client._gather  # what Client.gather and Future.result fetch through

        async def counting_gather(futures, *a, **kw):
            out = await gather(futures, *a, **kw)
            received.extend(_flat(out if isinstance(out, (list, tuple)) else [out]))
            return out

        client._gather = counting_gather
        try:
            with distributed.get_task_stream(client) as ts:
                k = strata.king(x)
                r = strata.grm(x, meanimpute=True, maf=0.05)
        finally:
            client._gather = gather
        workers = {w for w in client.nthreads()}
    partials = {}
    for t in ts.data:
        name = str(t["key"][0] if isinstance(t["key"], tuple) else t["key"]).split("-", 1)[0]
        partials.setdefault(name, []).append(t["worker"])
    # king: a range per worker thread; grm: its 4,000 variants are one block (4,096 at n = 300).
    assert len(partials.get("_pair_task", [])) == 2 and len(partials.get("_grm_task", [])) == 1, sorted(partials)
    assert set(partials["_pair_task"] + partials["_grm_task"]) <= workers
    assert [a.dtype for a in received if a.dtype == np.uint8] == []
    pairs = n * (n + 1) // 2
    shapes = sorted((str(a.dtype), a.shape) for a in received if a.ndim)
    assert shapes == sorted([("int32", (5, pairs)), ("float64", (pairs,))] + [("int64", (c, 4)) for c in (700,) * 5
                                                                            + (m - 3500,)]), shapes
    np.testing.assert_array_equal(k, strata.king(g))
    np.testing.assert_array_equal(r, strata.grm(g, meanimpute=True, maf=0.05))


@pytest.mark.parametrize("meanimpute,maf,geno", [(False, None, None), (True, None, None), (False, 0.2, None),
                                                 (True, 0.1, 0.012)])
def test_grm_on_the_cluster_equals_local_bit_for_bit(cluster, cohort, meanimpute, maf, geno):
    """Several GRM blocks per task (n = 300: blocks of 4,096 variants; 13,000 variants here, so
    the tasks' ranges and the Dask blocks cut blocks), pairwise counts and mean imputation."""
    import dask.array as da

    _, dosages = cohort
    d = np.concatenate([dosages] * 3 + [dosages[:1000]])
    local = strata.grm(d, meanimpute=meanimpute, maf=maf, geno=geno)
    with distributed.Client(cluster):
        remote = strata.grm(da.from_array(d, chunks=(1700, -1)), meanimpute=meanimpute, maf=maf, geno=geno)
    assert remote.tobytes() == local.tobytes()


@pytest.mark.parametrize("metric", ["ibs", "allele-sharing", "euclidean", "correlation", "hamming"])
def test_genotype_distances_of_a_dask_dataset_on_the_cluster(cluster, cohort, metric):
    xr = pytest.importorskip("xarray")
    import dask.array as da

    _, dosages = cohort
    dosage = da.from_array(dosages.astype(np.float32), chunks=(900, -1))
    ds = xr.Dataset({"call_dosage": (("variants", "samples"), dosage)})
    ds["call_dosage"] = ds["call_dosage"].where(ds["call_dosage"] >= 0)
    local = strata.pairwise_distance(ds.compute(), metric)
    with distributed.Client(cluster) as client:
        with distributed.get_task_stream(client) as ts:
            remote = strata.pairwise_distance(ds, metric)
    assert any("_pair_task" in str(t["key"]) for t in ts.data)
    assert remote.tobytes() == local.tobytes()


def test_cluster_errors_name_the_problem(cluster, cohort):
    import dask.array as da

    _, dosages = cohort
    xr = pytest.importorskip("xarray")
    ds = xr.Dataset({"call_dosage": (("variants", "samples"), da.from_array(dosages[:, :5].astype(np.float32)))})
    with distributed.Client(cluster):
        with pytest.raises(ValueError, match="one of euclidean.*got 'euclidian'"):
            strata.pairwise_distance(ds, "euclidian")
        with pytest.raises(ValueError, match=r"<dask>: 1 sample: kinship needs at least two samples"):
            strata.king(da.from_array(dosages[:, :1]))
        with pytest.raises(ValueError, match=r"no variants left after --maf"):
            strata.grm(da.from_array(np.zeros((50, 10), np.int8)), maf=0.01)  # every variant monomorphic
        with pytest.raises(ValueError, match=r"--maf must be a number from 0 to 0.5, got 0.6"):
            strata.grm(da.from_array(dosages), maf=0.6)


def test_vcf_zarr_store_reopens_on_workers(cluster, cohort, tmp_path):
    """A VCF Zarr store (bio2zarr's, from plink2's VCF of the cohort) pickles as its path too."""
    bio2zarr_vcf = pytest.importorskip("bio2zarr.vcf")
    plink2, bcftools = shutil.which("plink2"), shutil.which("bcftools")
    if plink2 is None or bcftools is None:
        pytest.skip("plink2 and bcftools are needed to write the indexed VCF bio2zarr reads")
    import dask.array as da

    path, _ = cohort
    sub = str(tmp_path / "sub")
    subprocess.run([plink2, "--bfile", path[:-4], "--export", "vcf", "bgz", "id-paste=iid", "--out", sub,
                    "--silent"], check=True)
    subprocess.run([bcftools, "index", sub + ".vcf.gz"], check=True)
    store = str(tmp_path / "sub.vcz")
    bio2zarr_vcf.convert([sub + ".vcf.gz"], store)
    g = strata.open_genotypes(store)
    np.testing.assert_array_equal(np.abs(g[:, :]), np.abs(strata.open_genotypes(path)[:, :]))
    with distributed.Client(cluster):
        x = da.from_array(g, chunks=(1000, -1))
        np.testing.assert_array_equal(x.compute(), g[:, :])
        np.testing.assert_array_equal(strata.king(x), strata.king(g))


def python_blocks(page):
    text = (ROOT / page).read_text()
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


# The README and every docs/ page that has a Python example.
DOC_PAGES = [p for p in ["README.md", *sorted(str(d.relative_to(ROOT)) for d in (ROOT / "docs").glob("*.md"))]
             if python_blocks(p)]


def test_the_documentation_has_python_examples():
    """The pages the examples live in (a page renamed or a fence mistyped would leave nothing to run)."""
    assert "README.md" in DOC_PAGES, "the README has no Python example"
    assert any("Client(" in b for b in python_blocks("docs/python.md")), "docs/python.md has no distributed example"


@pytest.mark.parametrize("page", DOC_PAGES)
def test_python_blocks_run_as_written(page, cohort, tmp_path, monkeypatch):
    """Each Python block of the page runs on its own (its imports and names its own), in a folder
    holding cohort.bed; the distributed example's PCA `r` and KING `k` equal the local ones."""
    pytest.importorskip("sgkit")
    blocks = python_blocks(page)
    path, _ = cohort
    for ext in (".bed", ".bim", ".fam"):
        shutil.copy(path[:-4] + ext, tmp_path / f"cohort{ext}")
    monkeypatch.chdir(tmp_path)
    g = strata.open_genotypes("cohort.bed")
    for block in blocks:
        ns = {"__name__": "__main__"}
        with warnings.catch_warnings():
            warnings.simplefilter("error", strata.GlmWarning)  # the examples' fits are sound ones
            exec(compile(block, page, "exec"), ns)
        if "Client(" in block:
            np.testing.assert_array_equal(ns["r"].eigenvalues, strata.pca(g, k=10).eigenvalues)
            np.testing.assert_array_equal(ns["k"], strata.king(g))
