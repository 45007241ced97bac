// PLINK 2 `.pgen` reader: header and variant-block index (pgen_spec "Header"), record offsets,
// and block reads with pread that decode each record (pgen_decode.cpp) into canonical codes.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "io/genotype/code_counts_internal.hpp"
#include "io/genotype/codes_internal.hpp"
#include "io/genotype/pgen_decode_internal.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/log.hpp"
#include "strata/io/genotype_counts.hpp"
#include "strata/io/pgen.hpp"

namespace strata::io {
namespace {

namespace pg = detail::pgen;

uint64_t load_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int k = 0; k < bytes; ++k) v |= static_cast<uint64_t>(p[k]) << (8 * k);
  return v;
}

Status pread_all(int fd, const std::string& path, uint8_t* dst, int64_t bytes, int64_t offset) {
  for (int64_t got = 0; got < bytes;) {
    const ssize_t r = pread(fd, dst + got, static_cast<size_t>(bytes - got), offset + got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      return Status::IOError(path, ": cannot read ", bytes, " bytes at byte ", offset + got, ": ",
                             r < 0 ? std::strerror(errno) : "unexpected end of file");
    got += r;
  }
  return Status::OK();
}

class PgenReader final : public GenotypeView, public GenotypeCounter {
 public:
  ~PgenReader() override {
    if (fd_ >= 0) ::close(fd_);
  }
  static Result<std::shared_ptr<PgenReader>> open(const PgenPaths& paths);

  int64_t num_variants() const override { return bim_.variants.size(); }
  int64_t num_samples() const override { return samples_.size(); }
  std::string describe() const override { return paths_.pgen; }
  const SampleInfo& samples() const override { return samples_; }
  const std::vector<std::string>& contigs() const override { return bim_.contigs; }
  Result<VariantInfo> variants(int64_t start, int64_t count) const override;
  const VariantInfo* variant_table() const override { return &bim_.variants; }
  Status read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out, int64_t stride) const override;
  bool has_dosages() const override { return has_dosages_; }
  Status read_dosages(int64_t v0, int64_t nv, int64_t s0, int64_t ns, float* out, int64_t stride) const override;
  Status count_genotypes(int64_t v0, int64_t nv, int64_t* counts) const override;
  int64_t variant_chunk() const override { return chunk_; }
  SourceReport report() const override { return report_; }
  const BimTable& bim() const { return bim_; }

 private:
  Status parse_header(int64_t file_size);
  uint8_t type(int64_t v) const { return types_.empty() ? fixed_type_ : types_[static_cast<size_t>(v)]; }
  int64_t offset(int64_t v) const { return offsets_.empty() ? first_ + v * fixed_width_ : offsets_[static_cast<size_t>(v)]; }
  // Decode variants [v0, v0 + nv) in order, calling emit(v, row, dosages-or-null). Each row is
  // decoded into dest(v) when that is not null (the caller's buffer: no copy), else a scratch row.
  // Call fn(v, cursor over v's record) for variants [v, end) in order, reading the records in
  // pieces of about 4 MiB into a buffer each thread reuses.
  template <class Fn>
  Status for_each_record(int64_t v, int64_t end, Fn&& fn) const;
  template <class Dest, class Emit>
  Status decode(int64_t v0, int64_t nv, bool want_dosages, Dest&& dest, Emit&& emit) const;
  Status bad_record(int64_t v, const std::string& why) const;

  PgenPaths paths_;
  SampleInfo samples_;
  BimTable bim_;
  SourceReport report_;
  int fd_ = -1;
  uint8_t mode_ = 0;
  uint8_t fixed_type_ = 0;     // record type of the fixed-width modes
  int64_t first_ = 0;          // first record's offset (fixed-width modes)
  int64_t fixed_width_ = 0;    // record bytes (fixed-width modes)
  std::vector<uint8_t> types_;     // per variant (mode 0x10)
  std::vector<int64_t> offsets_;   // per variant + 1 (mode 0x10)
  bool has_dosages_ = false;
  int64_t chunk_ = 4096;
};

Status PgenReader::bad_record(int64_t v, const std::string& why) const {
  const VariantInfo& info = bim_.variants;
  return Status::Corrupt(paths_.pgen, ": variant ", v + 1, " ('", info.id[static_cast<size_t>(v)], "', record type 0x",
                         std::hex, int(type(v)), std::dec, "): ", why);
}

