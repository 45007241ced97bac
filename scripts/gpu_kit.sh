#!/usr/bin/env bash
# Packs what a GPU machine needs to run the CUDA backend's tests and bench/gpu_bench.py without
# building there: build-gpu/strata-gpu-kit.tar.gz (git-ignored; unpacks to strata-gpu-kit/)
# with bin/ (strata, the test binaries, libstrata_cuda.so beside them, where the loader looks
# first), gpu_check.sh (runs it all there), lib/ (the shared libraries they
# load, except glibc's and CUDA's own: cuBLAS/cuSOLVER must come from the machine's toolkit) and
# rebuild/ (libstrata_base.a and the generated headers, for rebuild_module.sh when the machine's
# CUDA differs from this build's). Usage, after scripts/build.sh:
#   bash scripts/gpu_kit.sh [BUILD_DIR]     # then carry build-gpu/strata-gpu-kit.tar.gz (NOTES: issue 17)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
OUTDIR=build-gpu
KIT="$OUTDIR/strata-gpu-kit"
rm -rf "$OUTDIR"
mkdir -p "$KIT/bin" "$KIT/lib" "$KIT/rebuild/include/strata/core"
for f in tools/cli/strata tools/cli/libstrata_cuda.so tests/strata_integration_tests tests/strata_core_tests; do
  [ -f "$BUILD/$f" ] || { echo "missing $BUILD/$f (build with the CUDA toolkit present first)" >&2; exit 1; }
  cp "$BUILD/$f" "$KIT/bin/"
done
strip --strip-unneeded "$KIT"/bin/* 2>/dev/null || true
# Shared libraries by resolved path; not glibc's (the machine's own must be used) nor CUDA's.
for f in "$KIT"/bin/*; do
  ldd "$f" | awk '/=> \// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libcublas*|libcusolver*|libcusparse*|libnvJitLink*|libcudart*) ;;
    *) cp -L "$lib" "$KIT/lib/" ;;
  esac
done
cp "$BUILD/src/libstrata_base.a" "$KIT/rebuild/"
cp "$BUILD/include/strata/core/config.hpp" "$KIT/rebuild/include/strata/core/"
cat > "$KIT/rebuild/rebuild_module.sh" <<'EOS'
#!/usr/bin/env bash
# Rebuilds bin/libstrata_cuda.so with this machine's nvcc and CUDA libraries, from the checkout
# at $1 (the repository root), for sm_90: the same flags as CMake's strata_cuda target.
set -euo pipefail
SRC="$1"; HERE="$(cd "$(dirname "$0")" && pwd)"; CUDA="${CUDA_HOME:-/usr/local/cuda}"
archs="nvcc $("$CUDA/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), architectures 90"
"$CUDA/bin/nvcc" -std=c++20 -O3 -DNDEBUG -fmad=false --expt-relaxed-constexpr -diag-suppress=554 \
  -arch=sm_90 -Xcompiler=-fPIC,-fvisibility=hidden -shared -cudart=static \
  -DSTRATA_CUDA_BUILD_INFO="\"$archs\"" -I"$SRC/include" -I"$HERE/include" -I"$SRC/src" \
  "$SRC"/src/backend/cuda/*.cu "$HERE/libstrata_base.a" -L"$CUDA/lib64" -lcublas -lcusolver \
  -Xlinker=--exclude-libs,ALL -Xlinker=-Bsymbolic -o "$HERE/../bin/libstrata_cuda.so"
echo "rebuilt $HERE/../bin/libstrata_cuda.so ($archs)"
EOS
chmod +x "$KIT/rebuild/rebuild_module.sh"
cp scripts/gpu_check.sh "$KIT/"
tar czf "$KIT.tar.gz" -C "$OUTDIR" strata-gpu-kit
du -sh "$KIT" "$KIT.tar.gz"
