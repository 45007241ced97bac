#!/usr/bin/python3
"""Probe the strata CLI with hostile and careless inputs.

Usage:
    /usr/bin/python3 tests/probe/bad_inputs.py --strata build/tools/cli/strata \
        [--workdir DIR] [--only CLASS[,CLASS]] [--list] [--keep] [--timeout S]

Every case runs in its own throwaway directory under the work dir (default: a fresh
folder under /tmp).  A case is "handled cleanly" when ALL of these hold:
  * no crash (signal, or exit status >= 128) and no timeout (a timeout is a hang);
  * the exit code is one the case expects (0 ok, 1 data/runtime error, 2 usage error);
  * on failure, stderr's first line starts with "strata: error:" and stderr holds no raw
    C++ text ("std::", "basic_string", "what():", ": Success") and, for usage errors, no
    "0.000000" / "1797" style numbers;
  * every file under the case's directory is byte-identical afterwards, except the outputs
    the case may create or replace (on success only);
  * after a failure no new visible file or directory appears, and after any exit no hidden
    ".strata-stage-*" folder remains (unless the case killed the process itself);
  * a success case's stated property holds (outputs exist, numbers match an oracle, ...).

Prints a table "class | cases tried | handled cleanly" and every case not handled cleanly,
with a reproduction.  Exit status 0 iff every case is handled cleanly.
Needs Debian's python3 (numpy, python3-zarr 2.x), and for some cases bcftools and plink2.
"""

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


def cases_data_loss():
    C = "data-loss"
    npy = ["small.npy"]
    for ow in ([], ["--overwrite"]):
        tag = "+ow" if ow else ""
        add(C, "pca-out-is-input-store" + tag, ["pca", "cohort.zarr", "-k", "2", "--out", "cohort", "-q"] + ow, 2,
            files=["cohort.zarr"])
        add(C, "pca-out-is-input-store-abs" + tag, ["pca", "cohort.zarr", "-k", "2", "--out", "./sub/../cohort", "-q"] + ow, 2,
            files=["cohort.zarr"], setup=lambda d: os.makedirs(os.path.join(d, "sub")))
        add(C, "svd-out-is-input" + tag, ["svd", "small.zarr", "-k", "2", "--out", "small.zarr", "-q"] + ow, 2,
            files=["small.zarr"])
        add(C, "svd-out-inside-input" + tag, ["svd", "small.zarr", "-k", "2", "--out", "small.zarr/sub", "-q"] + ow, 2,
            files=["small.zarr"])
        add(C, "convert-out-is-input-vcz" + tag, ["convert", "base.vcz", "base.vcz", "-q"] + ow, 2, files=["base.vcz"])
        add(C, "convert-out-inside-input" + tag, ["convert", "base.vcz", "base.vcz/inner.vcz", "-q"] + ow, 2,
            files=["base.vcz"])
        add(C, "pca-out-inside-input" + tag, ["pca", "cohort.zarr", "-k", "2", "--out", "cohort.zarr/p", "-q"] + ow, 2,
            files=["cohort.zarr"])
        add(C, "import-over-input-npy" + tag, ["zarr", "import", "small.npy", "small.npy", "-q"] + ow, 2, files=npy)
        add(C, "import-into-store-holding-input" + tag, ["zarr", "import", "st.zarr/a.npy", "st.zarr", "-q"] + ow, 2,
            setup=lambda d: (make_zgroup(os.path.join(d, "st.zarr")),
                             shutil.copy(os.path.join(FIX, "small.npy"), os.path.join(d, "st.zarr", "a.npy"))))
        # ordinary (non-Zarr) directories with user data at a Zarr output path
        add(C, "import-over-plain-dir" + tag, ["zarr", "import", "small.npy", "mydir", "-q"] + ow, (1, 2), files=npy,
            setup=keepdir("mydir"))
        add(C, "svd-over-plain-dir" + tag, ["svd", "small.zarr", "-k", "2", "--out", "mydir", "-q"] + ow, (1, 2),
            files=["small.zarr"], setup=keepdir("mydir"))
        add(C, "convert-over-plain-dir" + tag, ["convert", "base", "mydir.vcz", "-q"] + ow, (1, 2), files=BASE,
            setup=keepdir("mydir.vcz"))
        add(C, "simulate-over-plain-dir" + tag, ["simulate", "--samples", "5", "--variants", "5", "--format", "vcz",
                                                  "--out", "sim", "-q"] + ow, (1, 2), setup=keepdir("sim.vcz"))
        add(C, "pca-zarr-over-plain-dir" + tag, ["pca", "base", "-k", "2", "--out", "P", "-q"] + ow, (1, 2),
            files=BASE, setup=keepdir("P.zarr"))
        # an existing Zarr store that is no input: without --overwrite refused, with it replaced
        if not ow:
            add(C, "import-over-zarr-store-no-ow", ["zarr", "import", "small.npy", "zs.zarr", "-q"], (1, 2), files=npy,
                setup=keepdir("zs.zarr", zarr=True))
        else:
            add(C, "import-over-zarr-store-ow", ["zarr", "import", "small.npy", "zs.zarr", "-q", "--overwrite"], 0,
                files=npy, setup=keepdir("zs.zarr", zarr=True), allowed=["zs.zarr"],
                check=lambda d, p: None if os.path.exists(os.path.join(d, "zs.zarr", ".zarray")) and not
                os.path.exists(os.path.join(d, "zs.zarr", "keep.txt")) else "store not replaced")
    # directories at plain-file output names: never touched
    for ext in ["eigenvec", "eigenval", "eigenvec.var", "svg"]:
        add(C, "pca-dir-at-P." + ext, ["pca", "base", "-k", "2", "--out", "P", "-q"], (1, 2), files=BASE,
            setup=keepdir("P." + ext))
    for ext in ["afreq", "vmiss"]:
        add(C, "freq-dir-at-F." + ext, ["freq", "base", "--out", "F", "-q"], (1, 2), files=BASE,
            setup=keepdir("F." + ext))
    for ext in ["bed", "bim", "fam"]:
        add(C, "convert-dir-at-O." + ext, ["convert", "base.vcz", "O.bed", "-q"], (1, 2), files=["base.vcz"],
            setup=keepdir("O." + ext))
    add(C, "export-dir-at-out", ["zarr", "export", "small.zarr", "out.npy", "-q"], (1, 2), files=["small.zarr"],
        setup=keepdir("out.npy"))
    # output = input file
    add(C, "convert-bed-onto-itself", ["convert", "base.bed", "base.bed", "-q"], 2, files=BASE)
    add(C, "convert-prefix-onto-itself", ["convert", "base", "base.bed", "-q"], 2, files=BASE)
    add(C, "export-onto-array", ["zarr", "export", "x.zarr/a", "x.zarr/a", "-q"], 2, files=["x.zarr"])
    add(C, "export-onto-zarray", ["zarr", "export", "x.zarr/a", "x.zarr/a/.zarray", "-q"], 2, files=["x.zarr"])
    add(C, "export-into-store", ["zarr", "export", "x.zarr/a", "x.zarr/a/out.npy", "-q"], 2, files=["x.zarr"])
    add(C, "freq-out-inside-input-store", ["freq", "cohort.zarr", "--out", "cohort.zarr/f", "-q"], 2,
        files=["cohort.zarr"])
    add(C, "pca-report-is-input", ["pca", "base", "-k", "2", "--out", "P", "--report", "base.bed", "-q"], (1, 2),
        files=BASE)
    # working directory, its ancestors, /, home: every case runs with a Zarr store there so that only the
    # "never the working directory / ancestors" rule can refuse it
    wd = "a.zarr/b.zarr/w.zarr"

    def nested(d):
        for p in ["a.zarr", "a.zarr/b.zarr", wd]:
            make_zgroup(os.path.join(d, p))
        write(os.path.join(d, wd, "keep.txt"), "precious\n")
        shutil.copy(os.path.join(FIX, "small.npy"), os.path.join(d, "small.npy"))
        copy_fixture("small.zarr", d)
    safe_names = []
    for target in [".", "./", "..", "../", "../..", "../../", os.path.join("..", "w.zarr")]:
        nm = "import-over-cwd[%s]" % target
        safe_names.append(nm)
        add(C, nm, ["zarr", "import", "../../../small.npy", target, "--overwrite", "-q"], 2, setup=nested, cwd=wd)
        add(C, "svd-over-cwd[%s]" % target, ["svd", "../../../small.zarr", "-k", "2", "--out", target, "--overwrite",
                                             "-q"], 2, setup=nested, cwd=wd)
    add(C, "import-over-cwd-abs", ["zarr", "import", "../../../small.npy", "@ABSCWD@", "--overwrite", "-q"], 2,
        setup=nested, cwd=wd)
    add(C, "pca-zarr-is-cwd", ["pca", "../../../base", "-k", "2", "--out", "../w", "--overwrite", "-q"], 2,
        setup=chain(nested, lambda d: [copy_fixture(f, d) for f in BASE]), cwd=wd)
    add(C, "convert-over-cwd", ["convert", "../../../base", "../w.zarr", "--overwrite", "-q"], 2,
        setup=chain(nested, lambda d: [copy_fixture(f, d) for f in BASE]), cwd=wd)
    add(C, "simulate-over-cwd", ["simulate", "--samples", "4", "--variants", "4", "--format", "vcz",
                                 "--out", "../w", "--overwrite", "-q"], (1, 2),
        setup=lambda d: keepdir("w.vcz", zarr=True)(d), cwd="w.vcz")

    def zarr_marked(p):
        return any(os.path.exists(os.path.join(p, m)) for m in (".zgroup", ".zarray", "zarr.json"))
    home = os.path.expanduser("~")

    def gate_root():
        if any(not RESULTS.get(n, False) for n in safe_names):
            return "skipped: refusal of '.'/'..' not verified clean"
        if zarr_marked("/") or zarr_marked(home):
            return "skipped: / or home holds Zarr metadata"
        return None
    # fails fast: input is tiny, refusal must come before writing anything
    add(C, "import-over-root", ["zarr", "import", "small.npy", "/", "--overwrite", "-q"], (1, 2), files=npy,
        gate=gate_root)
    add(C, "import-over-home", ["zarr", "import", "small.npy", home, "--overwrite", "-q"], (1, 2), files=npy,
        gate=gate_root)
    add(C, "import-over-root-slashes", ["zarr", "import", "small.npy", "//", "--overwrite", "-q"], (1, 2),
        files=npy, gate=gate_root)

