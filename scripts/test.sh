#!/usr/bin/env bash
# Install dependencies, build, and run the whole test suite (README command 2; CI runs this).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# The CUDA backend (built when the toolkit is present) for one architecture only, to keep CI's
# compile time down; a plain scripts/build.sh builds sm_80 and sm_90.
bash scripts/build.sh -DCMAKE_CUDA_ARCHITECTURES="${STRATA_CUDA_ARCHITECTURES:-90}"
BUILD_DIR="${STRATA_BUILD_DIR:-build}"
ROOT="$(pwd)"
(cd "$BUILD_DIR" && ctest --output-on-failure -j "${STRATA_JOBS:-$(nproc)}" --timeout 600)

# The Python package: built by scikit-build-core from this CMake project into build-python/
# (ccache'd: the library objects are build/'s compile commands), installed into .venv, tested.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
echo "== pip install . (strata-genomics into .venv)"
.venv/bin/python -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps "$ROOT"
echo "== pytest python/tests"
cd "$ROOT"
.venv/bin/python -m pytest -q -p no:cacheprovider python/tests

# The wheel users pip install (README, second way in): built through ccache from the objects above,
# its libraries bundled by auditwheel, installed into a clean venv and run from there.
echo "== wheel: build, auditwheel repair, clean venv, strata simulate + pca + import (scripts/wheel.sh --check)"
SECONDS=0
STRATA_PYTHON="$ROOT/.venv/bin/python" bash scripts/wheel.sh --check
echo "wheel step: ${SECONDS} s"

# aarch64: the cross build and the core/backend suites under qemu-user (scripts/aarch64.sh; exit 77
# when its packages cannot be had here, reported as a skip).
echo "== aarch64: cross build, core and backend suites under qemu (scripts/aarch64.sh)"
set +e
bash scripts/aarch64.sh
rc=$?
set -e
if [ "$rc" -eq 77 ]; then
  echo "aarch64: SKIPPED (the cross toolchain or the arm64 packages could not be installed here; see above)"
elif [ "$rc" -ne 0 ]; then
  exit "$rc"
fi
