"""strata.gwas: the tables equal the files of `strata gwas` (the CLI prints the same float64
values), in-memory phenotypes equal their files, statsmodels agrees on a small case, and a run
on a 2-process dask.distributed cluster equals the local run bit for bit (.bed path, Dask array
of fractional dosages, BGEN dosages)."""
import filecmp
import subprocess
import sys

import numpy as np
import pytest

import strata


def tables(path_prefix, fids, iids, rng, quantitative_from=None):
    """pheno.txt (Q quantitative, B case/control 1/2; NA here and there) and covar.txt (C1, C2)."""
    n = len(iids)
    q = rng.normal(size=n) if quantitative_from is None else quantitative_from + rng.normal(size=n)
    b = (rng.random(n) < 0.4) + 1.0
    q[rng.random(n) < 0.05] = np.nan
    b[rng.random(n) < 0.05] = np.nan
    c = rng.normal(size=(n, 2))
    with open(f"{path_prefix}pheno.txt", "w") as f:
        f.write("#FID IID Q B\n")
        f.writelines(f"{a} {s} {'NA' if np.isnan(x) else repr(float(x))} {'NA' if np.isnan(y) else int(y)}\n"
                     for a, s, x, y in zip(fids, iids, q, b))
    with open(f"{path_prefix}covar.txt", "w") as f:
        f.write("#FID IID C1 C2\n")
        f.writelines(f"{a} {s} {float(u)!r} {float(v)!r}\n" for a, s, (u, v) in zip(fids, iids, c))
    return q, b, c


@pytest.fixture(scope="module")
def cohort(tmp_path_factory, strata_cli):
    """c.bed (3,000 variants on chromosomes 1 and 2 x 400 samples, 1 % missing; written by
    `strata convert` from an int8 dosage Zarr, then named), pheno.txt and covar.txt."""
    zarr = pytest.importorskip("zarr")
    d = tmp_path_factory.mktemp("gwas")
    rng = np.random.default_rng(7)
    m, n = 3000, 400
    dos = rng.binomial(2, rng.uniform(0.02, 0.5, (m, 1)), (m, n)).astype(np.int8)
    dos[rng.random((m, n)) < 0.01] = -1
    zarr.open_array(str(d / "d.zarr"), mode="w", shape=dos.shape, dtype="i1", chunks=(500, n))[:] = dos
    subprocess.run([strata_cli, "convert", str(d / "d.zarr"), str(d / "c.bed"), "-q"], check=True)
    (d / "c.bim").write_text("".join(f"{1 + 2 * i // m}\trs{i}\t0\t{1000 + 10 * i}\tG\tA\n" for i in range(m)))
    (d / "c.fam").write_text("".join(f"F{j}\tS{j}\t0\t0\t{1 + j % 2}\t-9\n" for j in range(n)))
    tables(f"{d}/", [f"F{j}" for j in range(n)], [f"S{j}" for j in range(n)], rng)
    return d


def cli_files(strata_cli, inp, d, prefix, *args):
    subprocess.run([strata_cli, "gwas", inp, "--pheno", str(d / "pheno.txt"), "--covar", str(d / "covar.txt"),
                    "--out", str(prefix), "-q", "--no-plot", *args], check=True)


def rows_of(path):
    lines = open(path).read().splitlines()
    return lines[0].lstrip("#").split("\t"), [line.split("\t") for line in lines[1:]]


def assert_table_prints_as(table, path):
    """Every cell of the DataFrame printed as plink2 prints it (%g) is the file's text."""
    header, rows = rows_of(path)
    assert list(table.columns) == header
    assert len(table) == len(rows)
    for k, name in enumerate(header):
        col = table[name].to_numpy()
        text = [r[k] for r in rows]
        if table[name].dtype == np.float64:
            assert [("NA" if np.isnan(v) else f"{v:g}") for v in col] == text, name
        elif table[name].dtype == bool:
            assert [("Y" if v else "N") for v in col] == text, name
        else:
            assert [str(v) for v in col] == text, name


