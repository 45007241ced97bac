"""strata.gwas: plink2 ``--glm hide-covar`` association scans (``strata gwas``) from Python.

A local run calls the library's scan (genomics::run_gwas) once; its rows come back as numpy
columns — the float64 values ``strata gwas`` prints into its files — and, with ``out=``, the
same files are written. On a ``distributed`` cluster the variants are split into shares on the
library's block grid; each share is one task that opens the genotypes itself (a path, a
Genotypes reopened by its path, or its rows of a Dask array: fractional dosages stay dosages),
builds the same model from the same tables and returns its rows as bytes. This process then
runs the library on those rows in variant order: λ_GC, ``--adjust``, the counts and the files
are made from them exactly as a local run makes them from its scan, so the result is the same
bits as the local run (a variant's statistics depend on its own row only).
"""
from __future__ import annotations

import dataclasses
import os

import numpy as np

from . import _core
from ._context import resolve

_LOGISTIC_EXT = {"auto": ".glm.logistic.hybrid", "always": ".glm.firth", "never": ".glm.logistic"}


@dataclasses.dataclass
class GwasResult:
    """One phenotype's scan. ``table`` holds the columns of its plink2 file (a pandas DataFrame
    when pandas is importable, else a dict of numpy arrays): CHROM POS ID REF ALT A1 TEST OBS_CT
    BETA (OR for logistic) SE (LOG(OR)_SE) [L95 U95] T_STAT (Z_STAT) P ERRCODE, plus FIRTH?
    (bool) for ``firth="auto"`` logistic runs and the ``cols=`` extras; statistics are float64
    (NaN where the file prints NA), POS and OBS_CT int64. ``lambda_gc`` is plink2's genomic
    control λ (median 1-df χ² / 0.456, at least 1) over the valid tests; ``errcodes`` counts the
    rows by ERRCODE other than ".". ``summary`` holds the phenotype's report fields and
    ``run_summary`` the run's (as ``strata gwas --report`` writes them)."""

    name: str
    model: str                 # "linear" or "logistic"
    table: object
    samples: int
    cases: int
    controls: int
    lambda_gc: float
    median_chisq: float
    tests: int
    errcodes: dict
    firth_fits: int
    file: str | None = None
    adjusted_file: str | None = None
    summary: dict = dataclasses.field(default_factory=dict, repr=False)
    run_summary: dict = dataclasses.field(default_factory=dict, repr=False)


# --------------------------------------------------------------------------- tables

def _is_dataframe(x) -> bool:
    return type(x).__module__.split(".")[0] == "pandas" and hasattr(x, "columns")


def _text(v) -> str:
    """A cell of a text column as plink2 reads it (NA for missing)."""
    if v is None or (isinstance(v, (float, np.floating)) and np.isnan(v)):
        return "NA"
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    return str(v)


def _column(col):
    """A column as the library takes it: float64 values (a C-contiguous or strided float64 array
    as it is, without a copy) or, for text, its cells."""
    a = np.asarray(col)
    if a.dtype.kind == "O":
        try:
            a = a.astype(np.float64)  # numbers (None → NaN) when they all are
        except (TypeError, ValueError):
            return [_text(v) for v in a]
    if a.dtype.kind not in "biuf":
        return [_text(v) for v in a]
    return a if a.dtype == np.float64 else a.astype(np.float64)


