// One stretch of ld_prune: founders' calls as bit planes (read in parallel, a batch of windows
// ahead) and plink2's serial window sweep, which computes a pair's r² only when it asks for it.
#include <algorithm>
#include <bit>

#include "genomics/prune_internal.hpp"
#include "genomics/prune_kernels.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/io/genotype_decode.hpp"

namespace strata::genomics::detail {
namespace {

constexpr double kSmallEpsilon = 0x1p-44;  // plink2's tolerance on frequencies and the threshold
constexpr int64_t kBatchVariants = 256;  // new variants read while the previous ones are swept
constexpr int64_t kInlineBatchVariants = 128;  // read in turn with the sweep: planes stay in cache

// Bit planes and counts of a run of consecutive variants of the stretch, at most `capacity`
// of them, in a ring (variant i in slot i mod capacity: moving on copies nothing).
class PlaneStore {
 public:
  // The ring's size is a power of two, so a slot is a mask.
  PlaneStore(const PruneGroups& g, int64_t capacity)
      : groups_(g), cap_(static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(1, capacity))))) {
    for (int k = 0; k < 2; ++k) words_[k] = plane_words(static_cast<int64_t>(g.samples[k].size()));
    stride_ = 3 * (words_[0] + words_[1]);
    all0_ = !g.het_missing && static_cast<int64_t>(g.samples[0].size()) == g.num_view_samples;
    planes_.resize(static_cast<size_t>(cap_ * stride_));
    stats_.resize(static_cast<size_t>(2 * cap_));
    mono_.resize(static_cast<size_t>(cap_));
  }
  bool mono(int64_t i) const { return mono_[slot(i)] != 0; }
  // plink2's major-allele frequency from group 0's counts (a diploid group of every founder).
  double diploid_major_freq(int64_t i) const {
    const GroupStats& g = stats_[2 * slot(i)];
    if (g.n == 0) return 1.0;
    const double ref = static_cast<double>(2 * g.hom_ref + (g.n - g.hom_ref - g.hom_alt)) / static_cast<double>(2 * g.n);
    return ref >= 0.5 ? ref : 1.0 - ref;
  }

  // Keep variants [from, end()) and make room for `add` more after them (the caller sizes
  // the ring for the most it keeps at once).
  void shift(int64_t from, int64_t add) {
    base_ = std::clamp(from, base_, end_);
    end_ += add;
  }

  // Fill variant i (made room for) from its packed row of every view sample.
  void fill(int64_t i, const uint8_t* row, int64_t row_bytes) {
    uint64_t* p = plane(i);
    GroupStats* st = &stats_[2 * slot(i)];
    for (int k = 0; k < 2; ++k) {
      uint64_t* h = p + 3 * (k == 0 ? 0 : words_[0]);
      const int64_t w = words_[k];
      if (k == 0 && all0_) {
        fill_all_(row, row_bytes, w, h, h + w, h + 2 * w);
      } else {
        std::fill(h, h + 3 * w, uint64_t{0});
        const std::vector<int64_t>& s = groups_.samples[k];
        const bool het_missing = k == 0 && groups_.het_missing;
        for (size_t j = 0; j < s.size(); ++j) {
          uint8_t c = io::code_at(row, s[j]);
          if (het_missing && c == io::kCodeHet) c = io::kCodeMissing;
          const uint64_t bit = uint64_t{1} << (j & 63);
          if (c == io::kCodeHomRef || c == io::kCodeHomAlt) h[j >> 6] |= bit;
          if (c == io::kCodeHomRef) h[w + static_cast<int64_t>(j >> 6)] |= bit;
          if (c != io::kCodeMissing) h[2 * w + static_cast<int64_t>(j >> 6)] |= bit;
        }
      }
      GroupStats& g = st[k];
      int64_t hom = 0, ref = 0, n = 0;
      count_planes_(h, w, &hom, &ref, &n);
      g.n = n, g.ssq = hom, g.hom_ref = ref, g.hom_alt = hom - ref, g.sum = 2 * ref - hom;
      g.complete = n == static_cast<int64_t>(groups_.samples[k].size());
    }
    // No variance in the weighted calls: plink2 removes the variant as it enters its window.
    const int64_t nm = st[0].n + 2 * st[1].n;
    const int64_t plus = st[0].hom_ref + 2 * st[1].hom_ref, minus = st[0].hom_alt + 2 * st[1].hom_alt;
    mono_[slot(i)] = (plus == 0 && minus == 0) || plus == nm || minus == nm;
  }

  // Bit j set when r² of variants a < b[j] exceeds `thresh` (plink2's exact comparison),
  // count <= kMaxBatch.
  uint32_t exceeds(PairManyFn fn, int64_t a, const int64_t* b, int count, double thresh) const {
    PairParts t[kMaxBatch], u[kMaxBatch];
    const uint64_t* pb[kMaxBatch];
    const GroupStats* sb[kMaxBatch];
    for (int j = 0; j < count; ++j) pb[j] = plane(b[j]), sb[j] = &stats_[2 * slot(b[j])];
    const uint64_t* pa = plane(a);
    const GroupStats* sa = &stats_[2 * slot(a)];
    if (words_[1] == 0) return exceeds_one_group(fn, pa, sa[0], pb, sb, count, thresh);
    // X: group 1 (non-males) counts twice.
    fn(pa, pb, count, words_[0], sa[0], sb, t);
    for (int j = 0; j < count; ++j) pb[j] += 3 * words_[0], sb[j] += 1;
    fn(pa + 3 * words_[0], pb, count, words_[1], sa[1], sb, u);
    for (int j = 0; j < count; ++j) {
      t[j].n += 2 * u[j].n, t[j].dot += 2 * u[j].dot, t[j].sa += 2 * u[j].sa, t[j].qa += 2 * u[j].qa;
      t[j].sb += 2 * u[j].sb, t[j].qb += 2 * u[j].qb;
    }
    uint32_t mask = 0;
    for (int j = 0; j < count; ++j) mask |= uint32_t{exceeds_exactly(t[j], thresh)} << j;
    return mask;
  }

 private:
  // plink2's comparison of r² with the threshold, from the exact sums.
  static bool exceeds_exactly(const PairParts& t, double thresh) {
    const double cov = static_cast<double>(t.dot * t.n - t.sa * t.sb);
    const double va = static_cast<double>(t.qa * t.n - t.sa * t.sa);
    const double vb = static_cast<double>(t.qb * t.n - t.sb * t.sb);
    return cov * cov > thresh * va * vb;
  }

  // One group (every chromosome but X): the cross products first, which the kernels count
  // alone when the stats say complete; a pair is decided from them and the variants' own sums
  // when no placement of its missing calls could change the answer (bound_r2, a batch at a
  // time), and only the others take the full counts. Same answers, about a third of the
  // popcounts with missing calls.
  uint32_t exceeds_one_group(PairManyFn fn, const uint64_t* pa, const GroupStats& sa, const uint64_t* const* pb,
                             const GroupStats* const* sb, int count, double thresh) const {
    GroupStats whole[kMaxBatch + 1];  // the stats as if complete: the kernels count the cross products only
    const GroupStats* whole_b[kMaxBatch];
    whole[kMaxBatch] = sa, whole[kMaxBatch].complete = true;
    for (int j = 0; j < count; ++j) whole[j] = *sb[j], whole[j].complete = true, whole_b[j] = &whole[j];
    PairParts t[kMaxBatch];
    fn(pa, pb, count, words_[0], whole[kMaxBatch], whole_b, t);
    const auto group = static_cast<int64_t>(groups_.samples[0].size());
    int64_t dot[kMaxBatch];
    for (int j = 0; j < count; ++j) dot[j] = t[j].dot;
    uint32_t mask = 0, below = 0;
    bound_(dot, sa, sb, count, group, thresh, &mask, &below);
    int open = 0;
    int open_at[kMaxBatch];
    const uint64_t* open_pb[kMaxBatch];
    const GroupStats* open_sb[kMaxBatch];
    for (uint32_t rest = ((1u << count) - 1) & ~(mask | below); rest != 0; rest &= rest - 1) {
      const int j = std::countr_zero(rest);
      if (sa.complete && sb[j]->complete) {  // the sums are the variants' own: t[j] is exact
        mask |= uint32_t{exceeds_exactly(t[j], thresh)} << j;
      } else {
        open_at[open] = j, open_pb[open] = pb[j], open_sb[open] = sb[j], ++open;
      }
    }
    if (open > 0) {
      PairParts u[kMaxBatch];
      fn(pa, open_pb, open, words_[0], sa, open_sb, u);
      for (int k = 0; k < open; ++k) mask |= uint32_t{exceeds_exactly(u[k], thresh)} << open_at[k];
    }
    return mask;
  }

  size_t slot(int64_t i) const { return static_cast<size_t>(i & (cap_ - 1)); }
  uint64_t* plane(int64_t i) { return planes_.data() + static_cast<int64_t>(slot(i)) * stride_; }
  const uint64_t* plane(int64_t i) const { return planes_.data() + static_cast<int64_t>(slot(i)) * stride_; }

  const PruneGroups& groups_;
  int64_t cap_ = 1;
  FillAllFn fill_all_ = pick_fill_all();
  CountFn count_planes_ = pick_count();
  BoundFn bound_ = pick_bound_fn();
  int64_t words_[2] = {0, 0};
  int64_t stride_ = 0;
  bool all0_ = false;
  int64_t base_ = 0, end_ = 0;
  std::vector<uint64_t> planes_;
  std::vector<GroupStats> stats_;
  std::vector<uint8_t> mono_;
};