def test_tables_are_the_cli_files_values(cohort, strata_cli, tmp_path):
    d = cohort
    cli_files(strata_cli, str(d / "c.bed"), d, tmp_path / "cli", "--ci", "0.95", "--adjust", "--cols", "a1freq")
    r = strata.gwas(d / "c.bed", d / "pheno.txt", d / "covar.txt", ci=0.95, adjust=True, cols="a1freq",
                    out=tmp_path / "py", threads=2)
    assert list(r) == ["Q", "B"]
    assert r["Q"].model == "linear" and r["B"].model == "logistic"
    for name, ext in (("Q", ".glm.linear"), ("B", ".glm.logistic.hybrid")):
        cli = tmp_path / f"cli.{name}{ext}"
        assert filecmp.cmp(cli, tmp_path / f"py.{name}{ext}", shallow=False)
        assert filecmp.cmp(f"{cli}.adjusted", tmp_path / f"py.{name}{ext}.adjusted", shallow=False)
        assert_table_prints_as(r[name].table, cli)
        assert r[name].table["P"].dtype == np.float64 and r[name].table["OBS_CT"].dtype == np.int64
        assert r[name].file == str(tmp_path / f"py.{name}{ext}")
    assert r["B"].cases + r["B"].controls == r["B"].samples
    assert r["Q"].lambda_gc >= 1.0 and r["Q"].tests == 3000


def test_hapmap3_tables_print_as_the_cli_files(hapmap3, strata_cli, tmp_path):
    fam = [line.split() for line in open(hapmap3 + ".fam")]
    tables(f"{tmp_path}/", [f[0] for f in fam], [f[1] for f in fam], np.random.default_rng(1))
    cli_files(strata_cli, hapmap3, tmp_path, tmp_path / "cli")
    r = strata.gwas(hapmap3, tmp_path / "pheno.txt", tmp_path / "covar.txt", threads=2)
    assert_table_prints_as(r["Q"].table, tmp_path / "cli.Q.glm.linear")
    assert_table_prints_as(r["B"].table, tmp_path / "cli.B.glm.logistic.hybrid")
    assert r["Q"].file is None  # nothing written without out=


def test_in_memory_tables_equal_their_files(cohort):
    pd = pytest.importorskip("pandas")
    d = cohort
    by_file = strata.gwas(d / "c.bed", d / "pheno.txt", d / "covar.txt", threads=2)
    ph = pd.read_csv(d / "pheno.txt", sep=" ").rename(columns={"#FID": "FID"})
    ph["B"] = ph["B"] - 1  # in memory: 0/1 is control/case
    ph = ph.sample(frac=1.0, random_state=1)  # matched by FID/IID, not by order
    cov = pd.read_csv(d / "covar.txt", sep=" ")[["C1", "C2"]].to_numpy()  # by position
    in_memory = strata.gwas(d / "c.bed", ph, cov, covar_name=["COVAR1", "COVAR2"], threads=2)
    for name in ("Q", "B"):
        pd.testing.assert_frame_equal(by_file[name].table, in_memory[name].table)
    series = strata.gwas(d / "c.bed", ph.set_index("IID")["Q"], cov, threads=2)  # a Series by sample ID
    pd.testing.assert_frame_equal(series["Q"].table, by_file["Q"].table)


def test_a_sample_named_twice_in_memory_is_an_error_as_in_a_file(cohort):
    """A DataFrame naming a sample twice is refused (a phenotype file with the sample twice is
    too): no row silently wins."""
    pd = pytest.importorskip("pandas")
    d = cohort
    ph = pd.read_csv(d / "pheno.txt", sep=" ").rename(columns={"#FID": "FID"})[["FID", "IID", "Q"]]
    twice = pd.concat([ph, ph.iloc[[7]]], ignore_index=True)
    with pytest.raises(ValueError, match=r"sample 'S7' appears twice \(rows 8 and 401\)"):
        strata.gwas(d / "c.bed", twice, threads=1)
    by_index = twice.set_index("IID")[["Q"]]
    with pytest.raises(ValueError, match="appears twice"):
        strata.gwas(d / "c.bed", by_index, threads=1)
    text = (d / "pheno.txt").read_text().splitlines()
    (d / "twice.txt").write_text("\n".join(text + [text[8]]) + "\n")
    with pytest.raises(Exception, match="appears twice"):
        strata.gwas(d / "c.bed", d / "twice.txt", threads=1)


