// Micro-benchmarks of the genotype Gram kernels on one core, at the shapes a PCA pass uses:
// phase 1 (a 96-variant tile × N samples against w columns) and phase 2 (a 3,072-variant group
// × a 192-sample slice). Counters report GFLOP/s (2 flops per multiply-add).
//   strata_microbench --benchmark_filter=Gram
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "backend/cpu/gram_int_kernels.hpp"
#include "backend/cpu/gram_kernels.hpp"
#include "backend/cpu/gram_panel_kernels.hpp"
#include "backend/cpu/gram_vnni_kernels.hpp"

namespace strata::backend::cpu {
namespace {

// The best kernels this CPU runs, as the CPU backend picks them.
const GramF32Kernels& f32() {
  static const GramF32Kernels* k = gram_f32_avx512();
  return k ? *k : gram_f32_portable();
}
const GramI16Kernels& i16() {
  static const GramI16Kernels* k = gram_i16_amx() ? gram_i16_amx() : gram_i16_vnni();
  return k ? *k : gram_i16_portable();
}
// The int16 kernels of one kind (second argument: 0 VNNI, 1 AMX, 2 AVX2, 3 AVX-VNNI); null when
// this CPU lacks it.
const GramI16Kernels* i16_kind(int64_t kind) {
  switch (kind) {
    case 1: return gram_i16_amx();
    case 2: return gram_i16_avx2();
    case 3: return gram_i16_avx_vnni();
    default: return gram_i16_vnni();
  }
}
template <class... A>
void codes_times(A... a) { f32().times(a...); }
template <class... A>
void codes_t_times(A... a) { f32().t_times(a...); }

constexpr int64_t kTileRows = 96;  // variants per tile of the Gram operator's phase 1

constexpr int64_t kSamples = 10000, kSamples32 = 10016, kGroup = 3072, kSlice = 192;
constexpr int64_t kStride = kSamples / 4;

std::vector<uint8_t> random_codes(int64_t rows) {
  std::mt19937 rng(7);
  std::vector<uint8_t> codes(static_cast<size_t>(rows * kStride + 64));
  for (auto& b : codes) b = static_cast<uint8_t>(rng());
  return codes;
}

std::vector<float> luts(int64_t rows) {
  std::vector<float> l(static_cast<size_t>(4 * rows));
  for (int64_t i = 0; i < rows; ++i) {
    l[4 * i] = -1.0f, l[4 * i + 1] = 0.1f, l[4 * i + 2] = 1.2f, l[4 * i + 3] = 0.0f;
  }
  return l;
}

void flops(benchmark::State& state, double per_iteration) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(per_iteration * static_cast<double>(state.iterations()) * 1e-9, benchmark::Counter::kIsRate);
}

void BM_GramTimesF32(benchmark::State& state) {
  const int64_t w = state.range(0);
  const auto codes = random_codes(kTileRows);
  const auto l = luts(kTileRows);
  std::vector<float> qt(static_cast<size_t>(w * kSamples32), 0.01f), y(static_cast<size_t>(kTileRows * w));
  for (auto _ : state) {
    codes_times(codes.data(), kStride, l.data(), kTileRows, 10000, qt.data(), kSamples32, w, y.data());
    benchmark::DoNotOptimize(y.data());
  }
  flops(state, 2.0 * kTileRows * kSamples * w);
}

void BM_GramTimesI16(benchmark::State& state) {
  const int64_t w = state.range(0);
  const GramI16Kernels* k = i16_kind(state.range(1));
  if (!k) return state.SkipWithError("this CPU lacks the kernel");
  const auto codes = random_codes(kTileRows);
  std::vector<int16_t> qt(static_cast<size_t>(w * kSamples32), 1000);
  std::vector<int64_t> p(static_cast<size_t>(kTileRows * w));
  // Packed once, as a pass does for all its tiles.
  const std::vector<uint8_t> packed = k->pack ? k->pack(qt.data(), kSamples32, w, kSamples32) : std::vector<uint8_t>{};
  for (auto _ : state) {
    k->times(codes.data(), kStride, kTileRows, kSamples32, qt.data(), kSamples32, w, p.data(),
             packed.empty() ? nullptr : packed.data());
    benchmark::DoNotOptimize(p.data());
  }
  flops(state, 2.0 * kTileRows * kSamples * w);
}

void BM_GramTransposedF32(benchmark::State& state) {
  const int64_t w = state.range(0);
  const auto codes = random_codes(kGroup);
  const auto l = luts(kGroup);
  std::vector<float> y(static_cast<size_t>(kGroup * w), 0.01f), zt(static_cast<size_t>(w * kSlice));
  for (auto _ : state) {
    codes_t_times(codes.data(), kStride, l.data(), kGroup, 0, kSlice, y.data(), w, zt.data(), kSlice);
    benchmark::DoNotOptimize(zt.data());
  }
  flops(state, 2.0 * kGroup * kSlice * w);
}

// Phase 2 as a pass runs it: every slice of `groups` consecutive groups (1 group = 7.7 MB of
// codes, beyond L2; 16 groups, beyond any L3), so the codes come from L3 or memory.
void BM_GramTransposedF32Slices(benchmark::State& state) {
  const int64_t w = 8, groups = state.range(0);
  const auto codes = random_codes(kGroup * groups);
  const auto l = luts(kGroup);
  std::vector<float> y(static_cast<size_t>(kGroup * w), 0.01f), zt(static_cast<size_t>(w * kSlice));
  for (auto _ : state) {
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t n0 = 0; n0 + kSlice <= kSamples32; n0 += kSlice)
        codes_t_times(codes.data() + g * kGroup * kStride + n0 / 4, kStride, l.data(), kGroup, 0, kSlice, y.data(),
                      w, zt.data(), kSlice);
    benchmark::DoNotOptimize(zt.data());
  }
  flops(state, 2.0 * kGroup * (kSamples32 / kSlice * kSlice) * w * groups);
}