Status PgenReader::parse_header(int64_t size) {
  const std::string& path = paths_.pgen;
  uint8_t head[12] = {};
  if (size < 3) return Status::Corrupt(path, ": not a .pgen file (shorter than 3 bytes)");
  STRATA_RETURN_NOT_OK(pread_all(fd_, path, head, std::min<int64_t>(size, 12), 0));
  if (head[0] != 0x6c || head[1] != 0x1b) return Status::Corrupt(path, ": not a .pgen file (the first bytes are not 6c 1b)");
  mode_ = head[2];
  const int64_t m = num_variants(), n = num_samples(), row = packed_row_bytes(n);
  if (mode_ == 0x01) {  // a PLINK 1 .bed
    first_ = 3;
    fixed_width_ = row;
  } else if (mode_ >= 0x02 && mode_ <= 0x04) {
    if (size < 12) return Status::Corrupt(path, ": truncated header (", size, " bytes)");
    fixed_type_ = mode_ == 0x02 ? 0x00 : mode_ == 0x03 ? 0x40 : 0xc0;
    fixed_width_ = row + (mode_ == 0x03 ? 2 * n : mode_ == 0x04 ? 4 * n : 0);
    first_ = 12 + ((head[11] >> 6) == 3 ? (m + 7) / 8 : 0);
    has_dosages_ = mode_ != 0x02;
  } else if (mode_ != 0x10) {
    return Status::Unsupported(path, ": unknown .pgen storage mode 0x", std::hex, int(mode_),
                               " (strata reads 0x01-0x04 and 0x10, what plink2 writes)");
  }
  if (mode_ != 0x01) {
    if (size < 12) return Status::Corrupt(path, ": truncated header (", size, " bytes)");
    const int64_t file_m = load_le(head + 3, 4), file_n = load_le(head + 7, 4);
    if (file_m != m || file_n != n)
      return Status::Corrupt(path, ": holds ", file_m, " variants x ", file_n, " samples but ", paths_.pvar, " lists ",
                             m, " variants and ", paths_.psam, " ", n, " samples (do they belong together?)");
  }
  if (mode_ != 0x10) {
    const int64_t want = first_ + m * fixed_width_;
    if (size != want)
      return Status::Corrupt(path, ": size is ", size, " bytes but ", m, " variants x ", n, " samples need ", want,
                             size < want ? " (the file is truncated)" : "");
    return Status::OK();
  }
  // Variable-width: block offsets, then per block the record types, lengths, allele counts and
  // provisional-REF flags.
  const int fmt = head[11] & 15;
  if (fmt > 7)
    return Status::Unsupported(path, ": record-length format ", fmt,
                               fmt < 10 ? " (single-sample .pgen) is not supported" : " is reserved by the .pgen spec");
  const int type_bits = fmt < 4 ? 4 : 8, len_bytes = (fmt & 3) + 1, count_bytes = (head[11] >> 4) & 3;
  const bool nonref_flags = (head[11] >> 6) == 3;
  const int64_t blocks = (m + pg::kBlockVariants - 1) / pg::kBlockVariants;
  int64_t header_bytes = 8 * blocks;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t nb = std::min(pg::kBlockVariants, m - b * pg::kBlockVariants);
    header_bytes += (nb * type_bits + 7) / 8 + nb * len_bytes + nb * count_bytes + (nonref_flags ? (nb + 7) / 8 : 0);
  }
  if (12 + header_bytes > size)
    return Status::Corrupt(path, ": truncated header (", size, " bytes; the index of ", m, " variants needs ",
                           12 + header_bytes, ")");
  std::vector<uint8_t> h(static_cast<size_t>(header_bytes));
  STRATA_RETURN_NOT_OK(pread_all(fd_, path, h.data(), header_bytes, 12));
  types_.resize(static_cast<size_t>(m));
  offsets_.resize(static_cast<size_t>(m) + 1);
  const uint8_t* p = h.data() + 8 * blocks;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t nb = std::min(pg::kBlockVariants, m - b * pg::kBlockVariants), v0 = b * pg::kBlockVariants;
    int64_t at = static_cast<int64_t>(load_le(h.data() + 8 * b, 8));
    if (b == 0 ? at != 12 + header_bytes : at != offsets_[static_cast<size_t>(v0)])
      return Status::Corrupt(path, ": variant block ", b, " starts at byte ", at, ", expected ",
                             b == 0 ? 12 + header_bytes : offsets_[static_cast<size_t>(v0)]);
    for (int64_t i = 0; i < nb; ++i) {
      const uint8_t t = type_bits == 4 ? ((p[i >> 1] >> (4 * (i & 1))) & 15) : p[i];
      if (i == 0 && pg::is_ld_compressed(t))
        return Status::Corrupt(path, ": variant ", v0 + 1, " opens a variant block but is LD-compressed");
      types_[static_cast<size_t>(v0 + i)] = t;
      if (t & pg::kDosageMask) has_dosages_ = true;
    }
    p += (nb * type_bits + 7) / 8;
    for (int64_t i = 0; i < nb; ++i) {
      offsets_[static_cast<size_t>(v0 + i)] = at;
      at += static_cast<int64_t>(load_le(p + i * len_bytes, len_bytes));
    }
    offsets_[static_cast<size_t>(v0 + nb)] = at;
    p += nb * len_bytes + nb * count_bytes + (nonref_flags ? (nb + 7) / 8 : 0);
  }
  if (offsets_.back() > size)
    return Status::Corrupt(path, ": truncated: the records end at byte ", offsets_.back(), " but the file has ", size);
  return Status::OK();
}

