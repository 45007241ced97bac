#pragma once
// INFO and FORMAT fields of a VCF as VCF Zarr arrays, laid out as bio2zarr 0.2 lays them out:
// `variant_<INFO>` (variants[, dim]) and `call_<FORMAT>` (variants, samples[, dim]). The layout
// depends on the whole file (the largest value count, the integer range), so a first pass over
// the records (scan_record) sums each field up before the arrays are created.
//
// Values: Integer → the smallest of int8/16/32/64 that holds every value (int8 when none),
// −1 missing, −2 fill; Float → float32, missing NaN 0x7F800001, fill 0x7F800002 (a NaN that
// htslib reads inside a record's values is "missing", as bio2zarr stores it); Flag → bool;
// String → vlen UTF-8, "." missing, "" fill; Character → `<U1`. A field a record lacks is
// missing in every slot. The extra axis: Number=R "alleles", A "alt_alleles", G "genotypes",
// otherwise "{INFO,FORMAT}_<ID>_dim" when more than one value occurs or is declared.
#include <htslib/vcf.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/dtype.hpp"
#include "strata/core/result.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/io/store.hpp"

namespace strata::io::detail {

/// bio2zarr's integer rule: the first of int8, int16, int32, int64 that holds [lo, hi].
ScalarType smallest_int_type(int64_t lo, int64_t hi);

struct VcfFieldSpec {
  std::string name, description;
  bool format = false;     // FORMAT (call_) or INFO (variant_)
  int type = 0;            // BCF_HT_FLAG / INT / REAL / STR
  bool character = false;  // Type=Character (a string of one character)
  int number = 0;          // BCF_VL_FIXED / VAR / A / R / G
  int64_t declared = 0;    // n of Number=n
  // What the records hold.
  int64_t max_number = 0;
  int64_t min_value = INT64_MAX, max_value = INT64_MIN;
  // The array, set by VcfFieldWriter::create.
  std::string array, dim;  // dim "" = no extra axis
  int64_t width = 1;       // values per variant (FORMAT: per sample)
};

/// What the first pass learns about a file.
struct VcfScan {
  int64_t records = 0, max_alleles = 2, max_ploidy = 0;
  int64_t min_pos = INT64_MAX, max_pos = INT64_MIN, min_rlen = INT64_MAX, max_rlen = INT64_MIN;
  bool has_gt = false;
  std::vector<VcfFieldSpec> fields;
};

/// The INFO and FORMAT fields the header declares (GT excepted), in header order, INFO first.
VcfScan vcf_scan_start(const bcf_hdr_t* hdr, bool has_gt);

/// Buffers reused across records by the htslib getters.
struct VcfValueBuffers {
  VcfValueBuffers() = default;
  VcfValueBuffers(const VcfValueBuffers&) = delete;
  VcfValueBuffers& operator=(const VcfValueBuffers&) = delete;
  ~VcfValueBuffers();
  // One buffer per type: htslib counts a buffer's capacity in elements of the type asked for.
  void* ints = nullptr;
  int int_capacity = 0;
  void* floats = nullptr;
  int float_capacity = 0;
  void* chars = nullptr;
  int char_capacity = 0;
  char** strings = nullptr;
  int string_capacity = 0;
};

/// Add one unpacked record (BCF_UN_ALL) to the summary.
void vcf_scan_record(const bcf_hdr_t* hdr, bcf1_t* rec, int64_t samples, VcfScan& scan, VcfValueBuffers& buf);

/// Field values of a block of records, in the arrays' layouts and dtypes.
struct VcfFieldBlock {
  int64_t rows = 0;
  std::vector<std::vector<uint8_t>> numeric;    // per field (empty for strings)
  std::vector<std::vector<std::string>> text;   // per field (empty for numbers)
  std::vector<int64_t> rlen;                    // variant_length
  void clear();
};

/// Writes `variant_length` and one array per field into a VCF Zarr store being written.
class VcfFieldWriter {
 public:
  /// `ploidy`: the call arrays' ploidy axis (sizes the "genotypes" axis as bio2zarr does).
  static Result<std::unique_ptr<VcfFieldWriter>> create(std::shared_ptr<Store> store, VcfScan scan, int64_t samples,
                                                        int64_t variants_chunk, int64_t samples_chunk,
                                                        const std::string& input);
  ~VcfFieldWriter();
  /// Append one record (unpacked with BCF_UN_ALL) to `block`.
  void add(const bcf_hdr_t* hdr, bcf1_t* rec, VcfFieldBlock& block);
  /// Write `block`, whose first record is variant `start` (a multiple of the variant chunk).
  Status write(const VcfFieldBlock& block, int64_t start, ThreadPool& pool);
  /// Fix every array's length at `variants`.
  Status finish(int64_t variants);
  const VcfScan& scan() const;

 private:
  VcfFieldWriter();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata::io::detail
