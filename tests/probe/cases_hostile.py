"""Probe cases for outputs that are one another, hostile text inputs, silent servers and exit codes.

Classes (registered through CLASSES, which bad_inputs.py appends to its table):
  output-clash   an output path that is another output of the same command (directly, through a
                 relative path or a link); links at outputs judged by what they point to
  text-inputs    devices, directories and lines without an end where a text file is read;
                 a pipe the user names is read, one found from a prefix is refused
  http-stall     a server that accepts and never answers: the request deadline and stall limit
  exit-codes     data errors exit 1 and name the input, usage errors exit 2; empty filters are
                 usage errors, not "no filter"
"""

import os
import socket
import subprocess
import threading

import numpy as np

import probe_harness as h
from probe_harness import BASE, add, exists_check, write

# ---- class: output-clash -----------------------------------------------------


def link(target, name):
    def f(d):
        os.symlink(target if target.startswith("/") else os.path.join(d, target), os.path.join(d, name))
    return f


def old_file(name, text="old contents, must not change\n"):
    return lambda d: write(os.path.join(d, name), text)


def both(*fs):
    def f(d):
        for g in fs:
            g(d)
    return f


def cases_output_clash():
    C = "output-clash"
    freq = ["freq", "base", "--out", "o", "-q"]
    pca = ["pca", "base", "-k", "2", "--out", "p", "-q"]
    # The report is the command's own table (before: exit 0, the table replaced by the report).
    add(C, "freq-report-is-afreq", freq + ["--report", "o.afreq"], 2, files=BASE,
        stderr_must="is also another output of this command")
    add(C, "freq-report-is-vmiss", freq + ["--report", "o.vmiss"], 2, files=BASE)
    add(C, "freq-report-is-afreq-relative", freq + ["--report", "sub/../o.afreq"], 2, files=BASE)
    add(C, "freq-report-is-afreq-absolute", freq + ["--report", "@ABSCWD@/o.afreq"], 2, files=BASE)
    add(C, "freq-report-is-old-afreq", freq + ["--report", "o.afreq"], (1, 2), files=BASE,
        setup=old_file("o.afreq"))
    add(C, "freq-report-links-to-afreq", freq + ["--report", "r.json"], 2, files=BASE,
        setup=both(old_file("o.afreq"), link("o.afreq", "r.json")), stderr_must="the same file as")
    add(C, "freq-report-links-to-vmiss-via-dir", freq + ["--report", "ln/r.json"], 2, files=BASE,
        setup=both(old_file("o.vmiss"), lambda d: os.makedirs(os.path.join(d, "real")),
                   link("real", "ln"), lambda d: os.symlink(os.path.join(d, "o.vmiss"), os.path.join(d, "real", "r.json"))))
    for out in ["p.eigenvec", "p.eigenval", "p.eigenvec.var", "p.afreq", "p.svg"]:
        add(C, "pca-report-is-" + out.split(".", 1)[1].replace(".", "-"), pca + ["--report", out], 2, files=BASE)
    add(C, "king-report-is-kin0", ["king", "base", "--out", "k", "--table", "-q", "--report", "k.kin0"], 2,
        files=BASE)
    add(C, "grm-report-is-grm-id", ["grm", "base", "--out", "g", "-q", "--report", "g.rel.id"], 2, files=BASE)
    add(C, "distance-report-is-dist", ["distance", "base", "--out", "d", "-q", "--report", "d.dist"], 2, files=BASE)
    add(C, "export-report-is-npy", ["zarr", "export", "small.zarr", "o.npy", "-q", "--report", "o.npy"], 2,
        files=["small.zarr"])
    # Links at outputs are judged by their targets: a link to a directory is refused like one.
    add(C, "report-link-to-dir", freq + ["--report", "r.json"], 1, files=BASE,
        setup=both(lambda d: os.makedirs(os.path.join(d, "real")), link("real", "r.json")),
        stderr_must="is a symbolic link to a directory")
    add(C, "afreq-link-to-dir", freq, 1, files=BASE,
        setup=both(lambda d: os.makedirs(os.path.join(d, "real")), link("real", "o.afreq")))
    add(C, "report-link-to-dev-null", freq + ["--report", "r.json"], 1, files=BASE, setup=link("/dev/null", "r.json"))
    add(C, "eigenval-link-to-fifo", pca, 1, files=BASE,
        setup=both(lambda d: os.mkfifo(os.path.join(d, "f")), link("f", "p.eigenval")))
    # A link to a regular file is replaced, its target never written (unchanged rule).
    add(C, "report-link-to-file-replaced", freq + ["--report", "r.json"], 0, files=BASE,
        setup=both(old_file("victim.txt"), link("victim.txt", "r.json")), allowed=["o.afreq", "o.vmiss", "r.json"],
        check=exists_check("o.afreq", "r.json"))
    # Distinct outputs still work.
    add(C, "freq-distinct-report", freq + ["--report", "o.json"], 0, files=BASE,
        allowed=["o.afreq", "o.vmiss", "o.json"], check=exists_check("o.afreq", "o.vmiss", "o.json"))