def _columns(table, what: str, samples_of):
    """(names, columns aligned to the samples) of an in-memory table: a pandas DataFrame (by an
    IID/FID column, else by its index of sample IDs, else by position), a Series, a dict of
    arrays or a numpy array (samples, or samples × columns; by position). Rows for samples the
    input lacks are left out (missing); a sample without a row is missing. `samples_of()` gives
    the input's (FIDs, IIDs), asked only for a table matched by sample IDs."""
    if type(table).__module__.split(".")[0] == "pandas" and not hasattr(table, "columns"):  # a Series
        table = table.to_frame(name=table.name if table.name is not None else f"{what.upper()}1")
    if _is_dataframe(table):
        cols = {str(c).lstrip("#"): c for c in table.columns}
        if "IID" in cols or not _is_range(table.index):
            fids, iids = samples_of()
            n = len(iids)
        if "IID" in cols:
            key = table[cols["IID"]].astype(str).tolist()
            ids = {cols[c] for c in ("FID", "IID") if c in cols}
            data = [c for c in table.columns if c not in ids]  # (DataFrame.drop costs ~0.7 ms)
            if "FID" in cols:
                where = {(f, s): i for i, (f, s) in enumerate(zip(fids, iids))}
                rows = [where.get(k, -1) for k in zip(table[cols["FID"]].astype(str).tolist(), key)]
            else:
                where = {s: i for i, s in enumerate(iids)}
                rows = [where.get(k, -1) for k in key]
        elif not _is_range(table.index) and table.index.astype(str).isin(list(iids)).any():
            data = list(table.columns)
            where = {s: i for i, s in enumerate(iids)}
            rows = [where.get(s, -1) for s in table.index.astype(str)]
        else:  # by position: the library checks the length
            return [str(c) for c in table.columns], [table[c].to_numpy() for c in table.columns]
        rows = np.asarray(rows, dtype=np.int64)
        if not (rows >= 0).any():
            raise ValueError(f"the {what} table names none of the input's {n} samples (IID column or index)")
        kept = rows >= 0
        # A sample named twice is an error, as in a phenotype file (no row silently wins).
        if np.bincount(rows[kept], minlength=n).max() > 1:
            first = {}
            for r, k in enumerate(rows.tolist()):
                if k >= 0 and k in first:
                    raise ValueError(f"the {what} table: sample {iids[k]!r} appears twice (rows {first[k] + 1} and "
                                     f"{r + 1}); sample IDs must be unique")
                first.setdefault(k, r)
        names, out = [str(c) for c in data], []
        for c in data:
            vals = table[c].to_numpy()
            numeric = vals.dtype.kind in "biuf"
            col = np.full(n, np.nan if numeric else None, dtype=np.float64 if numeric else object)
            col[rows[kept]] = vals[kept]
            out.append(col)
        return names, out
    if isinstance(table, dict):
        names = [str(k) for k in table]
        arrays = [np.asarray(v) for v in table.values()]
    else:
        a = np.asarray(table)
        if a.ndim == 1:
            a = a[:, None]
        if a.ndim != 2:
            raise ValueError(f"the {what} array must be 1-D or 2-D (samples x columns), got {a.ndim} dimensions")
        names = [f"{what.upper()}{i + 1}" for i in range(a.shape[1])]
        arrays = [a[:, i] for i in range(a.shape[1])]
    for name, v in zip(names, arrays):
        if v.ndim != 1:
            raise ValueError(f"{what} column {name!r} has shape {v.shape}; it must have one value per sample")
    return names, arrays


def _is_range(index) -> bool:
    return type(index).__name__ == "RangeIndex"


_TABLE_NAMES = {"pheno": "the phenotype table", "covar": "the covariate table"}


def _tables(pheno, covar, samples_of) -> dict:
    """The options naming the tables: paths as given, in-memory tables as (source, rows,
    [(name, float64 array or text cells)]) — no text, no files; numbers are read in place."""
    out = {}
    for what, table in (("pheno", pheno), ("covar", covar)):
        if table is None:
            continue
        if isinstance(table, (str, os.PathLike)):
            out[what] = os.fspath(table)
            continue
        names, cols = _columns(table, what, samples_of)
        cols = [_column(c) for c in cols]
        out[what + "_table"] = (_TABLE_NAMES[what], len(cols[0]) if cols else 0, list(zip(names, cols)))
    return out


# --------------------------------------------------------------------------- results