Result<std::shared_ptr<PgenReader>> PgenReader::open(const PgenPaths& paths) {
  std::shared_ptr<PgenReader> r(new PgenReader());
  r->paths_ = paths;
  STRATA_ASSIGN_OR_RETURN(r->samples_, read_fam(paths.psam));
  STRATA_ASSIGN_OR_RETURN(r->bim_, read_pvar(paths.pvar));
  r->fd_ = ::open(paths.pgen.c_str(), O_RDONLY | O_CLOEXEC);
  if (r->fd_ < 0) {
    if (errno == ENOENT) return Status::NotFound(paths.pgen, ": no such file");
    return Status::IOError(paths.pgen, ": cannot open: ", std::strerror(errno));
  }
  struct stat st {};
  if (fstat(r->fd_, &st) != 0) return Status::IOError(paths.pgen, ": cannot stat: ", std::strerror(errno));
  STRATA_RETURN_NOT_OK(r->parse_header(st.st_size));
  for (const std::string& alt : r->bim_.variants.alt)
    if (alt.find(',') != std::string::npos) ++r->report_.multiallelic_sites;
  // About 4 MiB of records per block, aligned to the 2^16-variant blocks of the index.
  const int64_t m = r->num_variants();
  const int64_t bytes = m > 0 ? r->offset(m) - r->offset(0) : 0;
  const int64_t per = std::clamp<int64_t>((int64_t{4} << 20) / std::max<int64_t>(1, bytes / std::max<int64_t>(1, m)), 1, 65536);
  r->chunk_ = int64_t{1} << (63 - __builtin_clzll(static_cast<uint64_t>(per)));  // divides 2^16
  posix_fadvise(r->fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  return r;
}

Result<VariantInfo> PgenReader::variants(int64_t start, int64_t count) const {
  if (start < 0 || count < 0 || start + count > num_variants())
    return Status::Invalid(paths_.pgen, ": variant range [", start, ", ", start + count, ") out of bounds (",
                           num_variants(), " variants)");
  VariantInfo out;
  out.start = start;
  out.reserve(count);
  out.append_range(bim_.variants, start, count);
  return out;
}

template <class Dest, class Emit>
Status PgenReader::decode(int64_t v0, int64_t nv, bool want_dosages, Dest&& dest, Emit&& emit) const {
  const int64_t n = num_samples(), row_bytes = packed_row_bytes(n);
  // An LD-compressed first record needs its base: start at the last record that is not.
  int64_t first = v0;
  while (first > 0 && pg::is_ld_compressed(type(first))) --first;
  thread_local Bytes row, base;
  thread_local std::vector<float> dosage;
  row.resize(static_cast<size_t>(row_bytes) + 8);
  base.resize(static_cast<size_t>(row_bytes) + 8);
  if (want_dosages) dosage.resize(static_cast<size_t>(n));
  const uint8_t* base_row = nullptr;  // the last non-LD-compressed row: base, or a caller's row
  return for_each_record(first, v0 + nv, [&](int64_t v, pg::Cursor& c) -> Status {
      const uint8_t t = type(v);
      uint8_t* out = v >= v0 ? dest(v) : nullptr;
      if (!out) out = row.data();
      if (mode_ == 0x01) {
        if (c.left() < row_bytes) return bad_record(v, "record shorter than a row");
        std::memcpy(out, c.p, static_cast<size_t>(row_bytes));
      } else {
        const bool ld = pg::is_ld_compressed(t);
        if (ld && !base_row) return bad_record(v, "LD-compressed record without a base record");
        std::string err = pg::decode_main_track(t, n, ld ? base_row : nullptr, c, out);
        if (!err.empty()) return bad_record(v, err);
        if (!ld && out == row.data()) {
          std::memcpy(base.data(), row.data(), static_cast<size_t>(row_bytes));
          base_row = base.data();
        } else if (!ld) {
          base_row = out;  // the caller's rows stay put for the rest of this call
        }
      }
      if (v < v0) return Status::OK();
      const float* d = nullptr;
      if (want_dosages) {
        if ((t & pg::kMultiallelicBit) && (t & pg::kDosageMask))
          return Status::Unsupported(paths_.pgen, ": variant ", v + 1, " ('", bim_.variants.id[static_cast<size_t>(v)],
                                     "') is multi-allelic with dosages, which strata does not decode yet");
        if (t & pg::kDosageMask) {
          std::string err = (t & pg::kPhaseBit) ? pg::skip_phase_track(n, out, c) : std::string();
          if (err.empty()) err = pg::decode_dosage_track(t, n, out, c, dosage.data());
          if (!err.empty()) return bad_record(v, err);
        } else {
          pg::codes_to_dosages(out, n, dosage.data());
        }
        d = dosage.data();
      }
      return emit(v, out, d);
  });
}

// Records are read in pieces of about this many bytes (at least one record).
constexpr int64_t kPieceBytes = int64_t{4} << 20;

// Each thread's record pieces (one buffer for every instantiation of for_each_record).
thread_local Bytes t_records;

template <class Fn>
Status PgenReader::for_each_record(int64_t v, int64_t end, Fn&& fn) const {
  Bytes& raw = t_records;
  while (v < end) {
    // Read whole records in pieces of about 4 MiB (at least one record).
    int64_t stop = v + 1;
    while (stop < end && offset(stop + 1) - offset(v) <= kPieceBytes) ++stop;
    const int64_t piece_start = offset(v), bytes = offset(stop) - piece_start;
    // Room for the largest piece at once: a buffer grown piece by piece is faulted in anew.
    if (static_cast<int64_t>(raw.capacity()) < bytes) raw.reserve(static_cast<size_t>(std::max(bytes, kPieceBytes)));
    raw.resize(static_cast<size_t>(bytes));
    STRATA_RETURN_NOT_OK(pread_all(fd_, paths_.pgen, raw.data(), bytes, piece_start));
    for (; v < stop; ++v) {
      pg::Cursor c{raw.data() + (offset(v) - piece_start), raw.data() + (offset(v + 1) - piece_start)};
      STRATA_RETURN_NOT_OK(fn(v, c));
    }
  }
  return Status::OK();
}

Status PgenReader::count_genotypes(int64_t v0, int64_t nv, int64_t* counts) const {
  const int64_t n = num_samples(), m = num_variants();
  if (v0 < 0 || nv < 0 || v0 + nv > m)
    return Status::Invalid(paths_.pgen, ": variants [", v0, ", +", nv, ") out of bounds (", m, " variants)");
  std::fill(counts, counts + 4 * nv, int64_t{0});
  if (mode_ == 0x01) {  // a .bed: its codes are the .bed's, counted once translated
    thread_local Bytes rows;
    const int64_t row = packed_row_bytes(n);
    rows.resize(static_cast<size_t>(std::max<int64_t>(1, nv * row)));
    STRATA_RETURN_NOT_OK(read_codes(v0, nv, 0, n, rows.data(), row));
    for (int64_t v = 0; v < nv; ++v) detail::add_code_counts(rows.data() + v * row, n, counts + 4 * v);
    return Status::OK();
  }
  // An LD-compressed record is counted from its base row, so a record that the next one refers
  // to is decoded (and counted from its row); every other record is counted as it is stored.
  int64_t first = v0;
  while (first > 0 && pg::is_ld_compressed(type(first))) --first;
  thread_local Bytes base;
  base.resize(static_cast<size_t>(packed_row_bytes(n)) + 8);
  int64_t base_counts[4] = {0, 0, 0, 0};
  bool have_base = false;
  const int64_t end = v0 + nv;
  return for_each_record(first, end, [&](int64_t v, pg::Cursor& c) -> Status {
    int64_t before[4] = {0, 0, 0, 0};  // records before v0: only their base rows matter
    int64_t* out = v >= v0 ? counts + 4 * (v - v0) : before;
    const uint8_t t = type(v);
    std::string err;
    if (pg::is_ld_compressed(t)) {
      if (!have_base) return bad_record(v, "LD-compressed record without a base record");
      err = pg::count_ld_main_track(t, n, base.data(), base_counts, c, out);
    } else if (v + 1 < end && pg::is_ld_compressed(type(v + 1))) {
      err = pg::decode_main_track(t, n, nullptr, c, base.data());
      if (err.empty()) {
        std::fill(base_counts, base_counts + 4, int64_t{0});
        detail::add_code_counts(base.data(), n, base_counts);
        std::copy(base_counts, base_counts + 4, out);
        have_base = true;
      }
    } else {
      err = pg::count_main_track(t, n, c, out);
    }
    return err.empty() ? Status::OK() : bad_record(v, err);
  });
}

Status PgenReader::read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out, int64_t stride) const {
  const int64_t n = num_samples(), m = num_variants();
  if (v0 < 0 || nv < 0 || v0 + nv > m || s0 < 0 || ns < 0 || s0 + ns > n)
    return Status::Invalid(paths_.pgen, ": block [", v0, ", +", nv, ") x [", s0, ", +", ns, ") out of bounds (", m,
                           " x ", n, ")");
  if (stride < packed_row_bytes(ns)) return Status::Invalid("read_codes: stride too small");
  const uint8_t* table = mode_ == 0x01 ? bed_to_code_table() : nullptr;
  // Every sample in canonical codes: decode straight into the caller's rows.
  const bool direct = s0 == 0 && ns == n && !table;
  auto dest = [&](int64_t v) { return direct ? out + (v - v0) * stride : nullptr; };
  return decode(v0, nv, false, dest, [&](int64_t v, const uint8_t* row, const float*) {
    if (direct) detail::pad_row(out + (v - v0) * stride, n);
    else detail::extract_row(row, s0, ns, table, out + (v - v0) * stride);
    return Status::OK();
  });
}

