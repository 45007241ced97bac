// Genotype view helpers: block reads, the ordered block stream, variant subsets and the
// in-memory view.
#include <algorithm>
#include <limits>
#include <vector>

#include "io/genotype/codes_internal.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/io/genotype.hpp"

namespace strata::io {

void VariantInfo::reserve(int64_t n) {
  const auto k = static_cast<size_t>(n);
  contig.reserve(k);
  position.reserve(k);
  id.reserve(k);
  ref.reserve(k);
  alt.reserve(k);
  cm.reserve(k);
}

void VariantInfo::append_from(const VariantInfo& o, int64_t i) {
  contig.push_back(o.contig[i]);
  position.push_back(o.position[i]);
  id.push_back(o.id[i]);
  ref.push_back(o.ref[i]);
  alt.push_back(o.alt[i]);
  cm.push_back(i < static_cast<int64_t>(o.cm.size()) ? o.cm[i] : 0.0);
}

void VariantInfo::append_range(const VariantInfo& o, int64_t i, int64_t count) {
  const auto b = static_cast<size_t>(i), e = static_cast<size_t>(i + count);
  contig.insert(contig.end(), o.contig.begin() + b, o.contig.begin() + e);
  position.insert(position.end(), o.position.begin() + b, o.position.begin() + e);
  id.insert(id.end(), o.id.begin() + b, o.id.begin() + e);
  ref.insert(ref.end(), o.ref.begin() + b, o.ref.begin() + e);
  alt.insert(alt.end(), o.alt.begin() + b, o.alt.begin() + e);
  const size_t have = std::clamp(o.cm.size(), b, e);  // a source without cM values reads 0
  cm.insert(cm.end(), o.cm.begin() + b, o.cm.begin() + have);
  cm.resize(cm.size() + (e - have), 0.0);
}

Status GenotypeView::read_dosages(int64_t variant_start, int64_t variant_count, int64_t sample_start,
                                  int64_t sample_count, float* out, int64_t stride) const {
  if (variant_count < 0 || sample_count < 0 || stride < sample_count)
    return Status::Invalid("read_dosages: bad box or stride (", describe(), ")");
  const int64_t row = packed_row_bytes(sample_count);
  std::vector<uint8_t> codes(static_cast<size_t>(std::max<int64_t>(1, variant_count * row)));
  STRATA_RETURN_NOT_OK(read_codes(variant_start, variant_count, sample_start, sample_count, codes.data(), row));
  const float value[4] = {0.0f, 1.0f, 2.0f, std::numeric_limits<float>::quiet_NaN()};
  for (int64_t v = 0; v < variant_count; ++v) {
    const uint8_t* c = codes.data() + v * row;
    float* o = out + v * stride;
    for (int64_t j = 0; j < sample_count; ++j) o[j] = value[code_at(c, j)];
  }
  return Status::OK();
}

Result<GenotypeBlock> read_genotype_block(const GenotypeView& view, int64_t variant_start,
                                          int64_t variant_count, int64_t sample_start,
                                          int64_t sample_count) {
  if (sample_count < 0) sample_count = view.num_samples() - sample_start;
  GenotypeBlock b;
  b.variant_start = variant_start;
  b.variant_count = variant_count;
  b.sample_start = sample_start;
  b.sample_count = sample_count;
  b.stride = packed_row_bytes(sample_count);
  STRATA_ASSIGN_OR_RETURN(int64_t bytes, checked_mul(variant_count, b.stride));
  b.codes.resize(static_cast<size_t>(bytes));
  STRATA_RETURN_NOT_OK(view.read_codes(variant_start, variant_count, sample_start, sample_count,
                                       b.codes.data(), b.stride));
  return b;
}

int64_t default_block_variants(const GenotypeView& view, int64_t target_bytes) {
  const int64_t row = std::max<int64_t>(1, packed_row_bytes(view.num_samples()));
  int64_t b = std::max<int64_t>(1, target_bytes / row);
  // Prefer whole storage chunks so sources decode each chunk once.
  const int64_t c = view.variant_chunk();
  if (c > 0 && b > c) b = (b / c) * c;
  else if (c > 0 && b < c && c * row <= 4 * target_bytes) b = c;
  return b;
}

void set_genotype_read_ahead(const Context& ctx, const GenotypeView& view, int64_t first, int64_t count,
                             int64_t block_variants, PassOptions& options, bool with_variants) {
  if (!view.reads_ahead() || block_variants <= 0) return;
  options.read_ahead = read_ahead_window(ctx, std::min(block_variants, count) * packed_row_bytes(view.num_samples()));
  const int64_t window = options.read_ahead.bytes;
  options.prefetch = [&view, first, count, block_variants, window, with_variants](int64_t i) {
    const int64_t v0 = first + i * block_variants, nv = std::min(block_variants, first + count - v0);
    if (nv <= 0) return;
    if (with_variants) view.prefetch_variants(v0, nv, window);
    else view.prefetch_codes(v0, nv, window);
  };
}

Status for_each_genotype_block(const Context& ctx, const GenotypeView& view, int64_t block_variants,
                               const std::function<Status(GenotypeBlock&)>& work,
                               const std::function<Status(GenotypeBlock&)>& in_order, const PassOptions& options) {
  return for_each_genotype_block(ctx, view, 0, view.num_variants(), block_variants, work, in_order, options);
}

Status for_each_genotype_block(const Context& ctx, const GenotypeView& view, int64_t first, int64_t count,
                               int64_t block_variants, const std::function<Status(GenotypeBlock&)>& work,
                               const std::function<Status(GenotypeBlock&)>& in_order, const PassOptions& options) {
  if (block_variants <= 0) return Status::Invalid("block_variants must be positive");
  if (first < 0 || count < 0 || first + count > view.num_variants())
    return Status::Invalid("genotype pass: variants [", first, ", ", first + count, ") outside the ",
                           view.num_variants(), " of ", view.describe());
  const int64_t end = first + count;
  const int64_t nblocks = (count + block_variants - 1) / block_variants;
  // Block i lives in slot i % window until it is committed: the engine never runs more than
  // `window` blocks ahead of the oldest uncommitted one.
  PassOptions o = options;
  o.window = pass_window(ctx, options);
  if (o.label.empty()) o.label = "genotype pass";
  // Variants, unless the caller weighs its blocks otherwise (its progress_units).
  if (!o.progress_units)
    o.progress_units = [&](int64_t i) { return std::min(block_variants, end - first - i * block_variants); };
  std::vector<GenotypeBlock> slots(static_cast<size_t>(std::min(o.window, std::max<int64_t>(nblocks, 1))));
  const int64_t stride = packed_row_bytes(view.num_samples());
  set_genotype_read_ahead(ctx, view, first, count, block_variants, o);
  // A block larger than the whole budget still runs (one at a time) rather than failing.
  return run_blocks(
      ctx, nblocks, std::min(block_variants * stride, ctx.memory_budget()),
      [&](int64_t i) -> Status {
        const int64_t v0 = first + i * block_variants;
        const int64_t nv = std::min(block_variants, end - v0);
        GenotypeBlock& b = slots[static_cast<size_t>(i % o.window)];
        b.variant_start = v0;
        b.variant_count = nv;
        b.sample_start = 0;
        b.sample_count = view.num_samples();
        b.stride = stride;
        b.codes.resize(static_cast<size_t>(nv * b.stride));
        STRATA_RETURN_NOT_OK(view.read_codes(v0, nv, 0, b.sample_count, b.codes.data(), b.stride));
        ctx.report().add_bytes_read(nv * b.stride);
        return work ? work(b) : Status::OK();
      },
      [&](int64_t i) -> Status {
        return in_order ? in_order(slots[static_cast<size_t>(i % o.window)]) : Status::OK();
      },
      o);
}

namespace {

// Variants `kept_` of a base view, read in runs of consecutive base indices.
class SubsetView final : public GenotypeView {
 public:
  SubsetView(GenotypeViewPtr base, std::vector<int64_t> kept)
      : base_(std::move(base)), kept_(std::move(kept)) {}
  int64_t num_variants() const override { return static_cast<int64_t>(kept_.size()); }
  int64_t num_samples() const override { return base_->num_samples(); }
  std::string describe() const override { return base_->describe(); }
  const SampleInfo& samples() const override { return base_->samples(); }
  const std::vector<std::string>& contigs() const override { return base_->contigs(); }
  int64_t variant_chunk() const override { return base_->variant_chunk(); }
  int64_t sample_chunk() const override { return base_->sample_chunk(); }
  SourceReport report() const override { return base_->report(); }

