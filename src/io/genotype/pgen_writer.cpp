// PLINK 2 fileset writer: `.pgen` storage mode 0x10 (pgen_spec "Header": 8-bit record types,
// 4-byte record lengths, no allele counts or provisional-REF flags), `.pvar` and `.psam`.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "io/genotype/block_writer_internal.hpp"
#include "io/genotype/pgen_decode_internal.hpp"
#include "io/genotype/staged_file_internal.hpp"
#include "strata/io/chromosome.hpp"
#include "strata/io/genotype_writers.hpp"

namespace strata::io {
namespace {

using detail::pgen::kBlockVariants;
constexpr uint8_t kRawHardcalls = 0x00;                // main track stored as plain 2-bit codes
constexpr uint8_t kDenseDosage = 0x40;                 // dosage track: every sample, 65535 = missing
constexpr uint8_t kHeaderControl = 0x07;               // 8-bit types, 4-byte lengths


int64_t index_bytes(int64_t m) {
  const int64_t blocks = (m + kBlockVariants - 1) / kBlockVariants;
  return 8 * blocks + m * (1 + 4);
}

// The hard call of `code` as a dosage (NaN for missing), to tell which rows need a dosage track.
bool dosage_matches_call(float d, uint8_t code) {
  return code == 3 ? std::isnan(d) : d == static_cast<float>(code);
}

void put_le(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) out.push_back(static_cast<uint8_t>(v >> (8 * k)));
}

std::string psam_text(const SampleInfo& s) {
  auto has = [&](const std::vector<std::string>& col, const char* unknown) {
    return std::any_of(col.begin(), col.end(), [&](const std::string& v) { return v != unknown && !v.empty(); });
  };
  const bool fid = has(s.family_id, "0"), parents = has(s.paternal_id, "0") || has(s.maternal_id, "0");
  const bool pheno = has(s.phenotype, "-9");
  std::string t = fid ? "#FID\tIID" : "#IID";
  if (parents) t += "\tPAT\tMAT";
  t += "\tSEX";
  if (pheno) t += "\tPHENO1";
  t += '\n';
  auto at = [](const std::vector<std::string>& col, int64_t i, const char* dflt) {
    return i < static_cast<int64_t>(col.size()) && !col[static_cast<size_t>(i)].empty() ? col[static_cast<size_t>(i)]
                                                                                        : std::string(dflt);
  };
  for (int64_t i = 0; i < s.size(); ++i) {
    if (fid) t += at(s.family_id, i, "0") + '\t';
    t += s.id[static_cast<size_t>(i)];
    if (parents) t += '\t' + at(s.paternal_id, i, "0") + '\t' + at(s.maternal_id, i, "0");
    const int sex = i < static_cast<int64_t>(s.sex.size()) ? s.sex[static_cast<size_t>(i)] : 0;
    t += sex == 1 ? "\t1" : sex == 2 ? "\t2" : "\tNA";
    if (pheno) {
      const std::string p = at(s.phenotype, i, "-9");
      t += '\t' + (p == "-9" ? std::string("NA") : p);
    }
    t += '\n';
  }
  return t;
}

// A `.psam`/`.pvar` field must not hold whitespace (the reader splits on it).
Status check_ids(const std::string& path, const SampleInfo& s) {
  for (int64_t i = 0; i < s.size(); ++i)
    for (const auto* col : {&s.family_id, &s.id, &s.paternal_id, &s.maternal_id})
      if (i < static_cast<int64_t>(col->size())) {
        const std::string& v = (*col)[static_cast<size_t>(i)];
        if (v.find_first_of(" \t\r\n") != std::string::npos || (!v.empty() && v[0] == '#'))
          return Status::InvalidData(path, ": sample ", i + 1, " has the ID '", v, "', which a .psam cannot hold");
      }
  return Status::OK();
}

// Encode one block's records: the raw 2-bit main track, then the dosages where they say more.
Status encode_pgen_block(const GenotypeView& view, const std::string& path, const GenotypeBlock& b,
                         detail::EncodedBlock& e) {
  const int64_t n = b.sample_count, row_bytes = packed_row_bytes(n);
  STRATA_ASSIGN_OR_RETURN(std::vector<float> dosages, detail::block_dosages(view, b));
  const int rem = static_cast<int>(n & 3);
  e.bytes.reserve(static_cast<size_t>(b.variant_count * row_bytes));
  for (int64_t v = 0; v < b.variant_count; ++v) {
    STRATA_RETURN_NOT_OK(detail::check_biallelic(path, e.info, v));
    const uint8_t* row = b.row(v);
    const size_t at = e.bytes.size();
    e.bytes.insert(e.bytes.end(), row, row + row_bytes);
    if (rem) e.bytes.back() = static_cast<uint8_t>(e.bytes.back() & ((1u << (2 * rem)) - 1));  // spec: trailing bits 0
    uint8_t type = kRawHardcalls;
    if (!dosages.empty()) {
      const float* d = dosages.data() + v * n;
      bool extra = false;
      for (int64_t j = 0; j < n && !extra; ++j) extra = !dosage_matches_call(d[j], code_at(row, j));
      if (extra) {
        type |= kDenseDosage;
        for (int64_t j = 0; j < n; ++j) {
          const float x = d[j];
          if (std::isnan(x)) {
            put_le(e.bytes, 65535, 2);
            continue;
          }
          if (!(x >= 0.0f && x <= 2.0f))
            return Status::InvalidData(view.describe(), ": variant ", b.variant_start + v + 1, " sample ", j + 1,
                                       " has the dosage ", x, " (outside [0, 2]), which ", path, " cannot hold");
          put_le(e.bytes, static_cast<uint64_t>(std::lround(x * 16384.0f)), 2);
        }
      }
    }
    e.types.push_back(type);
    e.lengths.push_back(static_cast<uint32_t>(e.bytes.size() - at));
  }
  return Status::OK();
}

}  // namespace