// plink2's sweep of one window at its end (`end`): every kept variant against the later kept
// ones it has not met, until a sweep removes nothing.
template <class Exceeds>
void sweep_window(const std::vector<int64_t>& members, std::vector<uint8_t>& rem, std::vector<int64_t>& unchecked,
                  const std::vector<double>& maj, int64_t end, std::vector<uint8_t>& removed, Exceeds exceeds) {
  const auto size = static_cast<int64_t>(members.size());
  auto next_kept = [&](int64_t s) {
    while (s < size && rem[static_cast<size_t>(s)]) ++s;
    return s;
  };
  int64_t removed_ct = std::count(rem.begin(), rem.end(), uint8_t{1});
  int64_t prev_ct = 0;
  do {
    prev_ct = removed_ct;
    for (int64_t f = next_kept(0); f < size; f = next_kept(f + 1)) {
      const int64_t a = members[static_cast<size_t>(f)];
      // The first kept variant a has not met (members ascend: a search, not a walk); a
      // variant that met them all (most, on a sweep's second pass) is passed at once.
      if (unchecked[static_cast<size_t>(a)] > members.back()) continue;
      const auto from = std::lower_bound(members.begin() + f + 1, members.end(), unchecked[static_cast<size_t>(a)]);
      int64_t s = next_kept(from - members.begin());
      // The scan meets the kept variants from s on until a hit: up to kMaxBatch of them are
      // asked for at once (nothing changes before the first hit).
      while (s < size) {
        int64_t at[kMaxBatch], b[kMaxBatch];
        int count = 0;
        for (int64_t t = s; t < size && count < kMaxBatch; t = next_kept(t + 1)) {
          at[count] = t, b[count] = members[static_cast<size_t>(t)];
          ++count;
        }
        const uint32_t hits = exceeds(a, b, count);
        if (hits == 0) {
          s = next_kept(at[count - 1] + 1);
          if (s == size) unchecked[static_cast<size_t>(a)] = end;
          continue;
        }
        const int j = std::countr_zero(hits);
        s = at[j];
        if (maj[static_cast<size_t>(a)] > maj[static_cast<size_t>(b[j])] * (1 + kSmallEpsilon)) {
          rem[static_cast<size_t>(f)] = 1;
          removed[static_cast<size_t>(a)] = 1;
        } else {
          rem[static_cast<size_t>(s)] = 1;
          removed[static_cast<size_t>(b[j])] = 1;
          const int64_t next = next_kept(s + 1);
          unchecked[static_cast<size_t>(a)] = next < size ? members[static_cast<size_t>(next)] : end;
        }
        break;
      }
    }
    removed_ct = std::count(rem.begin(), rem.end(), uint8_t{1});
  } while (removed_ct > prev_ct);
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> prune_windows(const std::vector<int64_t>& pos, int64_t len,
                                                       const PruneWindow& w) {
  std::vector<std::pair<int64_t, int64_t>> out;
  if (len <= 0) return out;
  if (!w.in_bp) {
    int64_t s = 0, e = std::min(len, w.size);
    out.emplace_back(s, e);
    while (e < len) {
      s += w.step;
      e = std::min(s + w.size, len);
      out.emplace_back(s, e);
    }
    return out;
  }
  int64_t s = 0, e = 1;
  while (e < len && pos[static_cast<size_t>(e)] <= pos[0] + w.size) ++e;
  out.emplace_back(s, e);
  while (e < len) {
    const int64_t min_bp = pos[static_cast<size_t>(e)] - w.size;
    do ++s;
    while (pos[static_cast<size_t>(s)] < min_bp);
    const int64_t thresh = pos[static_cast<size_t>(s)] + w.size;
    do ++e;
    while (e < len && pos[static_cast<size_t>(e)] <= thresh);
    out.emplace_back(s, e);
  }
  return out;
}

std::vector<std::pair<int64_t, int64_t>> prune_stretches(const std::vector<int64_t>& pos, int64_t len,
                                                         const PruneWindow& w) {
  std::vector<std::pair<int64_t, int64_t>> out;
  if (len < 2) return out;
  if (!w.in_bp) return {{0, len}};
  int64_t first = 0, prev = pos[0];
  for (int64_t i = 1; i < len; ++i) {
    const int64_t p = pos[static_cast<size_t>(i)];
    if (p >= w.size && p - w.size > prev) {
      if (i > first + 1) out.emplace_back(first, i - first);
      first = i;
    }
    prev = p;
  }
  if (len > first + 1) out.emplace_back(first, len - first);
  return out;
}

Status prune_stretch(const Context& ctx, const io::GenotypeView& view, int64_t first, int64_t len,
                     const std::vector<int64_t>& positions, const std::vector<double>& maj_freq,
                     const PruneGroups& groups, const PruneWindow& window, std::vector<uint8_t>& removed) {
  std::vector<double> own_maj;  // filled as the planes are, when maj_freq is empty
  if (maj_freq.empty()) own_maj.assign(static_cast<size_t>(len), 0.0);
  const std::vector<double>& maj = maj_freq.empty() ? own_maj : maj_freq;
  const auto windows = prune_windows(positions, len, window);
  const double thresh = window.r2 * (1 + kSmallEpsilon);
  const PairManyFn fn = pick_pair_fn();
  std::vector<int64_t> unchecked(static_cast<size_t>(len), 0);
  std::vector<int64_t> members;
  std::vector<uint8_t> rem;
  const int64_t row_bytes = io::packed_row_bytes(view.num_samples());
  // Batches of whole windows adding at most `batch_variants` new variants (at least one window):
  // many while other threads read ahead, few when this thread reads and sweeps in turn.
  const bool inline_reads = ctx.pool().size() <= 1 || ctx.pool().in_worker();
  const int64_t batch_variants = inline_reads ? kInlineBatchVariants : kBatchVariants;
  struct Batch {
    size_t k0, k1;       // windows [k0, k1]
    int64_t nb, ne;      // new variants [nb, ne)
  };
  std::vector<Batch> batches;
  for (size_t k0 = 0, prev_end = 0; k0 < windows.size();) {
    size_t k1 = k0;
    while (k1 + 1 < windows.size() && windows[k1].second - static_cast<int64_t>(prev_end) < batch_variants) ++k1;
    batches.push_back({k0, k1, static_cast<int64_t>(prev_end), windows[k1].second});
    prev_end = static_cast<size_t>(windows[k1].second);
    k0 = k1 + 1;
  }
  // The ring holds what batch b's windows reach back to and batch b + 1's new variants.
  int64_t capacity = batches.empty() ? 1 : batches[0].ne, most_new = capacity;
  for (size_t b = 0; b + 1 < batches.size(); ++b) {
    capacity = std::max(capacity, batches[b + 1].ne - windows[batches[b].k0].first);
    most_new = std::max(most_new, batches[b + 1].ne - batches[b + 1].nb);
  }
  PlaneStore store(groups, capacity);
  // Planes of batch b's new variants, in chunks that read their own rows (views are
  // thread-safe) into one buffer kept across batches.
  constexpr int64_t kFillChunk = 256;
  std::vector<uint8_t> codes(static_cast<size_t>(most_new * row_bytes));
  auto fill_chunks = [&](size_t b) { return (batches[b].ne - batches[b].nb + kFillChunk - 1) / kFillChunk; };
  auto fill_chunk = [&](size_t b, int64_t c) -> Status {
    const int64_t v0 = batches[b].nb + c * kFillChunk, v1 = std::min(batches[b].ne, v0 + kFillChunk);
    uint8_t* rows = codes.data() + (v0 - batches[b].nb) * row_bytes;
    STRATA_RETURN_NOT_OK(view.read_codes(first + v0, v1 - v0, 0, view.num_samples(), rows, row_bytes));
    for (int64_t v = v0; v < v1; ++v) {
      store.fill(v, rows + (v - v0) * row_bytes, row_bytes);
      if (!own_maj.empty()) own_maj[static_cast<size_t>(v)] = store.diploid_major_freq(v);
    }
    return Status::OK();
  };
  // The serial sweep of batch b's windows; each pair's r² is computed when the sweep asks
  // for it, so pairs with a variant already removed cost nothing.
  int64_t prev_end = 0;
  auto exceeds = [&](int64_t a, const int64_t* b, int count) { return store.exceeds(fn, a, b, count, thresh); };
  auto sweep = [&](size_t b) {
    for (size_t k = batches[b].k0; k <= batches[b].k1; ++k) {
      const auto [start, end] = windows[k];
      if (k > 0) {  // the previous window's kept variants still in this one
        size_t out = 0;
        for (size_t j = 0; j < members.size(); ++j)
          if (!rem[j] && members[j] >= start) members[out++] = members[j];
        members.resize(out);
        rem.assign(out, 0);
      }
      for (int64_t i = prev_end; i < end; ++i) {
        const bool mono = store.mono(i);
        members.push_back(i);
        rem.push_back(mono ? 1 : 0);
        if (mono) removed[static_cast<size_t>(i)] = 1;
        unchecked[static_cast<size_t>(i)] = i + 1;
      }
      sweep_window(members, rem, unchecked, maj, end, removed, exceeds);
      prev_end = end;
    }
  };
  // Batch b is swept while batch b + 1 is read, on the pool's other threads; the sweep alone
  // decides, so the result does not depend on the thread count.
  if (batches.empty()) return Status::OK();
  store.shift(0, batches[0].ne);
  STRATA_RETURN_NOT_OK(parallel_for(&ctx.pool(), fill_chunks(0), [&](int64_t c) { return fill_chunk(0, c); }));
  for (size_t b = 0; b < batches.size(); ++b) {
    const bool more = b + 1 < batches.size();
    // Keep what batch b's windows reach back to; make room for batch b + 1.
    store.shift(windows[batches[b].k0].first, more ? batches[b + 1].ne - batches[b + 1].nb : 0);
    const int64_t chunks = more ? fill_chunks(b + 1) : 0;
    STRATA_RETURN_NOT_OK(parallel_for(&ctx.pool(), 1 + chunks, [&](int64_t t) -> Status {
      if (t == 0) {
        sweep(b);
        return Status::OK();
      }
      return fill_chunk(b + 1, t - 1);
    }));
  }
  return Status::OK();
}

}  // namespace strata::genomics::detail
