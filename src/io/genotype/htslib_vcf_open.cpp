// Opening a VCF/BCF through htslib: the helpers of htslib_vcf_internal.hpp.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "io/genotype/htslib_vcf_internal.hpp"
#include "io/genotype/sample_ids_internal.hpp"
#include "io/genotype/text_reader_internal.hpp"

namespace strata::io::detail {

HtsLogCapture::HtsLogCapture() {
  std::fflush(stderr);
  tmp_ = std::tmpfile();
  saved_ = tmp_ ? ::dup(STDERR_FILENO) : -1;
  if (saved_ >= 0 && ::dup2(::fileno(tmp_), STDERR_FILENO) >= 0) {
    hts_set_log_level(HTS_LOG_ERROR);
  } else if (saved_ >= 0) {
    ::close(saved_);
    saved_ = -1;
  }
}

HtsLogCapture::~HtsLogCapture() { (void)text(); }

std::string HtsLogCapture::text() {
  hts_set_log_level(HTS_LOG_OFF);
  if (saved_ < 0) {
    if (tmp_) std::fclose(tmp_);
    tmp_ = nullptr;
    return out_;
  }
  std::fflush(stderr);
  ::dup2(saved_, STDERR_FILENO);
  ::close(saved_);
  saved_ = -1;
  std::rewind(tmp_);
  char line[1024];
  while (std::fgets(line, sizeof line, tmp_)) {
    std::string l(line);
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    if (l.size() > 4 && l[0] == '[' && l[2] == ':' && l[3] == ':') {
      const size_t close = l.find("] ");
      if (close != std::string::npos) l = l.substr(close + 2);
    }
    if (l.empty()) continue;
    if (!out_.empty()) out_ += "; ";
    out_ += l;
  }
  std::fclose(tmp_);
  tmp_ = nullptr;
  return out_;
}

BGZF* bgzf_of(htsFile* f) {
  const htsCompression c = hts_get_format(f)->compression;
  return c == bgzf || c == gzip ? f->fp.bgzf : nullptr;
}

std::string with_reason(const std::string& reason) { return reason.empty() ? "" : " (htslib: " + reason + ")"; }

Result<OpenVcf> open_vcf(const std::string& path, int threads) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Status::NotFound(path, ": no such file");
  if (S_ISDIR(st.st_mode)) return Status::Unsupported(path, ": is a directory, not a VCF or BCF file");
  STRATA_RETURN_NOT_OK(detail::check_text_input(path, /*allow_pipe=*/true));  // never /dev/zero
  OpenVcf v;
  {
    HtsLogCapture log;
    v.file.reset(hts_open(path.c_str(), "r"));
    const int err = errno;
    const std::string reason = log.text();
    if (!v.file) {
      if (err == EACCES || err == EIO) return Status::IOError(path, ": cannot open: ", std::strerror(err));
      if (err == ENOEXEC) return Status::Corrupt(path, ": not a VCF or BCF file (htslib does not recognise its format)");
      return Status::Corrupt(path, ": cannot open as VCF/BCF", with_reason(reason));
    }
  }
  const htsFormat* format = hts_get_format(v.file.get());
  htsExactFormat fmt = format->format;
  if ((fmt == text_format || fmt == unknown_format) && format->compression == no_compression) {
    // A VCF whose header lacks its first line (##fileformat): plink2 reads it; htslib reads it
    // when told the format.
    char head[7] = {};
    std::FILE* f = std::fopen(path.c_str(), "rb");
    const size_t got = f ? std::fread(head, 1, 6, f) : 0;
    if (f) std::fclose(f);
    if (got == 6 && (std::string_view(head, 6) == "#CHROM" || std::string_view(head, 2) == "##")) {
      // htslib reads it once told the format (it only warns that the first line is missing).
      v.file->format.format = vcf;
      v.file->format.category = variant_data;
      fmt = vcf;
    }
  }
  if (fmt != vcf && fmt != bcf) {
    char* desc = hts_format_description(format);
    const std::string what = desc ? desc : "unknown";
    free(desc);
    return Status::Corrupt(path, ": not a VCF or BCF file (the content looks like: ", what, ")");
  }
  // A BGZF file ends with an empty end-of-file block; without it the file was cut short. Checked
  // now (before the decompression threads start) and reported where the data runs out.
  if (format->compression == bgzf) {
    BGZF* bgzfp = bgzf_of(v.file.get());
    if (bgzfp && bgzf_check_EOF(bgzfp) == 0) v.eof_marker_missing = true;
  }
  if (threads > 1) hts_set_threads(v.file.get(), threads);  // BGZF decompression threads
  {
    HtsLogCapture log;
    v.hdr.reset(bcf_hdr_read(v.file.get()));
    const std::string reason = log.text();
    if (!v.hdr) {
      const std::string dup = "Duplicated sample name '";
      const size_t at = reason.find(dup);
      if (at != std::string::npos) {
        const size_t end = reason.find('\'', at + dup.size());
        return Status::InvalidData(path, ": duplicate sample ID '", reason.substr(at + dup.size(), end - at - dup.size()),
                                   "' in the VCF header; sample IDs must be unique");
      }
      if (v.eof_marker_missing)
        return Status::Corrupt(path, ": truncated or malformed BGZF block while reading the header (the BGZF "
                               "end-of-file marker is missing: the file was cut short)", with_reason(reason));
      return Status::Corrupt(path, ": cannot read the VCF header", with_reason(reason));
    }
  }
  v.n = bcf_hdr_nsamples(v.hdr.get());
  std::vector<std::string> ids;
  for (int64_t i = 0; i < v.n; ++i) ids.emplace_back(v.hdr->samples[i]);
  STRATA_RETURN_NOT_OK(detail::check_unique_sample_ids(ids, path + " (VCF header)"));
  const int gt_id = bcf_hdr_id2int(v.hdr.get(), BCF_DT_ID, "GT");
  v.has_gt = bcf_hdr_idinfo_exists(v.hdr.get(), BCF_HL_FMT, gt_id);
  return v;
}

}  // namespace strata::io::detail