PgenOutputPaths pgen_output_paths(const std::string& prefix_or_path) {
  std::string prefix = prefix_or_path;
  for (std::string_view ext : {".pgen", ".pvar", ".psam"})
    if (prefix.ends_with(ext)) prefix.resize(prefix.size() - ext.size());
  return {prefix + ".pgen", prefix + ".pvar", prefix + ".psam"};
}

Status write_pgen(const Context& ctx, const GenotypeView& view, const std::string& prefix_or_path,
                  const GenotypeWriteOptions& options) {
  const PgenOutputPaths p = pgen_output_paths(prefix_or_path);
  const int64_t m = view.num_variants(), n = view.num_samples();
  if (m > 0x7ffffffd || n > 0x7ffffffd)
    return Status::Invalid(p.pgen, ": ", m, " variants x ", n, " samples is beyond what a .pgen holds (2^31 - 3)");
  STRATA_RETURN_NOT_OK(check_ids(p.psam, view.samples()));
  std::unique_ptr<OutputSet> own;
  OutputSet* set = options.output_set;
  if (!set) {
    STRATA_ASSIGN_OR_RETURN(own, OutputSet::begin(p.pgen, options.rules));
    set = own.get();
  }
  detail::StagedFile pgen, pvar, psam;
  STRATA_RETURN_NOT_OK(pvar.open(*set, p.pvar));
  STRATA_RETURN_NOT_OK(psam.open(*set, p.psam));
  STRATA_RETURN_NOT_OK(pgen.open(*set, p.pgen));
  STRATA_RETURN_NOT_OK(psam.write(psam_text(view.samples())));
  STRATA_RETURN_NOT_OK(pvar.write(std::string("#CHROM\tPOS\tID\tREF\tALT\n")));

  // The header: magic, mode, counts, control byte, then the index (filled in at the end).
  std::vector<uint8_t> head = {0x6c, 0x1b, 0x10};
  put_le(head, static_cast<uint64_t>(m), 4);
  put_le(head, static_cast<uint64_t>(n), 4);
  head.push_back(kHeaderControl);
  const int64_t first_record = static_cast<int64_t>(head.size()) + index_bytes(m);
  head.resize(static_cast<size_t>(first_record), 0);
  STRATA_RETURN_NOT_OK(pgen.write(head.data(), head.size()));

  std::vector<uint8_t> types;
  std::vector<uint32_t> lengths;
  types.reserve(static_cast<size_t>(m));
  lengths.reserve(static_cast<size_t>(m));
  std::vector<std::string> names;
  for (const std::string& c : view.contigs()) names.push_back(plink_chromosome_name(c));
  STRATA_RETURN_NOT_OK(detail::encode_and_write(
      ctx, view, options.block_variants, "writing " + p.pgen,
      [&](const GenotypeBlock& b, detail::EncodedBlock& e) { return encode_pgen_block(view, p.pgen, b, e); },
      [&](detail::EncodedBlock& e) -> Status {
        STRATA_RETURN_NOT_OK(pgen.write(e.bytes.data(), e.bytes.size()));
        types.insert(types.end(), e.types.begin(), e.types.end());
        lengths.insert(lengths.end(), e.lengths.begin(), e.lengths.end());
        std::string text;
        const VariantInfo& info = e.info;
        for (int64_t v = 0; v < info.size(); ++v) {
          const int32_t c = info.contig[static_cast<size_t>(v)];
          text += c >= 0 && c < static_cast<int32_t>(names.size()) ? names[static_cast<size_t>(c)] : std::string("0");
          text += '\t' + std::to_string(info.position[static_cast<size_t>(v)]) + '\t';
          text += info.id[static_cast<size_t>(v)].empty() ? "." : info.id[static_cast<size_t>(v)];
          text += '\t';
          text += info.ref[static_cast<size_t>(v)].empty() ? "." : info.ref[static_cast<size_t>(v)];
          text += '\t';
          text += info.alt[static_cast<size_t>(v)].empty() ? "." : info.alt[static_cast<size_t>(v)];
          text += '\n';
        }
        return pvar.write(text);
      }));
  if (static_cast<int64_t>(types.size()) != m)
    return Status::Invalid(p.pgen, ": wrote ", types.size(), " of ", m, " variants");

  // The index: block offsets, then per block the record types and lengths.
  std::vector<uint8_t> index;
  index.reserve(static_cast<size_t>(index_bytes(m)));
  uint64_t at = static_cast<uint64_t>(first_record);
  for (int64_t v = 0; v < m; ++v) {
    if (v % kBlockVariants == 0) put_le(index, at, 8);
    at += lengths[static_cast<size_t>(v)];
  }
  for (int64_t b0 = 0; b0 < m; b0 += kBlockVariants) {
    const int64_t b1 = std::min(m, b0 + kBlockVariants);
    index.insert(index.end(), types.begin() + b0, types.begin() + b1);
    for (int64_t v = b0; v < b1; ++v) put_le(index, lengths[static_cast<size_t>(v)], 4);
  }
  STRATA_RETURN_NOT_OK(pgen.write_at(12, index.data(), index.size()));
  STRATA_RETURN_NOT_OK(pvar.close());
  STRATA_RETURN_NOT_OK(psam.close());
  STRATA_RETURN_NOT_OK(pgen.close());
  return own ? own->commit() : Status::OK();
}

}  // namespace strata::io