Status PgenReader::read_dosages(int64_t v0, int64_t nv, int64_t s0, int64_t ns, float* out, int64_t stride) const {
  if (mode_ == 0x01 || !has_dosages_) return GenotypeView::read_dosages(v0, nv, s0, ns, out, stride);
  const int64_t n = num_samples(), m = num_variants();
  if (v0 < 0 || nv < 0 || v0 + nv > m || s0 < 0 || ns < 0 || s0 + ns > n || stride < ns)
    return Status::Invalid(paths_.pgen, ": dosage block [", v0, ", +", nv, ") x [", s0, ", +", ns,
                           ") out of bounds or bad stride (", m, " x ", n, ")");
  return decode(v0, nv, true, [](int64_t) -> uint8_t* { return nullptr; },
                [&](int64_t v, const uint8_t*, const float* d) {
    std::copy(d + s0, d + s0 + ns, out + (v - v0) * stride);
    return Status::OK();
  });
}

}  // namespace

PgenPaths pgen_paths(const std::string& prefix_or_path) {
  std::string prefix = prefix_or_path;
  for (const char* ext : {".pgen", ".pvar.zst", ".pvar", ".psam"}) {
    if (prefix.ends_with(ext)) {
      prefix.resize(prefix.size() - std::strlen(ext));
      break;
    }
  }
  std::error_code ec;
  const bool plain = std::filesystem::exists(prefix + ".pvar", ec) || !std::filesystem::exists(prefix + ".pvar.zst", ec);
  return {prefix + ".pgen", prefix + (plain ? ".pvar" : ".pvar.zst"), prefix + ".psam"};
}

