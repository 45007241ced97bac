// BGEN (v1.1 / v1.2 / v1.3) genotype view: the variant blocks are indexed once at open (a scan
// of their identifying data; `.bgi` files are SQLite and not needed), then each read preads,
// decompresses (zlib — with libdeflate when built with it, ~2x zlib's inflate — / zstd) and decodes its variants on the calling thread.
//
// Allele direction: the first BGEN allele is REF and the dosage counts the others — plink2's
// `--bgen F ref-first`. Dosages and hard calls are plink2's import: see bgen_internal.hpp.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#if STRATA_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "io/genotype/bgen_internal.hpp"
#include "io/genotype/bgen_source_internal.hpp"
#include "io/genotype/codes_internal.hpp"
#include "io/genotype/sample_ids_internal.hpp"
#include "strata/core/buffer.hpp"

namespace strata::io::detail {
namespace {

class BgenReader final : public GenotypeView {
 public:
  ~BgenReader() override {
    if (fd_ >= 0) ::close(fd_);
  }
  static Result<std::shared_ptr<BgenReader>> open(const std::string& path, const std::string& sample_path,
                                                  const GenotypeOpenOptions& options);

  int64_t num_variants() const override { return static_cast<int64_t>(index_.data_offset.size()); }
  int64_t num_samples() const override { return header_.num_samples; }
  std::string describe() const override { return path_; }
  const SampleInfo& samples() const override { return samples_; }
  const std::vector<std::string>& contigs() const override { return index_.contigs; }
  Result<VariantInfo> variants(int64_t start, int64_t count) const override;
  const VariantInfo* variant_table() const override { return &index_.variants; }
  Status read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out, int64_t stride) const override;
  bool has_dosages() const override { return true; }
  Status read_dosages(int64_t v0, int64_t nv, int64_t s0, int64_t ns, float* out, int64_t stride) const override;
  int64_t variant_chunk() const override { return 256; }
  SourceReport report() const override { return report_; }

 private:
  BgenReader() = default;
  Status check_box(int64_t v0, int64_t nv, int64_t s0, int64_t ns) const;
  // Inflate variant v's zlib block into exactly out_bytes bytes.
  Status inflate_zlib(int64_t v, const uint8_t* in, int64_t in_bytes, uint8_t* out, int64_t out_bytes) const;
  // Dosages of every sample of variant v (1/16384 units), in a per-thread buffer.
  Result<const uint16_t*> decode_variant(int64_t v) const;
  Status variant_error(int64_t v, const Status& s) const {
    return Status(s.code(), str_cat(path_, ": variant ", v, " (", index_.variants.id[static_cast<size_t>(v)],
                                    "): ", s.message()));
  }