// The same with each group's codes packed slice-major ([slice][row][48 bytes]).
void BM_GramTransposedF32SlicesPacked(benchmark::State& state) {
  const int64_t w = 8, groups = state.range(0), slices = kSamples32 / kSlice, panel = kGroup * kSlice / 4;
  const auto codes = random_codes(kGroup * groups);  // same bytes, read as panels
  const auto l = luts(kGroup);
  std::vector<float> y(static_cast<size_t>(kGroup * w), 0.01f), zt(static_cast<size_t>(w * kSlice));
  for (auto _ : state) {
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t s = 0; s < slices; ++s)
        codes_t_times(codes.data() + (g * slices + s) * panel, kSlice / 4, l.data(), kGroup, 0, kSlice, y.data(), w,
                      zt.data(), kSlice);
    benchmark::DoNotOptimize(zt.data());
  }
  flops(state, 2.0 * kGroup * (slices * kSlice) * w * groups);
}

// A whole pass as the operator runs it on one core: per group, phase 1 on its tiles, then
// phase 2 on its slices, over 16 groups' worth of codes (123 MB: they come from memory);
// the argument is the group size in tiles (the operator uses 32).
void BM_GramPassF32(benchmark::State& state) {
  const int64_t w = 8, tiles = state.range(0), group = tiles * kTileRows, groups = 16 * kGroup / group;
  const auto codes = random_codes(group * groups);
  const auto l = luts(group * groups);
  std::vector<float> qt(static_cast<size_t>(w * kSamples32), 0.01f), y(static_cast<size_t>(group * w)),
      zt(static_cast<size_t>(w * kSlice));
  for (auto _ : state) {
    for (int64_t g = 0; g < groups; ++g) {
      const uint8_t* gc = codes.data() + g * group * kStride;
      for (int64_t t = 0; t < tiles; ++t)
        codes_times(gc + t * kTileRows * kStride, kStride, l.data() + 4 * (g * group + t * kTileRows), kTileRows,
                    kSamples32 - 16, qt.data(), kSamples32, w, y.data() + t * kTileRows * w);
      for (int64_t n0 = 0; n0 + kSlice <= kSamples32; n0 += kSlice)
        codes_t_times(gc + n0 / 4, kStride, l.data() + 4 * g * group, group, 0, kSlice, y.data(), w, zt.data(),
                      kSlice);
    }
    benchmark::DoNotOptimize(zt.data());
  }
  flops(state, 4.0 * group * kSamples * w * groups);
}

void BM_GramTransposedI16(benchmark::State& state) {
  const int64_t w = state.range(0);
  const GramI16Kernels* k = i16_kind(state.range(1));
  if (!k) return state.SkipWithError("this CPU lacks the kernel");
  const auto codes = random_codes(kGroup);
  std::vector<int16_t> wp(static_cast<size_t>(kGroup * w), 100);
  std::vector<int32_t> zt(static_cast<size_t>(w * kSlice));
  // Packed once, as a group does for all its slices.
  const std::vector<uint8_t> packed = k->pack_t ? k->pack_t(wp.data(), kGroup, w) : std::vector<uint8_t>{};
  for (auto _ : state) {
    k->t_times(codes.data(), kStride, kGroup, kSlice, wp.data(), w, zt.data(), kSlice,
               packed.empty() ? nullptr : packed.data());
    benchmark::DoNotOptimize(zt.data());
  }
  flops(state, 2.0 * kGroup * kSlice * w);
}

// Phase 2 with the group's codes for one slice packed contiguously (48 bytes per row).
void BM_GramTransposedI16Packed(benchmark::State& state) {
  const int64_t w = state.range(0);
  std::vector<uint8_t> codes(static_cast<size_t>(kGroup * kSlice / 4 + 64), 0x1b);
  std::vector<int16_t> wp(static_cast<size_t>(kGroup * w), 100);
  std::vector<int32_t> zt(static_cast<size_t>(w * kSlice));
  const GramI16Kernels& k = i16();
  const std::vector<uint8_t> packed = k.pack_t ? k.pack_t(wp.data(), kGroup, w) : std::vector<uint8_t>{};
  for (auto _ : state) {
    k.t_times(codes.data(), kSlice / 4, kGroup, kSlice, wp.data(), w, zt.data(), kSlice,
              packed.empty() ? nullptr : packed.data());
    benchmark::DoNotOptimize(zt.data());
  }
  flops(state, 2.0 * kGroup * kSlice * w);
}