  Result<VariantInfo> variants(int64_t start, int64_t count) const override {
    STRATA_RETURN_NOT_OK(check(start, count));
    VariantInfo out;
    out.start = start;
    out.reserve(count);
    Status st = for_runs(start, count, [&](int64_t base0, int64_t n, int64_t) -> Status {
      STRATA_ASSIGN_OR_RETURN(VariantInfo part, base_->variants(base0, n));
      for (int64_t i = 0; i < n; ++i) out.append_from(part, i);
      return Status::OK();
    });
    if (!st.ok()) return st;
    return out;
  }

  Status read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out,
                    int64_t stride) const override {
    STRATA_RETURN_NOT_OK(check(v0, nv));
    return for_runs(v0, nv, [&](int64_t base0, int64_t n, int64_t offset) {
      return base_->read_codes(base0, n, s0, ns, out + offset * stride, stride);
    });
  }
  bool has_dosages() const override { return base_->has_dosages(); }
  Status read_dosages(int64_t v0, int64_t nv, int64_t s0, int64_t ns, float* out, int64_t stride) const override {
    STRATA_RETURN_NOT_OK(check(v0, nv));
    return for_runs(v0, nv, [&](int64_t base0, int64_t n, int64_t offset) {
      return base_->read_dosages(base0, n, s0, ns, out + offset * stride, stride);
    });
  }
  bool reads_ahead() const override { return base_->reads_ahead(); }
  void prefetch_codes(int64_t v0, int64_t nv, int64_t window_bytes) const override {
    if (!check(v0, nv).ok()) return;
    (void)for_runs(v0, nv, [&](int64_t base0, int64_t n, int64_t) {
      base_->prefetch_codes(base0, n, window_bytes);
      return Status::OK();
    });
  }
  void prefetch_variants(int64_t v0, int64_t nv, int64_t window_bytes) const override {
    if (!check(v0, nv).ok()) return;
    (void)for_runs(v0, nv, [&](int64_t base0, int64_t n, int64_t) {
      base_->prefetch_variants(base0, n, window_bytes);
      return Status::OK();
    });
  }

