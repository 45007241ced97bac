#!/usr/bin/env bash
# Configure and build strata into ${STRATA_BUILD_DIR:-build} (Release, Ninja).
# Extra arguments are passed to CMake (e.g. -DSTRATA_BUILD_BENCHMARKS=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${STRATA_BUILD_DIR:-build}"
# ccache keys on relative paths under the checkout, so fresh clones (CI) reuse earlier builds.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
JOBS="${STRATA_JOBS:-$(nproc)}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="${STRATA_BUILD_TYPE:-Release}" "$@" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
