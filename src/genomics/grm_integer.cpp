// The GRM's integer runs (genomics/grm_integer.hpp): limbs of a weight, and a block's plan.
#include "genomics/grm_integer.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "strata/genomics/grm.hpp"

namespace strata::genomics::grm_integer {
namespace {

constexpr int64_t kGroup = kGrmSampleGroup;  // samples per panel group

void put_limbs(int64_t x, int8_t limb[3]) {
  for (int l = 0; l < 3; ++l) {
    const int64_t r = ((x + 64) & 127) - 64;
    limb[l] = static_cast<int8_t>(r);
    x = (x - r) / 128;
  }
}

}  // namespace

BlockPlan plan_block(const std::vector<IntWeight>& iw, const std::vector<uint8_t>& eligible, int64_t v0,
                     int64_t rows) {
  BlockPlan bp;
  std::vector<std::pair<int, int32_t>> order;  // (k, row): runs by exponent, rows in order
  for (int64_t r = 0; r < rows; ++r) {
    const auto v = static_cast<size_t>(v0 + r);
    if (eligible[v]) order.emplace_back(iw[v].k, static_cast<int32_t>(r));
    else bp.float_rows.push_back(static_cast<int32_t>(r));
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (size_t i = 0; i < order.size();) {
    size_t e = i;
    while (e < order.size() && order[e].first <= order[i].first + kMaxShift && e - i < size_t(4 * kMaxQuads)) ++e;
    const int top = order[e - 1].first;  // the run's scale 2^-top; variant k: codes × 2^(top − k)
    IntRun run{bp.quads, static_cast<int64_t>((e - i + 3) / 4), std::ldexp(1.0, -top)};
    for (int64_t q = 0; q < run.quads; ++q) {
      uint8_t tab[kTableBytes] = {};
      for (int t = 0; t < 4; ++t) {
        const size_t at = i + static_cast<size_t>(4 * q + t);
        const bool real = at < e;
        bp.quad_rows.push_back(order[real ? at : i].second);
        if (!real) continue;  // padding: a zero table
        const IntWeight& x = iw[static_cast<size_t>(v0 + order[at].second)];
        const int factor = 1 << (top - x.k);
        int8_t wl[3], al[3];
        put_limbs(x.w, wl);
        put_limbs(x.a, al);
        for (int c = 0; c < 3; ++c) {
          const int g = x.flip ? 2 - c : c;
          tab[4 * t + c] = static_cast<uint8_t>(g * factor);
          for (int l = 0; l < 3; ++l) tab[16 + 16 * l + 4 * t + c] = static_cast<uint8_t>(int8_t(g * wl[l]));
        }
        for (int l = 0; l < 3; ++l) tab[64 + 4 * l + t] = static_cast<uint8_t>(al[l]);
      }
      bp.tables.insert(bp.tables.end(), tab, tab + kTableBytes);
    }
    bp.runs.push_back(run);
    bp.quads += run.quads;
    i = e;
  }
  return bp;
}

Status add_integer_product(const backend::Backend& be, const BlockPlan& bp, const uint8_t* codes,
                           const int8_t* limbs, int64_t npad, const SymmetricTiles::Tile& a, double* acc) {
  const int mode = a.row0 == a.col0 ? 1 : 0;
  for (const IntRun& run : bp.runs) {
    const uint8_t* run_codes = codes + run.quad0 * 4 * npad + (a.col0 / kGroup) * run.quads * 4 * kGroup;
    const int8_t* run_limbs = limbs + run.quad0 * 12 * npad + (a.row0 / kGroup) * run.quads * 12 * kGroup;
    STRATA_RETURN_NOT_OK(
        be.gram_panels_u8s8(run_codes, run_limbs, run.quads, a.rows, a.cols, mode, run.scale, acc, a.cols));
  }
  return Status::OK();
}

}  // namespace strata::genomics::grm_integer
