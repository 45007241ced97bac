#!/usr/bin/env bash
# Build the libFuzzer targets (fuzz/*_fuzz.cpp) with clang + ASan/UBSan in build-fuzz/ and run
# each for a bounded time, starting from its seed corpus in fuzz/corpus/<target>/ when there is
# one. Prints, per target, the seconds, executions and result; exits non-zero if any target
# crashed (the reproducer is left in build-fuzz/artifacts/<target>/).
#
#   bash scripts/fuzz.sh                      # every target, 120 s each
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh zarr_metadata_fuzz codec_decode_fuzz
#
# Environment: FUZZ_SECONDS (default 120), FUZZ_JOBS (libFuzzer -fork processes per target,
# default 1), BUILD_DIR (default build-fuzz), CC/CXX (default clang/clang++).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-fuzz}"
SECONDS_PER_TARGET="${FUZZ_SECONDS:-120}"
JOBS="${FUZZ_JOBS:-1}"
export CC="${CC:-clang}" CXX="${CXX:-clang++}"

command -v "$CXX" >/dev/null || { echo "fuzz.sh: $CXX not found (apt-get install clang)" >&2; exit 2; }

if [[ $# -gt 0 ]]; then
  TARGETS=("$@")
else
  TARGETS=()
  for f in "$ROOT"/fuzz/*_fuzz.cpp; do TARGETS+=("$(basename "$f" .cpp)"); done
fi

echo "== configuring $BUILD_DIR ($CXX, ASan+UBSan+libFuzzer)"
mkdir -p "$BUILD_DIR"
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSTRATA_BUILD_FUZZERS=ON -DSTRATA_BUILD_TESTS=OFF -DSTRATA_BUILD_CLI=OFF \
  -DSTRATA_BUILD_BENCHMARKS=OFF >"$BUILD_DIR/configure.log" 2>&1 \
  || { cat "$BUILD_DIR/configure.log" >&2; exit 2; }
echo "== building ${TARGETS[*]}"
ninja -C "$BUILD_DIR" "${TARGETS[@]}"

# Leaks are reported by the sanitizers only at exit; the decoders under test free per input.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

parallel=()
[[ "$JOBS" -gt 1 ]] && parallel=(-fork="$JOBS")
failed=0
summary=()
for t in "${TARGETS[@]}"; do
  exe="$BUILD_DIR/fuzz/$t"
  work="$BUILD_DIR/corpus/$t"           # grows while fuzzing; the checked-in seeds stay small
  artifacts="$BUILD_DIR/artifacts/$t/"
  mkdir -p "$work" "$artifacts"
  seeds=()
  [[ -d "$ROOT/fuzz/corpus/$t" ]] && seeds+=("$ROOT/fuzz/corpus/$t")
  log="$BUILD_DIR/$t.log"
  echo "== fuzzing $t for ${SECONDS_PER_TARGET}s (log: $log)"
  set +e
  "$exe" -max_total_time="$SECONDS_PER_TARGET" -timeout=25 -rss_limit_mb=2560 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$artifacts" "${parallel[@]}" \
    "$work" "${seeds[@]}" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | awk '{s += $2} END {print s + 0}')
  if [[ "$execs" == 0 ]]; then  # fork mode: take the last "#N" status line
    execs=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    execs=${execs:-0}
  fi
  crashes=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  if [[ $rc -ne 0 || $crashes -gt 0 ]]; then
    result="FAILED (exit $rc, $crashes artifact(s) in $artifacts)"
    grep -m1 -E 'ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|runtime error' "$log" || true
    failed=1
  else
    result="ok"
  fi
  line=$(printf '%-22s %6ss %12s execs  %s' "$t" "$SECONDS_PER_TARGET" "$execs" "$result")
  echo "$line"
  summary+=("$line")
done

echo "== summary"
printf '%s\n' "${summary[@]}"
exit $failed
