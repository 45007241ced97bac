#!/usr/bin/env bash
# Install dependencies, build, and run strata's main job on generated data (README command 1).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
STRATA="${STRATA_BUILD_DIR:-build}/tools/cli/strata"
OUT="${STRATA_DEMO_DIR:-demo-out}"
rm -rf "$OUT" && mkdir -p "$OUT"

echo "== generating a 2000 x 3000 float64 array with numpy"
/usr/bin/python3 -c "
import numpy as np
rng = np.random.default_rng(0)
a = rng.normal(10, 1, size=(2000, 3000))
np.save('$OUT/matrix.npy', a)
print('sum =', a.sum())"

echo "== strata zarr import (Zarr v2, blosc zstd) and (Zarr v3, sharded, zstd)"
"$STRATA" zarr import "$OUT/matrix.npy" "$OUT/demo.zarr/matrix" --chunks 500,1000 --codec blosc:zstd:5:shuffle
"$STRATA" zarr import "$OUT/matrix.npy" "$OUT/demo_v3.zarr" --zarr-format 3 --chunks 250,500 --shard 1000,1500 --codec zstd:3

echo "== strata zarr info"
"$STRATA" zarr info "$OUT/demo.zarr"
"$STRATA" zarr info "$OUT/demo_v3.zarr"

echo "== strata zarr verify"
"$STRATA" zarr verify "$OUT/demo_v3.zarr"

echo "== python3-zarr reads what strata wrote"
/usr/bin/python3 -c "
import zarr, numpy as np
a = zarr.open('$OUT/demo.zarr/matrix', mode='r')[:]
b = np.load('$OUT/matrix.npy')
assert (a == b).all(); print('python3-zarr: identical, sum =', a.sum())"

echo "== strata zarr export round trip"
"$STRATA" zarr export "$OUT/demo_v3.zarr" "$OUT/back.npy"
cmp "$OUT/back.npy" "$OUT/matrix.npy" && echo "export of the sharded v3 array is byte-identical to the input .npy"
