// A view over a subset of a source's samples (and optionally variants): what --keep/--remove/
// --mind leave. Nothing is copied: each read takes the covering sample range of the base rows
// and gathers the kept codes into packed output rows.
#include <algorithm>
#include <vector>

#include "io/genotype/codes_internal.hpp"
#include "strata/io/genotype.hpp"

namespace strata::io {
namespace {

SampleInfo subset_samples(const SampleInfo& s, const std::vector<int64_t>& kept) {
  auto pick = [&](const auto& v) {
    std::decay_t<decltype(v)> out;
    if (v.empty()) return out;
    out.reserve(kept.size());
    for (int64_t i : kept) out.push_back(v[static_cast<size_t>(i)]);
    return out;
  };
  SampleInfo o;
  o.id = pick(s.id);
  o.family_id = pick(s.family_id);
  o.paternal_id = pick(s.paternal_id);
  o.maternal_id = pick(s.maternal_id);
  o.sex = pick(s.sex);
  o.phenotype = pick(s.phenotype);
  o.population = pick(s.population);
  return o;
}

class SampleSubsetView final : public GenotypeView {
 public:
  SampleSubsetView(GenotypeViewPtr base, std::vector<int64_t> kept)
      : base_(std::move(base)), kept_(std::move(kept)), samples_(subset_samples(base_->samples(), kept_)) {}
  int64_t num_variants() const override { return base_->num_variants(); }
  int64_t num_samples() const override { return static_cast<int64_t>(kept_.size()); }
  std::string describe() const override { return base_->describe(); }
  const SampleInfo& samples() const override { return samples_; }
  const std::vector<std::string>& contigs() const override { return base_->contigs(); }
  Result<VariantInfo> variants(int64_t start, int64_t count) const override { return base_->variants(start, count); }
  const VariantInfo* variant_table() const override { return base_->variant_table(); }
  int64_t variant_chunk() const override { return base_->variant_chunk(); }
  SourceReport report() const override { return base_->report(); }
  // Read-ahead asks for every sample's chunks of the rows (a superset of what reads take).
  bool reads_ahead() const override { return base_->reads_ahead(); }
  void prefetch_codes(int64_t v0, int64_t nv, int64_t window_bytes) const override {
    base_->prefetch_codes(v0, nv, window_bytes);
  }
  void prefetch_variants(int64_t v0, int64_t nv, int64_t window_bytes) const override {
    base_->prefetch_variants(v0, nv, window_bytes);
  }

  Status read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out, int64_t stride) const override {
    if (v0 < 0 || nv < 0 || v0 + nv > num_variants() || s0 < 0 || ns < 0 || s0 + ns > num_samples())
      return Status::Invalid(describe(), ": block [", v0, ", +", nv, ") x [", s0, ", +", ns,
                             ") out of bounds of the selected samples (", num_variants(), " x ", num_samples(), ")");
    if (stride < packed_row_bytes(ns)) return Status::Invalid("read_codes: stride too small");
    if (nv == 0 || ns == 0) {
      for (int64_t v = 0; v < nv; ++v) detail::pad_row(out + v * stride, ns);
      return Status::OK();
    }
    const int64_t b0 = kept_[static_cast<size_t>(s0)];
    const int64_t bn = kept_[static_cast<size_t>(s0 + ns - 1)] + 1 - b0;
    // A contiguous run of kept samples is a plain sample range of the base.
    if (bn == ns) return base_->read_codes(v0, nv, b0, ns, out, stride);
    // Otherwise read the covering range in pieces of ~4 MiB and gather.
    // The thread's buffer is taken for the call: a subset of a subset reads through this same
    // function, and its own resize must not move the rows being gathered here.
    thread_local std::vector<uint8_t> spare;
    std::vector<uint8_t> raw = std::move(spare);
    struct GiveBack {
      std::vector<uint8_t>& raw;
      ~GiveBack() { spare = std::move(raw); }
    } give_back{raw};
    const int64_t row = packed_row_bytes(bn);
    const int64_t per_read = std::max<int64_t>(1, (int64_t{4} << 20) / row);
    for (int64_t done = 0; done < nv;) {
      const int64_t rows = std::min(per_read, nv - done);
      raw.resize(static_cast<size_t>(rows * row));
      STRATA_RETURN_NOT_OK(base_->read_codes(v0 + done, rows, b0, bn, raw.data(), row));
      for (int64_t v = 0; v < rows; ++v) gather(raw.data() + v * row, s0, ns, b0, out + (done + v) * stride);
      done += rows;
    }
    return Status::OK();
  }