# ---- class 2: symlinks -------------------------------------------------------


def next_pid():
    try:
        return int(open("/proc/sys/kernel/ns_last_pid").read())
    except Exception:
        return os.getpid()


def plant(links, victim="victim.txt", victim_dir=False):
    def f(d):
        if victim_dir:
            make_zgroup(os.path.join(d, victim))
            write(os.path.join(d, victim, "keep.txt"), "victim data\n")
        else:
            write(os.path.join(d, victim), "victim data, must not change\n")
        for name in links():
            p = os.path.join(d, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            os.symlink(os.path.abspath(os.path.join(d, victim)), p)
    return f


def cases_symlinks():
    C = "symlinks"
    cmds = {
        "freq": (["freq", "base", "--out", "fr", "-q"], BASE, ["fr.afreq", "fr.vmiss"], []),
        "pca": (["pca", "base", "-k", "2", "--out", "p", "-q"], BASE,
                ["p.eigenvec", "p.eigenval", "p.eigenvec.var", "p.svg"], ["p.zarr"]),
        "export": (["zarr", "export", "small.zarr", "out.npy", "-q"], ["small.zarr"], ["out.npy"], []),
        "convert-bed": (["convert", "base.vcz", "o.bed", "-q"], ["base.vcz"], ["o.bed", "o.bim", "o.fam"], []),
        "report": (["freq", "base", "--out", "fr", "--report", "r.json", "-q"], BASE, ["r.json"], []),
    }
    extra_allowed = {"report": ["fr.afreq", "fr.vmiss"]}
    # old-style temp names planted for these directory outputs too (freq has none; plant the name anyway)
    extra_tmpdirs = {"freq": ["fr.zarr"], "report": ["fr.zarr"]}
    cmds2 = {
        "import": (["zarr", "import", "small.npy", "im.zarr", "-q"], ["small.npy"], [], ["im.zarr"]),
        "svd": (["svd", "small.zarr", "-k", "2", "--out", "s.zarr", "-q"], ["small.zarr"], [], ["s.zarr"]),
        "convert-vcz": (["convert", "base", "c.vcz", "-q"], BASE, [], ["c.vcz"]),
    }
    cmds.update(cmds2)
    for cname, (args, files, fouts, douts) in cmds.items():
        outs = fouts + douts
        allowed = outs + extra_allowed.get(cname, [])
        outs_check = list(outs)
        outs = allowed
        # 1. link at each output name (file victim); the link itself may be replaced, never the victim
        for o in fouts:
            add(C, "%s-link-at-%s" % (cname, o), args, (0, 1, 2), files=files, setup=plant(lambda o=o: [o]),
                allowed=[o] + outs)
        for o in douts:
            add(C, "%s-link-at-%s->zarrdir" % (cname, o), args, (0, 1, 2), files=files,
                setup=plant(lambda o=o: [o], victim="victim.zarr", victim_dir=True), allowed=outs)
            add(C, "%s-link-at-%s->zarrdir+ow" % (cname, o), args + ["--overwrite"], (0, 1, 2), files=files,
                setup=plant(lambda o=o: [o], victim="victim.zarr", victim_dir=True), allowed=outs)
        # 2. old-style temp names for many PIDs
        def tmpnames(fouts=fouts, douts=douts + extra_tmpdirs.get(cname, [])):
            base = next_pid()
            names = []
            for pid in range(base + 1, base + 120):
                for o in fouts:
                    names.append("%s.tmp-%d" % (o, pid))
                for o in douts:
                    names.append(".%s.tmp-%d" % (o, pid))
            return names
        add(C, "%s-old-tmp-names->file" % cname, args, 0, files=files, setup=plant(tmpnames), allowed=allowed,
            check=exists_check(*outs_check))
        add(C, "%s-old-tmp-names->zarrdir" % cname, args, 0, files=files,
            setup=plant(tmpnames, victim="victim.zarr", victim_dir=True), allowed=allowed, check=exists_check(*outs_check))
        # 3. a dangling link at the outputs
        for o in outs[:1]:
            add(C, "%s-dangling-link-at-%s" % (cname, o), args, (0, 1, 2), files=files,
                setup=lambda d, o=o: os.symlink(os.path.join(d, "nowhere", "x"), os.path.join(d, o)), allowed=outs)
    # 4. output parent is a symlink into a victim directory
    add(C, "freq-out-through-linked-dir", ["freq", "base", "--out", "ln/fr", "-q"], (0, 1, 2), files=BASE,
        setup=lambda d: (os.makedirs(os.path.join(d, "real")), write(os.path.join(d, "real", "fr.afreq"), "victim\n"),
                         os.symlink(os.path.join(d, "real"), os.path.join(d, "ln"))),
        allowed=["real/fr.afreq", "real/fr.vmiss"])

# ---- class 3: kill -----------------------------------------------------------

PCA_OUTS = ["eigenvec", "eigenval", "eigenvec.var", "svg", "zarr"]


def kill_fixtures():
    """Reference outputs of two different pca runs (A: -k 3, B: -k 4) on the mid cohort and on base."""
    ref = os.path.join(FIX, "killref")
    if os.path.exists(os.path.join(ref, "done")):
        return ref
    os.makedirs(ref, exist_ok=True)
    must(["simulate", "--samples", "1500", "--variants", "6000", "--out", os.path.join(FIX, "mid"), "-q"], FIX)
    for tag, cohort, k in [("midA", "mid", "3"), ("midB", "mid", "4"), ("baseA", "base", "2"), ("baseB", "base", "3")]:
        d = os.path.join(ref, tag)
        os.makedirs(d)
        t0 = time.monotonic()
        must(["pca", os.path.join(FIX, cohort), "-k", k, "--method", "exact", "--out", "m", "-q"], d)
        write(os.path.join(d, "seconds"), "%.3f" % (time.monotonic() - t0))
    write(os.path.join(ref, "done"), "")
    return ref


def kill_check(cohort):
    def f(d, p):
        ref = kill_fixtures()
        A = {o: tree_hash(os.path.join(ref, cohort + "A", "m." + o)) for o in PCA_OUTS}
        B = {o: tree_hash(os.path.join(ref, cohort + "B", "m." + o)) for o in PCA_OUTS}

        def state():
            cur = {o: tree_hash(os.path.join(d, "m." + o)) for o in PCA_OUTS}
            srcs = set()
            for o in PCA_OUTS:
                srcs.add("A" if cur[o] == A[o] else "B" if cur[o] == B[o] else "other")
            return srcs
        stages = [n for n in os.listdir(d) if n.startswith(".strata-stage-")]
        journaled = any(os.path.exists(os.path.join(d, s, "journal")) for s in stages)
        s = state()
        msg = []
        if (len(s) > 1 or "other" in s) and not journaled:
            msg.append("after kill outputs are a mix %s with no journaled stage folder" % sorted(s))
        r = run_strata(["freq", "base", "--out", "other", "-q"], d)
        if r.returncode != 0:
            msg.append("recovery freq exited %d: %s" % (r.returncode, r.stderr.decode(errors="replace")[:200]))
        left = [n for n in os.listdir(d) if n.startswith(".strata-stage-")]
        if left:
            msg.append("stage folder(s) remain after next command: %s" % left)
        s2 = state()
        if len(s2) != 1 or "other" in s2:
            msg.append("after recovery outputs are a mix/unknown %s (before recovery %s, journaled=%s)" %
                       (sorted(s2), sorted(s), journaled))
        return "; ".join(msg) or None
    return f


def seed_old(cohort):
    def f(d):
        ref = kill_fixtures()
        for o in PCA_OUTS:
            src = os.path.join(ref, cohort + "A", "m." + o)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(d, "m." + o))
            else:
                shutil.copy2(src, os.path.join(d, "m." + o))
        for b in BASE:
            copy_fixture(b, d)
    return f


