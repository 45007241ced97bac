#!/usr/bin/env bash
# Install the Debian packages strata needs. Idempotent; runs `apt-get update` itself (only when
# something is missing). Needs root (or sudo).
#
#   scripts/install-deps.sh            # everything: build, test, benchmark, fuzz, MPI, the .venv
#   scripts/install-deps.sh --minimal  # only what building the `strata` CLI needs (scripts/demo.sh):
#                                      # compiler, CMake, the libraries it links; no test oracles,
#                                      # no MPI, no clang, no Python environment
set -euo pipefail
MINIMAL=0
case "${1:-}" in
  --minimal) MINIMAL=1 ;;
  "") ;;
  -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
  *) echo "install-deps.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# What the library and the CLI build with (--minimal installs these alone).
CLI_PKGS=(
  build-essential cmake ninja-build pkg-config ccache
  libopenblas-dev liblapacke-dev
  libblosc-dev libzstd-dev liblz4-dev zlib1g-dev libdeflate-dev
  nlohmann-json3-dev libcli11-dev
  libhts-dev
  # libcurl for Zarr over http(s)/s3/gs. The GnuTLS flavour: libhts-dev depends on it, and
  # libcurl4-openssl-dev conflicts with it (installing that one would remove htslib).
  libcurl4-gnutls-dev
)
BUILD_PKGS=(
  git
  libgtest-dev libgmock-dev libbenchmark-dev
  openmpi-bin libopenmpi-dev  # mpirun -n P strata …; without it strata builds single-process
  libcairo2-dev  # PNG plots (optional: without it, SVG only)
)
# Oracles used by tests and benchmarks (Debian's python, plink2, bcftools).
ORACLE_PKGS=(
  python3 python3-numpy python3-zarr python3-numcodecs python3-dask python3-venv python3-dev
  python3-scipy python3-sklearn
  plink2 plink1.9 bcftools tabix
)
# clang + compiler-rt for the libFuzzer targets (optional but installed by default).
FUZZ_PKGS=(clang libclang-rt-14-dev)

if [ "$MINIMAL" = 1 ]; then WANT=("${CLI_PKGS[@]}"); else WANT=("${CLI_PKGS[@]}" "${BUILD_PKGS[@]}" "${ORACLE_PKGS[@]}" "${FUZZ_PKGS[@]}"); fi
missing=()
for p in "${WANT[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all packages present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The Python package's environment (.venv, pinned by requirements.txt).
[ "$MINIMAL" = 1 ] && exit 0
bash "$(dirname "$0")/install-python.sh"
