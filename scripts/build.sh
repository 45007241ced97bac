#!/usr/bin/env bash
# Configure and build strata into ${STRATA_BUILD_DIR:-build} (Release, Ninja).
#
#   scripts/build.sh [CMAKE_ARGS...]        # everything: library, CLI, tests, the CUDA module when a
#                                           # toolkit is found, MPI when OpenMPI is installed
#   scripts/build.sh --cli [CMAKE_ARGS...]  # the `strata` CLI alone (scripts/demo.sh): no tests,
#                                           # benchmarks, CUDA, MPI or Python module
#
# Extra arguments are passed to CMake (e.g. -DSTRATA_BUILD_BENCHMARKS=ON) after the defaults of
# the mode, so they win; a full build sets the switches a --cli build turned off back to theirs.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${STRATA_BUILD_DIR:-build}"
# ccache keys on relative paths under the checkout, so fresh clones (CI) reuse earlier builds.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
JOBS="${STRATA_JOBS:-$(nproc)}"
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then sed -n '2,10p' "$0"; exit 0; fi
if [ "${1:-}" = "--cli" ]; then
  shift
  MODE=(-DSTRATA_BUILD_CLI=ON -DSTRATA_BUILD_TESTS=OFF -DSTRATA_BUILD_BENCHMARKS=OFF -DSTRATA_BUILD_FUZZERS=OFF
        -DSTRATA_ENABLE_CUDA=OFF -DSTRATA_ENABLE_MPI=OFF -DSTRATA_ENABLE_PYTHON=OFF
        # A unity build: each header is parsed and each template instantiated once per batch
        # of 8 files, not once per file (the ISA kernel files stay apart: src/CMakeLists.txt).
        -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8)
  TARGETS=(--target strata_cli)
else
  MODE=(-DSTRATA_BUILD_CLI=ON -DSTRATA_BUILD_TESTS=ON -DSTRATA_ENABLE_CUDA=AUTO -DSTRATA_ENABLE_MPI=ON
        -DCMAKE_UNITY_BUILD=OFF)
  TARGETS=()
fi
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="${STRATA_BUILD_TYPE:-Release}" "${MODE[@]}" "$@" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS" "${TARGETS[@]}"
