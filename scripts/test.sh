#!/usr/bin/env bash
# Install dependencies, build, and run the whole test suite (README command 2; CI runs this).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
BUILD_DIR="${STRATA_BUILD_DIR:-build}"
cd "$BUILD_DIR"
ctest --output-on-failure -j "${STRATA_JOBS:-$(nproc)}" --timeout 600
