// Micro-benchmarks of the pair-count kernels on one core: one 256 × 256 tile of a pair pass
// (off the diagonal) over 782 words (50,000 variants), and the planes of 256 samples. The
// counter is ns per pair-word (one pair of samples, 64 variants, all fields).
//   strata_microbench --benchmark_filter=Pair
// Arg 0: 0 portable, 1 POPCNT, 2 AVX2, 3 AVX-512 (skipped where the CPU lacks it).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "backend/cpu/pair_count_kernels.hpp"
#include "strata/backend/backend.hpp"

namespace strata::backend::cpu {
namespace {

constexpr int64_t kTile = 256, kWords = 782;

const PairCountKernels* kernels(int64_t kind) {
  switch (kind) {
    case 0: return &pair_counts_portable();
    case 1: return pair_counts_popcnt();
    case 2: return pair_counts_avx2();
    default: return pair_counts_avx512();
  }
}

// Planes of random calls, each missing with probability permille / 1000, else hom-ref, het or
// hom-alt with probability 1/3 each.
std::vector<uint64_t> random_planes(int64_t samples, int64_t words, int64_t permille) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> u(0, 2999);
  std::vector<uint64_t> p(static_cast<size_t>(CodePlanesView::buffer_words(samples, words)));
  for (size_t k = 0; k < p.size(); k += 3 * 8)
    for (int l = 0; l < 8; ++l)
      for (int b = 0; b < 64; ++b) {
        const int x = u(rng);
        const uint64_t bit = uint64_t{1} << b;
        if (x < 3 * permille) continue;  // missing: no plane bit
        p[k + 16 + l] |= bit;
        if (x % 3 == 1) p[k + l] |= bit;
        if (x % 3 == 2) p[k + 8 + l] |= bit;
      }
  return p;
}

// Seconds per item, as ns: the counter holds 10⁻⁹ · items and is inverted after the rate.
void ns_per(benchmark::State& state, const char* name, double items) {
  state.counters[name] = benchmark::Counter(1e-9 * items * static_cast<double>(state.iterations()),
                                            benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <bool King>
void BM_PairTile(benchmark::State& state) {
  const PairCountKernels* k = kernels(state.range(0));
  if (!k) return state.SkipWithError("this CPU lacks the kernel");
  static std::vector<uint64_t> planes;
  static int64_t drawn = -1;
  if (drawn != state.range(2)) planes = random_planes(2 * kTile, kWords, drawn = state.range(2));
  const int fields = King ? kKingCountFields : kPairCountFields;
  std::vector<int64_t> counts(static_cast<size_t>(fields * kTile * kTile));
  // Arg 1: a diagonal tile (KING skips j > i); arg 2: missing calls per 1,000.
  const int64_t col0 = state.range(1) ? 0 : kTile;
  for (auto _ : state) {
    (King ? k->king : k->counts)(planes.data(), kWords, 0, kTile, col0, kTile, counts.data());
    benchmark::DoNotOptimize(counts.data());
  }
  ns_per(state, "ns/pair-word", double(kTile) * kTile * kWords);
}

void BM_PairPlanes(benchmark::State& state) {
  const PairCountKernels* k = kernels(state.range(0));
  if (!k) return state.SkipWithError("this CPU lacks the kernel");
  constexpr int64_t kSamples = 4000, kStride = kSamples / 4, kWordsHere = 16;
  std::mt19937_64 rng(5);
  std::vector<uint8_t> codes(static_cast<size_t>(64 * kWordsHere * kStride));
  for (auto& b : codes) b = static_cast<uint8_t>(rng());
  std::vector<uint64_t> planes(static_cast<size_t>(CodePlanesView::buffer_words(kSamples, kWordsHere)));
  for (auto _ : state) {
    for (int64_t w = 0; w < kWordsHere; ++w)
      k->planes(codes.data() + w * 64 * kStride, kStride, 64, kSamples, planes.data(), kWordsHere, w);
    benchmark::DoNotOptimize(planes.data());
  }
  ns_per(state, "ns/sample-word", double(kSamples) * kWordsHere);
}

BENCHMARK(BM_PairTile<false>)->ArgsProduct({{1, 2, 3}, {0}, {0, 1, 3, 10, 250}});
BENCHMARK(BM_PairTile<true>)->ArgsProduct({{1, 2, 3}, {0, 1}, {0, 1, 3, 10, 250}});
BENCHMARK(BM_PairPlanes)->Arg(1)->Arg(3);

}  // namespace
}  // namespace strata::backend::cpu
