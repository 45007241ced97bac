"""Probe cases about what happens to files: data loss, planted symlinks, kills, reports."""

import os
import random
import shutil
import signal
import subprocess
import sys
import time

import numpy as np

import probe_harness as h
from probe_harness import *  # noqa: F401,F403 (helpers, Case list)

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
                             shutil.copy(os.path.join(h.FIX, "small.npy"), os.path.join(d, "st.zarr", "a.npy"))))
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
    for ext in ["eigenvec", "eigenval", "eigenvec.var", "afreq", "svg"]:
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
        shutil.copy(os.path.join(h.FIX, "small.npy"), os.path.join(d, "small.npy"))
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
                ["p.eigenvec", "p.eigenval", "p.eigenvec.var", "p.afreq", "p.svg"], ["p.zarr"]),
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

PCA_OUTS = ["eigenvec", "eigenval", "eigenvec.var", "afreq", "svg", "zarr"]


def kill_fixtures():
    """Reference outputs of two different pca runs (A: -k 3, B: -k 4) on the mid cohort and on base."""
    ref = os.path.join(h.FIX, "killref")
    if os.path.exists(os.path.join(ref, "done")):
        return ref
    os.makedirs(ref, exist_ok=True)
    must(["simulate", "--samples", "1500", "--variants", "6000", "--out", os.path.join(h.FIX, "mid"), "-q"], h.FIX)
    for tag, cohort, k in [("midA", "mid", "3"), ("midB", "mid", "4"), ("baseA", "base", "2"), ("baseB", "base", "3")]:
        d = os.path.join(ref, tag)
        os.makedirs(d)
        t0 = time.monotonic()
        must(["pca", os.path.join(h.FIX, cohort), "-k", k, "--method", "exact", "--out", "m", "-q"], d)
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
                if A[o] != B[o] or cur[o] != A[o]:  # .afreq does not depend on -k: it tells A and B apart only when neither
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
    allowed = ["m." + o for o in PCA_OUTS] + ["m.log", "other.afreq", "other.vmiss"]  # m.log: committed with them
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

# ---- class 7: report ---------------------------------------------------------


def cases_report():
    C = "report"
    cmds = {
        "freq": (["freq", "base", "--out", "o", "-q"], BASE, ["o.afreq", "o.vmiss"]),
        "pca": (["pca", "base", "-k", "2", "--out", "o", "-q"], BASE,
                ["o.eigenvec", "o.eigenval", "o.eigenvec.var", "o.afreq", "o.svg", "o.zarr"]),
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
