// BGEN header, sample identifier block, variant index scan and Oxford `.sample` files.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "io/genotype/bgen_internal.hpp"
#include "io/genotype/text_reader_internal.hpp"

namespace strata::io::detail {
namespace {

Status pread_exact(int fd, uint8_t* out, int64_t bytes, int64_t offset, const std::string& path) {
  for (int64_t got = 0; got < bytes;) {
    const ssize_t r = ::pread(fd, out + got, static_cast<size_t>(bytes - got), offset + got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Status::IOError(path, ": cannot read at byte ", offset + got, ": ", std::strerror(errno));
    if (r == 0) return Status::Corrupt(path, ": unexpected end of file at byte ", offset + got);
    got += r;
  }
  return Status::OK();
}

// Sequential reads of small fields through a window of the file, refilled by pread; a field
// past the end of the file is a Corrupt naming what was being read.
class FieldReader {
 public:
  FieldReader(int fd, int64_t file_size, const std::string& path, int64_t offset)
      : fd_(fd), size_(file_size), path_(path), pos_(offset) {}
  int64_t pos() const { return pos_; }
  void skip(int64_t bytes) { pos_ += bytes; }
  // `bytes` bytes at the current position (valid until the next call).
  Result<const uint8_t*> take(int64_t bytes, const char* what) {
    if (bytes > size_ - pos_)
      return Status::Corrupt(path_, ": ", what, " at byte ", pos_, " runs past the end of the file (", size_,
                             " bytes; truncated?)");
    if (pos_ < win_start_ || pos_ + bytes > win_start_ + static_cast<int64_t>(win_.size())) {
      const int64_t want = std::min<int64_t>(std::max<int64_t>(bytes, kWindow), size_ - pos_);
      win_.resize(static_cast<size_t>(want));
      STRATA_RETURN_NOT_OK(pread_exact(fd_, win_.data(), want, pos_, path_));
      win_start_ = pos_;
    }
    const uint8_t* p = win_.data() + (pos_ - win_start_);
    pos_ += bytes;
    return p;
  }
  Result<uint16_t> u16(const char* what) {
    STRATA_ASSIGN_OR_RETURN(const uint8_t* p, take(2, what));
    return load_u16(p);
  }
  Result<uint32_t> u32(const char* what) {
    STRATA_ASSIGN_OR_RETURN(const uint8_t* p, take(4, what));
    return load_u32(p);
  }
  template <class Len>
  Result<std::string> str(const char* what) {
    Len len;
    if constexpr (sizeof(Len) == 2) {
      STRATA_ASSIGN_OR_RETURN(len, u16(what));
    } else {
      STRATA_ASSIGN_OR_RETURN(len, u32(what));
    }
    STRATA_ASSIGN_OR_RETURN(const uint8_t* p, take(len, what));
    return std::string(reinterpret_cast<const char*>(p), len);
  }

 private:
  static constexpr int64_t kWindow = 64 << 10;
  int fd_;
  int64_t size_;
  const std::string& path_;
  int64_t pos_;
  std::vector<uint8_t> win_;
  int64_t win_start_ = 0;
};

}  // namespace

Result<BgenHeader> read_bgen_header(int fd, int64_t file_size, const std::string& path, std::vector<std::string>* ids) {
  FieldReader r(fd, file_size, path, 0);
  BgenHeader h;
  STRATA_ASSIGN_OR_RETURN(h.first_variant_offset, r.u32("the first variant's offset"));
  STRATA_ASSIGN_OR_RETURN(h.header_length, r.u32("the header length"));
  if (h.header_length < 20 || h.header_length > h.first_variant_offset)
    return Status::Corrupt(path, ": not a BGEN file (header length ", h.header_length,
                           " must be at least 20 and at most the first variant's offset ", h.first_variant_offset, ")");
  STRATA_ASSIGN_OR_RETURN(const uint8_t* p, r.take(h.header_length - 4, "the header block"));
  h.num_variants = load_u32(p);
  h.num_samples = load_u32(p + 4);
  if (std::memcmp(p + 8, "bgen", 4) != 0 && load_u32(p + 8) != 0)
    return Status::Corrupt(path, ": not a BGEN file (the magic number is not 'bgen')");
  const uint32_t flags = load_u32(p + h.header_length - 8);
  const uint32_t compression = flags & 3;
  h.layout = static_cast<int>((flags >> 2) & 15);
  h.has_sample_ids = (flags >> 31) & 1;
  if (compression == 3) return Status::Corrupt(path, ": unknown compression type 3 in the header flags");
  h.compression = static_cast<BgenCompression>(compression);
  if (h.layout != 1 && h.layout != 2)
    return Status::Unsupported(path, ": BGEN layout ", h.layout, " (strata reads layouts 1 and 2: BGEN 1.1 to 1.3)");
  if (h.layout == 1 && h.compression == BgenCompression::Zstd)
    return Status::Corrupt(path, ": layout 1 (BGEN 1.1) with zstd compression is not valid BGEN");
  if (h.has_sample_ids && ids) {
    // The sample identifier block follows the header block (at byte 4 + LH).
    STRATA_ASSIGN_OR_RETURN(uint32_t block_length, r.u32("the sample identifier block"));
    STRATA_ASSIGN_OR_RETURN(uint32_t n, r.u32("the sample identifier block"));
    if (n != h.num_samples)
      return Status::Corrupt(path, ": the sample identifier block lists ", n, " samples, the header ", h.num_samples);
    if (int64_t{4} + h.header_length + block_length > int64_t{4} + h.first_variant_offset)
      return Status::Corrupt(path, ": the sample identifier block (", block_length,
                             " bytes) runs into the variant data");
    ids->reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      STRATA_ASSIGN_OR_RETURN(std::string id, r.str<uint16_t>("a sample identifier"));
      ids->push_back(std::move(id));
    }
    if (r.pos() > int64_t{4} + h.header_length + block_length)
      return Status::Corrupt(path, ": the sample identifiers overrun their block's stated length ", block_length);
  }
  return h;
}

Result<BgenIndex> scan_bgen_variants(int fd, int64_t file_size, const BgenHeader& h, const std::string& path) {
  FieldReader r(fd, file_size, path, int64_t{4} + h.first_variant_offset);
  BgenIndex idx;
  const int64_t m = h.num_variants;
  idx.data_offset.reserve(m);
  idx.data_bytes.reserve(m);
  idx.raw_bytes.reserve(m);
  idx.allele_count.reserve(m);
  idx.variants.reserve(m);
  std::unordered_map<std::string, int32_t> contig_index;
  const bool compressed = h.compression != BgenCompression::None;
  for (int64_t v = 0; v < m; ++v) {
    const int64_t block_start = r.pos();
    auto fail = [&](const Status& s) {
      return Status(s.code(), str_cat(s.message(), " (variant ", v, ", block at byte ", block_start, ")"));
    };
    if (h.layout == 1) {
      auto n = r.u32("a variant's sample count");
      if (!n.ok()) return fail(n.status());
      if (*n != h.num_samples)
        return Status::Corrupt(path, ": variant ", v, " at byte ", block_start, " is for ", *n,
                               " samples, the header says ", h.num_samples);
    }
    auto snp_id = r.str<uint16_t>("a variant's SNP ID");
    auto rsid = snp_id.ok() ? r.str<uint16_t>("a variant's rsid") : Result<std::string>(snp_id.status());
    auto chr = rsid.ok() ? r.str<uint16_t>("a variant's chromosome") : Result<std::string>(rsid.status());
    auto pos = chr.ok() ? r.u32("a variant's position") : Result<uint32_t>(chr.status());
    if (!pos.ok()) return fail(pos.status());
    uint16_t k = 2;
    if (h.layout == 2) {
      auto kk = r.u16("a variant's allele count");
      if (!kk.ok()) return fail(kk.status());
      k = *kk;
      if (k == 0) return Status::Corrupt(path, ": variant ", v, " (", *rsid, ") has 0 alleles");
    }
    std::string ref, alt;
    for (uint16_t a = 0; a < k; ++a) {
      auto allele = r.str<uint32_t>("a variant's allele");
      if (!allele.ok()) return fail(allele.status());
      if (a == 0) {
        ref = std::move(*allele);
      } else {
        if (a > 1) alt += ',';
        alt += *allele;
      }
    }
    uint32_t data_bytes = 0, raw_bytes = 0;
    if (h.layout == 1) {
      raw_bytes = 6 * h.num_samples;
      data_bytes = raw_bytes;
      if (compressed) {
        auto c = r.u32("a variant's compressed length");
        if (!c.ok()) return fail(c.status());
        data_bytes = *c;
      }
    } else {
      auto c = r.u32("a variant's genotype block length");
      if (!c.ok()) return fail(c.status());
      data_bytes = *c;
      raw_bytes = *c;
      if (compressed) {
        auto dd = r.u32("a variant's uncompressed length");
        if (!dd.ok()) return fail(dd.status());
        if (*c < 4) return Status::Corrupt(path, ": variant ", v, " (", *rsid, "): genotype block length ", *c, " < 4");
        data_bytes = *c - 4;
        raw_bytes = *dd;
      }
    }
    if (data_bytes > file_size - r.pos())
      return Status::Corrupt(path, ": variant ", v, " (", *rsid, "): its ", data_bytes, "-byte genotype block at byte ",
                             r.pos(), " runs past the end of the file (", file_size, " bytes; truncated?)");
    idx.data_offset.push_back(r.pos());
    idx.data_bytes.push_back(data_bytes);
    idx.raw_bytes.push_back(raw_bytes);
    idx.allele_count.push_back(k);
    r.skip(data_bytes);

    auto [it, inserted] = contig_index.try_emplace(*chr, static_cast<int32_t>(idx.contigs.size()));
    if (inserted) idx.contigs.push_back(*chr);
    VariantInfo& vi = idx.variants;
    vi.contig.push_back(it->second);
    vi.position.push_back(*pos);
    vi.id.push_back(rsid->empty() ? (snp_id->empty() ? std::string(".") : *snp_id) : *rsid);
    vi.ref.push_back(std::move(ref));
    vi.alt.push_back(std::move(alt));
    vi.cm.push_back(0.0);
  }
  return idx;
}

Result<SampleInfo> read_oxford_sample_file(const std::string& path) {
  LineReader in;
  STRATA_RETURN_NOT_OK(in.open(path, /*allow_pipe=*/true));
  std::string_view line;
  if (!in.next(line)) {
    STRATA_RETURN_NOT_OK(in.status());
    return Status::Corrupt(path, ": empty .sample file (expected two header lines: ID_1 ID_2 ... and their types)");
  }
  std::vector<std::string> header;
  for (auto t : split_all(line)) header.emplace_back(t);
  if (header.size() < 2)
    return Status::Corrupt(path, " line 1: expected at least the columns ID_1 ID_2, got '", line, "'");
  int sex_col = -1;
  for (size_t c = 2; c < header.size(); ++c) {
    std::string lower = header[c];
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (lower == "sex") sex_col = static_cast<int>(c);
  }
  if (!in.next(line)) {
    STRATA_RETURN_NOT_OK(in.status());
    return Status::Corrupt(path, ": the second header line (column types: 0 0 0 D ...) is missing");
  }
  SampleInfo s;
  while (in.next(line)) {
    if (is_blank(line)) continue;
    const auto tokens = split_all(line);
    if (tokens.size() != header.size())
      return Status::Corrupt(path, " line ", in.line_no(), ": ", tokens.size(), " columns, the header has ",
                             header.size());
    s.family_id.emplace_back(tokens[0]);
    s.id.emplace_back(tokens[1]);
    int8_t sex = 0;
    if (sex_col >= 0) {
      const auto t = tokens[static_cast<size_t>(sex_col)];
      sex = (t == "1" || t == "M" || t == "m" || t == "male") ? 1 : (t == "2" || t == "F" || t == "f" || t == "female") ? 2 : 0;
    }
    s.sex.push_back(sex);
  }
  STRATA_RETURN_NOT_OK(in.status());
  return s;
}

}  // namespace strata::io::detail
