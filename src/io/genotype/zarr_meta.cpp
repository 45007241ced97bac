// Variant and sample metadata of Zarr genotype stores (see zarr_meta_internal.hpp).
#include <nlohmann/json.hpp>

#include <unordered_map>

#include "io/genotype/sample_ids_internal.hpp"
#include "io/genotype/zarr_meta_internal.hpp"

namespace strata::io::detail {
namespace {

constexpr int64_t kScanRows = 65536;
constexpr int64_t kScanMetadataBytes = int64_t{64} << 20;  // read-ahead window of the scans

std::string join_child_path(const std::string& a, const std::string& b) { return a.empty() ? b : a + "/" + b; }

bool node_is_array(const std::shared_ptr<Store>& store, const std::string& path) {
  auto info = zarr_node_info(store, path);
  return info.ok() && info->kind == NodeKind::Array;
}

Result<std::optional<ZarrArray>> optional_array(const std::shared_ptr<Store>& store, const std::string& path,
                                                int64_t length) {
  if (!node_is_array(store, path)) return std::optional<ZarrArray>();
  STRATA_ASSIGN_OR_RETURN(ZarrArray a, ZarrArray::open(store, path));
  if (a.ndim() < 1 || a.shape()[0] != length || !a.dtype().is_integer())
    return Status::Corrupt(a.describe(), ": expected ", length, " integers along its first axis, found ",
                           a.dtype().name(), " of shape ", shape_to_string(a.shape()));
  return std::optional<ZarrArray>(std::move(a));
}

Result<std::optional<ZarrStringArray>> optional_strings(const std::shared_ptr<Store>& store, const std::string& path,
                                                    int64_t length) {
  if (!node_is_array(store, path)) return std::optional<ZarrStringArray>();
  STRATA_ASSIGN_OR_RETURN(ZarrStringArray a, ZarrStringArray::open(store, path));
  if (a.shape()[0] != length)
    return Status::Corrupt(store->describe(), "/", path, ": has ", a.shape()[0], " entries, expected ", length);
  return std::optional<ZarrStringArray>(std::move(a));
}

std::string join_alts(const std::vector<std::string>& row, size_t first, size_t end) {
  std::string out;
  for (size_t k = first; k < end; ++k) {
    if (row[k].empty()) continue;
    if (!out.empty()) out += ',';
    out += row[k];
  }
  return out;
}

}  // namespace

Result<std::vector<int64_t>> read_int64(const ZarrArray& a, int64_t start, int64_t count) {
  std::vector<int64_t> out(static_cast<size_t>(count));
  Status result;
  Status st = visit_scalar(a.dtype().type, [&](auto tag) {
    using T = std::conditional_t<std::is_same_v<decltype(tag), bool>, uint8_t, decltype(tag)>;
    std::vector<T> buf(static_cast<size_t>(count));
    result = a.read_region({start}, {count}, buf.data());
    for (int64_t i = 0; i < count; ++i) out[i] = static_cast<int64_t>(buf[i]);
  });
  if (!st.ok()) return st;
  if (!result.ok()) return result;
  return out;
}

Result<VariantMetadata> VariantMetadata::open(const std::shared_ptr<Store>& store, const std::string& group,
                                              bool allel, int64_t m, MultiallelicMode mode) {
  VariantMetadata md;
  md.m_ = m;
  md.allel_ = allel;
  const auto at = [&](const char* name) { return join_child_path(group, name); };
  if (!allel) {
    STRATA_ASSIGN_OR_RETURN(md.position_, optional_array(store, at("variant_position"), m));
    STRATA_ASSIGN_OR_RETURN(md.contig_, optional_array(store, at("variant_contig"), m));
    STRATA_ASSIGN_OR_RETURN(md.id_, optional_strings(store, at("variant_id"), m));
    STRATA_ASSIGN_OR_RETURN(md.alleles_, optional_strings(store, at("variant_allele"), m));
    if (node_is_array(store, at("contig_id"))) {
      STRATA_ASSIGN_OR_RETURN(ZarrStringArray c, ZarrStringArray::open(store, at("contig_id")));
      STRATA_ASSIGN_OR_RETURN(md.contigs_, c.read_rows(0, c.shape()[0]));
    } else if (md.contig_) {
      int64_t max_index = 0;
      for (int64_t r = 0; r < m; r += kScanRows) {
        STRATA_ASSIGN_OR_RETURN(auto idx, read_int64(*md.contig_, r, std::min(kScanRows, m - r)));
        for (int64_t x : idx) max_index = std::max(max_index, x);
      }
      for (int64_t i = 0; i <= max_index; ++i) md.contigs_.push_back(std::to_string(i));
    }
  } else {
    STRATA_ASSIGN_OR_RETURN(md.position_, optional_array(store, at("variants/POS"), m));
    STRATA_ASSIGN_OR_RETURN(md.id_, optional_strings(store, at("variants/ID"), m));
    STRATA_ASSIGN_OR_RETURN(md.ref_, optional_strings(store, at("variants/REF"), m));
    STRATA_ASSIGN_OR_RETURN(md.alt_, optional_strings(store, at("variants/ALT"), m));
    STRATA_ASSIGN_OR_RETURN(md.chrom_, optional_strings(store, at("variants/CHROM"), m));
    if (md.chrom_) {
      std::unordered_map<std::string, int32_t> index;
      md.chrom_index_.reserve(static_cast<size_t>(m));
      for (int64_t r = 0; r < m; r += kScanRows) {
        STRATA_ASSIGN_OR_RETURN(auto names, md.chrom_->read_rows(r, std::min(kScanRows, m - r)));
        for (auto& name : names) {
          auto it = index.find(name);
          if (it == index.end()) {
            it = index.emplace(name, static_cast<int32_t>(md.contigs_.size())).first;
            md.contigs_.push_back(name);
          }
          md.chrom_index_.push_back(it->second);
        }
      }
    } else if (!group.empty()) {
      md.contigs_.push_back(group.substr(group.rfind('/') + 1));  // per-contig group name
    }
  }
  if (md.contigs_.empty()) md.contigs_.push_back("0");

  // Multi-allelic sites: more than one non-empty ALT.
  const ZarrStringArray* a = md.alleles_ ? &*md.alleles_ : (md.alt_ ? &*md.alt_ : nullptr);
  if (a) {
    const int64_t cols = a->columns();
    const size_t first_alt = md.alleles_ ? 1 : 0;
    for (int64_t r = 0; r < m; r += kScanRows) {
      const int64_t n = std::min(kScanRows, m - r);
      // The next slice's chunks are fetched (remote stores) while this one is scanned.
      if (r + n < m) a->prefetch_rows(r + n, std::min(kScanRows, m - r - n), kScanMetadataBytes);
      STRATA_ASSIGN_OR_RETURN(auto rows, a->read_rows(r, n));
      for (int64_t i = 0; i < n; ++i) {
        int64_t alts = 0;
        for (int64_t k = static_cast<int64_t>(first_alt); k < cols; ++k) alts += !rows[i * cols + k].empty();
        if (alts > 1) {
          ++md.report_.multiallelic_sites;
          if (mode == MultiallelicMode::Skip) {
            ++md.report_.skipped_sites;
            continue;
          }
        }
        if (mode == MultiallelicMode::Skip) md.kept_.push_back(r + i);
      }
    }
  }
  return md;
}

void VariantMetadata::prefetch(int64_t start, int64_t count, int64_t window_bytes) const {
  for (const auto* a : {&position_, &contig_})
    if (*a) (*a)->prefetch_region({start}, {count}, window_bytes);
  for (const auto* a : {&id_, &alleles_, &ref_, &alt_})
    if (*a) (*a)->prefetch_rows(start, count, window_bytes);
}

Result<VariantInfo> VariantMetadata::read(int64_t start, int64_t count) const {
  if (start < 0 || count < 0 || start + count > m_) return Status::Invalid("variant range out of bounds");
  VariantInfo info;
  info.start = start;
  if (position_) {
    STRATA_ASSIGN_OR_RETURN(info.position, read_int64(*position_, start, count));
  } else {
    for (int64_t i = 0; i < count; ++i) info.position.push_back(start + i + 1);
  }
  info.contig.assign(static_cast<size_t>(count), 0);
  if (contig_) {
    STRATA_ASSIGN_OR_RETURN(auto c, read_int64(*contig_, start, count));
    for (int64_t i = 0; i < count; ++i) info.contig[i] = static_cast<int32_t>(c[i]);
  } else if (!chrom_index_.empty()) {
    for (int64_t i = 0; i < count; ++i) info.contig[i] = chrom_index_[start + i];
  }
  if (id_) {
    STRATA_ASSIGN_OR_RETURN(info.id, id_->read_rows(start, count));
  } else {
    info.id.assign(static_cast<size_t>(count), ".");
  }
  info.ref.assign(static_cast<size_t>(count), "");
  info.alt.assign(static_cast<size_t>(count), "");
  if (alleles_) {
    const int64_t cols = alleles_->columns();
    STRATA_ASSIGN_OR_RETURN(auto rows, alleles_->read_rows(start, count));
    for (int64_t i = 0; i < count; ++i) {
      std::vector<std::string> row(rows.begin() + i * cols, rows.begin() + (i + 1) * cols);
      info.ref[i] = row.empty() ? "" : row[0];
      info.alt[i] = join_alts(row, 1, row.size());
    }
  }
  if (ref_) {
    STRATA_ASSIGN_OR_RETURN(info.ref, ref_->read_rows(start, count));
    info.ref.resize(static_cast<size_t>(count));
  }
  if (alt_) {
    const int64_t cols = alt_->columns();
    STRATA_ASSIGN_OR_RETURN(auto rows, alt_->read_rows(start, count));
    for (int64_t i = 0; i < count; ++i) {
      std::vector<std::string> row(rows.begin() + i * cols, rows.begin() + (i + 1) * cols);
      info.alt[i] = join_alts(row, 0, row.size());
    }
  }
  info.cm.assign(static_cast<size_t>(count), 0.0);
  return info;
}

Result<SampleInfo> read_sample_info(const std::shared_ptr<Store>& store, const std::string& group, bool allel,
                                    int64_t n) {
  SampleInfo s;
  const auto strings = [&](const std::string& path, std::vector<std::string>& out) -> Status {
    STRATA_ASSIGN_OR_RETURN(auto a, optional_strings(store, path, n));
    if (a) {
      STRATA_ASSIGN_OR_RETURN(out, a->read_rows(0, n));
    }
    return Status::OK();
  };
  if (!allel) {
    STRATA_RETURN_NOT_OK(strings(join_child_path(group, "sample_id"), s.id));
  } else {
    STRATA_RETURN_NOT_OK(strings(join_child_path(group, "samples"), s.id));
    // Per-contig groups keep the samples at the root.
    if (s.id.empty() && !group.empty()) STRATA_RETURN_NOT_OK(strings("samples", s.id));
  }
  STRATA_RETURN_NOT_OK(detail::check_unique_sample_ids(
      s.id, store->describe() + "/" + join_child_path(group, allel ? "samples" : "sample_id")));
  if (s.id.empty())
    for (int64_t i = 0; i < n; ++i) s.id.push_back(std::to_string(i));
  STRATA_RETURN_NOT_OK(strings(join_child_path(group, "sample_family_id"), s.family_id));
  STRATA_RETURN_NOT_OK(strings(join_child_path(group, "sample_paternal_id"), s.paternal_id));
  STRATA_RETURN_NOT_OK(strings(join_child_path(group, "sample_maternal_id"), s.maternal_id));
  STRATA_RETURN_NOT_OK(strings(join_child_path(group, "sample_phenotype"), s.phenotype));
  STRATA_ASSIGN_OR_RETURN(auto sex, optional_array(store, join_child_path(group, "sample_sex"), n));
  if (sex && sex->ndim() == 1) {
    STRATA_ASSIGN_OR_RETURN(auto v, read_int64(*sex, 0, n));
    for (int64_t x : v) s.sex.push_back(static_cast<int8_t>(x == 1 || x == 2 ? x : 0));
  }
  STRATA_ASSIGN_OR_RETURN(auto pop, optional_array(store, join_child_path(group, "sample_population"), n));
  if (pop && pop->ndim() == 1) {
    STRATA_ASSIGN_OR_RETURN(auto v, read_int64(*pop, 0, n));
    const auto attrs = nlohmann::json::parse(pop->attributes_json(), nullptr, /*allow_exceptions=*/false);
    const auto names = attrs.is_object() ? attrs.value("populations", nlohmann::json::array()) : nlohmann::json();
    for (int64_t x : v) {
      if (names.is_array() && x >= 0 && x < static_cast<int64_t>(names.size()) && names[x].is_string())
        s.population.push_back(names[x].get<std::string>());
      else
        s.population.push_back("pop" + std::to_string(x));
    }
  }
  return s;
}

}  // namespace strata::io::detail
