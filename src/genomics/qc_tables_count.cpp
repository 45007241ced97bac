// The counting pass of `strata qc`: every statistic of `.smiss`, `.vmiss`, `.het`, `.hardy`
// and `.hardy.x` from one read of each block. Codes are taken 32 samples to a 64-bit word: the
// per-variant counts by sample class are popcounts under class masks, the per-sample counts walk
// the (sparse) missing and heterozygous bits.
#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>

#include "genomics/qc_tables_count.hpp"
#include "strata/core/cpu_pin.hpp"
#include "strata/genomics/selection.hpp"

namespace strata::genomics::detail {
namespace {

using io::ChromosomeKind;

constexpr uint64_t kLow = 0x5555555555555555ull;  // the low bit of every 2-bit code
constexpr int kClasses = 6;                        // founder (0/1) × 3 + sex (0 unknown, 1 male, 2 female)

int class_of(bool founder, int sex) { return (founder ? 3 : 0) + (sex == 1 || sex == 2 ? sex : 0); }
bool is_male_class(int c) { return c % 3 == 1; }

// Lane masks (the low bit of each sample's code) of each sample class, of every sample and of the males.
struct ClassMasks {
  int64_t words = 0;
  std::vector<int> present;  // classes with at least one sample
  std::vector<uint64_t> mask[kClasses];
  int64_t size[kClasses] = {};
  std::vector<uint64_t> valid, male;