// The GRM tile kernels on a 1,024-sample lower triangle and 2,048 variants (one GRM block at
// 1,000 samples): float32 in runs of 128 vs exact integer in runs of range(0) variants (the
// packer's cost, per 2,048 variants × 1,024 samples, in BM_GramPackU8S8). GFLOP/s count a
// multiply-add per variant and entry of the lower half as 2 flops for both.
constexpr int64_t kGrmN = 1024, kGrmM = 2048;

void BM_GramPanelsF32(benchmark::State& state) {
  GramPanelsFn f = gram_panels_avx512() ? gram_panels_avx512() : gram_panels_portable;
  std::vector<float> panel(static_cast<size_t>(kGrmM * kGrmN), 0.3f);
  std::vector<double> acc(static_cast<size_t>(kGrmN * kGrmN));
  for (auto _ : state) {
    for (int64_t k0 = 0; k0 < kGrmM; k0 += 128)
      f(panel.data() + k0 * kGrmN, panel.data() + k0 * kGrmN, 128, kGrmN, kGrmN, 1, acc.data(), kGrmN);
    benchmark::DoNotOptimize(acc.data());
  }
  flops(state, double(kGrmN) * (kGrmN + 1) * kGrmM);
}

// Arg 1: 0 the VNNI kernel, 1 the AMX kernel (skipped where the CPU has none).
void BM_GramPanelsU8S8(benchmark::State& state) {
  GramU8S8Fn f = state.range(1) == 1 ? gram_u8s8_amx() : gram_u8s8_vnni() ? gram_u8s8_vnni() : gram_u8s8_portable;
  if (!f) {
    state.SkipWithError("no AMX on this CPU");
    return;
  }
  const int64_t run = state.range(0);
  std::vector<uint8_t> codes(static_cast<size_t>(kGrmM * kGrmN), 1);
  std::vector<int8_t> limbs(static_cast<size_t>(3 * kGrmM * kGrmN), 5);
  std::vector<double> acc(static_cast<size_t>(kGrmN * kGrmN));
  for (auto _ : state) {
    for (int64_t k0 = 0; k0 + run <= kGrmM; k0 += run)
      f(codes.data() + k0 * kGrmN, limbs.data() + 3 * k0 * kGrmN, run / 4, kGrmN, kGrmN, 1, 0.5, acc.data(), kGrmN);
    benchmark::DoNotOptimize(acc.data());
  }
  flops(state, double(kGrmN) * (kGrmN + 1) * (kGrmM / run * run));
}

void BM_GramPackU8S8(benchmark::State& state) {
  PackU8S8Fn f = pack_u8s8_vnni() ? pack_u8s8_vnni() : pack_u8s8_portable;
  const int64_t quads = 127;
  const auto codes = random_codes(4 * quads);  // kStride-byte rows; the first kGrmN samples
  std::vector<const uint8_t*> rows(static_cast<size_t>(4 * quads));
  for (int64_t r = 0; r < 4 * quads; ++r) rows[static_cast<size_t>(r)] = codes.data() + r * kStride;
  std::vector<uint8_t> tables(static_cast<size_t>(quads * kVnniTableBytes), 1), out(static_cast<size_t>(4 * quads * kGrmN));
  std::vector<int8_t> limbs(static_cast<size_t>(12 * quads * kGrmN));
  std::vector<int64_t> rsum(static_cast<size_t>(kGrmN));
  for (auto _ : state) {
    for (int64_t k0 = 0; k0 + 4 * quads <= kGrmM; k0 += 4 * quads)
      f(rows.data(), tables.data(), quads, kGrmN, out.data(), limbs.data(), rsum.data());
    benchmark::DoNotOptimize(rsum.data());
  }
}

BENCHMARK(BM_GramPanelsF32);
BENCHMARK(BM_GramPanelsU8S8)->ArgsProduct({{28, 200, 508, 2048}, {0, 1}});
BENCHMARK(BM_GramPackU8S8);
BENCHMARK(BM_GramTransposedI16Packed)->Arg(8)->Arg(16)->Arg(32);
BENCHMARK(BM_GramTimesF32)->Arg(8)->Arg(16)->Arg(32);
BENCHMARK(BM_GramTimesI16)->ArgsProduct({{8, 16, 24, 32}, {0, 1, 2, 3}});
BENCHMARK(BM_GramTransposedF32)->Arg(8)->Arg(16)->Arg(32);
BENCHMARK(BM_GramTransposedF32Slices)->Arg(1)->Arg(16);
BENCHMARK(BM_GramTransposedF32SlicesPacked)->Arg(1)->Arg(16);
BENCHMARK(BM_GramPassF32)->Arg(4)->Arg(8)->Arg(16)->Arg(32);
BENCHMARK(BM_GramTransposedI16)->ArgsProduct({{8, 16, 24, 32}, {0, 1, 2, 3}});

}  // namespace
}  // namespace strata::backend::cpu
