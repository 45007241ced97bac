// The GRM pass's block reader (grm_internal.hpp): a block's codes decoded into the panels of
// its route — float32 or float64 standardized rows, the sparse route's lists, the integer
// runs, the missing indicators.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "genomics/dosage_standardize.hpp"
#include "genomics/grm_internal.hpp"
#include "strata/core/shape.hpp"

namespace strata::genomics::grm_detail {
namespace {

using namespace grm_integer;

// Decodes rows [r0, r0 + count) of a block (count ≤ kFloat32Run, r0 a multiple of it) into
// the packed panel `out` of padded width npad.
template <class T>
Status decode_run(const backend::Backend& be, const uint8_t* codes, int64_t stride, int64_t r0, int64_t count,
                  int64_t n, int64_t npad, const T* luts, T* out) {
  T* run = out + r0 * npad;
  for (int64_t g0 = 0; g0 < n; g0 += kGroup) {
    const int64_t cnt = std::min(kGroup, n - g0);
    T* dst = run + g0 * count;
    // 32 samples are 8 bytes of a packed row.
    STRATA_RETURN_NOT_OK(be.decode({codes + r0 * stride + g0 / 4, count, cnt, stride}, luts,
                                   backend::row_major(dst, count, cnt, kGroup)));
    if (cnt < kGroup)
      for (int64_t r = 0; r < count; ++r) std::fill(dst + r * kGroup + cnt, dst + (r + 1) * kGroup, T{0});
  }
  return Status::OK();
}

}  // namespace

Status BlockReader::read(int64_t b, int slot) {
  const int64_t rows = plan_.block_rows(b);
  p_.codes[slot].resize(static_cast<size_t>(rows * plan_.stride));
  if (plan_.f64) p_.values64[slot].resize(static_cast<size_t>(rows * plan_.npad));
  else if (!plan_.integer) p_.values[slot].resize(static_cast<size_t>(rows * plan_.npad));
  p_.rows[slot] = rows;
  p_.block[slot] = b;
  if (plan_.dosages) return read_dosage_block(b, slot, rows);
  STRATA_RETURN_NOT_OK(plan_.integer ? read_integer_block(b, slot, rows) : read_float_block(b, slot, rows));
  return plan_.pairwise && !plan_.sparse ? read_missing_rows(b, slot, rows) : Status::OK();
}

Status BlockReader::each(int64_t count, const std::function<Status(int64_t)>& fn) const {
  if (pipelined_) {
    for (int64_t t = 0; t < count; ++t) STRATA_RETURN_NOT_OK(fn(t));
    return Status::OK();
  }
  return pool_.parallel_for(count, fn);
}

Status BlockReader::read_float_block(int64_t b, int slot, int64_t rows) {
  if (plan_.sparse) return read_sparse_block(b, slot, rows);
  const int64_t v0 = b * plan_.block_variants, n = plan_.n, stride = plan_.stride;
  auto& codes = p_.codes[slot];
  return each(ceil_div(rows, kFloat32Run), [&](int64_t t) -> Status {
    const int64_t r0 = t * kFloat32Run, count = std::min(kFloat32Run, rows - r0);
    STRATA_RETURN_NOT_OK(plan_.kept_view->read_codes(v0 + r0, count, 0, n, codes.data() + r0 * stride, stride));
    if (plan_.f64)
      return decode_run(be_, codes.data(), stride, r0, count, n, plan_.npad, plan_.luts64.data() + 4 * (v0 + r0),
                        p_.values64[slot].data());
    return decode_run(be_, codes.data(), stride, r0, count, n, plan_.npad, plan_.luts.data() + 4 * (v0 + r0),
                      p_.values[slot].data());
  });
}

Status BlockReader::read_sparse_block(int64_t b, int slot, int64_t rows) {
  constexpr int64_t R = backend::kSparseRun;
  const int64_t v0 = b * plan_.block_variants, n = plan_.n, stride = plan_.stride, npad = plan_.npad;
  const int64_t runs = ceil_div(rows, R);
  auto& codes = p_.codes[slot];
  p_.entries[slot].resize(static_cast<size_t>(runs * npad * R));
  p_.counts[slot].resize(static_cast<size_t>(runs * npad * grm_sparse::kParts));
  p_.centre_u[slot].resize(static_cast<size_t>(runs * npad));
  p_.coef[slot].resize(static_cast<size_t>(runs * R));
  const bool pairwise = plan_.pairwise;
  p_.mrows[slot] = 0;  // rows with missing calls: the both-missing counts run when there are
  for (int64_t r = 0; pairwise && r < rows; ++r) p_.mrows[slot] += plan_.has_missing[static_cast<size_t>(v0 + r)];
  if (pairwise) {
    p_.missing_samples[slot].resize(static_cast<size_t>(rows));
    for (auto& list : p_.missing_samples[slot]) list.clear();
  }
  return each(runs, [&](int64_t t) -> Status {
    const int64_t r0 = t * R, count = std::min(R, rows - r0);
    STRATA_RETURN_NOT_OK(plan_.kept_view->read_codes(v0 + r0, count, 0, n, codes.data() + r0 * stride, stride));
    STRATA_RETURN_NOT_OK(decode_run(be_, codes.data(), stride, r0, count, n, npad,
                                    plan_.luts64.data() + 4 * (v0 + r0), p_.values64[slot].data()));
    grm_sparse::SparseRun run;
    run.entries = p_.entries[slot].data() + t * npad * R;
    run.counts = p_.counts[slot].data() + t * npad * grm_sparse::kParts;
    run.u = p_.centre_u[slot].data() + t * npad;
    run.coef = p_.coef[slot].data() + t * R;
    run.slot = R;
    grm_sparse::build_sparse_run(plan_.sv.data() + v0 + r0, codes.data() + r0 * stride, stride, count, n, npad, run,
                                 pairwise ? p_.missing_samples[slot].data() + r0 : nullptr);
    return Status::OK();
  });
}

Status BlockReader::read_dosage_block(int64_t b, int slot, int64_t rows) {
  const int64_t v0 = b * plan_.block_variants, n = plan_.n, npad = plan_.npad;
  int64_t mrows = 0;
  std::vector<int64_t> mrow_of(static_cast<size_t>(rows), -1);  // row → its missing panel row
  for (int64_t r = 0; r < rows && plan_.pairwise; ++r)
    if (plan_.has_missing[static_cast<size_t>(v0 + r)]) mrow_of[static_cast<size_t>(r)] = mrows++;
  p_.mrows[slot] = plan_.pairwise ? mrows : 0;
  if (plan_.pairwise) p_.missing[slot].resize(static_cast<size_t>(mrows * npad));
  // The missing panel is laid out in runs of kFloat32Run of its own rows; each row is
  // written by the task of its value run (rows never overlap between tasks).
  return each(ceil_div(rows, kFloat32Run), [&](int64_t t) -> Status {
    const int64_t r0 = t * kFloat32Run, count = std::min(kFloat32Run, rows - r0);
    std::vector<float> d(static_cast<size_t>(count * n));
    STRATA_RETURN_NOT_OK(plan_.kept_view->read_dosages(v0 + r0, count, 0, n, d.data(), n));
    float* run = plan_.f64 ? nullptr : p_.values[slot].data() + r0 * npad;
    double* run64 = plan_.f64 ? p_.values64[slot].data() + r0 * npad : nullptr;
    for (int64_t r = 0; r < count; ++r) {
      const float* lut = plan_.luts.data() + 4 * (v0 + r0 + r);
      const double* lut64 = plan_.f64 ? plan_.luts64.data() + 4 * (v0 + r0 + r) : nullptr;
      const float* dr = d.data() + r * n;
      const int64_t mr = mrow_of[static_cast<size_t>(r0 + r)];
      const int64_t m0 = mr < 0 ? 0 : mr / kFloat32Run * kFloat32Run;
      const int64_t mcount = std::min(kFloat32Run, mrows - m0);
      float* mrun = mr < 0 ? nullptr : p_.missing[slot].data() + m0 * npad;
      for (int64_t g0 = 0; g0 < npad; g0 += kGroup) {
        float* dst = run ? run + g0 * count + r * kGroup : nullptr;
        double* dst64 = run64 ? run64 + g0 * count + r * kGroup : nullptr;
        float* mdst = mrun ? mrun + g0 * mcount + (mr - m0) * kGroup : nullptr;
        for (int64_t j = 0; j < kGroup; ++j) {
          const bool in = g0 + j < n;
          const float x = in ? dr[g0 + j] : 0.0f;
          if (dst) dst[j] = in ? standardize_dosage(x, lut) : 0.0f;
          if (dst64) dst64[j] = in ? standardize_dosage(x, lut64) : 0.0;
          if (mdst) mdst[j] = in && std::isnan(x) ? 1.0f : 0.0f;
        }
      }
    }
    return Status::OK();
  });
}

Status BlockReader::read_integer_block(int64_t b, int slot, int64_t rows) {
  const int64_t v0 = b * plan_.block_variants, n = plan_.n, stride = plan_.stride, npad = plan_.npad;
  const BlockPlan& bp = plan_.block_plans[static_cast<size_t>(b)];
  auto& codes = p_.codes[slot];
  STRATA_RETURN_NOT_OK(each(ceil_div(rows, kFloat32Run), [&](int64_t t) -> Status {
    const int64_t r0 = t * kFloat32Run, count = std::min(kFloat32Run, rows - r0);
    return plan_.kept_view->read_codes(v0 + r0, count, 0, n, codes.data() + r0 * stride, stride);
  }));
  const auto nf = static_cast<int64_t>(bp.float_rows.size());
  p_.rows[slot] = nf;
  auto& fc = p_.fcodes[slot];
  fc.resize(static_cast<size_t>(nf * stride));
  std::vector<float> flut(static_cast<size_t>(4 * nf));
  for (int64_t r = 0; r < nf; ++r) {
    const int64_t row = bp.float_rows[static_cast<size_t>(r)];
    std::memcpy(fc.data() + r * stride, codes.data() + row * stride, static_cast<size_t>(stride));
    std::memcpy(flut.data() + 4 * r, plan_.luts.data() + 4 * (v0 + row), 4 * sizeof(float));
  }
  p_.values[slot].resize(static_cast<size_t>(nf * npad));
  STRATA_RETURN_NOT_OK(each(ceil_div(nf, kFloat32Run), [&](int64_t t) -> Status {
    const int64_t r0 = t * kFloat32Run;
    return decode_run(be_, fc.data(), stride, r0, std::min(kFloat32Run, nf - r0), n, npad, flut.data() + 4 * r0,
                      p_.values[slot].data());
  }));
  p_.icodes[slot].resize(static_cast<size_t>(bp.quads * 4 * npad));
  p_.ilimbs[slot].resize(static_cast<size_t>(bp.quads * 12 * npad));
  p_.rsum[slot].resize(static_cast<size_t>(bp.runs.size()) * static_cast<size_t>(npad));
  STRATA_RETURN_NOT_OK(each(static_cast<int64_t>(bp.runs.size()), [&](int64_t t) -> Status {
    const IntRun& run = bp.runs[static_cast<size_t>(t)];
    std::vector<const uint8_t*> rp(static_cast<size_t>(4 * run.quads));
    for (int64_t i = 0; i < 4 * run.quads; ++i)
      rp[i] = codes.data() + bp.quad_rows[static_cast<size_t>(4 * run.quad0 + i)] * stride;
    return be_.pack_u8s8(rp.data(), bp.tables.data() + run.quad0 * kTableBytes, run.quads, n,
                         p_.icodes[slot].data() + run.quad0 * 4 * npad, p_.ilimbs[slot].data() + run.quad0 * 12 * npad,
                         p_.rsum[slot].data() + t * npad);
  }));
  if (b != centred_blocks_) return Status::OK();
  ++centred_blocks_;
  for (size_t t = 0; t < bp.runs.size(); ++t) {
    const int64_t* rs = p_.rsum[slot].data() + t * static_cast<size_t>(npad);
    for (int64_t j = 0; j < n; ++j) centre_r_[static_cast<size_t>(j)] += bp.runs[t].scale * static_cast<double>(rs[j]);
  }
  return Status::OK();
}

Status BlockReader::read_missing_rows(int64_t b, int slot, int64_t rows) {
  static constexpr float kMissingLut[4] = {0.0f, 0.0f, 0.0f, 1.0f};
  const int64_t v0 = b * plan_.block_variants, stride = plan_.stride;
  const auto& codes = p_.codes[slot];
  auto& mc = p_.mcodes[slot];
  mc.clear();
  int64_t mrows = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if (!plan_.has_missing[static_cast<size_t>(v0 + r)]) continue;
    mc.insert(mc.end(), codes.begin() + r * stride, codes.begin() + (r + 1) * stride);
    ++mrows;
  }
  p_.mrows[slot] = mrows;
  if (mrows == 0) return Status::OK();
  std::vector<float> lut4(static_cast<size_t>(4 * mrows));
  for (int64_t r = 0; r < mrows; ++r) std::memcpy(lut4.data() + 4 * r, kMissingLut, sizeof(kMissingLut));
  p_.missing[slot].resize(static_cast<size_t>(mrows * plan_.npad));
  for (int64_t r0 = 0; r0 < mrows; r0 += kFloat32Run) {
    STRATA_RETURN_NOT_OK(decode_run(be_, mc.data(), stride, r0, std::min(kFloat32Run, mrows - r0), plan_.n,
                                    plan_.npad, lut4.data() + 4 * r0, p_.missing[slot].data()));
  }
  return Status::OK();
}

}  // namespace strata::genomics::grm_detail
