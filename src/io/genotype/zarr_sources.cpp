// Zarr genotype sources: VCF Zarr (`call_genotype`) and the scikit-allel layout
// (`[contig/]calldata/GT`), both as per-call allele arrays mapped to 2-bit codes, plus plain
// 2-D dosage arrays; and the detection of which one a store holds.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "io/genotype/codes_internal.hpp"
#include "io/genotype/dosage_internal.hpp"
#include "io/genotype/sources_internal.hpp"
#include "io/genotype/zarr_meta_internal.hpp"
#include "strata/io/remote.hpp"
#include "strata/io/zarr.hpp"

namespace strata::io::detail {
namespace {

// What the Zarr sources share: the array of calls or dosages (variants × samples × …), the
// variant metadata and the samples.
class ZarrArraySource : public GenotypeView {
 public:
  ZarrArraySource(ZarrArray a, VariantMetadata meta, SampleInfo samples)
      : a_(std::move(a)), meta_(std::move(meta)), samples_(std::move(samples)) {}

  int64_t num_variants() const override { return a_.shape()[0]; }
  int64_t num_samples() const override { return a_.shape()[1]; }
  std::string describe() const override { return a_.describe(); }
  const SampleInfo& samples() const override { return samples_; }
  const std::vector<std::string>& contigs() const override { return meta_.contigs(); }
  Result<VariantInfo> variants(int64_t start, int64_t count) const override { return meta_.read(start, count); }
  int64_t variant_chunk() const override { return a_.chunk_grid().chunk_shape()[0]; }
  int64_t sample_chunk() const override { return a_.chunk_grid().chunk_shape()[1]; }
  bool reads_ahead() const override { return a_.store()->concurrency() > 1; }
  void prefetch_variants(int64_t start, int64_t count, int64_t window_bytes) const override {
    meta_.prefetch(start, count, window_bytes);
  }

 protected:
  Status check_block(int64_t v0, int64_t nv, int64_t s0, int64_t ns) const {
    if (v0 < 0 || nv < 0 || v0 + nv > num_variants() || s0 < 0 || ns < 0 || s0 + ns > num_samples())
      return Status::Invalid(describe(), ": block out of bounds");
    return Status::OK();
  }

  ZarrArray a_;
  VariantMetadata meta_;
  SampleInfo samples_;
};

// Per-call allele arrays (variants × samples × ploidy): VCF Zarr or scikit-allel.
class CallsSource final : public ZarrArraySource {
 public:
  using ZarrArraySource::ZarrArraySource;

  SourceReport report() const override {
    SourceReport r = meta_.report();
    r.polyploid_calls = polyploid_.load();
    return r;
  }
  void prefetch_codes(int64_t v0, int64_t nv, int64_t window_bytes) const override {
    a_.prefetch_region({v0, 0, 0}, {nv, a_.shape()[1], a_.shape()[2]}, window_bytes);
  }

  Status read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out,
                    int64_t stride) const override {
    STRATA_RETURN_NOT_OK(check_block(v0, nv, s0, ns));
    const int64_t p = a_.shape()[2];
    if (nv == 0) return Status::OK();
    STRATA_ASSIGN_OR_RETURN(int64_t cells, checked_mul(nv * ns, p));
    int64_t poly = 0;
    Status result;
    Status st = visit_scalar(a_.dtype().type, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
        std::vector<T> buf(static_cast<size_t>(cells));
        result = a_.read_region({v0, s0, 0}, {nv, ns, p}, buf.data());
        if (!result.ok()) return;
        for (int64_t v = 0; v < nv; ++v) {
          uint8_t* row = out + v * stride;
          const T* calls = buf.data() + v * ns * p;
          uint32_t byte = 0;
          for (int64_t s = 0; s < ns; ++s) {
            bool polyploid = false;
            byte |= uint32_t{call_to_code(calls + s * p, p, polyploid)} << (2 * (s & 3));
            poly += polyploid;
            if ((s & 3) == 3) {
              row[s >> 2] = static_cast<uint8_t>(byte);
              byte = 0;
            }
          }
          if (ns & 3) row[ns >> 2] = static_cast<uint8_t>(byte | (0xFFu << (2 * (ns & 3))));
        }
      }
    });
    if (!st.ok()) return st;
    if (!result.ok()) return result;
    polyploid_ += poly;
    return Status::OK();
  }

 private:
  mutable std::atomic<int64_t> polyploid_{0};
};