bool is_pgen_path(const std::string& path) {
  for (const char* ext : {".pgen", ".pvar.zst", ".pvar", ".psam"})
    if (path.ends_with(ext)) return true;
  std::error_code ec;
  return std::filesystem::is_regular_file(path + ".pgen", ec) && !std::filesystem::exists(path + ".bed", ec);
}

Result<GenotypeViewPtr> open_pgen(const std::string& prefix_or_path, const GenotypeOpenOptions& options) {
  STRATA_ASSIGN_OR_RETURN(auto reader, PgenReader::open(pgen_paths(prefix_or_path)));
  GenotypeViewPtr view = reader;
  const VariantInfo& info = reader->bim().variants;
  const bool skip_multiallelic = options.multiallelic == MultiallelicMode::Skip;
  const int64_t negative = reader->bim().negative_positions;
  if (!skip_multiallelic && negative == 0) return view;
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < info.size(); ++i)
    if (info.position[i] >= 0 && (!skip_multiallelic || info.alt[i].find(',') == std::string::npos)) kept.push_back(i);
  if (negative > 0)
    log_warning(reader->describe(), ": ", negative, " of ", info.size(),
                " variants have a negative position and are skipped (as plink2 does)");
  if (static_cast<int64_t>(kept.size()) != info.size()) view = make_variant_subset(view, std::move(kept));
  return view;
}

}  // namespace strata::io