def cases_kill():
    C = "kill"
    rng = random.Random(12345)
    times = [0.05, 0.2] + sorted(round(rng.uniform(0.05, 3.0), 3) for _ in range(6))
    allowed = ["m." + o for o in PCA_OUTS] + ["other.afreq", "other.vmiss"]
    for t in times:
        add(C, "sigkill-pca-at-%.3fs" % t,
            ["pca", "@FIX@/mid", "-k", "4", "--method", "exact", "--out", "m", "--overwrite", "-q"], (0, -9, 137),
            setup=seed_old("mid"), allowed=allowed, killer=t, check=kill_check("mid"))
    # late kills, as a fraction of the measured duration of the same run: these land in the commit
    for frac in [0.9, 0.97, 0.99, 1.0]:
        add(C, "sigkill-pca-at-%.0f%%-of-run" % (frac * 100),
            ["pca", "@FIX@/mid", "-k", "4", "--method", "exact", "--out", "m", "--overwrite", "-q"], (0, -9, 137),
            setup=seed_old("mid"), allowed=allowed, killer=frac, check=kill_check("mid"))
    for k in range(8):
        add(C, "fault-commit-step-%d" % k,
            ["pca", "@FIX@/base", "-k", "3", "--method", "exact", "--out", "m", "--overwrite", "-q"], (0, -9, 137),
            setup=seed_old("base"), allowed=allowed, env={"STRATA_FAULT_COMMIT_STEP": str(k)}, killer="fault",
            check=kill_check("base"))

# ---- class 4: usage ----------------------------------------------------------