def test_in_memory_tables_need_no_files_nor_sample_ids(cohort, monkeypatch):
    """Positional tables go to the library as columns: no temporary folder, no look-up of the
    input's samples; a categorical covariate (text cells) and --1 follow the file's rules."""
    d = cohort
    pheno = np.genfromtxt(d / "pheno.txt", skip_header=1, usecols=(2, 3), missing_values="NA")
    cov = np.loadtxt(d / "covar.txt", skiprows=1, usecols=(2, 3))
    pop = np.where(cov[:, 0] > 0, "EUR", "AFR").astype(object)
    pop[::50] = None  # missing
    (d / "cat.txt").write_text("#FID IID C2 POP\n" + "".join(
        f"F{j} S{j} {float(cov[j, 1])!r} {'NA' if pop[j] is None else pop[j]}\n" for j in range(400)))
    (d / "b01.txt").write_text("#FID IID B\n" + "".join(
        f"F{j} S{j} {'NA' if np.isnan(v) else int(v) - 1}\n" for j, v in enumerate(pheno[:, 1])))
    by_file = strata.gwas(d / "c.bed", d / "b01.txt", d / "cat.txt", zero_one=True, threads=1)["B"]
    import tempfile
    monkeypatch.setattr(tempfile, "TemporaryDirectory", None)
    monkeypatch.setattr(tempfile, "mkdtemp", None)
    monkeypatch.setattr(strata._core, "gwas_samples", None)
    b01 = pheno[:, 1] - 1.0  # 0/1: case/control in memory, with zero_one too
    r = strata.gwas(d / "c.bed", {"B": b01}, {"C2": cov[:, 1], "POP": pop}, zero_one=True, threads=1)["B"]
    assert r.model == "logistic" and by_file.model == "logistic"
    assert r.cases == by_file.cases and r.controls == by_file.controls
    for col in ("OR", "LOG(OR)_SE", "P"):
        assert np.array_equal(r.table[col].to_numpy(), by_file.table[col].to_numpy(), equal_nan=True), col
    assert r.run_summary["covariates"] == ["C2", "POP=EUR"]
    (d / "keep.txt").write_text("".join(f"F{j} S{j}\n" for j in range(0, 400, 2)))  # rows follow the selection
    kf = strata.gwas(d / "c.bed", d / "b01.txt", d / "cat.txt", zero_one=True, keep=d / "keep.txt", threads=1)["B"]
    km = strata.gwas(d / "c.bed", {"B": b01}, {"C2": cov[:, 1], "POP": pop}, zero_one=True, keep=d / "keep.txt",
                     threads=1)["B"]
    assert km.samples == kf.samples < r.samples
    assert np.array_equal(km.table["P"].to_numpy(), kf.table["P"].to_numpy(), equal_nan=True)
    with pytest.raises(ValueError, match="the covariate table row 1: covariate 'Z' value 'a b' cannot be empty"):
        strata.gwas(d / "c.bed", {"B": b01}, {"Z": np.array(["a b"] * 400, dtype=object)}, threads=1)
    with pytest.raises(ValueError, match="the phenotype table: no phenotype column named 'X'"):
        strata.gwas(d / "c.bed", {"B": b01}, pheno_name="X", threads=1)


def test_equals_statsmodels_on_a_small_case():
    sm = pytest.importorskip("statsmodels.api", reason="statsmodels (pinned) is not installed")
    rng = np.random.default_rng(5)
    m, n = 12, 300
    dos = np.clip(rng.binomial(2, 0.3, (m, n)) + rng.normal(0, 0.15, (m, n)), 0, 2)
    dos = np.round(dos * 16384) / 16384  # on plink2's dosage grid: the values the fit sees
    cov = rng.normal(size=(n, 2))
    yq = 0.3 * dos[0] + cov @ [0.5, -0.2] + rng.normal(size=n)
    yb = (rng.random(n) < 1 / (1 + np.exp(-(0.4 * dos[1] + 0.3 * cov[:, 0] - 0.3)))).astype(float)
    r = strata.gwas(dos, {"YQ": yq, "YB": yb}, cov, threads=1)
    for name, y, fam in (("YQ", yq, "linear"), ("YB", yb, "logistic")):
        t = r[name].table
        assert r[name].model == fam
        for v in range(m):
            design = sm.add_constant(np.column_stack([dos[v], cov]))
            if fam == "linear":
                fit = sm.OLS(y, design).fit()
                beta, se, p = t["BETA"][v], t["SE"][v], t["P"][v]
            else:
                fit = sm.Logit(y, design).fit(disp=0, tol=1e-12, maxiter=200)
                beta, se, p = np.log(t["OR"][v]), t["LOG(OR)_SE"][v], t["P"][v]
            # A1 is the minor allele: the genotype term is 2 − ALT dosage (β negated) when A1 is REF.
            sign = 1.0 if np.nanmean(dos[v]) <= 1.0 else -1.0
            assert beta == pytest.approx(sign * fit.params[1], rel=1e-6, abs=1e-9), (name, v)
            assert se == pytest.approx(fit.bse[1], rel=1e-5), (name, v)
            assert p == pytest.approx(fit.pvalues[1], rel=1e-4, abs=1e-12), (name, v)


