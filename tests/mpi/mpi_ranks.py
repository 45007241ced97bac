#!/usr/bin/python3
"""strata under mpirun: the same outputs for any number of ranks (issue 16).

Each case runs the single-process CLI once and `mpirun -n P strata …` for P = 1..4, then
compares every output file byte for byte. Exit 77 (skip, with the reason) when mpirun or the
data is absent. Cases:
  freq          .afreq/.vmiss of a simulated cohort; the report's bytes read per rank tile the .bed
  pca-sim       randomized PCA (int16 and float32 products, and a converged --tolerance run) of a
                simulated cohort: every output, Zarr included, the same bytes as one process
  pca-hapmap3   randomized and exact PCA and the GRM of HapMap3 (/work/shared/data), the same
  pca-exact     exact PCA (the GRM route: tiles shared across ranks, eigensolve on rank 0; the
                TSQR route: row blocks shared, R factors of aligned subtrees exchanged) and
                `strata grm` in every format, in bands and with pairwise counts
  king          KING tiles shared across ranks: the triangle, the filtered table with --cutoff
                lists, a budget small enough to spill the row spool, and HapMap3 when present
  hosts         ranks on two and three hosts: network namespaces made here (a bridge, a veth
                pair and an address each; OpenMPI over TCP on those addresses only, its launch agent
                entering the namespace instead of ssh): KING, GRM, exact and randomized PCA the same
                bytes as one process. Skips, saying why, where namespaces cannot be made
  gwas          linear (3 phenotypes, two missing patterns, --adjust) and logistic with Firth
                fallback: variants shared block-cyclically, every .glm and .adjusted file the same bytes
  svd           `strata svd` of a tall (several row blocks) and a short-and-fat Zarr array, exact
                (TSQR: R factors of aligned subtrees exchanged) and randomized (Gram partials in
                the fixed tree), U/S/Vt the same bytes
  distance      genotype distances shared across ranks in every layout (square held and
                streamed, triangle, Zarr), and a numeric array (rank 0 alone)
  prune         --indep-pairwise in variants and in kb on a simulated cohort: .prune.in/.prune.out
  qc            --missing --het --hardy --check-sex on a cohort with X, Y, pedigree and unknown sex:
                variants shared by ranks in whole blocks, every table (.hardy.x, .sexcheck) the same
  project       onto a reference PCA of other samples, plain and --correction oadp: the sample chunks
                shared by ranks, .sscore/.eigenvec the same bytes
  failure       a rank given an unreadable input, a rank failing mid-run, a rank that hangs:
                every rank exits non-zero (within the deadline), no output left
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

SKIP = 77
RANKS = (1, 2, 3, 4)



def outputs_in(d):
    """What a failed run left in d besides its PREFIX.log (which says why it failed)."""
    return [f for f in os.listdir(d) if not f.endswith(".log")]

def mpirun():
    exe = shutil.which("mpirun")
    if not exe:
        print("SKIP: mpirun not found (scripts/install-deps.sh installs openmpi-bin)")
        sys.exit(SKIP)
    extra = ["--oversubscribe", "--bind-to", "none"]
    if os.geteuid() == 0:
        extra.append("--allow-run-as-root")
    return [exe] + extra


def run(cmd, expect_ok=True, env=None):
    e = dict(os.environ, OMPI_MCA_btl="self,vader,tcp", OMPI_MCA_btl_vader_single_copy_mechanism="none",
             STRATA_MPI_TIMEOUT="120")
    e.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=600)
    if expect_ok and p.returncode != 0:
        print("FAILED:", " ".join(cmd), "\nexit", p.returncode, "\n", p.stdout[-3000:], p.stderr[-3000:])
        sys.exit(1)
    return p


def files_under(root, prefix):
    """Every output file of PREFIX (files and the insides of PREFIX.zarr), relative paths."""
    out = {}
    base = os.path.basename(prefix)
    for name in os.listdir(root):
        if not name.startswith(base) or name.endswith((".json", ".log")):  # the log has times
            continue
        path = os.path.join(root, name)
        if os.path.isdir(path):
            for d, _, fs in os.walk(path):
                for f in fs:
                    p = os.path.join(d, f)
                    out[os.path.relpath(p, root)] = open(p, "rb").read()
        else:
            out[name] = open(path, "rb").read()
    return out


def same_outputs(ref, got, what):
    if set(ref) != set(got):
        print(f"FAILED: {what}: files differ: {sorted(set(ref) ^ set(got))}")
        sys.exit(1)
    bad = [k for k in ref if ref[k] != got[k]]
    if bad:
        print(f"FAILED: {what}: not the same bytes: {bad}")
        sys.exit(1)


def compare_ranks(strata, tmp, name, args, ranks=RANKS, threads="1", launcher=None):
    """Single process, then mpirun -n P for each P: all outputs byte-identical. Returns reports.
    `launcher(P)`: the mpirun command line for P ranks (default: P ranks on this host)."""
    ref_dir = os.path.join(tmp, f"{name}-ref")
    os.makedirs(ref_dir)
    run([strata] + args + ["--out", os.path.join(ref_dir, "o"), "--threads", threads, "-q"])
    ref = files_under(ref_dir, "o")
    if not ref:
        print(f"FAILED: {name}: the single-process run wrote nothing")
        sys.exit(1)
    reports = {}
    for p in ranks:
        d = os.path.join(tmp, f"{name}-{p}")
        os.makedirs(d)
        rep = os.path.join(d, "report.json")
        run((launcher(p) if launcher else mpirun() + ["-n", str(p)]) + [strata] + args +
            ["--out", os.path.join(d, "o"), "--threads", threads, "-q", "--report", rep])
        same_outputs(ref, files_under(d, "o"), f"{name} with {p} ranks")
        reports[p] = json.load(open(rep))
        if reports[p].get("ranks") != p or len(reports[p].get("per_rank", [])) != p:
            print(f"FAILED: {name}: the report of {p} ranks says ranks={reports[p].get('ranks')}")
            sys.exit(1)
        for r in reports[p]["per_rank"]:
            if r.get("bytes_sent_per_pass", -1) * r.get("passes", 0) > r["bytes_sent"] or "comm_seconds_per_pass" not in r:
                print(f"FAILED: {name}: per-pass communication missing or wrong in {r}")
                sys.exit(1)
        leftovers = [f for f in os.listdir(d) if f.startswith(".strata-stage")]
        if leftovers:
            print(f"FAILED: {name}: staging left behind: {leftovers}")
            sys.exit(1)
    print(f"ok: {name}: {len(ref)} files the same bytes for 1 process and {', '.join(map(str, ranks))} ranks")
    return reports


def simulate(strata, tmp, name, samples, variants, missing="0.01"):
    prefix = os.path.join(tmp, name)
    run([strata, "simulate", "--samples", str(samples), "--variants", str(variants), "--missing", missing,
         "--seed", "7", "--out", prefix, "-q"])
    return prefix


def reads_tile_the_bed(name, reports, samples, variants):
    """Each rank read its own part of the .bed: the parts add up to it, none holds it all."""
    total = variants * ((samples + 3) // 4)
    for p, rep in reports.items():
        per = [r["bytes_read"] for r in rep["per_rank"]]
        if sum(per) != total or (p > 1 and max(per) >= total):
            print(f"FAILED: {name} with {p} ranks read {per} bytes per rank; the .bed holds {total}")
            sys.exit(1)
        print(f"ok: {name} {p} ranks: bytes read per rank {per} (codes: {total})")


def case_freq(strata, tmp):
    prefix = simulate(strata, tmp, "sim", 301, 20011)
    reads_tile_the_bed("freq", compare_ranks(strata, tmp, "freq", ["freq", prefix]), 301, 20011)


def case_pca_sim(strata, tmp):
    prefix = simulate(strata, tmp, "sim", 400, 25000)
    common = ["pca", prefix, "-k", "4", "--method", "randomized"]
    for precision in ("int16", "float32"):
        reports = compare_ranks(strata, tmp, f"pca-{precision}", common + ["--precision", precision])
        for p, rep in reports.items():
            per = [r["bytes_read"] for r in rep["per_rank"]]
            if p > 1 and max(per) >= 2 * 25000 * 100:  # counts pass + codes: no rank reads it all twice
                print(f"FAILED: pca with {p} ranks read {per} bytes per rank")
                sys.exit(1)
            print(f"ok: pca-{precision} {p} ranks: bytes read per rank {per}, sent "
                  f"{[r['bytes_sent'] for r in rep['per_rank']]}")
    compare_ranks(strata, tmp, "pca-tolerance", common + ["--tolerance", "1e-4"], ranks=(2, 3))


def case_pca_hapmap3(strata, tmp, data):
    bed = os.path.join(data, "hapmap3", "HM3_thinned_autosomal_overlap")
    if not os.path.exists(bed + ".bed"):
        print(f"SKIP: {bed}.bed not found (set STRATA_SHARED_DATA)")
        sys.exit(SKIP)
    compare_ranks(strata, tmp, "pca-hapmap3", ["pca", bed, "-k", "10", "--method", "randomized"], threads="2")
    compare_ranks(strata, tmp, "pca-exact-hapmap3", ["pca", bed, "-k", "10", "--method", "exact"], ranks=(2, 3))
    compare_ranks(strata, tmp, "grm-hapmap3", ["grm", bed, "--format", "grm-bin"], ranks=(2, 3, 4))


def case_pca_exact(strata, tmp):
    prefix = simulate(strata, tmp, "sim", 200, 3000)
    reports = compare_ranks(strata, tmp, "pca-exact", ["pca", prefix, "-k", "3", "--method", "exact"])
    if any(r.get("route") != "grm" for r in reports.values()):
        print(f"FAILED: pca-exact: routes {[r.get('route') for r in reports.values()]}")
        sys.exit(1)
    # The TSQR route (--scale center): 30,000 variants are several row blocks of R factors.
    wide = simulate(strata, tmp, "tsqr", 150, 30000)
    reports = compare_ranks(strata, tmp, "pca-tsqr", ["pca", wide, "-k", "3", "--method", "exact", "--scale", "center"],
                            ranks=(2, 3))
    if any(r.get("route") != "tsqr" for r in reports.values()):
        print(f"FAILED: pca-tsqr: routes {[r.get('route') for r in reports.values()]}")
        sys.exit(1)
    compare_ranks(strata, tmp, "grm", ["grm", prefix])
    for fmt in ("rel-bin", "grm-bin", "zarr"):
        compare_ranks(strata, tmp, f"grm-{fmt}", ["grm", prefix, "--format", fmt], ranks=(3,))
    reports = compare_ranks(strata, tmp, "grm-bands", ["grm", prefix, "--meanimpute", "--memory", "1M"], ranks=(2, 3))
    if any(r.get("bands", 1) < 2 for r in reports.values()):
        print(f"FAILED: grm-bands: bands {[r.get('bands') for r in reports.values()]}")
        sys.exit(1)


def case_king(strata, tmp, data):
    prefix = simulate(strata, tmp, "sim", 700, 6000)
    compare_ranks(strata, tmp, "king", ["king", prefix])
    compare_ranks(strata, tmp, "king-table", ["king", prefix, "--table", "--filter", "0.01", "--cutoff", "0.04"],
                  ranks=(2, 3))
    compare_ranks(strata, tmp, "king-spill", ["king", prefix, "--table", "--memory", "9M"], ranks=(2,))
    bed = os.path.join(data, "hapmap3", "HM3_thinned_autosomal_overlap")
    if os.path.exists(bed + ".bed"):
        compare_ranks(strata, tmp, "king-hapmap3", ["king", bed], ranks=(2, 3), threads="2")
    else:
        print(f"skipped the HapMap3 case: {bed}.bed not found")


def case_distance(strata, tmp):
    prefix = simulate(strata, tmp, "sim", 600, 4000)
    compare_ranks(strata, tmp, "distance-square", ["distance", prefix, "--metric", "euclidean"])
    wide = simulate(strata, tmp, "wide", 1000, 2000)  # its 8 MB matrix is over half of 15M: streamed rows
    reports = compare_ranks(strata, tmp, "distance-streamed",
                            ["distance", wide, "--metric", "cityblock", "--memory", "15M"], ranks=(2, 3))
    if any(r.get("matrix") != "streamed" for r in reports.values()):
        print(f"FAILED: distance-streamed: layouts {[r.get('matrix') for r in reports.values()]}")
        sys.exit(1)
    compare_ranks(strata, tmp, "distance-triangle", ["distance", prefix, "--metric", "ibs", "--format", "triangle"],
                  ranks=(2, 3))
    compare_ranks(strata, tmp, "distance-zarr", ["distance", prefix, "--metric", "correlation", "--format", "zarr"],
                  ranks=(2, 3))
    # A 2-D numeric array (rows = observations), written as .npy by hand (float64, C order).
    npy = os.path.join(tmp, "rows.npy")
    write_npy(npy, 300, 20, lambda i, j: (i * 7919 + j * 104729) % 1000 / 100.0)
    arr = os.path.join(tmp, "rows.zarr")
    run([strata, "zarr", "import", npy, arr, "--chunks", "100,20", "-q"])
    compare_ranks(strata, tmp, "distance-array", ["distance", arr, "--metric", "euclidean"], ranks=(2,))


class Hosts:
    """`count` hosts: network namespaces on a bridge (10.98.x.0/24), torn down on exit."""

    def __init__(self, tmp, count):
        self.tmp, self.count = tmp, count
        tag = f"{os.getpid() % 100000}"
        self.bridge = f"stbr{tag}"
        self.names = [f"st{tag}h{i}" for i in range(count)]
        self.net = f"10.98.{os.getpid() % 250}"
        self.addrs = [f"{self.net}.{11 + i}" for i in range(count)]
        self.made = []

    def _ip(self, *args, ns=None):
        cmd = (["ip", "netns", "exec", ns] if ns else []) + ["ip"] + list(args)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise OSError(f"{' '.join(cmd)}: {p.stderr.strip()}")

    def __enter__(self):
        if not shutil.which("ip"):
            raise OSError("ip (iproute2) not found")
        self._ip("link", "add", self.bridge, "type", "bridge")
        self.made.append(("link", self.bridge))
        self._ip("addr", "add", f"{self.net}.1/24", "dev", self.bridge)
        self._ip("link", "set", self.bridge, "up")
        for i, (ns, addr) in enumerate(zip(self.names, self.addrs)):
            self._ip("netns", "add", ns)
            self.made.append(("netns", ns))
            veth = f"{self.bridge}v{i}"
            self._ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
            self._ip("link", "set", veth, "master", self.bridge)
            self._ip("link", "set", veth, "up")
            self._ip("addr", "add", f"{addr}/24", "dev", "eth0", ns=ns)
            self._ip("link", "set", "eth0", "up", ns=ns)
            self._ip("link", "set", "lo", "up", ns=ns)
        # OpenMPI starts its daemons through this agent instead of ssh: it enters the host's namespace.
        self.agent = os.path.join(self.tmp, "netns-agent")
        # Each host gets its own session directory (they share /tmp and the hostname).
        cases = ""
        for a, n in zip(self.addrs, self.names):
            d = os.path.join(self.tmp, n)
            os.makedirs(d, exist_ok=True)
            cases += f"  {a}) ns={n}; dir={d} ;;\n"
        with open(self.agent, "w") as f:
            f.write(f"#!/bin/sh\nhost=\"$1\"; shift\ncase \"$host\" in\n{cases}  *) echo \"unknown host $host\" >&2; "
                    f"exit 1 ;;\nesac\nexport TMPDIR=\"$dir\" OMPI_MCA_orte_tmpdir_base=\"$dir\"\n"
                    f"exec ip netns exec \"$ns\" /bin/sh -c \"$*\"\n")
        os.chmod(self.agent, 0o755)
        self.hostfile = os.path.join(self.tmp, "hostfile")
        with open(self.hostfile, "w") as f:
            f.write("".join(f"{a} slots=1\n" for a in self.addrs))
        return self

    def launcher(self, ranks):
        net = f"{self.net}.0/24"
        return mpirun() + ["--hostfile", self.hostfile, "-n", str(ranks), "--mca", "plm_rsh_agent", self.agent,
                           "--mca", "oob_tcp_if_include", net, "--mca", "btl_tcp_if_include", net,
                           "--mca", "btl", "self,tcp"]

    def __exit__(self, *exc):
        for kind, name in reversed(self.made):
            subprocess.run(["ip", kind, "del", name] if kind == "netns" else ["ip", "link", "del", name],
                           capture_output=True)
        return False


def case_hosts(strata, tmp):
    os.environ["PMIX_MCA_gds"] = "hash"  # PMIx's shared-memory store warns across namespaces
    try:
        hosts = Hosts(tmp, 3).__enter__()
    except OSError as e:
        print(f"SKIP: cannot make network namespaces here ({e})")
        sys.exit(SKIP)
    try:
        prefix = simulate(strata, tmp, "sim", 500, 6000)
        for name, args in (("hosts-king", ["king", prefix, "--table"]), ("hosts-grm", ["grm", prefix]),
                           ("hosts-pca-exact", ["pca", prefix, "-k", "4", "--method", "exact"]),
                           ("hosts-pca-randomized", ["pca", prefix, "-k", "4", "--method", "randomized"])):
            reports = compare_ranks(strata, tmp, name, args, ranks=(2, 3), launcher=hosts.launcher)
            for p, rep in reports.items():
                sent = [r["bytes_sent"] for r in rep["per_rank"]]
                if min(sent) <= 0:
                    print(f"FAILED: {name} on {p} hosts: a rank sent nothing over the network: {sent}")
                    sys.exit(1)
            print(f"ok: {name}: bytes sent per rank over TCP on 3 hosts {[r['bytes_sent'] for r in reports[3]['per_rank']]}")
    finally:
        hosts.__exit__(None, None, None)


def write_npy(path, rows, cols, value):
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
        for i in range(rows):
            f.write(struct.pack(f"<{cols}d", *[value(i, j) for j in range(cols)]))


def case_svd(strata, tmp):
    rng = __import__("random").Random(9)
    tall, fat = os.path.join(tmp, "tall.npy"), os.path.join(tmp, "fat.npy")
    # 120,000 x 24 doubles: 16 MiB row blocks hold 87,381 rows, so two blocks (and ranks) share it.
    write_npy(tall, 120_000, 24, lambda i, j: rng.gauss(0, 1) * (24 - j))
    write_npy(fat, 12, 30_000, lambda i, j: rng.gauss(0, 1) * (12 - i))
    for name, npy, chunks in (("tall", tall, "20000,24"), ("fat", fat, "12,5000")):
        arr = os.path.join(tmp, name + ".zarr")
        run([strata, "zarr", "import", npy, arr, "--chunks", chunks, "-q"])
        for method in ("exact", "randomized"):
            compare_ranks(strata, tmp, f"svd-{name}-{method}", ["svd", arr, "-k", "4", "--method", method],
                          ranks=(2, 3))


def case_gwas(strata, tmp):
    # 2,000 samples: 524-variant blocks, so 6,000 variants are 12 blocks spread over the ranks.
    prefix = simulate(strata, tmp, "sim", 2000, 6000)
    rng = __import__("random").Random(5)
    fam = [line.split()[:2] for line in open(prefix + ".fam")]
    pheno, covar = os.path.join(tmp, "pheno.txt"), os.path.join(tmp, "covar.txt")
    with open(pheno, "w") as ph, open(covar, "w") as cv:
        ph.write("#FID IID Q1 Q2 Q3 B1\n")
        cv.write("#FID IID C1 C2\n")
        for i, (fid, iid) in enumerate(fam):
            q = [f"{rng.gauss(0, 1):.6f}" for _ in range(3)]
            if i % 17 == 3:
                q[1] = "NA"
            b = "2" if rng.random() < 0.15 else "1"
            ph.write(f"{fid} {iid} {' '.join(q)} {b}\n")
            cv.write(f"{fid} {iid} {rng.gauss(0, 1):.5f} {rng.randint(20, 70)}\n")
    common = ["gwas", prefix, "--pheno", pheno, "--covar", covar]
    compare_ranks(strata, tmp, "gwas-linear", common + ["--pheno-name", "Q1,Q2,Q3", "--adjust"])
    reports = compare_ranks(strata, tmp, "gwas-logistic", common + ["--pheno-name", "B1", "--ci", "0.95"],
                            ranks=(2, 3))
    for p, rep in reports.items():
        per = [r["bytes_read"] for r in rep["per_rank"]]
        if min(per) <= 0 or max(per) >= 6000 * 500:
            print(f"FAILED: gwas with {p} ranks read {per} bytes per rank (the .bed holds {6000 * 500})")
            sys.exit(1)
        print(f"ok: gwas-logistic {p} ranks: bytes read per rank {per}")


def case_prune(strata, tmp):
    prefix = simulate(strata, tmp, "sim", 301, 20011)
    compare_ranks(strata, tmp, "prune", ["prune", prefix, "--indep-pairwise", "50", "5", "0.02"])
    compare_ranks(strata, tmp, "prune-kb", ["prune", prefix, "--indep-pairwise", "20kb", "1", "0.02"], ranks=(2, 3))
    # --prune as a selection step: every rank prunes the same view, then the distributed PCA.
    compare_ranks(strata, tmp, "pca-prune", ["pca", prefix, "-k", "3", "--prune", "50", "5", "0.02"], ranks=(2, 3))


def sex_chromosome_cohort(strata, tmp, samples, variants):
    """A simulated cohort moved partly onto X (a third) and Y (a tenth), with pedigree and sexes:
    1 and 2 alternating, every 13th unknown, every 7th a child of the first two samples."""
    prefix = simulate(strata, tmp, "sex", samples, variants)
    bim = [line.split("\t") for line in open(prefix + ".bim")]
    x0, y0 = variants - variants // 3 - variants // 10, variants - variants // 10
    with open(prefix + ".bim", "w") as f:
        for i, cols in enumerate(bim):
            cols[0] = "X" if x0 <= i < y0 else "Y" if i >= y0 else cols[0]
            f.write("\t".join(cols))
    fam = [line.split() for line in open(prefix + ".fam")]
    with open(prefix + ".fam", "w") as f:
        for i, cols in enumerate(fam):
            cols[0] = fam[0][0]
            if i % 7 == 6:
                cols[2], cols[3] = fam[0][1], fam[1][1]
            cols[4] = "0" if i % 13 == 5 else str(1 + i % 2)
            f.write(" ".join(cols) + "\n")
    return prefix


def case_qc(strata, tmp):
    # 301 samples: the ranks share whole 4,096-variant blocks, so 20,011 variants are 5 of them.
    prefix = sex_chromosome_cohort(strata, tmp, 301, 20011)
    reports = compare_ranks(strata, tmp, "qc", ["qc", prefix, "--missing", "--het", "--hardy", "--check-sex"])
    for name in ("smiss", "vmiss", "het", "hardy", "hardy.x", "sexcheck"):
        if not os.path.exists(os.path.join(tmp, "qc-ref", "o." + name)):
            print(f"FAILED: qc wrote no .{name}")
            sys.exit(1)
    reads_tile_the_bed("qc", reports, 301, 20011)
    compare_ranks(strata, tmp, "qc-hardy", ["qc", prefix, "--hardy"], ranks=(2, 4), threads="3")


def case_project(strata, tmp):
    ref = simulate(strata, tmp, "ref", 400, 6000)
    target = os.path.join(tmp, "target")
    # 700 target samples: three 256-sample chunks, shared by the ranks (4 ranks: one has none).
    run([strata, "simulate", "--samples", "700", "--variants", "6000", "--missing", "0.01", "--seed", "8",
         "--out", target, "-q"])
    pcs = os.path.join(tmp, "refpca")
    run([strata, "pca", ref, "-k", "4", "--method", "exact", "--out", pcs, "-q"])
    compare_ranks(strata, tmp, "project", ["project", target, "--ref", pcs])
    compare_ranks(strata, tmp, "project-oadp", ["project", target, "--ref", pcs, "--correction", "oadp"],
                  threads="3")


def case_failure(strata, tmp):
    prefix = simulate(strata, tmp, "sim", 100, 5000)
    missing = os.path.join(tmp, "nowhere", "absent")
    for cmd in (["freq"], ["pca", "-k", "2", "--method", "randomized"], ["king", "--table"]):
        d = os.path.join(tmp, f"fail-{cmd[0]}")
        os.makedirs(d)
        out = ["--out", os.path.join(d, "o"), "-q", "--threads", "1"]
        # MPMD: rank 1 (of 3) is given an input it cannot read; ranks 0 and 2 the good one.
        bad = cmd[:1] + [missing] + cmd[1:]
        good = cmd[:1] + [prefix] + cmd[1:]
        p = run(mpirun() + ["-n", "1", strata] + good + out + [":", "-n", "1", strata] + bad + out +
                [":", "-n", "1", strata] + good + out, expect_ok=False, env={"STRATA_MPI_TIMEOUT": "60"})
        if p.returncode == 0 or "rank 1" not in p.stderr or "absent" not in p.stderr:
            print(f"FAILED: {cmd[0]}: a rank without its input: exit {p.returncode}\n{p.stderr[-2000:]}")
            sys.exit(1)
        left = outputs_in(d)
        if left:
            print(f"FAILED: {cmd[0]}: outputs left after a failed run: {left}")
            sys.exit(1)
        print(f"ok: {cmd[0]}: a rank without its input → exit {p.returncode}, no outputs; "
              f"stderr: {p.stderr.strip().splitlines()[0] if p.stderr.strip() else ''}")
    # Mid-run: rank 1 (of 3) fails after the counts pass (k too large for the data) while the
    # others wait in the next collective: they stop at once, every rank exits non-zero.
    d = os.path.join(tmp, "fail-midrun")
    os.makedirs(d)
    args = ["pca", prefix, "--method", "randomized", "--out", os.path.join(d, "o"), "-q", "--threads", "1"]
    p = run(mpirun() + ["-n", "1", strata] + args + ["-k", "3", ":", "-n", "1", strata] + args + ["-k", "500", ":",
                                                                                                  "-n", "1", strata] +
            args + ["-k", "3"], expect_ok=False, env={"STRATA_MPI_TIMEOUT": "60"})
    if p.returncode == 0 or "rank 1: pca: k = 500" not in p.stderr or outputs_in(d):
        print(f"FAILED: mid-run failure: exit {p.returncode}, left {outputs_in(d)}\n{p.stderr[-2000:]}")
        sys.exit(1)
    print(f"ok: pca: rank 1 fails mid-run → exit {p.returncode}, no outputs; stderr: "
          f"{p.stderr.strip().splitlines()[0]}")
    # A rank that hangs: the others stop within the deadline (5 s for the collective, 5 s for
    # the agreement the hung rank never joins), then MPI_Abort ends the hung one too.
    d = os.path.join(tmp, "fail-hang")
    os.makedirs(d)
    t0 = time.monotonic()
    p = run(mpirun() + ["-n", "3", strata, "freq", prefix, "--out", os.path.join(d, "o"), "-q", "--threads", "1"],
            expect_ok=False, env={"STRATA_MPI_TIMEOUT": "5", "STRATA_FAULT_MPI_STALL_RANK": "2"})
    secs = time.monotonic() - t0
    if p.returncode == 0 or "did not answer within 5 s" not in p.stderr or secs > 60 or outputs_in(d):
        print(f"FAILED: a hung rank: exit {p.returncode} after {secs:.1f} s, left {outputs_in(d)}\n{p.stderr[-2000:]}")
        sys.exit(1)
    print(f"ok: freq: rank 2 hangs → exit {p.returncode} after {secs:.1f} s, no outputs; stderr: "
          f"{p.stderr.strip().splitlines()[0]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--strata", required=True)
    ap.add_argument("--case", required=True,
                    choices=["freq", "pca-sim", "pca-hapmap3", "pca-exact", "king", "distance", "gwas", "svd", "hosts", "prune", "qc", "project", "failure"])
    ap.add_argument("--data", default=os.environ.get("STRATA_SHARED_DATA", "/work/shared/data"))
    a = ap.parse_args()
    mpirun()  # skips when absent
    probe = run([a.strata, "--version"])
    with tempfile.TemporaryDirectory(prefix="strata-mpi-") as tmp:
        # A build without MPI refuses mpirun: skip, saying so.
        p = run(mpirun() + ["-n", "1", a.strata, "freq", os.path.join(tmp, "x"), "--out", os.path.join(tmp, "y")],
                expect_ok=False)
        if "built without MPI" in p.stderr:
            print("SKIP: this strata was built without MPI")
            sys.exit(SKIP)
        del probe
        if a.case == "freq":
            case_freq(a.strata, tmp)
        elif a.case == "pca-sim":
            case_pca_sim(a.strata, tmp)
        elif a.case == "pca-hapmap3":
            case_pca_hapmap3(a.strata, tmp, a.data)
        elif a.case == "pca-exact":
            case_pca_exact(a.strata, tmp)
        elif a.case == "king":
            case_king(a.strata, tmp, a.data)
        elif a.case == "distance":
            case_distance(a.strata, tmp)
        elif a.case == "svd":
            case_svd(a.strata, tmp)
        elif a.case == "gwas":
            case_gwas(a.strata, tmp)
        elif a.case in ("prune", "qc", "project"):
            globals()["case_" + a.case](a.strata, tmp)
        elif a.case == "hosts":
            case_hosts(a.strata, tmp)
        else:
            case_failure(a.strata, tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