// A 2-D integer or float array of ALT dosages. Integer arrays are hard calls: 0, 1, 2 are
// calls; negative integers (−1 …) and an unsigned type's largest value (255) are missing.
// Float arrays are dosages (imputed data): a value in [0, 2] is rounded to plink2's 1/16384,
// its hard call is the nearest of 0, 1, 2 within 0.1 (else missing), and read_dosages gives the
// rounded value; NaN and negative integers (−1.0) are missing. Anything else — an integer
// above 2, 2.5, an infinity, −0.5 — is an error naming the array and the first such value:
// reading it as missing would silently change the answer.
class DosageSource final : public ZarrArraySource {
 public:
  using ZarrArraySource::ZarrArraySource;

  void prefetch_codes(int64_t v0, int64_t nv, int64_t window_bytes) const override {
    a_.prefetch_region({v0, 0}, {nv, a_.shape()[1]}, window_bytes);
  }
  bool has_dosages() const override { return a_.dtype().is_float(); }

  Status read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out,
                    int64_t stride) const override {
    return read_box(v0, nv, s0, ns, [&](int64_t v, int64_t s, uint16_t units, uint8_t code) {
      (void)units;
      uint8_t* row = out + v * stride;
      if (s == 0) std::fill(row, row + packed_row_bytes(ns), uint8_t{0});
      row[s >> 2] = static_cast<uint8_t>(row[s >> 2] | (code << (2 * (s & 3))));
      if (s == ns - 1) pad_row(row, ns);
    });
  }

  Status read_dosages(int64_t v0, int64_t nv, int64_t s0, int64_t ns, float* out, int64_t stride) const override {
    if (stride < ns) return Status::Invalid(describe(), ": read_dosages stride below the sample count");
    return read_box(v0, nv, s0, ns, [&](int64_t v, int64_t s, uint16_t units, uint8_t) {
      out[v * stride + s] = units_dosage(units);
    });
  }

 private:
  // Reads the box and hands `put(v, s, units, code)` each value (row-major) as plink2's dosage
  // units (kDosageMissingUnits when missing) and its hard call.
  template <class Put>
  Status read_box(int64_t v0, int64_t nv, int64_t s0, int64_t ns, Put&& put) const {
    STRATA_RETURN_NOT_OK(check_block(v0, nv, s0, ns));
    Status result;
    Status st = visit_scalar(a_.dtype().type, [&](auto tag) {
      using T = std::conditional_t<std::is_same_v<decltype(tag), bool>, uint8_t, decltype(tag)>;
      std::vector<T> buf(static_cast<size_t>(nv * ns));
      result = a_.read_region({v0, s0}, {nv, ns}, buf.data());
      if (!result.ok()) return;
      for (int64_t v = 0; v < nv; ++v) {
        for (int64_t s = 0; s < ns; ++s) {
          const T x = buf[v * ns + s];
          uint16_t units = kDosageMissingUnits;
          bool bad = false;
          if constexpr (std::is_floating_point_v<T>) {
            const double d = static_cast<double>(x);
            if (is_dosage_value(d)) units = dosage_units(d);
            else bad = !(std::isnan(d) || (std::isfinite(d) && d < 0 && d == std::floor(d)));
          } else if (x == T(0) || x == T(1) || x == T(2)) {
            units = static_cast<uint16_t>(static_cast<int>(x) * kDosageUnit);
          } else if constexpr (std::is_signed_v<T>) {
            bad = x > T(2);
          } else {
            bad = x != std::numeric_limits<T>::max();  // unsigned: all ones (255) marks missing
          }
          if (bad) {
            result = Status::InvalidData(
                describe(), ": dosage ", static_cast<double>(x), " at variant ", v0 + v, ", sample ", s0 + s,
                " is not a dosage (0..2, fractional only in a float array; NaN, a negative integer or an unsigned "
                "maximum for missing)");
            return;
          }
          put(v, s, units, hard_call_of_units(units));
        }
      }
    });
    if (!st.ok()) return st;
    return result;
  }
};