def test_an_sgkit_dataset_is_its_dosages():
    xr = pytest.importorskip("xarray")
    rng = np.random.default_rng(9)
    dos = rng.binomial(2, 0.3, (200, 120)).astype(np.float64)
    dos[0, :60] = np.abs(dos[0, :60] - 0.25)  # a fractional row
    ids = [f"I{j}" for j in range(120)]
    ds = xr.Dataset({"call_dosage": (("variants", "samples"), dos)}, coords={"sample_id": ("samples", ids)})
    y = {"IID": ids, "Y": rng.normal(size=120)}
    pd = pytest.importorskip("pandas")
    a = strata.gwas(ds, pd.DataFrame(y), threads=1)["Y"].table
    b = strata.gwas(strata.from_dosages(dos, ids), pd.DataFrame(y), threads=1)["Y"].table
    pd.testing.assert_frame_equal(a, b)
    assert a["OBS_CT"][0] == 120


def test_bad_inputs_raise_value_errors_naming_them(cohort, tmp_path):
    d = cohort
    (tmp_path / "other.txt").write_text("#FID IID Q\nX1 Y1 1.5\nX2 Y2 2.5\n")
    with pytest.raises(ValueError, match="other.txt"):
        strata.gwas(d / "c.bed", tmp_path / "other.txt")
    (tmp_path / "empty.txt").write_text("#FID IID Q E\n" + "".join(f"F{j} S{j} {j * 0.5} NA\n" for j in range(400)))
    with pytest.raises(ValueError, match="'E'"):
        strata.gwas(d / "c.bed", tmp_path / "empty.txt")
    with pytest.raises(ValueError, match="one value per sample"):
        strata.gwas(d / "c.bed", {"Q": np.ones(10)})
    with pytest.raises(ValueError, match="'ALLNA'"):
        strata.gwas(d / "c.bed", {"ALLNA": np.full(400, np.nan), "Q": np.arange(400.0)})


