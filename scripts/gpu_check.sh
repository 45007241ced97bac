#!/usr/bin/env bash
# Runs on a GPU machine, from the checkout root, with the kit scripts/gpu_kit.sh made (carried as
# build-gpu/strata-gpu-kit.tar.gz): prints the machine, makes the CUDA backend run there
# (rebuilding the module with the machine's nvcc when the kit's does not load), runs the CUDA
# tests, and with --bench bench/gpu_bench.py (the arguments after --bench go to it). Output also
# goes to $OUT/gpu_check.log, test results to $OUT/*.xml. Exit 1 when the backend cannot run or a
# test fails.
#   bash scripts/gpu_check.sh                 # ~2 min: machine, tests
#   bash scripts/gpu_check.sh --bench --only sum,svd
set -uo pipefail
ROOT="$(pwd)"
OUT="${OUT:-/tmp/strata-gpu-check}"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu_check.log") 2>&1
CUDA="${CUDA_HOME:-/usr/local/cuda}"
TAR="${STRATA_GPU_KIT:-build-gpu/strata-gpu-kit.tar.gz}"

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader || echo "no nvidia-smi"
"$CUDA/bin/nvcc" --version | tail -2 || echo "no nvcc at $CUDA"
ls "$CUDA"/lib64 2>/dev/null | grep -E '^lib(cublas|cublasLt|cusolver|cudart)\.so\.[0-9]+$' || echo "no CUDA libraries in $CUDA/lib64"
echo "cores: $(nproc)"

tar xzf "$TAR" -C /tmp || { echo "cannot unpack $TAR"; exit 1; }
KIT=/tmp/strata-gpu-kit
export LD_LIBRARY_PATH="$KIT/lib:$CUDA/lib64:${LD_LIBRARY_PATH:-}"
export STRATA_CLI="$KIT/bin/strata"
"$STRATA_CLI" --version
probe() { "$STRATA_CLI" bench random-sum --device cuda --shape 1000,1000 -q; }
if ! probe; then
  echo "== the kit's module does not run here: rebuilding it with this machine's nvcc (~40 s)"
  bash "$KIT/rebuild/rebuild_module.sh" "$ROOT" && probe || { echo "the CUDA backend cannot run here"; exit 1; }
fi

echo "== tests (every CUDA conformance case, device selection, the shared random code)"
"$KIT/bin/strata_integration_tests" --gtest_filter='*cuda*:DeviceSelection.*:*Conformance*cpu_best*' \
  --gtest_output="xml:$OUT/integration.xml" 2>&1 | grep -E '^\[ *(OK|FAILED|SKIPPED|PASSED) ' | grep -v '^\[       OK' | tail -60
tests_rc=${PIPESTATUS[0]}
"$KIT/bin/strata_core_tests" --gtest_filter='Random*:Philox*' --gtest_output="xml:$OUT/core.xml" 2>&1 | tail -3
[ "${PIPESTATUS[0]}" -eq 0 ] || tests_rc=1
grep -h -o 'tests="[0-9]*" failures="[0-9]*"[^>]*skipped="[0-9]*"\|tests="[0-9]*" failures="[0-9]*"' "$OUT"/*.xml | head -2

if [ "${1:-}" = "--bench" ]; then
  shift
  echo "== bench/gpu_bench.py $*"
  python3 bench/gpu_bench.py --strata "$STRATA_CLI" "$@"
fi
[ "$tests_rc" -eq 0 ] || { echo "== CUDA tests FAILED (see above and $OUT/*.xml)"; exit 1; }
