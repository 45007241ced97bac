#pragma once
// htslib helpers shared by the VCF/BCF converter (htslib_vcf.cpp) and the VCF/BCF genotype
// source (vcf_source.cpp): owning handles, stderr capture for htslib's reasons, and opening a
// file with its header checked.
#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/vcf.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "strata/core/result.hpp"

namespace strata::io::detail {

// Owning handles for the htslib objects.
struct HtsCloser {
  void operator()(htsFile* f) const { hts_close(f); }
  void operator()(bcf_hdr_t* h) const { bcf_hdr_destroy(h); }
  void operator()(bcf1_t* r) const { bcf_destroy(r); }
};
template <class T>
using HtsPtr = std::unique_ptr<T, HtsCloser>;

struct OpenVcf {
  HtsPtr<htsFile> file;
  HtsPtr<bcf_hdr_t> hdr;
  int64_t n = 0;
  bool has_gt = false;
  bool eof_marker_missing = false;  ///< BGZF input without its end-of-file block: truncated
};

// htslib reports problems as "[E::func] text" lines on stderr, and the caller would see them
// before (and instead of) strata's own message. Logging stays off; the few calls whose failure
// needs htslib's reason (open, header) run with stderr captured and the reason goes into our
// message.
class HtsLogCapture {
 public:
  HtsLogCapture();
  ~HtsLogCapture();
  /// Restore stderr and return htslib's messages without their "[E::func] " prefixes, joined by "; ".
  std::string text();

 private:
  std::FILE* tmp_ = nullptr;
  int saved_ = -1;
  std::string out_;
};

/// The BGZF stream of a compressed VCF or a BCF; nullptr for plain text.
BGZF* bgzf_of(htsFile* f);

/// " (htslib: reason)", or "" without one.
std::string with_reason(const std::string& reason);

/// Open a VCF or BCF with `threads` BGZF decompression threads and read its header (sample IDs
/// checked unique). Errors name the path and htslib's reason.
Result<OpenVcf> open_vcf(const std::string& path, int threads);

}  // namespace strata::io::detail