 private:
  Status check(int64_t start, int64_t count) const {
    if (start < 0 || count < 0 || start + count > num_variants())
      return Status::Invalid("variant range out of bounds of the filtered view");
    return Status::OK();
  }
  template <class F>
  Status for_runs(int64_t start, int64_t count, F&& fn) const {
    int64_t i = start;
    while (i < start + count) {
      int64_t j = i + 1;
      while (j < start + count && kept_[j] == kept_[j - 1] + 1) ++j;
      STRATA_RETURN_NOT_OK(fn(kept_[i], j - i, i - start));
      i = j;
    }
    return Status::OK();
  }
  GenotypeViewPtr base_;
  std::vector<int64_t> kept_;
};

class MemoryView final : public GenotypeView {
 public:
  MemoryView(std::vector<uint8_t> codes, int64_t m, int64_t n, SampleInfo samples,
             std::vector<std::string> contigs, VariantInfo variants)
      : codes_(std::move(codes)), m_(m), n_(n), samples_(std::move(samples)),
        contigs_(std::move(contigs)), variants_(std::move(variants)) {}
  int64_t num_variants() const override { return m_; }
  int64_t num_samples() const override { return n_; }
  std::string describe() const override { return "<memory>"; }
  const SampleInfo& samples() const override { return samples_; }
  const std::vector<std::string>& contigs() const override { return contigs_; }
  Result<VariantInfo> variants(int64_t start, int64_t count) const override {
    if (start < 0 || count < 0 || start + count > m_) return Status::Invalid("variant range out of bounds");
    VariantInfo out;
    out.start = start;
    out.append_range(variants_, start, count);
    return out;
  }
  const VariantInfo* variant_table() const override { return variants_.size() == m_ ? &variants_ : nullptr; }
  Status read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out,
                    int64_t stride) const override {
    if (v0 < 0 || nv < 0 || v0 + nv > m_ || s0 < 0 || ns < 0 || s0 + ns > n_)
      return Status::Invalid("block out of bounds");
    const int64_t row = packed_row_bytes(n_);
    for (int64_t v = 0; v < nv; ++v)
      detail::extract_row(codes_.data() + (v0 + v) * row, s0, ns, nullptr, out + v * stride);
    return Status::OK();
  }

 private:
  std::vector<uint8_t> codes_;
  int64_t m_, n_;
  SampleInfo samples_;
  std::vector<std::string> contigs_;
  VariantInfo variants_;
};

}  // namespace

GenotypeViewPtr make_variant_subset(GenotypeViewPtr base, std::vector<int64_t> kept) {
  return std::make_shared<SubsetView>(std::move(base), std::move(kept));
}

Result<GenotypeViewPtr> make_memory_genotypes(std::vector<uint8_t> codes, int64_t m, int64_t n,
                                              SampleInfo samples, std::vector<std::string> contigs,
                                              VariantInfo variants) {
  STRATA_ASSIGN_OR_RETURN(int64_t bytes, checked_mul(m, packed_row_bytes(n)));
  if (static_cast<int64_t>(codes.size()) != bytes)
    return Status::Invalid("memory genotypes: expected ", bytes, " bytes of codes, got ", codes.size());
  if (variants.size() != m) return Status::Invalid("memory genotypes: variant table has ", variants.size(), " rows, expected ", m);
  if (samples.size() != n) return Status::Invalid("memory genotypes: sample table has ", samples.size(), " rows, expected ", n);
  return GenotypeViewPtr(std::make_shared<MemoryView>(std::move(codes), m, n, std::move(samples),
                                                      std::move(contigs), std::move(variants)));
}

}  // namespace strata::io