# ---- class: text-inputs ------------------------------------------------------


def replace_with_link(name, target):
    def f(d):
        os.remove(os.path.join(d, name))
        os.symlink(target, os.path.join(d, name))
    return f


def long_line(name, mib=9):
    def f(d):
        with open(os.path.join(d, name), "wb") as out:
            out.write(b"a" * (mib << 20))
    return f


def fifo_writer(name, text):
    """A FIFO with a writer behind it (as `<(cmd)` gives)."""
    def f(d):
        p = os.path.join(d, name)
        os.mkfifo(p)
        subprocess.Popen(["sh", "-c", 'printf "%s" > "$0"' % text.replace("%", "%%"), p],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return f


def first_sample(d):
    fid, iid = open(os.path.join(h.FIX, "base.fam")).readline().split()[:2]
    return "%s %s\n" % (fid, iid)


def cases_text_inputs():
    C = "text-inputs"
    freq = ["freq", "base", "--out", "o", "-q"]
    for ext in ["bim", "fam"]:
        add(C, "%s-is-dev-zero" % ext, freq, 1, files=BASE, setup=replace_with_link("base." + ext, "/dev/zero"),
            max_seconds=5, timeout=30, stderr_must="is a character device")
        add(C, "%s-is-dev-urandom" % ext, freq, 1, files=BASE, setup=replace_with_link("base." + ext, "/dev/urandom"),
            max_seconds=5, timeout=30)
        add(C, "%s-is-directory" % ext, freq, 1, files=BASE,
            setup=lambda d, e=ext: (os.remove(os.path.join(d, "base." + e)), os.makedirs(os.path.join(d, "base." + e))))
        add(C, "%s-is-fifo-not-asked-for" % ext, freq, 1, files=BASE,
            setup=lambda d, e=ext: (os.remove(os.path.join(d, "base." + e)), os.mkfifo(os.path.join(d, "base." + e))),
            max_seconds=5, timeout=30)
        add(C, "%s-9mib-line" % ext, freq, 1, files=BASE, setup=long_line("base." + ext), max_seconds=10,
            stderr_must="without a line end")
    named = {
        "keep": ["freq", "base", "--out", "o", "-q", "--keep", "F"],
        "remove": ["freq", "base", "--out", "o", "-q", "--remove", "F"],
        "extract": ["freq", "base", "--out", "o", "-q", "--extract", "F"],
        "exclude": ["freq", "base", "--out", "o", "-q", "--exclude", "F"],
        "pheno": ["gwas", "base", "--out", "o", "-q", "--pheno", "F"],
        "pop-file": ["pca", "base", "-k", "2", "--out", "o", "-q", "--pop-file", "F"],
    }
    for flag, args in named.items():
        for what, target in [("dev-zero", "/dev/zero"), ("dev-urandom", "/dev/urandom")]:
            add(C, "%s-%s" % (flag, what), [target if a == "F" else a for a in args], 1, files=BASE,
                max_seconds=5, timeout=30)
            add(C, "%s-link-to-%s" % (flag, what), ["f.txt" if a == "F" else a for a in args], 1, files=BASE,
                setup=link(target, "f.txt"), max_seconds=5, timeout=30)
        add(C, "%s-9mib-line" % flag, ["long.txt" if a == "F" else a for a in args], 1, files=BASE,
            setup=long_line("long.txt"), max_seconds=10)
        add(C, "%s-directory" % flag, ["dir" if a == "F" else a for a in args], (1, 2), files=BASE,
            setup=lambda d: os.makedirs(os.path.join(d, "dir")))
    # covariates too (gwas needs a phenotype)
    add(C, "covar-dev-zero", ["gwas", "base", "--out", "o", "-q", "--pheno", "ph.txt", "--covar", "/dev/zero"], 1,
        files=BASE, setup=lambda d: write(os.path.join(d, "ph.txt"), "".join(
            "%s %s %d\n" % (*l.split()[:2], i % 2 + 1) for i, l in enumerate(open(os.path.join(h.FIX, "base.fam"))))),
        max_seconds=5, timeout=30)
    add(C, "vcf-dev-zero", ["convert", "v.vcf", "o.bed", "-q"], 1, setup=link("/dev/zero", "v.vcf"), max_seconds=5,
        timeout=30)
    # A pipe the user names is read: a --keep list through a FIFO with a writer.
    add(C, "keep-fifo-asked-for", ["freq", "base", "--out", "o", "-q", "--keep", "keep.fifo"], 0, files=BASE,
        setup=lambda d: fifo_writer("keep.fifo", first_sample(d))(d), allowed=["o.afreq", "o.vmiss"],
        check=exists_check("o.afreq"), timeout=30)

# ---- class: http-stall -------------------------------------------------------

_SILENT = {}


def silent_server():
    """127.0.0.1:port that accepts every connection and never answers (one per probe run)."""
    if "url" not in _SILENT:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(64)
        held = []

        def serve():
            while True:
                try:
                    c, _ = s.accept()
                except OSError:
                    return
                held.append(c)

        threading.Thread(target=serve, daemon=True).start()
        _SILENT.update(sock=s, url="http://127.0.0.1:%d" % s.getsockname()[1])
    return _SILENT["url"]


def cases_http_stall():
    C = "http-stall"
    url = silent_server() + "/s.zarr"
    export = ["zarr", "export", url, "o.npy", "-q"]
    add(C, "export-deadline-env", export, 1, env={"STRATA_HTTP_DEADLINE_SECONDS": "2"}, max_seconds=10,
        stderr_must="2 s deadline per request")
    add(C, "export-deadline-flag", export + ["--http-deadline", "2"], 1, max_seconds=10)
    add(C, "export-stall-flag", export + ["--http-stall", "1"], 1, max_seconds=10, stderr_must="stalled for 1 s")
    add(C, "info-deadline-flag", ["zarr", "info", url, "--http-deadline", "1"], 1, max_seconds=10)
    add(C, "svd-deadline-flag", ["svd", url, "-k", "2", "--out", "s.zarr", "-q", "--http-deadline", "2"], 1,
        max_seconds=10)
    add(C, "pca-deadline-flag", ["pca", url, "-k", "2", "--out", "p", "-q", "--http-deadline", "2"], 1, max_seconds=10)
    # With no setting at all: two stalls of the default 15 s, not 5 attempts x 30 s (152 s before).
    add(C, "export-defaults", export, 1, max_seconds=45, timeout=90)
    add(C, "deadline-zero", export + ["--http-deadline", "0"], 2)
    add(C, "stall-huge", export + ["--http-stall", "99999"], 2)

# ---- class: exit-codes -------------------------------------------------------


def npy(name, arr, allow_pickle=False):
    return lambda d: np.save(os.path.join(d, name), arr, allow_pickle=allow_pickle)


Y60 = (np.arange(60) % 2).astype(np.float64)


def cases_exit_codes():
    C = "exit-codes"
    glm = ["glm", "--family", "logistic", "--solver", "newton", "--out", "g", "-q", "--y", "y.npy"]
    y = npy("y.npy", Y60)
    for xname, label in [("oned.npy.zarr", "1d-x"), ("threed.npy.zarr", "3d-x"), ("x.zarr", "group-x")]:
        add(C, "glm-" + label, glm + ["--x", xname], 1, files=[xname], setup=y)
    add(C, "glm-object-y", ["glm", "--family", "normal", "--solver", "newton", "--out", "g", "-q", "--x", "small.zarr",
                            "--y", "yo.npy"], 1, files=["small.zarr"],
        setup=npy("yo.npy", np.array(["a"] * 60, dtype=object), allow_pickle=True), stderr_must="y: ")
    for solver in ["newton", "lbfgs"]:
        add(C, "glm-x-1e300-" + solver, ["glm", "--family", "logistic", "--solver", solver, "--out", "g", "-q",
                                         "--y", "y.npy", "--x", "hugev.zarr"], (0, 1), files=["hugev.zarr"], setup=y,
            allowed=["g.coef.tsv"])
    add(C, "glm-x-1e300-normal", ["glm", "--family", "normal", "--solver", "newton", "--out", "g", "-q", "--y", "y.npy",
                                  "--x", "hugev.zarr"], 1, files=["hugev.zarr"], setup=y, stderr_must="X: ")
    for tol in ["-1", "0", "nan", "inf"]:
        add(C, "glm-tol-" + tol, glm + ["--x", "small.zarr", "--tol", tol], 2, files=["small.zarr"], setup=y,
            stderr_must="tol must be a finite number > 0")
    for flag in [["--chr", ""], ["--chr", ","], ["--chr", " "]]:
        add(C, "freq-chr-%r" % flag[1], ["freq", "base", "--out", "o", "-q"] + flag, 2, files=BASE)
    ph = lambda d: write(os.path.join(d, "ph.txt"), "FID IID P\n" + "".join(
        "%s %s %d\n" % (*l.split()[:2], i % 2 + 1) for i, l in enumerate(open(os.path.join(h.FIX, "base.fam")))))
    for name in ["", ",", " , "]:
        add(C, "gwas-pheno-name-%r" % name, ["gwas", "base", "--out", "o", "-q", "--pheno", "ph.txt",
                                             "--pheno-name", name], 2, files=BASE, setup=ph)
    # A bare number is plink2's MiB ("--memory 1" = 1 MiB): below the minimum only as bytes.
    add(C, "glm-memory-1k", glm + ["--x", "small.zarr", "--memory", "1K"], 2, files=["small.zarr"], setup=y,
        stderr_must="at least 1M")
    add(C, "freq-threads-9999", ["freq", "base", "--out", "o", "-q", "--threads", "9999"], 2, files=BASE)


CLASSES = {"output-clash": cases_output_clash, "text-inputs": cases_text_inputs, "http-stall": cases_http_stall,
           "exit-codes": cases_exit_codes}