def _names(value):
    if value is None:
        return None
    if isinstance(value, str):
        return [s for s in value.split(",") if s]
    return [str(s) for s in value]


def _frame(variants, pheno, cols_extra, ci, firth, plink_input):
    """The plink2 file's columns of one phenotype (pandas when importable)."""
    c = pheno["columns"]
    logistic = pheno["logistic"]
    m = len(variants["POS"])
    t = {"CHROM": variants["CHROM"], "POS": variants["POS"], "ID": variants["ID"], "REF": variants["REF"],
         "ALT": variants["ALT"]}
    if "provref" in cols_extra:
        t["PROVISIONAL_REF?"] = ["Y" if plink_input else "N"] * m
    t["A1"] = variants["A1"]
    if "omitted" in cols_extra:
        t["OMITTED"] = variants["OMITTED"]
    if "a1freq" in cols_extra:
        t["A1_FREQ"] = c["A1_FREQ"]
    if logistic and firth == "auto":
        t["FIRTH?"] = c["FIRTH"].astype(bool)
    t["TEST"] = ["ADD"] * m
    t["OBS_CT"] = c["OBS_CT"]
    t["OR" if logistic else "BETA"] = c["BETA"]
    t["LOG(OR)_SE" if logistic else "SE"] = c["SE"]
    if ci:
        t["L95"], t["U95"] = c["L95"], c["U95"]
    t["Z_STAT" if logistic else "T_STAT"] = c["STAT"]
    t["P"] = c["P"]
    t["ERRCODE"] = c["ERRCODE"]
    try:
        import pandas as pd
    except ImportError:
        return {k: np.asarray(v, dtype=object) if isinstance(v, list) else v for k, v in t.items()}
    return pd.DataFrame(t)


def _results(r, options, plink_input) -> dict:
    summary = r["summary"]
    out = {}
    extra = set(_names(options.get("cols")) or [])
    for p, ps in zip(r["phenotypes"], summary["phenotypes"]):
        table = _frame(r["variants"], p, extra, options.get("ci", 0) > 0, options.get("firth", "auto"), plink_input)
        out[p["name"]] = GwasResult(
            name=p["name"], model=ps["model"], table=table, samples=ps["samples"], cases=ps["cases"],
            controls=ps["controls"], lambda_gc=_num(ps["lambda_gc"]), median_chisq=_num(ps["median_chisq"]),
            tests=ps["tests"], errcodes=dict(ps["errcodes"]), firth_fits=ps["firth_fits"], file=ps["file"] or None,
            adjusted_file=ps.get("adjusted_file"), summary=ps, run_summary=summary)
    return out


def _num(x):
    return float("nan") if x is None else float(x)


# --------------------------------------------------------------------------- inputs

def _source(x):
    """(kind, value, sample_ids): "path" (a path or Genotypes opened from one), "view" (a
    GenotypeView), "dask" (a 2-D Dask dosage array)."""
    from ._genotypes import Genotypes, from_dosages
    from ._pca import _call_genotype_dosages, _is_dask

    if isinstance(x, (str, os.PathLike)):
        return "path", os.fspath(x), None
    if isinstance(x, Genotypes):
        if x._path is not None:
            return "path", x._path, None
        return "view", x._view, None
    ids = None
    if type(x).__name__ == "Dataset" and hasattr(x, "data_vars"):
        ids = [str(s) for s in x["sample_id"].values] if "sample_id" in x else None
        if "call_dosage" in x:
            d = x["call_dosage"]
            x = (d.transpose("variants", "samples") if d.dims[:2] != ("variants", "samples") else d).data
        elif "call_genotype" in x:
            x = _call_genotype_dosages(x)
        else:
            raise ValueError("the Dataset has neither call_dosage nor call_genotype")
    if _is_dask(x):
        if x.ndim != 2:
            raise ValueError(f"dosages must be a 2-D (variants x samples) array, got {x.ndim} dimensions")
        return "dask", x, ids
    if hasattr(x, "__array__") or isinstance(x, (list, tuple)):
        a = np.asarray(x)
        if a.ndim != 2:
            raise ValueError(f"dosages must be a 2-D (variants x samples) array, got {a.ndim} dimensions")
        return "view", from_dosages(a, ids)._view, None
    raise TypeError(f"gwas takes a path, strata.Genotypes, a numpy or Dask array or an xarray Dataset, "
                    f"not {type(x).__name__}")


