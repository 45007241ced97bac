// PLINK 1 fileset writer: the three files are staged in an OutputSet and committed together.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "io/genotype/staged_file_internal.hpp"
#include "strata/io/chromosome.hpp"
#include "strata/io/plink.hpp"

namespace strata::io {
namespace {

using detail::StagedFile;

// Shortest text for a cM value ("0" for zero, as plink2 writes it).
std::string format_cm(double cm) {
  if (cm == 0.0) return "0";
  char b[32];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(b, sizeof(b), "%.*g", prec, cm);
    if (std::strtod(b, nullptr) == cm) break;
  }
  return b;
}

}  // namespace

struct BedWriter::Impl {
  std::unique_ptr<OutputSet> own_set;  // when the caller gave none
  OutputSet* set = nullptr;
  StagedFile bed, bim, fam;
  int64_t num_samples = 0;
  std::vector<uint8_t> row;
};

// Members close their files; an uncommitted own set removes what was staged.
BedWriter::~BedWriter() = default;

Result<std::unique_ptr<BedWriter>> BedWriter::create(const std::string& prefix, const SampleInfo& samples,
                                                     const BedWriteTarget& target) {
  // A `.fam` is whitespace-separated: an ID holding a space would shift every column when read
  // back, and one starting with '#' on the first line would be read as a header.
  for (int64_t i = 0; i < samples.size(); ++i) {
    for (const auto* column : {&samples.family_id, &samples.id, &samples.paternal_id, &samples.maternal_id}) {
      if (i >= static_cast<int64_t>(column->size())) continue;
      const std::string& v = (*column)[static_cast<size_t>(i)];
      if (v.find_first_of(" \t\r\n") != std::string::npos || (!v.empty() && v[0] == '#'))
        return Status::InvalidData(plink_paths(prefix).fam, ": sample ", i + 1, " has the ID '", v, "', which a .fam cannot ",
                                   "hold (", v[0] == '#' ? "it starts with '#'" : "it contains whitespace",
                                   "); rename the sample first (bcftools reheader)");
    }
  }
  std::unique_ptr<BedWriter> w(new BedWriter());
  w->impl_ = std::make_unique<Impl>();
  Impl& im = *w->impl_;
  const PlinkPaths p = plink_paths(prefix);
  im.num_samples = samples.size();
  im.set = target.output_set;
  if (!im.set) {
    STRATA_ASSIGN_OR_RETURN(im.own_set, OutputSet::begin(p.bed, target.rules));
    im.set = im.own_set.get();
  }
  STRATA_RETURN_NOT_OK(im.bim.open(*im.set, p.bim));
  STRATA_RETURN_NOT_OK(im.fam.open(*im.set, p.fam));
  STRATA_RETURN_NOT_OK(im.bed.open(*im.set, p.bed));
  const uint8_t magic[3] = {0x6c, 0x1b, 0x01};
  STRATA_RETURN_NOT_OK(im.bed.write(magic, 3));
  std::string text;
  for (int64_t i = 0; i < samples.size(); ++i) {
    text += format_fam_line(samples, i);
    text += '\n';
  }
  STRATA_RETURN_NOT_OK(im.fam.write(text.data(), text.size()));
  im.row.resize(static_cast<size_t>(packed_row_bytes(im.num_samples)));
  return w;
}

Status BedWriter::append(const VariantInfo& info, const std::vector<std::string>& contigs,
                         const uint8_t* codes, int64_t stride) {
  Impl& im = *impl_;
  const int64_t nb = packed_row_bytes(im.num_samples);
  const uint8_t* table = code_to_bed_table();
  const int rem = static_cast<int>(im.num_samples & 3);
  std::string text;
  // plink2 writes its own spelling (chrX and 23 as X, chrM as MT, chr1 as 1): once per contig.
  std::vector<std::string> names;
  names.reserve(contigs.size());
  for (const std::string& name : contigs) names.push_back(plink_chromosome_name(name));
  for (int64_t v = 0; v < info.size(); ++v) {
    const uint8_t* src = codes + v * stride;
    for (int64_t i = 0; i < nb; ++i) im.row[i] = table[src[i]];
    // .bed pads the last byte with zero bits.
    if (rem) im.row[nb - 1] = static_cast<uint8_t>(im.row[nb - 1] & ((1u << (2 * rem)) - 1));
    STRATA_RETURN_NOT_OK(im.bed.write(im.row.data(), im.row.size()));

    const int32_t c = info.contig[v];
    text += (c >= 0 && c < static_cast<int32_t>(names.size())) ? names[static_cast<size_t>(c)] : std::string("0");
    text += '\t';
    text += info.id[v].empty() ? "." : info.id[v];
    text += '\t';
    text += format_cm(v < static_cast<int64_t>(info.cm.size()) ? info.cm[v] : 0.0);
    text += '\t';
    text += std::to_string(info.position[v]);
    text += '\t';
    text += info.alt[v].empty() ? "." : info.alt[v];
    text += '\t';
    text += info.ref[v].empty() ? "." : info.ref[v];
    text += '\n';
  }
  STRATA_RETURN_NOT_OK(im.bim.write(text.data(), text.size()));
  variants_written_ += info.size();
  return Status::OK();
}

Status BedWriter::finish() {
  Impl& im = *impl_;
  STRATA_RETURN_NOT_OK(im.bim.close());
  STRATA_RETURN_NOT_OK(im.fam.close());
  STRATA_RETURN_NOT_OK(im.bed.close());
  return im.own_set ? im.own_set->commit() : Status::OK();
}

Status write_plink(const Context& ctx, const GenotypeView& view, const std::string& prefix,
                   const PlinkWriteOptions& options) {
  STRATA_ASSIGN_OR_RETURN(auto writer, BedWriter::create(prefix, view.samples(), options.target));
  const int64_t block = options.block_variants > 0 ? options.block_variants : default_block_variants(view);
  const auto& contigs = view.contigs();
  STRATA_RETURN_NOT_OK(for_each_genotype_block(
      ctx, view, block, nullptr,
      [&](GenotypeBlock& b) -> Status {
        STRATA_ASSIGN_OR_RETURN(VariantInfo info, view.variants(b.variant_start, b.variant_count));
        return writer->append(info, contigs, b.codes.data(), b.stride);
      },
      PassOptions{.label = "writing " + prefix + ".bed"}));
  return writer->finish();
}

}  // namespace strata::io
