// Balding–Nichols simulation as a lazily generated genotype view.
#include <algorithm>
#include <cmath>

#include "strata/core/random.hpp"
#include "strata/genomics/simulate.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics {
namespace {

// Streams of the simulator's draws (strata/core/random.hpp keying): every word is a pure
// function of (seed, stream, index), so simulated data never depends on chunking or threads.
enum Stream : uint32_t {
  kStreamAlleles = 0,     ///< words 2g and 2g + 1 for the two alleles of call g = v·N + s
  kStreamMissing = 1,     ///< word g
  kStreamVariant = 2,     ///< random::Sequence of variant v: its population frequencies
  kStreamPopulation = 3,  ///< word s: the population of sample s
};

// Gamma(shape, 1) by Marsaglia–Tsang (shape < 1 through the U^(1/shape) boost).
double draw_gamma(random::Sequence& d, double shape) {
  if (shape < 1.0) {
    const double g = draw_gamma(d, shape + 1.0);
    return g * std::pow(d.uniform(), 1.0 / shape);
  }
  const double c3 = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * c3);
  for (;;) {
    double x, v;
    do {
      x = d.normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = d.uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x) return c3 * v;
    if (std::log(u) < 0.5 * x * x + c3 * (1.0 - v + std::log(v))) return c3 * v;
  }
}

// Beta(a, b) as X / (X + Y) of two gammas.
double draw_beta(random::Sequence& d, double a, double b) {
  const double x = draw_gamma(d, a), y = draw_gamma(d, b);
  return x / (x + y);
}

class SimulatedView final : public io::GenotypeView {
 public:
  explicit SimulatedView(const SimulateOptions& o) : o_(o) {
    pops_ = simulated_populations(o);
    pop_end_.assign(static_cast<size_t>(o.num_pops), 0);
    for (size_t i = 0; i < pops_.size(); ++i) pop_end_[pops_[i]] = static_cast<int64_t>(i) + 1;
    contigs_ = {"1"};
    const int64_t n = o.num_samples;
    samples_.id.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const std::string pop = "pop" + std::to_string(pops_[i]);
      samples_.id.push_back("s" + std::to_string(i));
      samples_.family_id.push_back(pop);
      samples_.population.push_back(pop);
      samples_.paternal_id.emplace_back("0");
      samples_.maternal_id.emplace_back("0");
      samples_.sex.push_back(0);
      samples_.phenotype.emplace_back("-9");
    }
    missing_threshold_ = static_cast<uint64_t>(std::ldexp(std::clamp(o.missing, 0.0, 1.0), 32));
  }

  int64_t num_variants() const override { return o_.num_variants; }
  int64_t num_samples() const override { return o_.num_samples; }
  std::string describe() const override { return "<simulated>"; }
  const io::SampleInfo& samples() const override { return samples_; }
  const std::vector<std::string>& contigs() const override { return contigs_; }
  int64_t variant_chunk() const override { return 1000; }

  Result<io::VariantInfo> variants(int64_t start, int64_t count) const override {
    if (start < 0 || count < 0 || start + count > o_.num_variants)
      return Status::Invalid("simulated variants: range out of bounds");
    io::VariantInfo info;
    info.start = start;
    info.reserve(count);
    for (int64_t v = start; v < start + count; ++v) {
      info.contig.push_back(0);
      info.position.push_back(100 * v + 1);
      info.id.push_back("v" + std::to_string(v));
      info.ref.emplace_back("G");
      info.alt.emplace_back("A");
      info.cm.push_back(0.0);
    }
    return info;
  }

  Status read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out,
                    int64_t stride) const override {
    if (v0 < 0 || nv < 0 || v0 + nv > o_.num_variants || s0 < 0 || ns < 0 || s0 + ns > o_.num_samples)
      return Status::Invalid("simulated genotypes: block out of bounds");
    std::vector<uint64_t> thresholds(static_cast<size_t>(o_.num_pops));
    for (int64_t v = v0; v < v0 + nv; ++v) {
      population_thresholds(v, thresholds.data());
      generate_row(v, s0, ns, thresholds.data(), out + (v - v0) * stride);
    }
    return Status::OK();
  }

 private:
  // ALT probability of each population, as thresholds on 32-bit words (u < t ⇔ ALT).
  void population_thresholds(int64_t v, uint64_t* t) const {
    random::Sequence d(o_.seed, kStreamVariant, static_cast<uint64_t>(v));
    const double p = 0.05 + 0.9 * d.uniform();
    for (int64_t k = 0; k < o_.num_pops; ++k) {
      double pk = p;
      if (o_.fst > 0.0) {
        const double s = (1.0 - o_.fst) / o_.fst;
        pk = draw_beta(d, p * s, (1.0 - p) * s);
      }
      t[k] = static_cast<uint64_t>(std::ldexp(pk, 32));
    }
  }

  // Codes of variant v for samples [s0, s0 + ns), in segments that stay in L1.
  void generate_row(int64_t v, int64_t s0, int64_t ns, const uint64_t* thr, uint8_t* row) const {
    constexpr int64_t kSeg = 2048;  // a multiple of 4: segments start on a byte
    uint32_t ab[2 * kSeg], m[kSeg];
    uint8_t code[kSeg];
    const uint64_t base = static_cast<uint64_t>(v) * static_cast<uint64_t>(o_.num_samples);
    for (int64_t seg = 0; seg < ns; seg += kSeg) {
      const int64_t cnt = std::min(kSeg, ns - seg);
      const int64_t first = s0 + seg;
      const uint64_t g0 = base + static_cast<uint64_t>(first);
      random::fill_words(o_.seed, kStreamAlleles, 2 * g0, 2 * cnt, ab);
      // Populations are sorted, so thresholds are constant over runs of samples.
      for (int64_t j = 0; j < cnt;) {
        const int32_t pop = pops_[first + j];
        const int64_t end = std::min(cnt, pop_end_[pop] - first);
        const uint32_t t = thr[pop] >= (uint64_t{1} << 32) ? UINT32_MAX : static_cast<uint32_t>(thr[pop]);
        for (int64_t i = j; i < end; ++i) code[i] = static_cast<uint8_t>((ab[2 * i] < t) + (ab[2 * i + 1] < t));
        j = end;
      }
      if (missing_threshold_ > 0) {
        random::fill_words(o_.seed, kStreamMissing, g0, cnt, m);
        const uint64_t mt = missing_threshold_;
        for (int64_t i = 0; i < cnt; ++i)
          if (m[i] < mt) code[i] = io::kCodeMissing;
      }
      uint8_t* out = row + seg / 4;
      const int64_t full = cnt / 4;
      for (int64_t i = 0; i < full; ++i)
        out[i] = static_cast<uint8_t>(code[4 * i] | (code[4 * i + 1] << 2) | (code[4 * i + 2] << 4) | (code[4 * i + 3] << 6));
      if (cnt & 3) {
        uint32_t byte = 0xFFu;  // trailing pairs: missing
        for (int64_t i = 4 * full; i < cnt; ++i) {
          const int sh = static_cast<int>(2 * (i & 3));
          byte = (byte & ~(3u << sh)) | (uint32_t{code[i]} << sh);
        }
        out[full] = static_cast<uint8_t>(byte);
      }
    }
  }

  SimulateOptions o_;
  std::vector<int32_t> pops_;
  std::vector<int64_t> pop_end_;  // one past the last sample of each population
  std::vector<std::string> contigs_;
  io::SampleInfo samples_;
  uint64_t missing_threshold_ = 0;
};

}  // namespace

