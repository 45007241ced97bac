#!/usr/bin/python3
"""The bad-input probe's harness: shared state (the CLI, the fixtures folder), the Case
list, helpers to run strata and snapshot directories, the fixtures, and the judge that decides
whether a case was handled cleanly (see bad_inputs.py)."""

import argparse
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

import numpy as np

STRATA = None
TIMEOUT = 60.0
FIX = None  # fixtures directory

# ----------------------------------------------------------------------------- helpers



def run_log(d, rel, failed):
    """A command's PREFIX.log: strata writes one beside its outputs on every run, and only it
    (with the error) after a failed one."""
    if not rel.endswith(".log"):
        return False
    try:
        with open(os.path.join(d, rel), errors="replace") as f:
            text = f.read()
    except OSError:
        return False
    return text.startswith("strata ") and (not failed or "\nError: " in text)

def tree_hash(path):
    """Hash of a file, a symlink, or a whole directory tree (never follows links)."""
    h = hashlib.sha256()
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return "link:" + os.readlink(path)
    if stat.S_ISREG(st.st_mode):
        if st.st_size > (64 << 20):
            return "big:%d:%d" % (st.st_size, st.st_mtime_ns)
        with open(path, "rb") as f:
            for blk in iter(lambda: f.read(1 << 20), b""):
                h.update(blk)
        return "file:" + h.hexdigest()
    if stat.S_ISDIR(st.st_mode):
        for name in sorted(os.listdir(path)):
            h.update(name.encode() + b"\0" + str(tree_hash(os.path.join(path, name))).encode() + b"\0")
        return "dir:" + h.hexdigest()
    return "special:%o" % stat.S_IFMT(st.st_mode)


def snapshot(root):
    """{relative path: hash} of everything under root (links not followed)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, root)
            if os.path.isdir(p) and not os.path.islink(p):
                out[rel] = "dir"
            else:
                out[rel] = tree_hash(p)
    return out


def is_stage(rel):
    return any(part.startswith(".strata-stage-") for part in rel.split(os.sep))


def under(rel, allowed):
    for a in allowed:
        a = os.path.normpath(a)
        if rel == a or rel.startswith(a + os.sep):
            return True
    return False


def write(path, data, mode="w"):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, mode) as f:
        f.write(data)


def wait_for_binary(limit=120.0):
    """The CLI may be relinked under us by a concurrent build: wait until it is executable again."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        try:
            st = os.stat(STRATA)
            if st.st_size > 0 and os.access(STRATA, os.X_OK):
                r = subprocess.run([STRATA, "--version"], capture_output=True, timeout=30)
                if r.returncode == 0:
                    return
        except (OSError, subprocess.SubprocessError):
            pass
        time.sleep(1.0)
    raise RuntimeError("strata binary %s not runnable for %.0fs" % (STRATA, limit))


def popen(argv, **kw):
    for attempt in range(60):
        try:
            return subprocess.Popen(argv, **kw)
        except OSError as e:  # EACCES / ETXTBSY / ENOENT while being relinked
            if attempt == 59:
                raise
            wait_for_binary()