  static ClassMasks of(const io::SampleInfo& info, int64_t n) {
    ClassMasks m;
    m.words = (n + 31) / 32;
    for (auto& v : m.mask) v.assign(static_cast<size_t>(m.words), 0);
    m.valid.assign(static_cast<size_t>(m.words), 0);
    m.male.assign(static_cast<size_t>(m.words), 0);
    for (int64_t i = 0; i < n; ++i) {
      const int sex = i < static_cast<int64_t>(info.sex.size()) ? info.sex[static_cast<size_t>(i)] : 0;
      const int c = class_of(is_founder(info, i), sex);
      const uint64_t bit = uint64_t{1} << (2 * (i % 32));
      m.mask[c][static_cast<size_t>(i / 32)] |= bit;
      m.valid[static_cast<size_t>(i / 32)] |= bit;
      if (is_male_class(c)) m.male[static_cast<size_t>(i / 32)] |= bit;
      ++m.size[c];
    }
    for (int c = 0; c < kClasses; ++c)
      if (m.size[c] > 0) m.present.push_back(c);
    return m;
  }
};

// Code counts of one row by class.
struct ClassCounts {
  VariantCounts c[kClasses];
  VariantCounts sum(bool (*keep)(int)) const {
    VariantCounts s;
    for (int k = 0; k < kClasses; ++k)
      if (keep(k)) s.hom_ref += c[k].hom_ref, s.het += c[k].het, s.hom_alt += c[k].hom_alt, s.missing += c[k].missing;
    return s;
  }
};

// The het, hom-ALT and missing lanes of one packed row (`bytes` bytes of codes, read in place)
// into `planes` (3 × words: het, alt, miss; the lanes past the row read as 0) and their counts by
// class into `cc`: the bulk of the pass, so it is compiled once per popcount the CPU may have
// (the counts are exact either way).
template <class Popcount>
[[gnu::always_inline]] inline void count_row_body(const uint8_t* row, size_t bytes, const ClassMasks& masks,
                                                  uint64_t* planes, ClassCounts& cc, Popcount pc) {
  const size_t words = (bytes + 7) / 8, full = bytes / 8;
  uint64_t *het = planes, *alt = planes + words, *miss = planes + 2 * words;
  auto split = [&](size_t i, uint64_t w) {
    const uint64_t lo = w & kLow, hi = (w >> 1) & kLow;
    het[i] = lo & ~hi, alt[i] = hi & ~lo, miss[i] = lo & hi;
  };
  for (size_t i = 0; i < full; ++i) {
    uint64_t w;
    std::memcpy(&w, row + 8 * i, 8);
    split(i, w);
  }
  if (full < words) {
    uint64_t w = 0;
    std::memcpy(&w, row + 8 * full, bytes - 8 * full);
    split(full, w);
  }
  for (int c : masks.present) {
    const uint64_t* m = masks.mask[c].data();
    int64_t h = 0, a = 0, x = 0;
    for (size_t i = 0; i < words; ++i) {
      h += pc(het[i] & m[i]);
      a += pc(alt[i] & m[i]);
      x += pc(miss[i] & m[i]);
    }
    cc.c[c].het = h, cc.c[c].hom_alt = a, cc.c[c].missing = x;
    cc.c[c].hom_ref = masks.size[c] - h - a - x;
  }
}

using CountRowFn = void (*)(const uint8_t*, size_t, const ClassMasks&, uint64_t*, ClassCounts&);

void count_row_generic(const uint8_t* row, size_t bytes, const ClassMasks& masks, uint64_t* planes, ClassCounts& cc) {
  count_row_body(row, bytes, masks, planes, cc, [](uint64_t x) { return static_cast<int64_t>(std::popcount(x)); });
}

#if defined(__x86_64__) && defined(__GNUC__)
// The baseline build has no popcount instruction: std::popcount is a library call per word.
__attribute__((target("popcnt"))) void count_row_popcnt(const uint8_t* row, size_t bytes, const ClassMasks& masks,
                                                         uint64_t* planes, ClassCounts& cc) {
  count_row_body(row, bytes, masks, planes, cc, [](uint64_t x) { return static_cast<int64_t>(__builtin_popcountll(x)); });
}
// STRATA_CPU caps the choice like every kernel table (a portable pin takes the generic body).
CountRowFn pick_count_row() {
  return cpu_pin().max_level >= kCpuLevelAvx2 && __builtin_cpu_supports("popcnt") ? count_row_popcnt
                                                                                 : count_row_generic;
}
#else
CountRowFn pick_count_row() { return count_row_generic; }
#endif

// What one block adds to the per-sample totals.
struct BlockPartial : QcSampleSums<int32_t> {
  QcVariantRows rows;
};

// Per-sample counts of set code lanes over many rows, 8 bits per sample in 64-bit words
// (sample 32i + 4k + q in byte k of word 4i + q), added to 32-bit totals every 255 rows: a few
// word operations per 32 samples instead of one step per set lane.
class LaneCounter {
 public:
  explicit LaneCounter(int64_t words) : acc_(static_cast<size_t>(4 * words), 0) {}
  // `lanes`: the low bit of each of word i's 32 codes.
  void add(size_t i, uint64_t lanes) {
    constexpr uint64_t kByte = 0x0101010101010101ull;
    for (size_t q = 0; q < 4; ++q) acc_[4 * i + q] += (lanes >> (2 * q)) & kByte;
  }
  void row_done(std::vector<int32_t>& totals) {
    if (++rows_ == 255) flush(totals);
  }
  void flush(std::vector<int32_t>& totals) {
    if (rows_ == 0) return;
    const auto n = totals.size();
    for (size_t j = 0; j < acc_.size(); ++j) {
      if (acc_[j] == 0) continue;
      const size_t i = j / 4, q = j % 4;
      for (size_t k = 0; k < 8; ++k) {
        const size_t s = 32 * i + 4 * k + q;
        if (s < n) totals[s] += static_cast<int32_t>((acc_[j] >> (8 * k)) & 0xff);
      }
      acc_[j] = 0;
    }
    rows_ = 0;
  }