def cases_usage():
    C = "usage"
    cmds = {
        "pca": (["pca", "base", "-k", "2", "--out", "u"], BASE),
        "svd": (["svd", "small.zarr", "-k", "2", "--out", "u.zarr"], ["small.zarr"]),
        "freq": (["freq", "base", "--out", "u"], BASE),
        "convert": (["convert", "base", "u.vcz"], BASE),
        "simulate": (["simulate", "--samples", "5", "--variants", "5", "--out", "u"], []),
        "import": (["zarr", "import", "small.npy", "u.zarr"], ["small.npy"]),
        "export": (["zarr", "export", "small.zarr", "u.npy"], ["small.zarr"]),
        "verify": (["zarr", "verify", "small.zarr"], ["small.zarr"]),
    }
    common = [["--threads", "-1"], ["--threads", "5000"], ["--threads", "abc"], ["--threads", "1.5"],
              ["--report", ""], ["--bogus-flag"]]
    specific = {
        "pca": [["-k", "0"], ["-k", "-1"], ["-k", "abc"], ["-k", "99999999999"], ["--tolerance", "-1"],
                ["--tolerance", "0"], ["--tolerance", "nan"], ["--iterations", "0"], ["--out", ""], ["--maf", "2"],
                ["--maf", "-0.1"], ["--maf", "nan"], ["--geno", "-0.5"], ["--geno", "1.5"], ["--memory", "abc"],
                ["--memory", "1.2.3G"], ["--memory", "-2G"], ["--memory", "0"], ["--memory", "99999999999999T"],
                ["--scale", "zscore"], ["--method", "magic"], ["--precision", "int8"], ["--block", "-3"],
                ["--block", "5000"], ["--oversampling", "-1"], ["--seed", "-1"]],
        "svd": [["-k", "0"], ["--iterations", "0"], ["--scheme", "weird"], ["--precision", "half"],
                ["--method", "fast"], ["--oversampling", "-5"], ["--out", ""]],
        "freq": [["--out", ""], ["--multiallelic", "maybe"]],
        "convert": [["--variants-chunk", "0"], ["--samples-chunk", "-1"], ["--codec", "zstd:abc"],
                    ["--codec", "rot13"], ["--multiallelic", "x"]],
        "simulate": [["--samples", "0"], ["--variants", "-1"], ["--fst", "1"], ["--fst", "-0.1"],
                     ["--missing", "2"], ["--pops", "0"], ["--pops", "9"], ["--format", "cram"], ["--out", ""]],
        "import": [["--chunks", "0,0"], ["--chunks", "abc"], ["--chunks", "10"], ["--codec", "blosc:zstd:5:twist"],
                   ["--codec", "zstd:99"], ["--zarr-format", "4"], ["--shard", "7,7"]],
        "export": [],
        "verify": [],
    }
    for cname, (args, files) in cmds.items():
        for extra in specific[cname] + common:
            a = list(args)
            # replace an option given in the base args, else append
            if extra[0] in a and extra[0] not in ("--threads",):
                i = a.index(extra[0])
                a = a[:i] + extra + a[i + 2:]
            else:
                a = a + extra
            add(C, "%s %s" % (cname, " ".join(shlex.quote(x) for x in extra)), a + ["-q"] if cname != "verify" or True else a,
                2, files=files)
    add(C, "unknown-subcommand", ["frobnicate"], 2)
    add(C, "unknown-zarr-subcommand", ["zarr", "frobnicate", "x"], 2)
    add(C, "no-subcommand", [], 2)
    add(C, "pca-missing-k", ["pca", "base", "--out", "u"], 2, files=BASE)
    add(C, "pca-missing-out", ["pca", "base", "-k", "2"], 2, files=BASE)
    add(C, "pca-missing-input", ["pca", "-k", "2", "--out", "u"], 2, files=BASE)
    add(C, "pca-input-and-bfile", ["pca", "base", "--bfile", "base", "-k", "2", "--out", "u"], 2, files=BASE)
    add(C, "svd-missing-k", ["svd", "small.zarr", "--out", "u.zarr"], 2, files=["small.zarr"])
    add(C, "simulate-missing-samples", ["simulate", "--variants", "5", "--out", "u"], 2)
    add(C, "convert-bad-output-ext", ["convert", "base", "u.txt"], 2, files=BASE)
    add(C, "export-missing-out", ["zarr", "export", "small.zarr"], 2, files=["small.zarr"])
    add(C, "import-v2-with-shard", ["zarr", "import", "small.npy", "u.zarr", "--zarr-format", "2", "--shard", "20,20",
                                    "--chunks", "10,10"], 2, files=["small.npy"])

# ---- class 5: data errors ----------------------------------------------------


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


def trunc(src, dst, n):
    def f(d):
        data = open(os.path.join(FIX, src), "rb").read()
        if n < 0:
            cut = len(data) + n
        elif n < 1:
            cut = int(len(data) * n)
        else:
            cut = n
        write(os.path.join(d, dst), data[:cut], "wb")
    return f


def modify(rel, fn):
    def f(d):
        p = os.path.join(d, rel)
        data = open(p, "rb").read()
        write(p, fn(data), "wb")
    return f


def zmod(rel, fn):
    """Edit a JSON metadata file of a copied store."""
    def f(d):
        p = os.path.join(d, rel)
        meta = json.load(open(p))
        fn(meta)
        write(p, json.dumps(meta))
    return f


def first_chunk(d, arr):
    for n in sorted(os.listdir(os.path.join(d, arr))):
        if not n.startswith("."):
            return os.path.join(d, arr, n)
    raise RuntimeError("no chunk in " + arr)


