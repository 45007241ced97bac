#pragma once
// One decoded VCF record (vcf_source.cpp) and the fast text path that fills it straight from a
// record line when the line has the common shape (vcf_fast_gt.cpp); any other line goes to
// htslib's vcf_parse, so both paths give the same record.
#include <htslib/vcf.h>

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"

namespace strata::io::detail {

// One record decoded (on any thread), before the checks that need the file's order.
struct VcfParsedRecord {
  std::string broken;    // non-empty: why the record is malformed (reported with its number)
  Status status;         // a dosage out of range (a complete message)
  bool skipped = false;  // multi-allelic under MultiallelicMode::Skip
  int n_allele = 0;
  std::string contig, id, ref, alt;
  int64_t pos = 0, polyploid = 0;
  std::vector<uint8_t> codes;     // one packed row
  std::vector<uint16_t> dosages;  // one row, with vcf_dosage
};

/// Set to "htslib", this environment variable turns the fast GT path off (every record goes
/// through htslib's vcf_parse); the tests compare both paths with it.
inline constexpr const char* kVcfGtParserEnv = "STRATA_VCF_GT_PARSER";

/// Parses text VCF record lines whose columns and GT have the common shapes (checked against
/// `hdr`, the header htslib would parse with) into codes, as RecordDecoder does after vcf_parse.
class FastGtParser {
 public:
  FastGtParser(const bcf_hdr_t* hdr, int64_t n_samples, MultiallelicMode multiallelic)
      : hdr_(hdr), n_(n_samples), multiallelic_(multiallelic) {}
  /// Fill `p` from the line [line, line + len) (NUL at line[len]) and return true, or return
  /// false leaving the line untouched for htslib: an undefined contig, filter or tag, an odd
  /// column, a GT that is not 1 or 2 single-digit alleles, a sample with too many fields.
  bool parse(const char* line, size_t len, VcfParsedRecord& p);

 private:
  bool defined(int type, const char* name, size_t len);
  bool keys_defined(int type, const char* s, size_t len, char sep);
  bool parse_samples(const char* s, const char* end, int n_fmt, int n_allele, uint8_t* row);

  const bcf_hdr_t* hdr_;
  int64_t n_;
  MultiallelicMode multiallelic_;
  std::string key_;          // a NUL-terminated copy of one name for htslib's dictionaries
  std::string last_format_;  // the last FORMAT column found defined
};

}  // namespace strata::io::detail