def run_strata(args, cwd, env=None, timeout=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    p = popen([STRATA] + args, cwd=cwd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=timeout or TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def must(args, cwd):
    p = run_strata(args, cwd)
    if p.returncode != 0:
        raise RuntimeError("fixture step failed: strata %s\n%s" % (" ".join(args), p.stderr.decode(errors="replace")))
    return p


def sh(cmd, cwd):
    subprocess.run(cmd, cwd=cwd, shell=True, check=True, capture_output=True)


def copy_fixture(name, dst):
    src = os.path.join(FIX, name)
    if os.path.isdir(src):
        shutil.copytree(src, os.path.join(dst, name), symlinks=True)
    else:
        shutil.copy2(src, os.path.join(dst, name))


BASE = ["base.bed", "base.bim", "base.fam"]


def make_zgroup(d):
    os.makedirs(d, exist_ok=True)
    write(os.path.join(d, ".zgroup"), '{"zarr_format": 2}\n')

# ----------------------------------------------------------------------------- cases


class Case:
    def __init__(self, cls, name, args, expect, files=(), setup=None, allowed=(), check=None,
                 cwd=".", env=None, timeout=None, max_seconds=None, killer=None, stderr_must=None,
                 gate=None, note=""):
        self.cls, self.name, self.args = cls, name, list(args)
        self.expect = {expect} if isinstance(expect, int) else set(expect)
        self.files, self.setup, self.allowed, self.check = list(files), setup, list(allowed), check
        self.cwd, self.env, self.timeout, self.max_seconds = cwd, env, timeout, max_seconds
        self.killer, self.stderr_must, self.gate, self.note = killer, stderr_must, gate, note


CASES = []


def add(*a, **k):
    c = Case(*a, **k)
    CASES.append(c)
    return c


RESULTS = {}  # name -> clean?

# ---- class 1: data-loss ------------------------------------------------------


def keepdir(rel, zarr=False):
    def f(d):
        p = os.path.join(d, rel)
        os.makedirs(p, exist_ok=True)
        write(os.path.join(p, "keep.txt"), "precious user data\n")
        if zarr:
            write(os.path.join(p, ".zgroup"), '{"zarr_format": 2}\n')
    return f


def chain(*fs):
    def f(d):
        for g in fs:
            if g:
                g(d)
    return f


def exists_check(*rels):
    def f(d, p):
        for r in rels:
            if not os.path.exists(os.path.join(d, r)):
                return "expected output %s missing" % r
        return None
    return f


def vcf_text(samples, variants, dup=False):
    names = ["S%d" % i for i in range(samples)]
    if dup:
        names[-1] = names[0]
    lines = ["##fileformat=VCFv4.2", "##contig=<ID=1,length=100000000>",
             '##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">',
             "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t" + "\t".join(names)]
    r = random.Random(7)
    for v in range(variants):
        gts = ["%d|%d" % (r.randint(0, 1), r.randint(0, 1)) for _ in range(samples)]
        lines.append("1\t%d\tv%d\tA\tG\t.\tPASS\t.\tGT\t%s" % (100 + v * 10, v, "\t".join(gts)))
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- fixtures


def build_fixtures():
    import zarr
    os.makedirs(FIX, exist_ok=True)
    must(["simulate", "--samples", "60", "--variants", "400", "--missing", "0.02", "--out", "base", "--format", "both",
          "-q"], FIX)
    must(["convert", "base", "cohort.zarr", "-q"], FIX)
    rng = np.random.default_rng(0)
    A = rng.standard_normal((60, 20))
    np.save(os.path.join(FIX, "small.npy"), A)
    must(["zarr", "import", "small.npy", "small.zarr", "-q"], FIX)
    os.makedirs(os.path.join(FIX, "x.zarr"))
    make_zgroup(os.path.join(FIX, "x.zarr"))
    must(["zarr", "import", "small.npy", "x.zarr/a", "--chunks", "30,10", "--codec", "zstd:3", "-q"], FIX)
    np.save(os.path.join(FIX, "tiny.npy"), A * 1e-310)
    np.save(os.path.join(FIX, "hugev.npy"), A * 1e300)
    for n in ["tiny", "hugev"]:
        must(["zarr", "import", n + ".npy", n + ".zarr", "-q"], FIX)
    specials = {
        "nan.npy": np.where(np.arange(1200).reshape(60, 20) == 77, np.nan, A),
        "inf.npy": np.where(np.arange(1200).reshape(60, 20) == 77, np.inf, A),
        "bool.npy": A > 0, "empty.npy": np.zeros((0, 5)), "oned.npy": A[:, 0].copy(),
        "threed.npy": A.reshape(6, 10, 20), "onerow.npy": A[:1].copy(), "zeros.npy": np.zeros((60, 20)),
    }
    for n, arr in specials.items():
        np.save(os.path.join(FIX, n), arr)
        z = zarr.open(os.path.join(FIX, n + ".zarr"), mode="w", shape=arr.shape, dtype=arr.dtype,
                      chunks=tuple(max(1, s) for s in arr.shape))
        if arr.size:
            z[...] = arr
    # dosage stores: hard calls with a few fractional values, and an out-of-range value
    hard = np.asarray(np.random.default_rng(3).integers(0, 3, size=(40, 12)), dtype=np.float64)
    frac = hard.copy()
    frac[2, 5] = 0.37
    frac[7, 1] = 1.5
    for n, arr in [("frac.zarr", frac), ("frac32.zarr", frac.astype(np.float32)), ("three.zarr", np.where(
            np.arange(480).reshape(40, 12) == 13, 3.0, hard))]:
        z = zarr.open(os.path.join(FIX, n), mode="w", shape=arr.shape, dtype=arr.dtype, chunks=(8, 12))
        z[...] = arr
    # consolidated store plus an array absent from .zmetadata
    g = zarr.open_group(os.path.join(FIX, "cons.zarr"), mode="w")
    g.create_dataset("listed", data=A, chunks=(30, 10))
    zarr.consolidate_metadata(os.path.join(FIX, "cons.zarr"))
    g2 = zarr.open_group(os.path.join(FIX, "cons.zarr"), mode="a")
    g2.create_dataset("hidden", data=A, chunks=(30, 10))
    # VCF / BCF
    write(os.path.join(FIX, "v.vcf"), vcf_text(8, 3000))
    sh("bcftools view -Oz -o v.vcf.gz v.vcf && bcftools view -Ob -o v.bcf v.vcf", FIX)
    # cohort with every 10th variant monomorphic
    bed = bytearray(open(os.path.join(FIX, "base.bed"), "rb").read())
    per = (60 + 3) // 4
    for v in range(0, 400, 10):
        bed[3 + v * per: 3 + (v + 1) * per] = b"\x00" * per
    write(os.path.join(FIX, "mono.bed"), bytes(bed), "wb")
    shutil.copy(os.path.join(FIX, "base.bim"), os.path.join(FIX, "mono.bim"))
    shutil.copy(os.path.join(FIX, "base.fam"), os.path.join(FIX, "mono.fam"))
    # cohort with every variant monomorphic: any --maf > 0 filters out all of them
    write(os.path.join(FIX, "allmono.bed"), bed[:3] + b"\x00" * (per * 400), "wb")
    shutil.copy(os.path.join(FIX, "base.bim"), os.path.join(FIX, "allmono.bim"))
    shutil.copy(os.path.join(FIX, "base.fam"), os.path.join(FIX, "allmono.fam"))
    must(["simulate", "--samples", "300", "--variants", "100", "--out", "wide", "-q"], FIX)
    must(["simulate", "--samples", "10", "--variants", "30", "--out", "tinyc", "-q"], FIX)

# ----------------------------------------------------------------------------- runner


RAW = ["std::", "basic_string", "what():", ": Success", "terminate called", "Segmentation", "Assertion"]


def judge(case, d, before, p, elapsed, killed_by_us):
    problems = []
    rc = p.returncode if p is not None else None
    err = p.stderr.decode(errors="replace") if p is not None else ""
    if p is None:
        return ["timeout after %.0fs (hang)" % elapsed]
    crash = rc < 0 or rc >= 128
    if crash and not (killed_by_us and rc in case.expect):
        problems.append("crash: exit status %d" % rc)
    elif rc not in case.expect:
        problems.append("exit %d, expected %s" % (rc, "/".join(str(x) for x in sorted(case.expect))))
    if case.max_seconds and elapsed > case.max_seconds:
        problems.append("took %.1fs (limit %ss)" % (elapsed, case.max_seconds))
    failed = rc != 0
    if failed and not crash:
        first = err.splitlines()[0] if err.strip() else ""
        if not first.startswith("strata: error:"):
            problems.append("stderr first line is not 'strata: error:': %r" % first[:200])
    for r in RAW:
        if r in err:
            problems.append("raw C++/system text %r in stderr" % r)
            break
    if rc == 2 and (re.search(r"\d\.\d{6}\b", err) or " to 1797" in err or "1.79769" in err):
        problems.append("unreadable numbers in usage message: %r" % err.splitlines()[0][:200])
    if case.stderr_must and case.stderr_must not in err:
        problems.append("stderr lacks %r" % case.stderr_must)
    after = snapshot(d)
    stages = sorted(r for r in after if os.path.basename(r).startswith(".strata-stage-"))
    if stages and not killed_by_us:
        problems.append("staging folder(s) left behind: %s" % ", ".join(stages[:3]))
    allowed = with_plots(case.allowed) if not failed or killed_by_us else []
    changed, appeared, vanished = [], [], []
    for rel, h in before.items():
        if under(rel, allowed) or is_stage(rel):
            continue
        if rel not in after:
            vanished.append(rel)
        elif after[rel] != h:
            changed.append(rel)
    for rel in after:
        if rel not in before and not is_stage(rel) and not under(rel, allowed) and not run_log(d, rel, failed):
            appeared.append(rel)
    if vanished:
        problems.append("DATA LOSS: %d path(s) removed: %s" % (len(vanished), ", ".join(sorted(vanished)[:4])))
    if changed:
        problems.append("input/bystander changed: %s" % ", ".join(sorted(changed)[:4]))
    if appeared:
        what = "new output(s) after failure" if failed else "unexpected new path(s)"
        problems.append("%s: %s" % (what, ", ".join(sorted(appeared)[:4])))
    if case.check and rc in case.expect:
        try:
            m = case.check(d, p)
        except Exception as e:
            m = "check raised %s: %s" % (type(e).__name__, e)
        if m:
            problems.append(m)
    return problems


def with_plots(allowed):
    """`allowed` plus the plots drawn beside those outputs: P.png beside P.svg, a gwas table's
    Manhattan/QQ plots, a .kin0 table's kinship plot (SVG, and PNG where libcairo is found)."""
    out = list(allowed)
    for a in allowed:
        if a.endswith(".svg"):
            out.append(a[:-4] + ".png")
        m = re.match(r"(.*)\.glm\.[a-z.]+$", a)
        if m:
            out += [m.group(1) + s for s in (".manhattan.svg", ".manhattan.png", ".qq.svg", ".qq.png")]
        if a.endswith(".kin0"):
            out += [a + ".svg", a + ".png"]
    return out


def run_case(case, root, idx):
    d = os.path.join(root, "%03d" % idx)
    os.makedirs(d)
    for f in case.files:
        copy_fixture(f, d)
    if case.setup:
        case.setup(d)
    cwd = os.path.join(d, case.cwd)
    os.makedirs(cwd, exist_ok=True)
    args = [a.replace("@FIX@", FIX).replace("@ABSCWD@", cwd) for a in case.args]
    before = snapshot(d)
    env = dict(os.environ)
    if case.env:
        env.update(case.env)
    t0 = time.monotonic()
    killed = False
    p = None
    proc = popen([STRATA] + args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        if isinstance(case.killer, float):
            delay = case.killer
            if "%" in case.name:  # fraction of the reference run's duration
                delay = case.killer * float(open(os.path.join(FIX, "killref", "midB", "seconds")).read())
            try:
                out, err = proc.communicate(timeout=delay)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                out, err = proc.communicate()
            killed = True
        else:
            out, err = proc.communicate(timeout=case.timeout or TIMEOUT)
            killed = case.killer == "fault"
        p = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
    elapsed = time.monotonic() - t0
    probs = judge(case, d, before, p, elapsed, killed)
    repro = "cd %s && %s%s %s" % (shlex.quote(cwd), "".join("%s=%s " % kv for kv in (case.env or {}).items()),
                                  STRATA, " ".join(shlex.quote(a) for a in args))
    return probs, repro, p, elapsed
