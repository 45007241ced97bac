"""strata's plots drawn from real data and checked as a reader sees them (ctest PlotsRender):
the SVG's text (tick numbers, axis titles, legend sorted by name with counts, λ_GC) and the
PNG's pixels (each group's colour present, the smallest population visible, colours distinct).

    STRATA_CLI=build/tools/cli/strata STRATA_DATA=../shared/data python -m pytest tests/plots

The PNG is the one strata writes (through cairo), decoded here with zlib and numpy. Counts and
λ_GC are recomputed independently from the inputs and the tables strata wrote (scipy's χ²).
Skipped, with the reason, without the shared HapMap3 data or when strata has no PNG support.
"""
import os
import re
import struct
import subprocess
import zlib
import xml.etree.ElementTree as ET
from collections import Counter

import numpy as np
import pytest

STRATA = os.environ.get("STRATA_CLI", "build/tools/cli/strata")
DATA = os.environ.get("STRATA_DATA", "../shared/data")
HM3 = os.path.join(DATA, "hapmap3", "HM3_thinned_autosomal_overlap")
POPS = os.path.join(DATA, "hapmap3", "relationships_w_pops_121708.txt")
SVG = "{http://www.w3.org/2000/svg}"

if not (os.path.exists(HM3 + ".bed") and os.path.exists(POPS)):
    pytest.skip(f"the HapMap3 data is not at {HM3}", allow_module_level=True)
if not os.access(STRATA, os.X_OK):
    pytest.skip(f"no strata binary at {STRATA} (set STRATA_CLI)", allow_module_level=True)


# ---- PNG decoding (8-bit RGB/RGBA, non-interlaced: what cairo writes) ----

try:
    from numba import njit
except ImportError:  # pragma: no cover - slower, same result
    def njit(f):
        return f


@njit
def _unfilter(raw, height, stride, bpp):
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int64)
    pos = 0
    for y in range(height):
        ftype = raw[pos]
        pos += 1
        for x in range(stride):
            v = np.int64(raw[pos + x])
            a = np.int64(out[y, x - bpp]) if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                v += a
            elif ftype == 2:
                v += b
            elif ftype == 3:
                v += (a + b) // 2
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                v += a if (pa <= pb and pa <= pc) else (b if pb <= pc else c)
            out[y, x] = v & 255
        pos += stride
        for x in range(stride):
            prev[x] = out[y, x]
    return out


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            channels = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8)
    img = _unfilter(raw, height, width * channels, channels).reshape(height, width, channels)
    return img[:, :, :3].astype(np.int32)


