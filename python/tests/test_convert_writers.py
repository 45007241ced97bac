"""`strata convert` to .pgen and .bgen against independent readers: pgenlib (plink2's own
library) and cbgen. The source is a plink2 --dummy cohort with fractional dosages and missing
calls; the .pgen must hold its hard calls and dosages exactly, the 8-bit .bgen its dosages to
within 8-bit rounding (REF is the first allele)."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
pgenlib = pytest.importorskip("pgenlib", reason="pgenlib is not installed")
cbgen = pytest.importorskip("cbgen", reason="cbgen is not installed")


@pytest.fixture(scope="module")
def cli():
    if os.environ.get("STRATA_CLI"):
        return os.environ["STRATA_CLI"]
    built = ROOT / "build" / "tools" / "cli" / "strata"
    if built.exists():
        return str(built)
    from strata._cli import executable

    return executable()


@pytest.fixture(scope="module")
def converted(plink2, cli, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("writers")
    subprocess.run([plink2, "--seed", "7", "--dummy", "57", "140", "0.05", "dosage-freq=0.4",
                    "--make-pgen", "--out", str(tmp / "d")], check=True, capture_output=True)
    for out in ("w.pgen", "w.bgen"):
        r = subprocess.run([cli, "convert", str(tmp / "d.pgen"), str(tmp / out)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    return tmp


def pgen_arrays(path):
    with pgenlib.PgenReader(str(path).encode()) as r:
        m, n = r.get_variant_ct(), r.get_raw_sample_ct()
        calls = np.empty((m, n), dtype=np.int8)
        dosages = np.empty((m, n), dtype=np.float64)
        r.read_range(0, m, calls)
        r.read_dosages_range(0, m, dosages)
    return calls, dosages


def test_pgenlib_reads_the_source(converted):
    want_calls, want_dos = pgen_arrays(converted / "d.pgen")
    got_calls, got_dos = pgen_arrays(converted / "w.pgen")
    np.testing.assert_array_equal(got_calls, want_calls)
    np.testing.assert_array_equal(got_dos, want_dos)
    assert np.count_nonzero(want_dos != np.round(want_dos)) > 100  # fractional dosages were written


def test_cbgen_reads_the_source_dosages(converted):
    _, want = pgen_arrays(converted / "d.pgen")
    path = converted / "w.bgen"
    meta = converted / "w.bgen.metafile"
    with cbgen.bgen_file(path) as bgen:
        assert bgen.nvariants == want.shape[0] and bgen.nsamples == want.shape[1]
        samples = [s.decode() if isinstance(s, bytes) else s for s in bgen.read_samples()]
        bgen.create_metafile(meta, verbose=False)
        with cbgen.bgen_metafile(meta) as mf:
            offsets = np.concatenate([mf.read_partition(i).variants.offset for i in range(mf.npartitions)])
        got = np.empty_like(want)
        for v, off in enumerate(offsets):
            g = bgen.read_genotype(int(off))
            p = g.probability  # samples x 3: P(REF/REF), P(het), P(ALT/ALT); NaN when missing
            got[v] = p[:, 1] + 2 * p[:, 2]
    missing = want == -9
    np.testing.assert_array_equal(np.isnan(got), missing)
    np.testing.assert_allclose(got[~missing], want[~missing], atol=1 / 255 + 1e-4)
    header, *rows = (converted / "d.psam").read_text().splitlines()
    iid = header.split("\t").index("IID" if "IID" in header.split("\t") else "#IID")
    assert samples == [row.split("\t")[iid] for row in rows]