  std::string path_;
  int fd_ = -1;
  BgenHeader header_;
  BgenIndex index_;
  SampleInfo samples_;
  SourceReport report_;
  bool ids_from_file_ = true;
};

Result<std::shared_ptr<BgenReader>> BgenReader::open(const std::string& path, const std::string& sample_path,
                                                     const GenotypeOpenOptions& options) {
  std::shared_ptr<BgenReader> r(new BgenReader());
  r->path_ = path;
  r->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (r->fd_ < 0) {
    if (errno == ENOENT) return Status::NotFound(path, ": no such file");
    return Status::IOError(path, ": cannot open: ", std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(r->fd_, &st) != 0) return Status::IOError(path, ": cannot stat: ", std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Status::InvalidData(path, ": not a regular file");
  const int64_t size = st.st_size;
  std::vector<std::string> embedded_ids;
  STRATA_ASSIGN_OR_RETURN(r->header_, read_bgen_header(r->fd_, size, path, &embedded_ids));
  const int64_t n = r->header_.num_samples;

  if (!sample_path.empty()) {
    STRATA_ASSIGN_OR_RETURN(r->samples_, read_oxford_sample_file(sample_path));
    if (r->samples_.size() != n)
      return Status::Corrupt(sample_path, ": lists ", r->samples_.size(), " samples but ", path, " holds ", n);
    STRATA_RETURN_NOT_OK(check_unique_sample_ids(r->samples_.id, sample_path));
  } else if (!embedded_ids.empty()) {
    r->samples_.id = std::move(embedded_ids);
    STRATA_RETURN_NOT_OK(check_unique_sample_ids(r->samples_.id, path));
  } else {
    r->samples_.id.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) r->samples_.id.push_back(std::to_string(i));
    r->ids_from_file_ = false;
  }

  STRATA_ASSIGN_OR_RETURN(r->index_, scan_bgen_variants(r->fd_, size, r->header_, path));
  for (uint16_t k : r->index_.allele_count) r->report_.multiallelic_sites += k > 2;
  if (options.multiallelic == MultiallelicMode::Skip) r->report_.skipped_sites = r->report_.multiallelic_sites;
  return r;
}

Result<VariantInfo> BgenReader::variants(int64_t start, int64_t count) const {
  if (start < 0 || count < 0 || start + count > num_variants())
    return Status::Invalid(path_, ": variant range [", start, ", ", start + count, ") out of bounds (", num_variants(),
                           " variants)");
  VariantInfo out;
  out.start = start;
  out.reserve(count);
  out.append_range(index_.variants, start, count);
  return out;
}

Status BgenReader::check_box(int64_t v0, int64_t nv, int64_t s0, int64_t ns) const {
  if (v0 < 0 || nv < 0 || v0 + nv > num_variants() || s0 < 0 || ns < 0 || s0 + ns > num_samples())
    return Status::Invalid(path_, ": block [", v0, ", +", nv, ") x [", s0, ", +", ns, ") out of bounds (",
                           num_variants(), " x ", num_samples(), ")");
  return Status::OK();
}

Status BgenReader::inflate_zlib(int64_t v, const uint8_t* in, int64_t in_bytes, uint8_t* out, int64_t out_bytes) const {
  auto wrong = [&](const std::string& what) {
    return variant_error(v, Status::Corrupt("zlib: genotype block does not decompress to its stated ", out_bytes,
                                            " bytes (", what, ")"));
  };
#if STRATA_HAVE_LIBDEFLATE
  struct Free {
    void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
  };
  thread_local std::unique_ptr<libdeflate_decompressor, Free> inflater(libdeflate_alloc_decompressor());
  if (!inflater) return Status::OutOfMemory("libdeflate: cannot allocate a decompressor");
  size_t got = 0;
  const libdeflate_result rc = libdeflate_zlib_decompress(inflater.get(), in, static_cast<size_t>(in_bytes), out,
                                                          static_cast<size_t>(out_bytes), &got);
  if (rc == LIBDEFLATE_SUCCESS && static_cast<int64_t>(got) == out_bytes) return Status::OK();
  if (rc == LIBDEFLATE_SUCCESS || rc == LIBDEFLATE_SHORT_OUTPUT) return wrong("got " + std::to_string(got) + " bytes");
  return wrong(rc == LIBDEFLATE_INSUFFICIENT_SPACE ? "more than stated" : "invalid or corrupted input data");
#else
  uLongf got = static_cast<uLongf>(out_bytes);
  const int rc = ::uncompress(out, &got, in, static_cast<uLong>(in_bytes));
  if (rc == Z_OK && static_cast<int64_t>(got) == out_bytes) return Status::OK();
  return wrong(rc == Z_OK ? "got " + std::to_string(got) + " bytes" : std::string(zError(rc)));
#endif
}

Result<const uint16_t*> BgenReader::decode_variant(int64_t v) const {
  // Per-thread buffers: reads run concurrently on the callers' threads.
  thread_local Bytes stored, raw;
  thread_local std::vector<uint16_t> dosage;
  const size_t at = static_cast<size_t>(v);
  const int64_t offset = index_.data_offset[at];
  const int64_t stored_bytes = index_.data_bytes[at];
  const int64_t raw_bytes = index_.raw_bytes[at];
  const bool compressed = header_.compression != BgenCompression::None;
  constexpr int64_t kPad = 8;  // the bit reader loads 8 bytes at a time
  Bytes& target = compressed ? stored : raw;
  target.resize(static_cast<size_t>(stored_bytes + kPad));
  for (int64_t got = 0; got < stored_bytes;) {
    const ssize_t r = ::pread(fd_, target.data() + got, static_cast<size_t>(stored_bytes - got), offset + got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      return variant_error(v, Status::IOError("cannot read its genotype block at byte ", offset + got, ": ",
                                              r < 0 ? std::strerror(errno) : "unexpected end of file"));
    got += r;
  }
  if (compressed) {
    raw.resize(static_cast<size_t>(raw_bytes + kPad));
    if (header_.compression == BgenCompression::Zlib) {
      STRATA_RETURN_NOT_OK(inflate_zlib(v, stored.data(), stored_bytes, raw.data(), raw_bytes));
    } else {
      const size_t got = ZSTD_decompress(raw.data(), static_cast<size_t>(raw_bytes), stored.data(),
                                         static_cast<size_t>(stored_bytes));
      if (ZSTD_isError(got) || static_cast<int64_t>(got) != raw_bytes)
        return variant_error(v, Status::Corrupt("zstd: genotype block does not decompress to its stated ", raw_bytes,
                                                " bytes (", ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short", ")"));
    }
  }
  std::memset(raw.data() + raw_bytes, 0, kPad);
  dosage.resize(static_cast<size_t>(num_samples()));
  BgenDecodeInput in;
  in.data = raw.data();
  in.size = raw_bytes;
  in.layout = header_.layout;
  in.num_samples = num_samples();
  in.allele_count = index_.allele_count[at];
  in.sample_ids = ids_from_file_ ? &samples_.id : nullptr;  // 0..n-1 would repeat the index
  const Status s = decode_bgen_dosages(in, dosage.data());
  if (!s.ok()) return variant_error(v, s);
  return dosage.data();
}

Status BgenReader::read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out, int64_t stride) const {
  STRATA_RETURN_NOT_OK(check_box(v0, nv, s0, ns));
  if (stride < packed_row_bytes(ns)) return Status::Invalid("read_codes: stride too small");
  for (int64_t v = 0; v < nv; ++v) {
    STRATA_ASSIGN_OR_RETURN(const uint16_t* dosage, decode_variant(v0 + v));
    uint8_t* row = out + v * stride;
    const uint16_t* d = dosage + s0;
    int64_t j = 0;
    for (; j + 4 <= ns; j += 4)
      row[j >> 2] = static_cast<uint8_t>(bgen_hard_call(d[j]) | (bgen_hard_call(d[j + 1]) << 2) |
                                         (bgen_hard_call(d[j + 2]) << 4) | (bgen_hard_call(d[j + 3]) << 6));
    if (j < ns) {
      row[j >> 2] = 0xFF;
      for (; j < ns; ++j) set_code(row, j, bgen_hard_call(d[j]));
    }
  }
  return Status::OK();
}

Status BgenReader::read_dosages(int64_t v0, int64_t nv, int64_t s0, int64_t ns, float* out, int64_t stride) const {
  STRATA_RETURN_NOT_OK(check_box(v0, nv, s0, ns));
  if (stride < ns) return Status::Invalid("read_dosages: stride too small");
  for (int64_t v = 0; v < nv; ++v) {
    STRATA_ASSIGN_OR_RETURN(const uint16_t* dosage, decode_variant(v0 + v));
    float* __restrict o = out + v * stride;
    const uint16_t* __restrict d = dosage + s0;
    for (int64_t j = 0; j < ns; ++j) {  // integer selects, not a branch: the compiler vectorizes it
      const float f = static_cast<float>(static_cast<int32_t>(d[j])) * (1.0f / 16384.0f);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      const uint32_t nan_mask = 0u - static_cast<uint32_t>(d[j] == kBgenMissingDosage);
      bits = (bits & ~nan_mask) | (0x7FC00000u & nan_mask);  // quiet NaN
      std::memcpy(&o[j], &bits, 4);
    }
  }
  return Status::OK();
}

}  // namespace

bool is_bgen_path(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".bgen") == 0;
}

std::string bgen_sample_path(const std::string& bgen_path) {
  namespace fs = std::filesystem;
  const std::string candidate = bgen_path.substr(0, bgen_path.size() - 5) + ".sample";
  std::error_code ec;
  return fs::is_regular_file(candidate, ec) ? candidate : std::string();
}

Result<GenotypeViewPtr> open_bgen_genotypes(const std::string& path, const std::string& sample_path,
                                            const GenotypeOpenOptions& options) {
  STRATA_ASSIGN_OR_RETURN(auto reader, BgenReader::open(path, sample_path, options));
  GenotypeViewPtr view = reader;
  if (options.multiallelic == MultiallelicMode::Skip && reader->report().multiallelic_sites > 0) {
    STRATA_ASSIGN_OR_RETURN(VariantInfo info, reader->variants(0, reader->num_variants()));
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < info.size(); ++i)
      if (info.alt[static_cast<size_t>(i)].find(',') == std::string::npos) kept.push_back(i);
    view = make_variant_subset(view, std::move(kept));
  }
  return view;
}

}  // namespace strata::io::detail