// Several call sources over the same samples, one after another (allel per-contig groups).
class ConcatView final : public GenotypeView {
 public:
  explicit ConcatView(std::vector<GenotypeViewPtr> parts) : parts_(std::move(parts)) {
    std::unordered_map<std::string, int32_t> index;
    int64_t total = 0;
    for (const auto& p : parts_) {
      starts_.push_back(total);
      total += p->num_variants();
      std::vector<int32_t> map;
      for (const auto& c : p->contigs()) {
        auto it = index.find(c);
        if (it == index.end()) {
          it = index.emplace(c, static_cast<int32_t>(contigs_.size())).first;
          contigs_.push_back(c);
        }
        map.push_back(it->second);
      }
      contig_map_.push_back(std::move(map));
    }
    starts_.push_back(total);
  }
  int64_t num_variants() const override { return starts_.back(); }
  int64_t num_samples() const override { return parts_[0]->num_samples(); }
  std::string describe() const override { return parts_[0]->describe(); }
  const SampleInfo& samples() const override { return parts_[0]->samples(); }
  const std::vector<std::string>& contigs() const override { return contigs_; }
  int64_t variant_chunk() const override { return parts_[0]->variant_chunk(); }
  SourceReport report() const override {
    SourceReport r;
    for (const auto& p : parts_) {
      const SourceReport q = p->report();
      r.multiallelic_sites += q.multiallelic_sites;
      r.skipped_sites += q.skipped_sites;
      r.polyploid_calls += q.polyploid_calls;
    }
    return r;
  }
  Result<VariantInfo> variants(int64_t start, int64_t count) const override {
    VariantInfo out;
    out.start = start;
    Status st = for_parts(start, count, [&](size_t k, int64_t local, int64_t n, int64_t) -> Status {
      STRATA_ASSIGN_OR_RETURN(VariantInfo part, parts_[k]->variants(local, n));
      for (int64_t i = 0; i < n; ++i) {
        out.append_from(part, i);
        out.contig.back() = contig_map_[k][part.contig[i]];
      }
      return Status::OK();
    });
    if (!st.ok()) return st;
    return out;
  }
  Status read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out,
                    int64_t stride) const override {
    return for_parts(v0, nv, [&](size_t k, int64_t local, int64_t n, int64_t offset) {
      return parts_[k]->read_codes(local, n, s0, ns, out + offset * stride, stride);
    });
  }
  bool reads_ahead() const override { return parts_[0]->reads_ahead(); }
  void prefetch_codes(int64_t v0, int64_t nv, int64_t window_bytes) const override {
    (void)for_parts(v0, nv, [&](size_t k, int64_t local, int64_t n, int64_t) {
      parts_[k]->prefetch_codes(local, n, window_bytes);
      return Status::OK();
    });
  }
  void prefetch_variants(int64_t v0, int64_t nv, int64_t window_bytes) const override {
    (void)for_parts(v0, nv, [&](size_t k, int64_t local, int64_t n, int64_t) {
      parts_[k]->prefetch_variants(local, n, window_bytes);
      return Status::OK();
    });
  }

 private:
  template <class F>
  Status for_parts(int64_t start, int64_t count, F&& fn) const {
    if (start < 0 || count < 0 || start + count > num_variants()) return Status::Invalid("variant range out of bounds");
    for (size_t k = 0; k < parts_.size() && count > 0; ++k) {
      const int64_t lo = std::max(start, starts_[k]), hi = std::min(start + count, starts_[k + 1]);
      if (lo < hi) STRATA_RETURN_NOT_OK(fn(k, lo - starts_[k], hi - lo, lo - start));
    }
    return Status::OK();
  }
  std::vector<GenotypeViewPtr> parts_;
  std::vector<int64_t> starts_;
  std::vector<std::string> contigs_;
  std::vector<std::vector<int32_t>> contig_map_;
};

std::string join_path(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "/" + b;
}

std::string parent_path(const std::string& p) {
  const size_t slash = p.rfind('/');
  return slash == std::string::npos ? std::string() : p.substr(0, slash);
}

bool is_array(const std::shared_ptr<Store>& store, const std::string& path) {
  auto info = zarr_node_info(store, path);
  return info.ok() && info->kind == NodeKind::Array;
}

GenotypeViewPtr maybe_skip(GenotypeViewPtr view, const VariantMetadata& meta, const GenotypeOpenOptions& o) {
  if (o.multiallelic != MultiallelicMode::Skip || meta.report().skipped_sites == 0) return view;
  return make_variant_subset(std::move(view), meta.kept());
}

// Calls array at `gt_path`; metadata in `group` (VCF Zarr) or in `group` allel-style.
Result<GenotypeViewPtr> open_calls(const std::shared_ptr<Store>& store, const std::string& gt_path,
                                   bool allel, const std::string& group, const GenotypeOpenOptions& o) {
  STRATA_ASSIGN_OR_RETURN(ZarrArray gt, ZarrArray::open(store, gt_path));
  if (gt.ndim() != 3 || !gt.dtype().is_signed_int())
    return Status::Unsupported(gt.describe(), ": expected a (variants, samples, ploidy) signed integer genotype array, found ",
                           gt.dtype().name(), " of shape ", shape_to_string(gt.shape()));
  STRATA_ASSIGN_OR_RETURN(SampleInfo samples, read_sample_info(store, group, allel, gt.shape()[1]));
  STRATA_ASSIGN_OR_RETURN(VariantMetadata meta, VariantMetadata::open(store, group, allel, gt.shape()[0], o.multiallelic));
  GenotypeViewPtr view = std::make_shared<CallsSource>(std::move(gt), meta, std::move(samples));
  return maybe_skip(std::move(view), meta, o);
}