def cases_data():
    C = "data-errors"
    # ---- VCF / BCF
    add(C, "convert-text-named-vcf", ["convert", "notvcf.vcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "notvcf.vcf"), "hello, this is not a VCF\n"))
    add(C, "convert-garbage-vcf.gz", ["convert", "g.vcf.gz", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "g.vcf.gz"), bytes(random.Random(1).getrandbits(8) for _ in range(5000)),
                              "wb"))
    add(C, "convert-garbage-bcf", ["convert", "g.bcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "g.bcf"), b"BCF\x02\x02" + b"\xff" * 3000, "wb"))
    add(C, "convert-empty-vcf", ["convert", "e.vcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "e.vcf"), ""))
    add(C, "convert-header-only-vcf", ["convert", "h.vcf", "o.vcz", "-q"], (0, 1),
        setup=lambda d: write(os.path.join(d, "h.vcf"), vcf_text(4, 0)), allowed=["o.vcz"])
    add(C, "convert-vcf-dup-samples", ["convert", "dup.vcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "dup.vcf"), vcf_text(6, 20, dup=True)))
    add(C, "convert-vcf-ragged-row", ["convert", "r.vcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "r.vcf"), vcf_text(6, 20).rstrip("\n").rsplit("\t", 2)[0] + "\n"))
    add(C, "convert-vcf-bad-gt", ["convert", "r.vcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "r.vcf"), vcf_text(6, 20).replace("0|1", "0|Q", 1)))
    gz_len = os.path.getsize(os.path.join(FIX, "v.vcf.gz"))
    for cut in [10, 18, 100, 0.25, 0.5, 0.75, -29, -40, -100]:
        add(C, "convert-truncated-vcf.gz@%s" % cut, ["convert", "t.vcf.gz", "o.vcz", "-q"], 1,
            setup=trunc("v.vcf.gz", "t.vcf.gz", cut))
    for cut in [5, 30, 0.3, 0.6, 0.9, -29, -40]:
        add(C, "convert-truncated-bcf@%s" % cut, ["convert", "t.bcf", "o.vcz", "-q"], 1,
            setup=trunc("v.bcf", "t.bcf", cut))
    add(C, "convert-truncated-vcf-text", ["convert", "t.vcf", "o.vcz", "-q"], 1,
        setup=lambda d: write(os.path.join(d, "t.vcf"), vcf_text(6, 20)[:-37]))
    # ---- PLINK
    plink_cmds = {"pca": ["pca", "base", "-k", "2", "--out", "o", "-q"], "freq": ["freq", "base", "--out", "o", "-q"],
                  "convert": ["convert", "base", "o.vcz", "-q"]}
    bad_plink = {
        "fam-dup-ids": modify("base.fam", lambda b: (lambda L: b"\n".join([L[0], L[0]] + L[2:]))(b.split(b"\n"))),
        "fam-nul": modify("base.fam", lambda b: b[:20] + b"\0" + b[21:]),
        "bim-nul": modify("base.bim", lambda b: b[:10] + b"\0\0" + b[12:]),
        "bed-wrong-magic": modify("base.bed", lambda b: b"\x6c\x1b\x00" + b[3:]),
        "bed-text": modify("base.bed", lambda b: b"this is not a bed file\n" * 10),
        "bed-trunc-2": modify("base.bed", lambda b: b[:2]),
        "bed-trunc-half": modify("base.bed", lambda b: b[:len(b) // 2]),
        "bed-trunc-1": modify("base.bed", lambda b: b[:-1]),
        "bed-extra-bytes": modify("base.bed", lambda b: b + b"\0" * 7),
        "bim-fewer-lines": modify("base.bim", lambda b: b"\n".join(b.split(b"\n")[:-11]) + b"\n"),
        "bim-more-lines": modify("base.bim", lambda b: b + b.split(b"\n", 1)[0].replace(b"v0", b"vX") + b"\n"),
        "fam-fewer-lines": modify("base.fam", lambda b: b"\n".join(b.split(b"\n")[:-5]) + b"\n"),
        "bim-bad-pos": modify("base.bim", lambda b: b.replace(b"\t101\t", b"\tabc\t", 1)),
        "bim-short-line": modify("base.bim", lambda b: b.replace(b"\t0\t101\tA\tG", b"", 1)),
        "empty-bed": modify("base.bed", lambda b: b""),
        "empty-bim": modify("base.bim", lambda b: b""),
        "empty-fam": modify("base.fam", lambda b: b""),
        "missing-fam": lambda d: os.remove(os.path.join(d, "base.fam")),
        "missing-bim": lambda d: os.remove(os.path.join(d, "base.bim")),
    }
    for bname, setup in bad_plink.items():
        for cname, args in plink_cmds.items():
            add(C, "%s-%s" % (cname, bname), args, 1, files=BASE, setup=setup)
    for cname, args in plink_cmds.items():
        a = [x if x != "base" else "nonexistent" for x in args]
        add(C, "%s-nonexistent-input" % cname, a, 1)
        a = [x if x != "base" else "somedir" for x in args]
        add(C, "%s-directory-input" % cname, a, 1, setup=lambda d: os.makedirs(os.path.join(d, "somedir")))
        a = [x if x != "base" else "bed.bed" for x in args]
        add(C, "%s-directory-named-bed" % cname, a, 1, setup=lambda d: os.makedirs(os.path.join(d, "bed.bed")))
    # ---- svd
    for nm, arr in [("nan", "nan.npy"), ("inf", "inf.npy"), ("bool", "bool.npy"), ("empty", "empty.npy"),
                    ("1d", "oned.npy"), ("3d", "threed.npy"), ("one-row", "onerow.npy")]:
        add(C, "svd-%s-array" % nm, ["svd", "a.zarr", "-k", "1", "--out", "s.zarr", "-q"], (1, 2) if nm in ("1d", "3d") else 1,
            setup=lambda d, arr=arr: shutil.copytree(os.path.join(FIX, arr + ".zarr"), os.path.join(d, "a.zarr")))

    def no_nan_s(d, p):
        import zarr
        g = zarr.open_group(os.path.join(d, "s.zarr"), mode="r")
        for k in ("U", "S", "Vt"):
            if not np.all(np.isfinite(np.asarray(g[k]))):
                return "all-zeros svd exited 0 but %s holds NaN/Inf" % k
        return None
    for m in ["exact", "randomized"]:
        add(C, "svd-all-zeros-%s" % m, ["svd", "a.zarr", "-k", "2", "--method", m, "--out", "s.zarr", "-q"], (0, 1),
            setup=lambda d: shutil.copytree(os.path.join(FIX, "zeros.npy.zarr"), os.path.join(d, "a.zarr")),
            allowed=["s.zarr"], check=lambda d, p: no_nan_s(d, p) if p.returncode == 0 else None)
        add(C, "svd-k-too-big-%s" % m, ["svd", "small.zarr", "-k", "20", "--method", m, "--out", "s.zarr", "-q"],
            (1, 2), files=["small.zarr"])
    # ---- pca data conditions
    add(C, "pca-k-equals-samples", ["pca", "base", "-k", "60", "--out", "o", "-q"], (1, 2), files=BASE)
    add(C, "pca-k-above-samples", ["pca", "base", "-k", "61", "--out", "o", "-q"], (1, 2), files=BASE)
    add(C, "pca-k-above-samples-randomized", ["pca", "base", "-k", "70", "--method", "randomized", "--out", "o", "-q"],
        (1, 2), files=BASE)
    add(C, "pca-all-filtered-maf", ["pca", "base", "-k", "2", "--maf", "0.5", "--out", "o", "-q"], 1, files=BASE)
    add(C, "pca-fractional-dosage-f64", ["pca", "frac.zarr", "-k", "2", "--out", "o", "-q"], 1, files=["frac.zarr"])
    add(C, "pca-fractional-dosage-f32", ["pca", "frac32.zarr", "-k", "2", "--out", "o", "-q"], 1,
        files=["frac32.zarr"])
    add(C, "freq-fractional-dosage", ["freq", "frac.zarr", "--out", "o", "-q"], 1, files=["frac.zarr"])
    add(C, "pca-dosage-out-of-range", ["pca", "three.zarr", "-k", "2", "--out", "o", "-q"], 1, files=["three.zarr"])
    add(C, "pca-on-plain-float-matrix-nan", ["pca", "nan.npy.zarr", "-k", "2", "--out", "o", "-q"], 1,
        files=["nan.npy.zarr"])
    # ---- Zarr store corruption: info and verify
    def corrupt(setup_fn):
        def f(d):
            shutil.copytree(os.path.join(FIX, "x.zarr"), os.path.join(d, "c.zarr"))
            setup_fn(os.path.join(d, "c.zarr"))
        return f
    stores = {
        "bad-zarray-json": (lambda s: write(os.path.join(s, "a", ".zarray"), "{not json"), (0, 1), 1),
        "bad-zarray-fields": (lambda s: write(os.path.join(s, "a", ".zarray"), '{"zarr_format":2,"shape":"x"}'),
                              (0, 1), 1),
        "unknown-codec": (lambda s: zmod("a/.zarray", lambda m: m.update(compressor={"id": "rot13"}))(s), (0, 1), 1),
        "chunk-truncated": (lambda s: open(first_chunk(s, "a"), "r+b").truncate(7), (0,), 1),
        "chunk-garbage": (lambda s: write(first_chunk(s, "a"), b"\x00garbage" * 40, "wb"), (0,), 1),
        "chunk-fifo": (lambda s: (os.remove(first_chunk(s, "a")), os.mkfifo(os.path.join(s, "a", "0.0"))), (0, 1), 1),
        "chunk-sparse-1G": (lambda s: os.truncate(first_chunk(s, "a"), 1 << 30), (0, 1), 1),
        "chunk-is-dir": (lambda s: (os.remove(first_chunk(s, "a")), os.makedirs(os.path.join(s, "a", "0.0"))),
                         (0, 1), 1),
        "zattrs-deep-nesting": (lambda s: write(os.path.join(s, "a", ".zattrs"), "[" * 200000), (0, 1), (0, 1)),
        "zgroup-deep-nesting": (lambda s: write(os.path.join(s, ".zgroup"), "{\"a\":" * 100000), (0, 1), (0, 1)),
        "huge-chunk-grid": (lambda s: zmod("a/.zarray", lambda m: m.update(shape=[2 ** 62, 2 ** 62],
                                                                        chunks=[2 ** 31, 2 ** 31]))(s), (0, 1), (0, 1)),
        "huge-chunk-elements": (lambda s: zmod("a/.zarray", lambda m: m.update(shape=[2 ** 40, 2 ** 40],
                                                                            chunks=[2 ** 40, 2 ** 40]))(s), (0, 1), 1),
        "negative-shape": (lambda s: zmod("a/.zarray", lambda m: m.update(shape=[-5, 10]))(s), (0, 1), 1),
        "zero-chunk": (lambda s: zmod("a/.zarray", lambda m: m.update(chunks=[0, 10]))(s), (0, 1), 1),
        "chunks-rank-mismatch": (lambda s: zmod("a/.zarray", lambda m: m.update(chunks=[10]))(s), (0, 1), 1),
        "bad-dtype": (lambda s: zmod("a/.zarray", lambda m: m.update(dtype="<q99"))(s), (0, 1), 1),
        "empty-zarray": (lambda s: write(os.path.join(s, "a", ".zarray"), ""), (0, 1), 1),
    }
    for sname, (fn, info_ok, verify_ok) in stores.items():
        ms = 5 if "sparse" in sname or "fifo" in sname or "huge" in sname else None
        add(C, "info-%s" % sname, ["zarr", "info", "c.zarr"], info_ok, setup=corrupt(fn), max_seconds=ms,
            timeout=20 if ms else None)
        add(C, "verify-%s" % sname, ["zarr", "verify", "c.zarr", "-q"], verify_ok, setup=corrupt(fn), max_seconds=ms,
            timeout=20 if ms else None)
    # also via export/svd on a corrupt chunk
    add(C, "export-chunk-truncated", ["zarr", "export", "c.zarr/a", "o.npy", "-q"], 1,
        setup=corrupt(stores["chunk-truncated"][0]))
    add(C, "svd-chunk-fifo", ["svd", "c.zarr/a", "-k", "2", "--out", "s.zarr", "-q"], 1,
        setup=corrupt(stores["chunk-fifo"][0]), timeout=20)
    # arrays on disk but absent from .zmetadata
    def hidden_array(bad):
        def f(d):
            shutil.copytree(os.path.join(FIX, "cons.zarr"), os.path.join(d, "c.zarr"))
            if bad:
                write(first_chunk(os.path.join(d, "c.zarr"), "hidden"), b"\x01corrupt" * 30, "wb")
        return f

    def mentions_hidden(d, p):
        txt = (p.stdout + p.stderr).decode(errors="replace")
        return None if "hidden" in txt else "verify does not mention array 'hidden' (on disk, absent from .zmetadata)"
    add(C, "verify-array-not-in-zmetadata", ["zarr", "verify", "c.zarr"], (0, 1), setup=hidden_array(False),
        check=mentions_hidden)
    add(C, "verify-corrupt-array-not-in-zmetadata", ["zarr", "verify", "c.zarr"], 1, setup=hidden_array(True),
        check=mentions_hidden)
    add(C, "info-array-not-in-zmetadata", ["zarr", "info", "c.zarr"], (0, 1), setup=hidden_array(False),
        check=mentions_hidden)

# ---- class 6: wrong answers --------------------------------------------------


def read_s(d, name="s.zarr"):
    import zarr
    g = zarr.open_group(os.path.join(d, name), mode="r")
    return np.asarray(g["U"]), np.asarray(g["S"]), np.asarray(g["Vt"])


def svd_check(npyname, k, rtol, nan_check=False):
    def f(d, p):
        A = np.load(os.path.join(FIX, npyname))
        s_ref = np.linalg.svd(A, compute_uv=False)[:k]
        U, S, Vt = read_s(d)
        msg = []
        if nan_check and not (np.all(np.isfinite(U)) and np.all(np.isfinite(Vt))):
            msg.append("U/Vt hold NaN/Inf (%d NaN in U)" % int(np.isnan(U).sum()))
        S = np.asarray(S, dtype=np.float64)[:k]
        if S.shape != s_ref.shape or not np.all(np.isfinite(S)):
            msg.append("S=%r vs numpy %r" % (S, s_ref))
        else:
            rel = np.max(np.abs(S - s_ref) / np.abs(s_ref))
            if not rel <= rtol:
                msg.append("singular values off by %.3g relative (tol %g): %r vs numpy %r" % (rel, rtol, S, s_ref))
        return "; ".join(msg) or None
    return f


def read_eigval(path):
    return [l.strip() for l in open(path) if l.strip()]


def half_ulp(s):
    if "e" in s.lower():
        mant, exp = s.lower().split("e")
        dec = len(mant.split(".")[1]) if "." in mant else 0
        return 0.5 * 10 ** (int(exp) - dec)
    dec = len(s.split(".")[1]) if "." in s else 0
    return 0.5 * 10 ** (-dec)


def plink_check(prefix, k, strata_out="o"):
    def f(d, p):
        r = subprocess.run(["/usr/bin/plink2", "--bfile", prefix, "--pca", str(k), "meanimpute", "--out", "pl",
                            "--threads", "2", "--allow-extra-chr", "--bad-freqs"], cwd=d, capture_output=True)
        if r.returncode != 0:
            r = subprocess.run(["/usr/bin/plink2", "--bfile", prefix, "--pca", str(k), "meanimpute", "--out", "pl",
                                "--threads", "2", "--allow-extra-chr"], cwd=d, capture_output=True)
        if r.returncode != 0:
            return "oracle plink2 failed: " + r.stdout.decode(errors="replace")[-300:]
        pl = read_eigval(os.path.join(d, "pl.eigenval"))
        st = read_eigval(os.path.join(d, strata_out + ".eigenval"))
        if len(st) < k:
            return "strata wrote %d eigenvalues, want %d" % (len(st), k)
        bad = []
        for i in range(k):
            tol = half_ulp(pl[i]) + half_ulp(st[i]) + 1e-12
            if abs(float(pl[i]) - float(st[i])) > tol:
                bad.append("λ%d strata %s plink2 %s" % (i + 1, st[i], pl[i]))
        return ("eigenvalues differ from plink2 beyond printed precision: " + ", ".join(bad)) if bad else None
    return f


def cases_wrong():
    C = "wrong-answers"
    for m, extra in [("randomized", []), ("randomized", ["--iterations", "30"]), ("exact", []),
                     ("randomized", ["--scheme", "subspace", "--iterations", "30"])]:
        add(C, "svd-normal-60x20-k2-%s%s" % (m, "".join(extra)),
            ["svd", "small.zarr", "-k", "2", "--method", m, "--out", "s.zarr", "-q"] + extra, 0, files=["small.zarr"],
            allowed=["s.zarr"], check=svd_check("small.npy", 2, 1e-8))
    for m in ["randomized", "exact"]:
        add(C, "svd-subnormal-1e-310-%s" % m, ["svd", "tiny.zarr", "-k", "2", "--method", m, "--out", "s.zarr", "-q"],
            0, files=["tiny.zarr"], allowed=["s.zarr"], check=svd_check("tiny.npy", 2, 1e-6, nan_check=True))
    add(C, "svd-huge-1e300", ["svd", "hugev.zarr", "-k", "2", "--out", "s.zarr", "-q"], 0, files=["hugev.zarr"],
        allowed=["s.zarr"], check=svd_check("hugev.npy", 2, 1e-6, nan_check=True))
    outs = ["o.eigenvec", "o.eigenval", "o.eigenvec.var", "o.svg", "o.zarr", "pl.eigenval", "pl.eigenvec", "pl.log",
            "pl.eigenvec.allele"]
    for m in ["exact", "randomized"]:
        extra = ["--tolerance", "1e-7"] if m == "randomized" else []
        add(C, "pca-monomorphic-every-10th-%s-vs-plink2" % m,
            ["pca", "mono", "-k", "5", "--method", m, "--out", "o", "-q"] + extra, 0, files=["mono.bed", "mono.bim",
                                                                                            "mono.fam"],
            allowed=outs, check=plink_check("mono", 5))
    add(C, "pca-exact-variants<samples-vs-plink2", ["pca", "wide", "-k", "5", "--method", "exact", "--out", "o", "-q"],
        0, files=["wide.bed", "wide.bim", "wide.fam"], allowed=outs, check=plink_check("wide", 5))
    add(C, "pca-base-default-vs-plink2", ["pca", "base", "-k", "4", "--out", "o", "-q"], 0, files=BASE,
        allowed=outs, check=plink_check("base", 4))

    def tol_check(d, p):
        err = p.stderr.decode(errors="replace")
        if "did not meet --tolerance" in err:
            return None
        try:
            rep = json.load(open(os.path.join(d, "r.json")))
        except Exception as e:
            return "no readable report: %s" % e
        found = {}

        def walk(x):
            if isinstance(x, dict):
                for k, v in x.items():
                    if k in ("converged", "error_estimate", "error_estimates", "max_error_estimate"):
                        found.setdefault(k, v)
                    walk(v)
            elif isinstance(x, list):
                for v in x:
                    walk(v)
        walk(rep)
        if found.get("converged") is not True:
            return "report says converged=%r and no 'did not meet --tolerance' warning on stderr" % found.get("converged")
        est = found.get("error_estimate", found.get("error_estimates", found.get("max_error_estimate")))
        vals = est if isinstance(est, list) else [est]
        if est is None or any(v is None or v > 1e-8 for v in vals):
            return "report says converged but estimates %r exceed --tolerance 1e-8" % (est,)
        return None
    add(C, "pca-randomized-tolerance-tiny-cohort", ["pca", "tinyc", "-k", "2", "--method", "randomized",
                                                    "--tolerance", "1e-8", "--out", "o", "--report", "r.json", "-q"],
        0, files=["tinyc.bed", "tinyc.bim", "tinyc.fam"], allowed=outs + ["r.json"], check=tol_check)
    add(C, "pca-randomized-tolerance-base", ["pca", "base", "-k", "3", "--method", "randomized",
                                             "--tolerance", "1e-8", "--out", "o", "--report", "r.json", "-q"],
        0, files=BASE, allowed=outs + ["r.json"], check=tol_check)

# ---- class 7: report ---------------------------------------------------------


def cases_report():
    C = "report"
    cmds = {
        "freq": (["freq", "base", "--out", "o", "-q"], BASE, ["o.afreq", "o.vmiss"]),
        "pca": (["pca", "base", "-k", "2", "--out", "o", "-q"], BASE,
                ["o.eigenvec", "o.eigenval", "o.eigenvec.var", "o.svg", "o.zarr"]),
        "svd": (["svd", "small.zarr", "-k", "2", "--out", "o.zarr", "-q"], ["small.zarr"], ["o.zarr"]),
        "convert": (["convert", "base", "o.vcz", "-q"], BASE, ["o.vcz"]),
        "simulate": (["simulate", "--samples", "5", "--variants", "5", "--out", "o", "-q"], [], ["o.bed", "o.bim",
                                                                                              "o.fam"]),
        "import": (["zarr", "import", "small.npy", "o.zarr", "-q"], ["small.npy"], ["o.zarr"]),
        "export": (["zarr", "export", "small.zarr", "o.npy", "-q"], ["small.zarr"], ["o.npy"]),
        "verify": (["zarr", "verify", "small.zarr", "-q"], ["small.zarr"], []),
    }
    for cname, (args, files, outs) in cmds.items():
        add(C, "%s-report-is-directory" % cname, args + ["--report", "rdir"], 1, files=files,
            setup=lambda d: (os.makedirs(os.path.join(d, "rdir")), write(os.path.join(d, "rdir", "keep.txt"), "x\n")))
        add(C, "%s-report-under-a-file" % cname, args + ["--report", "afile/r.json"], 1, files=files,
            setup=lambda d: write(os.path.join(d, "afile"), "plain file\n"))
        add(C, "%s-report-name-too-long" % cname, args + ["--report", "r" * 300 + ".json"], (1, 2), files=files)
        add(C, "%s-report-over-a-non-report" % cname, args + ["--report", "notes.txt"], 1, files=files,
            setup=lambda d: write(os.path.join(d, "notes.txt"), "my notes\n"))

        def stale_check(d, p, outs=outs):
            txt = open(os.path.join(d, "r.json")).read()
            if "STALE" in txt:
                return "stale report not rewritten"
            try:
                json.loads(txt)
            except Exception as e:
                return "report is not JSON: %s" % e
            return exists_check(*outs)(d, p)
        add(C, "%s-stale-report-rewritten" % cname, args + ["--report", "r.json"], 0, files=files,
            setup=lambda d: write(os.path.join(d, "r.json"), '{"command": "old", "STALE": true}\n'),
            allowed=outs + ["r.json"],
            check=stale_check)

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
    allowed = case.allowed if not failed or killed_by_us else []
    changed, appeared, vanished = [], [], []
    for rel, h in before.items():
        if under(rel, allowed) or is_stage(rel):
            continue
        if rel not in after:
            vanished.append(rel)
        elif after[rel] != h:
            changed.append(rel)
    for rel in after:
        if rel not in before and not is_stage(rel) and not under(rel, allowed):
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


ORDER = ["data-loss", "symlinks", "kill", "usage", "data-errors", "wrong-answers", "report"]
BUILDERS = {"data-loss": cases_data_loss, "symlinks": cases_symlinks, "kill": cases_kill, "usage": cases_usage,
            "data-errors": cases_data, "wrong-answers": cases_wrong, "report": cases_report}


def main():
    global STRATA, TIMEOUT, FIX
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--strata", required=True)
    ap.add_argument("--workdir")
    ap.add_argument("--only", help="comma-separated classes: " + ",".join(ORDER))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the work dir")
    ap.add_argument("--timeout", type=float, default=60.0)
    a = ap.parse_args()
    STRATA = os.path.abspath(a.strata)
    TIMEOUT = a.timeout
    classes = ORDER if not a.only else [c.strip() for c in a.only.split(",")]
    for c in classes:
        if c not in BUILDERS:
            ap.error("unknown class %r (classes: %s)" % (c, ", ".join(ORDER)))
    root = os.path.abspath(a.workdir) if a.workdir else tempfile.mkdtemp(prefix="strata-probe-")
    os.makedirs(root, exist_ok=True)
    root = tempfile.mkdtemp(prefix="run-", dir=root)
    FIX = os.path.join(root, "fixtures")
    t_start = time.monotonic()
    if not a.list:
        build_fixtures()
    else:
        FIX = os.path.join(root, "fixtures")
        os.makedirs(FIX, exist_ok=True)
        write(os.path.join(FIX, "v.vcf.gz"), b"", "wb")
    for c in classes:
        BUILDERS[c]()
    if a.list:
        for c in CASES:
            print("%-14s %-55s expect %s" % (c.cls, c.name, "/".join(map(str, sorted(c.expect)))))
        print("%d cases" % len(CASES))
        shutil.rmtree(root)
        return 0
    cases_root = os.path.join(root, "cases")
    os.makedirs(cases_root)
    stats = {}
    failures = []
    for i, case in enumerate(CASES):
        tried, clean = stats.setdefault(case.cls, [0, 0])
        stats[case.cls][0] += 1
        if case.gate:
            why = case.gate()
            if why:
                failures.append((case, [why], "(not run)", None, 0.0))
                RESULTS[case.name] = False
                continue
        try:
            probs, repro, p, el = run_case(case, cases_root, i)
        except Exception as e:
            probs, repro, p, el = ["probe error: %s: %s" % (type(e).__name__, e)], "(setup failed)", None, 0.0
        RESULTS[case.name] = not probs
        if probs:
            failures.append((case, probs, repro, p, el))
        else:
            stats[case.cls][1] += 1
        sys.stderr.write("%s %-14s %s\n" % ("ok  " if not probs else "FAIL", case.cls, case.name))
    total = time.monotonic() - t_start
    print()
    print("%-16s | %11s | %15s" % ("class", "cases tried", "handled cleanly"))
    print("-" * 16 + "-+-" + "-" * 11 + "-+-" + "-" * 15)
    for c in ORDER:
        if c in stats:
            print("%-16s | %11d | %15d" % (c, stats[c][0], stats[c][1]))
    print("%-16s | %11d | %15d" % ("TOTAL", sum(s[0] for s in stats.values()), sum(s[1] for s in stats.values())))
    print()
    if failures:
        print("Cases not handled cleanly:")
        for case, probs, repro, p, el in failures:
            print("- [%s] %s (expect exit %s)" % (case.cls, case.name, "/".join(map(str, sorted(case.expect)))))
            for m in probs:
                print("    * " + m)
            if p is not None:
                first = (p.stderr.decode(errors="replace").strip().splitlines() or [""])[0]
                print("    rc=%d  %.1fs  stderr: %s" % (p.returncode, el, first[:240]))
            print("    repro: " + repro)
    print("runtime %.1fs; work dir %s" % (total, root))
    if not a.keep and not failures:
        shutil.rmtree(root, ignore_errors=True)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
