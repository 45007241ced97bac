#pragma once
// Shared plumbing of the record writers (pgen_writer.cpp, bgen_writer.cpp): blocks are encoded
// on the pass's threads and handed to the in-order step that writes them, so the output is the
// same for any thread count.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"

namespace strata::io::detail {

/// One encoded block of records: their bytes and, per variant, its record length and type.
struct EncodedBlock {
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> lengths;
  std::vector<uint8_t> types;
  VariantInfo info;
};

/// The dosages of a block when the source has them (variant_count rows of all samples), else
/// empty.
inline Result<std::vector<float>> block_dosages(const GenotypeView& view, const GenotypeBlock& b) {
  std::vector<float> d;
  if (!view.has_dosages()) return d;
  d.resize(static_cast<size_t>(b.variant_count * b.sample_count));
  STRATA_RETURN_NOT_OK(view.read_dosages(b.variant_start, b.variant_count, 0, b.sample_count, d.data(), b.sample_count));
  return d;
}

/// Refuse a multi-allelic variant (its ALT lists several alleles): neither writer stores them.
inline Status check_biallelic(const std::string& path, const VariantInfo& info, int64_t i) {
  const std::string& alt = info.alt[static_cast<size_t>(i)];
  if (alt.find(',') == std::string::npos) return Status::OK();
  return Status::Unsupported(path, ": variant ", info.start + i + 1, " ('", info.id[static_cast<size_t>(i)],
                             "') is multi-allelic (ALT ", alt, "); strata writes bi-allelic variants only ",
                             "(convert skips multi-allelic sites unless told otherwise)");
}

/// Run a pass over `view` where `encode` turns a block into records on any thread and `write`
/// takes them in variant order.
inline Status encode_and_write(const Context& ctx, const GenotypeView& view, int64_t block_variants,
                               const std::string& label,
                               const std::function<Status(const GenotypeBlock&, EncodedBlock&)>& encode,
                               const std::function<Status(EncodedBlock&)>& write) {
  std::mutex mu;
  std::map<int64_t, EncodedBlock> ready;
  const int64_t block = block_variants > 0 ? block_variants : default_block_variants(view);
  PassOptions pass;
  pass.label = label;
  return for_each_genotype_block(
      ctx, view, block,
      [&](GenotypeBlock& b) -> Status {
        EncodedBlock e;
        STRATA_ASSIGN_OR_RETURN(e.info, view.variants(b.variant_start, b.variant_count));
        STRATA_RETURN_NOT_OK(encode(b, e));
        std::lock_guard<std::mutex> lock(mu);
        ready.emplace(b.variant_start, std::move(e));
        return Status::OK();
      },
      [&](GenotypeBlock& b) -> Status {
        EncodedBlock e;
        {
          std::lock_guard<std::mutex> lock(mu);
          auto it = ready.find(b.variant_start);
          if (it == ready.end()) return Status::Invalid(label, ": block at variant ", b.variant_start, " was not encoded");
          e = std::move(it->second);
          ready.erase(it);
        }
        return write(e);
      },
      pass);
}

}  // namespace strata::io::detail