Result<GenotypeViewPtr> open_dosage(const std::shared_ptr<Store>& store, const std::string& path,
                                    const GenotypeOpenOptions& o) {
  STRATA_ASSIGN_OR_RETURN(ZarrArray a, ZarrArray::open(store, path));
  if (a.ndim() != 2 || !(a.dtype().is_integer() || a.dtype().is_float()))
    return Status::Unsupported(a.describe(), ": expected a 2-D (variants, samples) dosage array, found ",
                           a.dtype().name(), " of shape ", shape_to_string(a.shape()));
  const std::string group = parent_path(path);
  STRATA_ASSIGN_OR_RETURN(SampleInfo samples, read_sample_info(store, group, false, a.shape()[1]));
  STRATA_ASSIGN_OR_RETURN(VariantMetadata meta, VariantMetadata::open(store, group, false, a.shape()[0], o.multiallelic));
  GenotypeViewPtr view = std::make_shared<DosageSource>(std::move(a), meta, std::move(samples));
  return maybe_skip(std::move(view), meta, o);
}

Result<GenotypeViewPtr> open_array(const std::shared_ptr<Store>& store, const std::string& path,
                                   const GenotypeOpenOptions& o) {
  STRATA_ASSIGN_OR_RETURN(ZarrArray a, ZarrArray::open(store, path));
  if (a.ndim() == 2) return open_dosage(store, path, o);
  const bool allel = path == "calldata/GT" || path.ends_with("/calldata/GT");
  const std::string group = allel ? parent_path(parent_path(path)) : parent_path(path);
  return open_calls(store, path, allel, group, o);
}

}  // namespace

Result<GenotypeViewPtr> open_zarr_genotypes(const std::string& path, const GenotypeOpenOptions& options) {
  STRATA_ASSIGN_OR_RETURN(StoreLocation loc, open_zarr_location(path));
  std::shared_ptr<Store> store = loc.store;
  const std::string node = join_path(loc.node_path, options.array);
  STRATA_ASSIGN_OR_RETURN(ZarrNodeInfo info, zarr_node_info(store, node));
  if (info.kind == NodeKind::Missing) {
    return Status::NotFound(path, options.array.empty() ? "" : "/" + options.array,
                            ": no Zarr array or group there");
  }
  if (info.kind == NodeKind::Array) return open_array(store, node, options);

  if (is_array(store, join_path(node, "call_genotype")))
    return open_calls(store, join_path(node, "call_genotype"), false, node, options);
  if (is_array(store, join_path(node, "calldata/GT")))
    return open_calls(store, join_path(node, "calldata/GT"), true, node, options);
  // scikit-allel grouped by contig: <contig>/calldata/GT, concatenated in name order.
  STRATA_ASSIGN_OR_RETURN(auto children, store->list_dir(node));
  std::vector<GenotypeViewPtr> parts;
  std::vector<std::string> dosage_candidates;
  for (const auto& c : children) {
    if (c.empty() || c[0] == '.') continue;
    const std::string child = join_path(node, c);
    if (is_array(store, join_path(child, "calldata/GT"))) {
      STRATA_ASSIGN_OR_RETURN(auto part, open_calls(store, join_path(child, "calldata/GT"), true, child, options));
      if (!parts.empty() && part->num_samples() != parts[0]->num_samples())
        return Status::InvalidData(path, ": contig groups have different sample counts");
      parts.push_back(std::move(part));
    } else if (is_array(store, child)) {
      auto a = ZarrArray::open(store, child);
      if (a.ok() && a->ndim() == 2 && (a->dtype().is_integer() || a->dtype().is_float())) dosage_candidates.push_back(child);
    }
  }
  if (parts.size() == 1) return parts[0];
  if (!parts.empty()) return GenotypeViewPtr(std::make_shared<ConcatView>(std::move(parts)));
  const std::string dosage = join_path(node, "dosage");
  if (is_array(store, dosage)) return open_dosage(store, dosage, options);
  if (dosage_candidates.size() == 1) return open_dosage(store, dosage_candidates[0], options);
  return Status::NotFound(path, ": no genotypes found (looked for call_genotype, calldata/GT, <contig>/calldata/GT ",
                          "and a 2-D dosage array", dosage_candidates.size() > 1 ? "; several 2-D arrays: pick one with --array" : "",
                          ")");
}

}  // namespace strata::io::detail