  bool has_dosages() const override { return base_->has_dosages(); }
  Status read_dosages(int64_t v0, int64_t nv, int64_t s0, int64_t ns, float* out, int64_t stride) const override {
    if (v0 < 0 || nv < 0 || v0 + nv > num_variants() || s0 < 0 || ns < 0 || s0 + ns > num_samples() || stride < ns)
      return Status::Invalid(describe(), ": dosage block [", v0, ", +", nv, ") x [", s0, ", +", ns,
                             ") out of bounds of the selected samples (", num_variants(), " x ", num_samples(), ")");
    if (nv == 0 || ns == 0) return Status::OK();
    const int64_t b0 = kept_[static_cast<size_t>(s0)];
    const int64_t bn = kept_[static_cast<size_t>(s0 + ns - 1)] + 1 - b0;
    if (bn == ns) return base_->read_dosages(v0, nv, b0, ns, out, stride);
    // The covering range in pieces of ~4 MiB, gathered (a fresh buffer: dosage reads are rare
    // next to code reads, and a subset of a subset must not share it).
    std::vector<float> raw;
    const int64_t per_read = std::max<int64_t>(1, (int64_t{4} << 20) / (4 * bn));
    const int64_t* idx = kept_.data() + s0;
    for (int64_t done = 0; done < nv;) {
      const int64_t rows = std::min(per_read, nv - done);
      raw.resize(static_cast<size_t>(rows * bn));
      STRATA_RETURN_NOT_OK(base_->read_dosages(v0 + done, rows, b0, bn, raw.data(), bn));
      for (int64_t v = 0; v < rows; ++v) {
        const float* src = raw.data() + v * bn;
        float* dst = out + (done + v) * stride;
        for (int64_t j = 0; j < ns; ++j) dst[j] = src[idx[j] - b0];
      }
      done += rows;
    }
    return Status::OK();
  }

 private:
  // Codes of kept samples [s0, s0 + ns) from a row of base samples starting at b0.
  void gather(const uint8_t* src, int64_t s0, int64_t ns, int64_t b0, uint8_t* dst) const {
    const int64_t* idx = kept_.data() + s0;
    int64_t j = 0;
    for (; j + 4 <= ns; j += 4) {
      uint32_t b = 0;
      for (int k = 0; k < 4; ++k) b |= uint32_t{code_at(src, idx[j + k] - b0)} << (2 * k);
      dst[j >> 2] = static_cast<uint8_t>(b);
    }
    if (j < ns) {
      uint32_t b = 0xFF;  // trailing pairs stay missing
      for (int k = 0; j + k < ns; ++k)
        b = (b & ~(3u << (2 * k))) | (uint32_t{code_at(src, idx[j + k] - b0)} << (2 * k));
      dst[j >> 2] = static_cast<uint8_t>(b);
    }
  }

  GenotypeViewPtr base_;
  std::vector<int64_t> kept_;
  SampleInfo samples_;
};

bool is_identity(const std::vector<int64_t>& kept, int64_t n) {
  return static_cast<int64_t>(kept.size()) == n;  // ascending and unique, so all of them
}

}  // namespace

Result<GenotypeViewPtr> make_genotype_subset(GenotypeViewPtr base, std::vector<int64_t> samples,
                                             std::vector<int64_t> variants) {
  auto check = [](const std::vector<int64_t>& v, int64_t n, const char* what) -> Status {
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] < 0 || v[i] >= n || (i > 0 && v[i] <= v[i - 1]))
        return Status::Invalid("genotype subset: ", what, " indices must be ascending, unique and below ", n);
    return Status::OK();
  };
  STRATA_RETURN_NOT_OK(check(samples, base->num_samples(), "sample"));
  STRATA_RETURN_NOT_OK(check(variants, base->num_variants(), "variant"));
  GenotypeViewPtr view = std::move(base);
  if (!is_identity(samples, view->num_samples()))
    view = std::make_shared<SampleSubsetView>(std::move(view), std::move(samples));
  if (!is_identity(variants, view->num_variants())) view = make_variant_subset(std::move(view), std::move(variants));
  return view;
}

}  // namespace strata::io