def hex_rgb(h):
    return np.array([int(h[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.int32)


def pixels_near(img, rgb, tol=8):
    return int((np.abs(img - rgb).max(axis=2) <= tol).sum())


# ---- running strata ----

def strata(*args, cwd):
    r = subprocess.run([STRATA, *args], cwd=cwd, capture_output=True, text=True)
    assert r.returncode == 0, f"strata {' '.join(args)} failed:\n{r.stderr}"
    return r.stdout


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    d = tmp_path_factory.mktemp("plots")
    probe = subprocess.run([STRATA, "pca", "--bfile", HM3, "-k", "4", "--out", str(d / "probe"), "--plot-format", "png"],
                           capture_output=True, text=True)
    if probe.returncode != 0 and "PNG" in probe.stderr:
        pytest.skip("strata cannot write PNG here: " + probe.stderr.strip())
    strata("pca", "--bfile", HM3, "-k", "4", "--out", "hm3", "--pop-file", POPS, "--plot-format", "svg,png", cwd=d)
    rng = np.random.default_rng(7)
    with open(HM3 + ".fam") as fam, open(d / "pheno.txt", "w") as ph:
        ph.write("#FID\tIID\tQT\n")
        for line in fam:
            f = line.split()
            ph.write(f"{f[0]}\t{f[1]}\t{rng.normal():.4f}\n")
    strata("gwas", "--bfile", HM3, "--pheno", "pheno.txt", "--out", "g", "--plot-format", "svg,png", cwd=d)
    strata("king", "--bfile", HM3, "--table", "--out", "k", "--plot-format", "svg,png", cwd=d)
    return d


def texts(svg_path):
    return [t.text or "" for t in ET.parse(svg_path).getroot().iter(SVG + "text")]


def legend(svg_path, header):
    """(name, count, colour, shape) of each legend row after `header`, in the order drawn."""
    rows, fill, shape, seen = [], None, None, False
    for el in ET.parse(svg_path).getroot():
        if el.tag == SVG + "g":
            fill, shape = el.get("fill"), el[0].tag.replace(SVG, "")
            if shape == "path":  # the outline's corner count tells the shapes apart
                shape = "path%d" % el[0].get("d").count("l")
        elif el.tag == SVG + "text":
            if el.text == header:
                seen = True
            elif seen:
                m = re.fullmatch(r"(.+) \((\d+)\)", el.text or "")
                if m:
                    rows.append((m.group(1), int(m.group(2)), fill, shape))
    return rows


def expected_populations():
    pop = {}
    with open(POPS) as f:
        header = f.readline().split()
        i, p = header.index("IID"), header.index("population")
        for line in f:
            t = line.split()
            pop[t[i]] = t[p]
    with open(HM3 + ".fam") as fam:
        return Counter(pop.get(line.split()[1], "unknown") for line in fam)


# ---- PCA ----

def test_pca_axes_have_ticks_and_significant_percentages(out):
    t = texts(out / "hm3.svg")
    numbers = [s for s in t if re.fullmatch(r"-?\d+(\.\d+)?", s)]
    assert len(numbers) >= 6 * 2 * 3, f"too few tick labels: {numbers}"
    titles = [s for s in t if re.match(r"PC\d ", s)]
    assert {s.split(" ")[0] for s in titles} == {"PC1", "PC2", "PC3", "PC4"}
    for s in titles:
        m = re.fullmatch(r"PC\d \((\d+\.\d+) %\)", s)
        assert m and float(m.group(1)) > 0, f"axis title {s!r}"
        assert len(m.group(1).replace(".", "").lstrip("0")) >= 3, f"{s!r}: fewer than 3 significant digits"
    eigenval = [float(x) for x in open(out / "hm3.eigenval")]
    assert "Variance explained" in t
    assert len(eigenval) == 4


def test_pca_legend_sorted_by_name_with_counts(out):
    rows = legend(out / "hm3.svg", "population (n)")
    names = [r[0] for r in rows]
    assert names == sorted(names), names
    assert {r[0]: r[1] for r in rows} == dict(expected_populations())


def test_pca_colours_distinct_and_every_group_visible(out):
    rows = legend(out / "hm3.svg", "population (n)")
    styles = [(r[2], r[3]) for r in rows]
    assert len(set(styles)) == len(rows), f"two groups drawn alike: {styles}"
    first8 = [r[2] for r in rows[:8]]
    assert len(set(first8)) == len(first8)
    img = read_png(out / "hm3.png")
    root = ET.parse(out / "hm3.svg").getroot()
    scale = img.shape[1] / float(root.get("width"))
    # The main panel: the first framed rectangle.
    frame = next(r for r in root.iter(SVG + "rect") if r.get("stroke") == "#333333")
    x, y, w, h = (float(frame.get(k)) * scale for k in ("x", "y", "width", "height"))
    panel = img[int(y) + 2:int(y + h) - 2, int(x) + 2:int(x + w) - 2]
    white = np.array([255, 255, 255])
    smallest = min(rows, key=lambda r: r[1])
    for name, n, colour, _ in rows:
        c = hex_rgb(colour)
        seen = pixels_near(panel, np.rint(0.8 * c + 0.2 * white), 10) + pixels_near(panel, np.rint(0.96 * c + 0.04 * white), 10)
        assert seen >= 40, f"{name} ({n} samples, {colour}) has {seen} pixels in the main panel"
    # The legend's opaque markers: distinct pixel colours for distinct palette entries.
    legend_pixels = set()
    for el_text in root.iter(SVG + "text"):
        m = re.fullmatch(r"(.+) \((\d+)\)", el_text.text or "")
        if m and m.group(1) in {r[0] for r in rows}:
            lx, ly = (float(el_text.get("x")) - 11) * scale, (float(el_text.get("y")) - 4.5) * scale
            legend_pixels.add(tuple(img[int(ly), int(lx)]))
    assert len(legend_pixels) == len({r[2] for r in rows}), legend_pixels
    print(f"smallest population {smallest[0]} ({smallest[1]}) visible in {out / 'hm3.png'}")


def test_pca_plot_same_bytes_on_rerun(out):
    before = [(out / f).read_bytes() for f in ("hm3.svg", "hm3.png")]
    strata("pca", "--bfile", HM3, "-k", "4", "--out", "hm3", "--pop-file", POPS, "--plot-format", "svg,png", cwd=out)
    assert [(out / f).read_bytes() for f in ("hm3.svg", "hm3.png")] == before


# ---- gwas ----

def test_qq_lambda_matches_scipy(out):
    from scipy.stats import chi2
    p = []
    with open(out / "g.QT.glm.linear") as f:
        header = f.readline().lstrip("#").split()
        ip, it = header.index("P"), header.index("TEST")
        for line in f:
            t = line.split()
            if t[it] == "ADD" and t[ip] != "NA":
                p.append(float(t[ip]))
    lam = np.median(chi2.isf(np.array(p), 1)) / chi2.ppf(0.5, 1)
    shown = [s for s in texts(out / "g.QT.qq.svg") if s.startswith("λ_GC = ")]
    assert shown == [f"λ_GC = {lam:.3f}"], (shown, lam)


def test_manhattan_chromosomes_in_order_with_ticks(out):
    t = texts(out / "g.QT.manhattan.svg")
    assert "chromosome" in t and "-log10(P)" in t and "P = 5e-8" in t
    labels = [s for s in t if re.fullmatch(r"(1?\d|2[0-2])", s)]
    assert labels[:3] == ["1", "2", "3"], labels
    img = read_png(out / "g.QT.manhattan.png")
    assert pixels_near(img, np.rint(0.9 * hex_rgb("#0072B2") + 0.1 * 255), 10) > 500
    assert pixels_near(img, np.rint(0.9 * hex_rgb("#6E6E6E") + 0.1 * 255), 10) > 500


# ---- king ----

def test_kinship_plot_thresholds_and_counts(out):
    t = texts(out / "k.kin0.svg")
    for s in ("0.354", "0.177", "0.0884", "0.0442", "proportion of IBS0 sites", "kinship coefficient"):
        assert s in t
    counts = Counter()
    with open(out / "k.kin0") as f:
        header = f.readline().lstrip("#").split()
        ik = header.index("KINSHIP")
        for line in f:
            k = float(line.split()[ik])
            if np.isfinite(k):
                counts["duplicate/MZ" if k > 0.354 else "1st degree" if k > 0.177 else "2nd degree" if k > 0.0884
                       else "3rd degree" if k > 0.0442 else "unrelated"] += 1
    rows = {r[0]: r[1] for r in legend(out / "k.kin0.svg", "pairs")}
    assert rows == {k: counts.get(k, 0) for k in rows} and sum(rows.values()) == sum(counts.values())
    img = read_png(out / "k.kin0.png")
    assert pixels_near(img, np.rint(0.85 * hex_rgb("#E69F00") + 0.15 * 255), 10) >= 30  # first-degree pairs