def _client(client, kind):
    if client is None or client is False:
        return None
    if client != "auto":
        return client
    if kind == "view":
        return None  # in-memory genotypes: nothing to share out
    from ._dask import active_client

    return active_client()


# --------------------------------------------------------------------------- distributed

def _task_context():
    return _core.make_context(1, None, None)


def _path_share(path, options, begin, end):
    """One share of a run on a path: variants [begin, end) of the selected ones. In-memory
    tables arrive in `options` as their numpy columns."""
    o = dict(options, variant_begin=begin, variant_end=end)
    return _core.gwas_share(_task_context(), path, o, 0)


def _array_share(block, ids, options, start):
    """One share of a run on a Dask array: its rows (float dosages kept) from row `start`."""
    view = _core.dosage_view(np.asarray(block), ids)
    return _core.gwas_share(_task_context(), view, options, int(start))


def _shares(client, kind, src, ids, options, ctx):
    """Submit the shares and gather their bytes in variant order."""
    threads = max(1, sum(client.nthreads().values()))
    if kind == "path":
        # The selected variants and samples, and the tables checked, once here.
        probe = _core.gwas(ctx._core, src, dict(options, variant_begin=0, variant_end=0), "", None)
        m, n = probe["selected_variants"], probe["samples"]
        block = _core.gwas_block_variants(n)
        blocks = -(-m // block)
        cuts = np.linspace(0, blocks, min(blocks, 2 * threads) + 1).round().astype(int) * block
        cuts[-1] = m
        futures = [client.submit(_path_share, src, options, int(a), int(b), pure=False)
                   for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
        return client.gather(futures)
    n = int(src.shape[1])
    block = _core.gwas_block_variants(n)
    rows = max(block, -(-int(src.shape[0]) // (2 * threads) // block) * block)
    x = src.rechunk({0: rows, 1: -1})
    starts = np.concatenate([[0], np.cumsum(x.chunks[0])[:-1]]).astype(np.int64)
    blocks = x.to_delayed().ravel().tolist()
    futures = [client.submit(_array_share, b, ids, options, int(s), pure=False)
               for b, s in zip(client.compute(blocks), starts)]
    return client.gather(futures)


# --------------------------------------------------------------------------- entry

def gwas(x, pheno, covar=None, *, pheno_name=None, covar_name=None, model: str = "auto", firth: str = "auto",
         ci: float = 0.0, cols=None, adjust=False, out=None, plot: bool = False, zero_one: bool = False,
         nonfounders: bool = False, vif: float = 50.0, max_corr: float = 0.999, maf: float | None = None,
         geno: float | None = None, hwe: float | None = None, mind: float | None = None, keep=None, remove=None,
         extract=None, exclude=None, chr: str | None = None, sample: str | None = None, client="auto",
         threads: int | None = None, memory=None, progress=None, context=None) -> dict:
    """Per-variant association tests as ``strata gwas`` (plink2 ``--glm hide-covar``): linear for
    quantitative phenotypes, logistic with plink2's Firth fallback for case/control ones, on
    hard calls or dosages; A1 is the minor allele among founders. Returns ``{phenotype name:
    GwasResult}`` in the table's column order; with ``out=PREFIX`` the files of ``strata gwas
    --out PREFIX`` are written too, byte for byte.

    ``x``: a genotype path (PLINK prefix / .bed, .pgen, .bgen, VCF/BCF, Zarr), strata.Genotypes,
    a numpy or Dask (variants × samples) dosage array, or an sgkit Dataset. ``pheno``/``covar``:
    plink2-style file paths, or in memory — a pandas DataFrame (matched by its IID [and FID]
    column, else by an index of sample IDs, else one row per sample in order), a Series, a dict of
    arrays or a numpy array (one row per sample) — NaN/None missing. An in-memory phenotype of
    0/1 (or bool) values is case/control; in files 1/2 (``zero_one=True``: 0/1, plink2 ``--1``).
    ``pheno_name``/``covar_name``: columns to use (list or "A,B"); ``model``: auto, linear,
    logistic; ``firth``: auto, always, never; ``ci``: L95/U95 at this level; ``cols``: extra
    columns "provref,omitted,a1freq"; ``adjust``: True or plink2's modifiers ("gc,log10"), also
    ``.adjusted`` files with ``out``; ``plot``: the Manhattan/QQ plots with ``out``;
    ``maf``/``geno``/``hwe``/``mind``/``keep``/``remove``/``extract``/``exclude``/``chr``: plink2's
    selection, applied first; ``sample``: a BGEN's .sample file. ``client``: a
    ``distributed.Client`` to scan on, ``"auto"`` (the active client, for paths, path-opened
    Genotypes and Dask arrays) or None (here). Errors raise ValueError naming the file or column.
    """
    kind, src, ids = _source(x)
    cl = _client(client, kind)
    options = {"pheno_name": _names(pheno_name), "covar_name": _names(covar_name), "model": model, "firth": firth,
               "ci": float(ci), "cols": cols if cols is None or isinstance(cols, str) else ",".join(cols),
               "zero_one": bool(zero_one), "nonfounders": bool(nonfounders), "vif": float(vif),
               "max_corr": float(max_corr), "plot": bool(plot), "maf": maf, "geno": geno, "hwe": hwe, "mind": mind,
               "keep": keep, "remove": remove, "extract": extract,
               "exclude": exclude, "chr": chr, "sample": sample}
    for k in ("keep", "remove", "extract", "exclude"):
        v = options[k]
        options[k] = None if v is None else [os.fspath(v)] if isinstance(v, (str, os.PathLike)) else \
            [os.fspath(p) for p in v]
    if adjust:
        options["adjust"] = [] if adjust is True else _names(adjust)
    ctx = resolve(context, threads, memory, progress)
    if kind == "dask" and cl is None:  # here: the whole array in memory, fractions kept
        from ._genotypes import from_dosages

        kind, src = "view", from_dosages(np.asarray(src.compute()), ids)._view
    stand_in = None
    if kind == "dask":
        if mind is not None:
            raise ValueError("mind= needs every variant of a sample in one place: not with a Dask array on a cluster")
        # The samples (and the model) from the first row; the variant filters run in the tasks.
        stand_in = _core.dosage_view(np.asarray(src[:1].compute()), ids)
    samples_source = stand_in if stand_in is not None else src
    options.update(_tables(pheno, covar, lambda: _core.gwas_samples(samples_source, {"sample": sample})))
    if "pheno" not in options and "pheno_table" not in options:
        raise ValueError("gwas needs phenotypes (pheno=)")
    prefix = "" if out is None else os.fspath(out)
    if cl is None:
        r = _core.gwas(ctx._core, src, options, prefix, None)
    else:
        shares = _shares(cl, kind, src, ids, options, ctx)
        if kind == "dask":
            local = {k: v for k, v in options.items() if k not in ("maf", "geno", "hwe", "chr", "extract", "exclude")}
            r = _core.gwas(ctx._core, stand_in, local, prefix, shares)
        else:
            r = _core.gwas(ctx._core, src, options, prefix, shares)
    plink_input = kind == "path" and _is_plink(src)
    return _results(r, options, plink_input)


def _is_plink(path: str) -> bool:
    return path.endswith(".bed") or os.path.exists(path + ".bed")
