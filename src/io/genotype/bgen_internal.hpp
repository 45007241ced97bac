#pragma once
// BGEN (v1.1, v1.2, v1.3) internals shared by the reader and its tests: the header, the
// per-variant index built by scanning the variant blocks once, the Oxford `.sample` file,
// and the decoding of one uncompressed probability block to plink2's dosages.
//
// Dosages are held as integers in 1/16384 units (0..32768 = 0..2 ALT alleles), as plink2
// stores them on import; kBgenMissingDosage marks a missing call.

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"

namespace strata::io::detail {

inline constexpr uint16_t kBgenMissingDosage = 0xFFFF;
/// plink2's dosage unit: 16384 = one allele.
inline constexpr uint32_t kBgenDosageOne = 16384;

/// Little-endian fields (BGEN stores every integer little-endian).
inline uint16_t load_u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t load_u32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}

enum class BgenCompression : uint8_t { None = 0, Zlib = 1, Zstd = 2 };

/// The header block and the flags it carries.
struct BgenHeader {
  uint32_t first_variant_offset = 0;  ///< the leading 4-byte offset (variant data at offset + 4)
  uint32_t header_length = 0;         ///< LH
  uint32_t num_variants = 0;          ///< M
  uint32_t num_samples = 0;           ///< N
  BgenCompression compression = BgenCompression::None;
  int layout = 0;                     ///< 1 (v1.1) or 2 (v1.2 / v1.3)
  bool has_sample_ids = false;
};

/// Where each variant's genotype data lies, and its identifying data.
struct BgenIndex {
  std::vector<int64_t> data_offset;  ///< byte offset of the genotype data block (after any length field)
  std::vector<uint32_t> data_bytes;  ///< bytes at data_offset (compressed, when compressed)
  std::vector<uint32_t> raw_bytes;   ///< uncompressed bytes (layout 1: 6N; layout 2: D, or C if stored)
  std::vector<uint16_t> allele_count;
  std::vector<std::string> contigs;  ///< distinct chromosome names, first-seen order
  VariantInfo variants;              ///< REF = first allele, ALT = the others joined by ','
};

/// Parse the header and the sample identifier block (ids left empty when the file has none).
/// Errors name `path`.
Result<BgenHeader> read_bgen_header(int fd, int64_t file_size, const std::string& path,
                                    std::vector<std::string>* ids);

/// Scan every variant block's identifying data (nothing is decompressed).
Result<BgenIndex> scan_bgen_variants(int fd, int64_t file_size, const BgenHeader& header,
                                     const std::string& path);

/// Read an Oxford `.sample` file (2 header lines, then ID_1 ID_2 [missing sex ...]): id = ID_2,
/// family_id = ID_1, sex from a column named "sex" (1/2, else 0). Errors name the file and line.
Result<SampleInfo> read_oxford_sample_file(const std::string& path);

/// The dosages of one variant, decoded from its uncompressed probability block.
struct BgenDecodeInput {
  const uint8_t* data = nullptr;  ///< uncompressed block; 8 readable bytes must follow `size`
  int64_t size = 0;
  int layout = 2;
  int64_t num_samples = 0;
  uint16_t allele_count = 2;
  const std::vector<std::string>* sample_ids = nullptr;  ///< for messages (optional)
};

/// Decode to ALT dosages (ALT = every allele but the first; plink2's `ref-first`), one per
/// sample, in 1/16384 units or kBgenMissingDosage. Rounding as plink2's import: layout 1
/// normalizes by the three probabilities' sum and rounds half to even; layout 2 rounds the
/// first allele's dosage up from 2^(bits−1)/(2^bits − 1) of a unit (plink2's division),
/// ALT = 2 − that. Corrupt (without the file / variant,
/// which the caller adds) on a malformed block, naming the sample where one is at fault.
Status decode_bgen_dosages(const BgenDecodeInput& in, uint16_t* dosage);

/// plink2's default hard call of a dosage (threshold 0.1): the nearest of 0/1/2 when within
/// 0.1 of it, else missing.
inline uint8_t bgen_hard_call(uint16_t dosage) {
  if (dosage == kBgenMissingDosage) return kCodeMissing;
  const int32_t rem = dosage & (kBgenDosageOne - 1);
  const int32_t halfdist = rem > 8192 ? rem - 8192 : 8192 - rem;
  // plink2: hard_call_halfdist = 8192 − 16384 / 10 (integer division) = 6554.
  if (halfdist < 8192 - static_cast<int32_t>(kBgenDosageOne / 10)) return kCodeMissing;
  return static_cast<uint8_t>((dosage + 8192u) >> 14);
}

}  // namespace strata::io::detail