def test_without_pandas_the_tables_are_numpy(cohort, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas raises ImportError
    r = strata.gwas(cohort / "c.bed", cohort / "pheno.txt", threads=1)
    t = r["Q"].table
    assert isinstance(t, dict) and t["P"].dtype == np.float64 and t["POS"].dtype == np.int64
    assert len(t["ID"]) == 3000


# ----------------------------------------------------------------------------- on a cluster

try:
    import distributed
except ImportError:  # the cluster tests skip (conftest's `cluster`); the local ones above still run
    distributed = None


@pytest.fixture(scope="module")
def client(cluster):
    """A client of conftest's 2-process LocalCluster."""
    with distributed.Client(cluster) as cl:
        yield cl


def assert_same(a, b):
    assert list(a) == list(b)
    for name in a:
        ta, tb = a[name].table, b[name].table
        assert list(ta.columns) == list(tb.columns)
        for col in ta.columns:  # bit for bit (NaN where NA)
            x, y = ta[col].to_numpy(), tb[col].to_numpy()
            if x.dtype == np.float64:
                assert np.array_equal(x.view(np.int64), y.view(np.int64)), (name, col)
            else:
                assert list(x) == list(y), (name, col)
        assert a[name].lambda_gc == b[name].lambda_gc
        assert a[name].errcodes == b[name].errcodes and a[name].firth_fits == b[name].firth_fits


def test_cluster_run_of_a_bed_equals_the_local_run(cohort, client, tmp_path):
    d = cohort
    local = strata.gwas(d / "c.bed", d / "pheno.txt", d / "covar.txt", adjust=True, client=None,
                        out=tmp_path / "local", threads=2)
    assert distributed.default_client() is client
    with distributed.get_task_stream(client) as tasks:
        remote = strata.gwas(d / "c.bed", d / "pheno.txt", d / "covar.txt", adjust=True, out=tmp_path / "remote",
                             threads=2)
    assert sum(str(t["key"]).startswith("_path_share") for t in tasks.data) >= 2  # the shares ran on the workers
    assert_same(local, remote)
    for f in ("Q.glm.linear", "B.glm.logistic.hybrid", "Q.glm.linear.adjusted"):
        assert filecmp.cmp(tmp_path / f"local.{f}", tmp_path / f"remote.{f}", shallow=False)


def test_cluster_run_with_in_memory_tables_equals_the_local_run(cohort, client):
    pd = pytest.importorskip("pandas")
    d = cohort
    ph = pd.read_csv(d / "pheno.txt", sep=" ").rename(columns={"#FID": "FID"})
    ph["B"] = ph["B"] - 1
    cov = pd.read_csv(d / "covar.txt", sep=" ")[["C1", "C2"]].to_numpy()
    local = strata.gwas(d / "c.bed", d / "pheno.txt", d / "covar.txt", client=None, threads=2)
    with distributed.get_task_stream(client) as tasks:
        remote = strata.gwas(d / "c.bed", ph, cov, covar_name="COVAR1,COVAR2", threads=2)
    assert sum(str(t["key"]).startswith("_path_share") for t in tasks.data) >= 2
    assert_same(local, remote)


def test_cluster_run_of_dask_dosages_equals_the_local_run(cohort, client):
    da = pytest.importorskip("dask.array")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(11)
    m, n = 3000, 1000  # 3 blocks of the library's grid (1,048 variants at 1,000 samples)
    dos = np.clip(rng.binomial(2, rng.uniform(0.05, 0.5, (m, 1)), (m, n)) + rng.normal(0, 0.1, (m, n)), 0, 2)
    dos[rng.random((m, n)) < 0.02] = np.nan
    ph = pd.DataFrame({"Q": rng.normal(size=n), "B": (rng.random(n) < 0.4).astype(float)})
    cov = rng.normal(size=(n, 2))
    x = da.from_array(dos, chunks=(700, n))
    local = strata.gwas(dos, ph, cov, threads=2)
    with distributed.get_task_stream(client) as tasks:
        remote = strata.gwas(x, ph, cov, threads=2)
    assert sum(str(t["key"]).startswith("_array_share") for t in tasks.data) == 3
    assert_same(local, remote)
    assert (local["Q"].table["OBS_CT"] < n).all()  # NaN dosages left the fits
    # Fractional dosages stayed dosages: the hard calls give other statistics.
    calls = strata.gwas(np.where(np.isnan(dos), -1, np.round(dos)).astype(np.int8), ph, cov, threads=2)
    assert not np.array_equal(calls["Q"].table["BETA"].to_numpy(), remote["Q"].table["BETA"].to_numpy())


def test_cluster_run_of_a_bgen_equals_the_local_run(strata_cli, client, tmp_path):
    zarr = pytest.importorskip("zarr")
    rng = np.random.default_rng(13)
    m, n = 3000, 1000
    dos = np.clip(rng.binomial(2, rng.uniform(0.05, 0.5, (m, 1)), (m, n)) + rng.normal(0, 0.2, (m, n)), 0, 2)
    dos[rng.random((m, n)) < 0.02] = np.nan
    z = zarr.open_array(str(tmp_path / "d.zarr"), mode="w", shape=dos.shape, dtype="f4", chunks=(500, n))
    z[:] = dos
    subprocess.run([strata_cli, "convert", str(tmp_path / "d.zarr"), str(tmp_path / "d.bgen"), "-q"], check=True)
    y = rng.normal(size=n)
    yb = (rng.random(n) < 0.3).astype(float)
    pheno = {"Y": y, "YB": yb}
    local = strata.gwas(tmp_path / "d.bgen", pheno, client=None, threads=2)
    with distributed.get_task_stream(client) as tasks:
        remote = strata.gwas(tmp_path / "d.bgen", pheno, threads=2)
    assert sum(str(t["key"]).startswith("_path_share") for t in tasks.data) == 3
    assert_same(local, remote)
    assert remote["YB"].model == "logistic"
    assert (local["Y"].table["OBS_CT"] < n).any()