 private:
  std::vector<uint64_t> acc_;
  int rows_ = 0;
};

template <class F> void for_each_bit(uint64_t bits, int64_t base, F&& f) {
  while (bits) {
    f(base + std::countr_zero(bits) / 2);
    bits &= bits - 1;
  }
}

// The grid of variants ranks split the pass on.
constexpr int64_t kQcRankBlock = 4096;

// Every rank's totals added into rank 0's (in rank order; integers, so exact). Other ranks keep
// their own part.
Status gather_totals(const Communicator& comm, QcSampleTotals& t) {
  std::string mine;
  t.for_each_field([&](const auto& f) {
    if constexpr (requires { f.data(); }) {
      mine.append(reinterpret_cast<const char*>(f.data()), f.size() * sizeof(f[0]));
    } else {
      mine.append(reinterpret_cast<const char*>(&f), sizeof(f));
    }
  });
  std::vector<std::string> parts;
  STRATA_RETURN_NOT_OK(comm.gather(mine, &parts));
  for (size_t r = 1; r < parts.size(); ++r) {
    if (parts[r].size() != mine.size())
      return Status::CommError("qc: rank ", r, " sent ", parts[r].size(), " bytes of sample sums, rank 0 holds ",
                               mine.size());
    const char* at = parts[r].data();
    t.for_each_field([&](auto& f) {
      auto add = [&](auto& to) {
        std::remove_reference_t<decltype(to)> v;
        std::memcpy(&v, at, sizeof(v));
        at += sizeof(v);
        to += v;
      };
      if constexpr (requires { f.data(); }) {
        for (auto& x : f) add(x);
      } else {
        add(f);
      }
    });
  }
  return Status::OK();
}

}  // namespace

double het_expected(const VariantCounts& f) {
  const int64_t total = 2 * f.observed();
  // plink2: the REF frequency times the reciprocal of the allele count; 1/2 when none is observed.
  const double ref = total == 0 ? 0.5 : double(2 * f.hom_ref + f.het) * (1.0 / double(total));
  const double e = 2 * ref * (1 - ref);
  return e < 0x1p-35 ? -1.0 : e;
}

double sexcheck_expected(const VariantCounts& female, const VariantCounts& male, int64_t observed_calls) {
  const int64_t alleles = 2 * female.observed() + male.hom_ref + male.hom_alt;
  const double p = alleles == 0 ? 0.5
                                : double(2 * female.hom_alt + female.het + male.hom_alt) / double(alleles);
  if (observed_calls == 0 || p < 1e-8 || p > 1 - 1e-8) return -1.0;
  return 2 * p * (1 - p);
}

Result<QcSampleTotals> run_qc_pass(const Context& ctx, const io::GenotypeView& view,
                                   const std::vector<ChromosomeKind>& kind, const QcPassOptions& o,
                                   const std::function<Status(const QcVariantRows&)>& rows) {
  const int64_t n = view.num_samples();
  const auto nz = static_cast<size_t>(n);
  const ClassMasks masks = ClassMasks::of(view.samples(), n);
  const auto words = static_cast<size_t>(masks.words);
  QcSampleTotals t;
  t.size_for(nz, o.samples, o.het, o.sex);
  std::mutex mu;
  std::map<int64_t, BlockPartial> done;
  const CountRowFn count_row = pick_count_row();

  auto work = [&](io::GenotypeBlock& block) -> Status {
    BlockPartial p;
    const int64_t nv = block.variant_count;
    p.rows.start = block.variant_start;
    p.rows.calls.resize(static_cast<size_t>(nv));
    p.rows.founders.resize(static_cast<size_t>(nv));
    p.rows.male_founders.resize(static_cast<size_t>(nv));
    p.size_for(nz, o.samples, o.het, o.sex);
    std::vector<uint64_t> planes(3 * words);
    std::vector<uint32_t> missing_words(words);
    const uint64_t *het_lanes = planes.data(), *miss_lanes = planes.data() + 2 * words;
    LaneCounter het_counter(masks.words), x_het_counter(masks.words);
    const auto row_bytes = static_cast<size_t>(io::packed_row_bytes(n));
    for (int64_t r = 0; r < nv; ++r) {
      const int64_t v = block.variant_start + r;
      const ChromosomeKind k = kind[static_cast<size_t>(v)];
      ClassCounts cc;
      count_row(block.row(r), row_bytes, masks, planes.data(), cc);
      const bool y = k == ChromosomeKind::kY, x = k == ChromosomeKind::kX;
      const auto rr = static_cast<size_t>(r);
      p.rows.calls[rr] = y ? cc.sum(is_male_class) : cc.sum([](int) { return true; });
      if (x) {
        p.rows.founders[rr] = cc.c[class_of(true, 2)];
        p.rows.male_founders[rr] = cc.c[class_of(true, 1)];
      } else {
        p.rows.founders[rr] = cc.sum([](int c) { return c >= 3; });
      }
      const double e = o.het && !io::is_haploid_somewhere(k) ? het_expected(p.rows.founders[rr]) : -1.0;
      const bool het_row = e >= 0;
      double xe = -1.0;
      if (o.sex && x) {
        VariantCounts female = cc.c[class_of(true, 2)];
        const VariantCounts& unknown = cc.c[class_of(true, 0)];
        female.hom_ref += unknown.hom_ref, female.het += unknown.het, female.hom_alt += unknown.hom_alt;
        xe = sexcheck_expected(female, cc.c[class_of(true, 1)], p.rows.calls[rr].observed());
      }
      const bool x_row = xe >= 0;
      if (!o.samples && !het_row && !x_row) continue;
      const Fixed xfe = x_row ? static_cast<Fixed>(static_cast<uint64_t>(xe * kFixedScale)) : 0;
      if (x_row) {
        ++p.x_variants;
        p.x_expected_all += xfe;
      }
      const Fixed fe = het_row ? static_cast<Fixed>(static_cast<uint64_t>(e * kFixedScale)) : 0;
      if (het_row) {
        ++p.het_variants;
        p.het_expected_all += fe;
      }
      // A row is a `.het` row or a `--check-sex` X row, never both (X is haploid in males): one
      // walk over the (sparse) missing calls serves `.smiss` and that row's sums.
      const bool stat = het_row || x_row;
      int32_t* stat_missing = het_row ? p.het_missing.data() : p.x_missing.data();
      Fixed* stat_expected = het_row ? p.het_expected_missing.data() : p.x_expected_missing.data();
      const Fixed stat_e = het_row ? fe : xfe;
      LaneCounter& stat_hets = het_row ? het_counter : x_het_counter;
      int32_t* missing = o.samples ? p.missing.data() : nullptr;
      // The words holding a missing call, listed without a branch per word (a branch on
      // sparse bits mispredicts a good part of the time).
      const uint64_t* walk_mask = y && !stat ? masks.male.data() : masks.valid.data();
      size_t listed = 0;
      for (size_t i = 0; i < words; ++i) {
        missing_words[listed] = static_cast<uint32_t>(i);
        listed += (miss_lanes[i] & walk_mask[i]) != 0;
      }
      if (!stat) {
        for (size_t j = 0; j < listed; ++j) {
          const size_t i = missing_words[j];
          for_each_bit(miss_lanes[i] & walk_mask[i], static_cast<int64_t>(32 * i), [&](int64_t s) { ++missing[s]; });
        }
        continue;
      }
      for (size_t j = 0; j < listed; ++j) {
        const size_t i = missing_words[j];
        for_each_bit(miss_lanes[i] & walk_mask[i], static_cast<int64_t>(32 * i), [&](int64_t s) {
          if (missing) ++missing[s];
          ++stat_missing[s];
          stat_expected[s] += stat_e;
        });
      }
      for (size_t i = 0; i < words; ++i) stat_hets.add(i, het_lanes[i]);
      if (het_row) het_counter.row_done(p.het_calls);
      if (x_row) x_het_counter.row_done(p.x_het);
    }
    het_counter.flush(p.het_calls);
    x_het_counter.flush(p.x_het);
    std::lock_guard<std::mutex> lock(mu);
    done.emplace(block.variant_start, std::move(p));
    return Status::OK();
  };

  auto in_order = [&](io::GenotypeBlock& block) -> Status {
    BlockPartial p;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = done.find(block.variant_start);
      if (it == done.end()) return Status::Invalid("qc: block at variant ", block.variant_start, " was not counted");
      p = std::move(it->second);
      done.erase(it);
    }
    t.add(p);
    return rows(p.rows);
  };

  // Rows are counted one at a time, so the block height changes nothing but memory. Under MPI
  // each rank counts a contiguous part (whole blocks of a grid fixed by the data); the sums are
  // integers, so rank 0's totals are the same for any split.
  const Communicator& comm = ctx.communicator();
  const auto [first, count] = rank_range(view.num_variants(), kQcRankBlock, comm.rank(), comm.size());
  const int64_t block = std::max<int64_t>(1, io::default_block_variants(view));
  PassOptions po;
  po.label = "qc";
  const Status pass = io::for_each_genotype_block(ctx, view, first, count, block, work, in_order, po);
  if (comm.size() == 1) {
    STRATA_RETURN_NOT_OK(pass);
    return t;
  }
  STRATA_RETURN_NOT_OK(comm.agree(pass));
  STRATA_RETURN_NOT_OK(gather_totals(comm, t));
  return t;
}

}  // namespace strata::genomics::detail