Status validate_simulate_options(const SimulateOptions& o) {
  if (o.num_samples < 1) return Status::Invalid("--samples must be at least 1");
  if (o.num_variants < 0) return Status::Invalid("--variants must not be negative");
  if (o.num_pops < 1 || o.num_pops > o.num_samples)
    return Status::Invalid("--pops must be between 1 and the number of samples");
  if (!(o.fst >= 0.0 && o.fst < 1.0)) return Status::Invalid("--fst must be in [0, 1), got ", o.fst);
  if (!(o.missing >= 0.0 && o.missing <= 1.0)) return Status::Invalid("--missing must be in [0, 1], got ", o.missing);
  if (!checked_mul(o.num_variants, o.num_samples).ok() ||
      !checked_mul((o.num_samples + 3) / 4, o.num_variants).ok()) {
    return Status::Invalid("--variants ", o.num_variants, " x --samples ", o.num_samples,
                           " genotypes do not fit in 64-bit sizes");
  }
  return Status::OK();
}

std::vector<int32_t> simulated_populations(const SimulateOptions& o) {
  std::vector<int64_t> count(static_cast<size_t>(std::max<int64_t>(o.num_pops, 1)), 0);
  for (int64_t s = 0; s < o.num_samples; ++s) {
    const uint32_t x = random::word_at(o.seed, kStreamPopulation, static_cast<uint64_t>(s));
    ++count[random::integer_u32(x, static_cast<uint32_t>(o.num_pops))];
  }
  std::vector<int32_t> pops;
  pops.reserve(static_cast<size_t>(o.num_samples));
  for (size_t k = 0; k < count.size(); ++k) pops.insert(pops.end(), static_cast<size_t>(count[k]), static_cast<int32_t>(k));
  return pops;
}

Result<std::shared_ptr<const io::GenotypeView>> make_simulated_genotypes(const SimulateOptions& o) {
  STRATA_RETURN_NOT_OK(validate_simulate_options(o));
  return std::shared_ptr<const io::GenotypeView>(std::make_shared<SimulatedView>(o));
}

}  // namespace strata::genomics
