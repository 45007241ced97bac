// BGEN v1.2 writer (https://www.well.ox.ac.uk/~gav/bgen_format/spec/latest.html), the subset
// `plink2 --export bgen-1.2 bits=8` writes: layout 2, zlib, 8-bit unphased diploid
// probabilities, embedded sample IDs; REF is the first allele. Plus an Oxford `.sample`.
#include <zlib.h>

#include <algorithm>
#include <cmath>

#include "io/genotype/block_writer_internal.hpp"
#include "io/genotype/staged_file_internal.hpp"
#include "strata/io/chromosome.hpp"
#include "strata/io/genotype_writers.hpp"

namespace strata::io {
namespace {

// zlib level 1: the probability blocks are small and repetitive, so speed costs little size.
constexpr int kZlibLevel = 1;

void put_u16(std::vector<uint8_t>& b, uint32_t v) {
  b.push_back(static_cast<uint8_t>(v));
  b.push_back(static_cast<uint8_t>(v >> 8));
}
void put_u32(std::vector<uint8_t>& b, uint64_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_str(std::vector<uint8_t>& b, const std::string& s, int length_bytes) {
  length_bytes == 2 ? put_u16(b, static_cast<uint32_t>(s.size())) : put_u32(b, s.size());
  b.insert(b.end(), s.begin(), s.end());
}

std::string sample_path_of(const std::string& bgen) {
  return bgen.substr(0, bgen.size() - (bgen.size() >= 5 && bgen.compare(bgen.size() - 5, 5, ".bgen") == 0 ? 5 : 0)) +
         ".sample";
}

std::string sample_text(const SampleInfo& s) {
  std::string t = "ID_1 ID_2 missing sex\n0 0 0 D\n";
  for (int64_t i = 0; i < s.size(); ++i) {
    const std::string& iid = s.id[static_cast<size_t>(i)];
    const std::string fid = i < static_cast<int64_t>(s.family_id.size()) && !s.family_id[static_cast<size_t>(i)].empty()
                                ? s.family_id[static_cast<size_t>(i)]
                                : iid;
    const int sex = i < static_cast<int64_t>(s.sex.size()) ? s.sex[static_cast<size_t>(i)] : 0;
    t += fid + ' ' + iid + " 0 " + (sex == 1 ? "1" : sex == 2 ? "2" : "NA") + '\n';
  }
  return t;
}

// Text fields whose lengths BGEN stores in 16 bits; longer ones cannot be written.
Status check_length(const std::string& path, const std::string& what, const std::string& s, int64_t index) {
  if (s.size() <= 0xffff) return Status::OK();
  return Status::InvalidData(path, ": ", what, " ", index + 1, " is ", s.size(),
                             " bytes long; BGEN stores at most 65535");
}

// Encode one block: per variant its identifying data and the zlib-compressed probabilities.
Status encode_bgen_block(const GenotypeView& view, const std::string& path, const std::vector<std::string>& contigs,
                         const GenotypeBlock& b, detail::EncodedBlock& e) {
  const int64_t n = b.sample_count;
  STRATA_ASSIGN_OR_RETURN(std::vector<float> dosages, detail::block_dosages(view, b));
  std::vector<uint8_t> raw;
  std::vector<uint8_t> packed;
  const VariantInfo& info = e.info;
  for (int64_t v = 0; v < b.variant_count; ++v) {
    STRATA_RETURN_NOT_OK(detail::check_biallelic(path, info, v));
    const size_t at = e.bytes.size();
    const size_t k = static_cast<size_t>(v);
    const std::string id = info.id[k].empty() ? "." : info.id[k];
    for (const std::string* s : {&id, &info.ref[k]}) STRATA_RETURN_NOT_OK(check_length(path, "variant", *s, info.start + v));
    const int32_t c = info.contig[k];
    put_str(e.bytes, id, 2);
    put_str(e.bytes, id, 2);
    put_str(e.bytes, c >= 0 && c < static_cast<int32_t>(contigs.size()) ? contigs[static_cast<size_t>(c)] : "0", 2);
    put_u32(e.bytes, static_cast<uint64_t>(info.position[k]));
    put_u16(e.bytes, 2);
    put_str(e.bytes, info.ref[k], 4);
    put_str(e.bytes, info.alt[k], 4);

    raw.clear();
    put_u32(raw, static_cast<uint64_t>(n));
    put_u16(raw, 2);
    raw.push_back(2);
    raw.push_back(2);
    const uint8_t* row = b.row(v);
    const float* d = dosages.empty() ? nullptr : dosages.data() + v * n;
    const size_t ploidy_at = raw.size();
    raw.resize(ploidy_at + static_cast<size_t>(n), 2);
    raw.push_back(0);  // unphased
    raw.push_back(8);  // bits per probability
    for (int64_t j = 0; j < n; ++j) {
      const float x = d ? d[j] : (code_at(row, j) == 3 ? NAN : static_cast<float>(code_at(row, j)));
      uint8_t hom_ref = 0, het = 0;
      if (std::isnan(x)) {
        raw[ploidy_at + static_cast<size_t>(j)] = 0x82;  // missing: probabilities stored as zero
      } else if (!(x >= 0.0f && x <= 2.0f)) {
        return Status::InvalidData(view.describe(), ": variant ", info.start + v + 1, " sample ", j + 1,
                                   " has the dosage ", x, " (outside [0, 2]), which ", path, " cannot hold");
      } else {
        dosage_to_bgen8(x, hom_ref, het);
      }
      raw.push_back(hom_ref);
      raw.push_back(het);
    }
    uLongf len = compressBound(static_cast<uLong>(raw.size()));
    packed.resize(len);
    if (compress2(packed.data(), &len, raw.data(), static_cast<uLong>(raw.size()), kZlibLevel) != Z_OK)
      return Status::IOError(path, ": zlib failed on variant ", info.start + v + 1);
    put_u32(e.bytes, static_cast<uint64_t>(len) + 4);
    put_u32(e.bytes, raw.size());
    e.bytes.insert(e.bytes.end(), packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(len));
    e.lengths.push_back(static_cast<uint32_t>(e.bytes.size() - at));
  }
  return Status::OK();
}

}  // namespace

void dosage_to_bgen8(float dosage, uint8_t& p_hom_ref, uint8_t& p_het) {
  // The least-spread genotype distribution with this mean: two neighbouring genotypes.
  if (dosage <= 1.0f) {
    p_het = static_cast<uint8_t>(std::lround(dosage * 255.0f));
    p_hom_ref = static_cast<uint8_t>(255 - p_het);
  } else {
    p_het = static_cast<uint8_t>(std::lround((2.0f - dosage) * 255.0f));
    p_hom_ref = 0;
  }
}

Status write_bgen(const Context& ctx, const GenotypeView& view, const std::string& path,
                  const GenotypeWriteOptions& options) {
  const std::string sample_path = sample_path_of(path);
  const int64_t m = view.num_variants(), n = view.num_samples();
  if (m > 0xffffffffLL || n > 0xffffffffLL)
    return Status::Invalid(path, ": ", m, " variants x ", n, " samples is beyond what BGEN holds (2^32 - 1)");
  const SampleInfo& samples = view.samples();
  std::vector<uint8_t> ids;
  for (int64_t i = 0; i < n; ++i) {
    STRATA_RETURN_NOT_OK(check_length(path, "sample ID", samples.id[static_cast<size_t>(i)], i));
    put_str(ids, samples.id[static_cast<size_t>(i)], 2);
  }
  std::unique_ptr<OutputSet> own;
  OutputSet* set = options.output_set;
  if (!set) {
    STRATA_ASSIGN_OR_RETURN(own, OutputSet::begin(path, options.rules));
    set = own.get();
  }
  detail::StagedFile bgen, sample;
  STRATA_RETURN_NOT_OK(sample.open(*set, sample_path));
  STRATA_RETURN_NOT_OK(bgen.open(*set, path));
  STRATA_RETURN_NOT_OK(sample.write(sample_text(samples)));

  // Header block (20 bytes), then the sample identifier block.
  const uint64_t sample_block = 8 + ids.size();
  if (20 + sample_block > 0xffffffffULL) return Status::Invalid(path, ": the sample IDs take more than 4 GiB");
  std::vector<uint8_t> head;
  put_u32(head, 20 + sample_block);
  put_u32(head, 20);
  put_u32(head, static_cast<uint64_t>(m));
  put_u32(head, static_cast<uint64_t>(n));
  head.insert(head.end(), {'b', 'g', 'e', 'n'});
  put_u32(head, 1u | (2u << 2) | (1u << 31));  // zlib, layout 2, sample IDs present
  put_u32(head, sample_block);
  put_u32(head, static_cast<uint64_t>(n));
  head.insert(head.end(), ids.begin(), ids.end());
  STRATA_RETURN_NOT_OK(bgen.write(head.data(), head.size()));

  std::vector<std::string> contigs;
  for (const std::string& c : view.contigs()) contigs.push_back(plink_chromosome_name(c));
  STRATA_RETURN_NOT_OK(detail::encode_and_write(
      ctx, view, options.block_variants, "writing " + path,
      [&](const GenotypeBlock& b, detail::EncodedBlock& e) { return encode_bgen_block(view, path, contigs, b, e); },
      [&](detail::EncodedBlock& e) { return bgen.write(e.bytes.data(), e.bytes.size()); }));
  STRATA_RETURN_NOT_OK(sample.close());
  STRATA_RETURN_NOT_OK(bgen.close());
  return own ? own->commit() : Status::OK();
}

}  // namespace strata::io
