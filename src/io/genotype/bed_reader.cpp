// PLINK 1 `.bed` reader: validation of magic, mode and size against `.bim`/`.fam`, and
// block reads (pread) remapped to canonical codes.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "io/genotype/codes_internal.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/cpu_pin.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/io/plink.hpp"

namespace strata::io {
namespace {

// .bed code → canonical code: 0 (hom A1 = ALT) → 2, 1 (missing) → 3, 2 (het) → 1, 3 → 0.
constexpr uint8_t kBedToCode[4] = {2, 3, 1, 0};
constexpr uint8_t kCodeToBed[4] = {3, 2, 0, 1};

constexpr std::array<uint8_t, 256> make_byte_table(const uint8_t (&m)[4]) {
  std::array<uint8_t, 256> t{};
  for (int b = 0; b < 256; ++b) {
    int out = 0;
    for (int k = 0; k < 4; ++k) out |= m[(b >> (2 * k)) & 3] << (2 * k);
    t[b] = static_cast<uint8_t>(out);
  }
  return t;
}
constexpr auto kBedToCodeTable = make_byte_table(kBedToCode);
constexpr auto kCodeToBedTable = make_byte_table(kCodeToBed);

// A .bed pair b maps to code (~b & 2) | ((b ^ b >> 1) & 1): 00→2, 01→3, 10→1, 11→0. Word-wise,
// so whole rows translate at memory speed (the byte table costs a load per byte); 32 bytes at a
// time with AVX2 (the 16-bit shift carries a neighbour's bit only into odd bits, which the
// mask drops). Same bytes either way.
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) int64_t bed_bytes_to_codes_avx2(const uint8_t* src, int64_t nbytes, uint8_t* dst) {
  const __m256i high = _mm256_set1_epi8(static_cast<char>(0xAA)), low = _mm256_set1_epi8(0x55);
  int64_t i = 0;
  for (; i + 32 <= nbytes; i += 32) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    const __m256i odd = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi16(x, 1)), low);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_or_si256(_mm256_andnot_si256(x, high), odd));
  }
  return i;
}
bool bed_avx2() {
  static const bool ok = cpu_pin().max_level >= kCpuLevelAvx2 && __builtin_cpu_supports("avx2");
  return ok;
}
#endif

void bed_row_to_codes(const uint8_t* src, int64_t nbytes, uint8_t* dst) {
  constexpr uint64_t kHigh = 0xAAAAAAAAAAAAAAAAull, kLow = 0x5555555555555555ull;
  int64_t i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  if (bed_avx2()) i = bed_bytes_to_codes_avx2(src, nbytes, dst);
#endif
  for (; i + 8 <= nbytes; i += 8) {
    uint64_t x;
    std::memcpy(&x, src + i, 8);
    const uint64_t c = (~x & kHigh) | ((x ^ (x >> 1)) & kLow);
    std::memcpy(dst + i, &c, 8);
  }
  for (; i < nbytes; ++i) {
    const uint32_t x = src[i];
    dst[i] = static_cast<uint8_t>((~x & 0xAAu) | ((x ^ (x >> 1)) & 0x55u));
  }
}

}  // namespace

const uint8_t* bed_to_code_table() { return kBedToCodeTable.data(); }
const uint8_t* code_to_bed_table() { return kCodeToBedTable.data(); }

BedReader::~BedReader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::shared_ptr<BedReader>> BedReader::open(const std::string& prefix_or_path, ThreadPool* pool) {
  std::shared_ptr<BedReader> r(new BedReader());
  r->paths_ = plink_paths(prefix_or_path);
  const PlinkPaths& p = r->paths_;

  int fd = ::open(p.bed.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound(p.bed, ": no such file");
    return Status::IOError(p.bed, ": cannot open: ", std::strerror(errno));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    Status s = Status::IOError(p.bed, ": cannot stat: ", std::strerror(errno));
    ::close(fd);
    return s;
  }
  const int64_t size = st.st_size;
  uint8_t magic[3] = {0, 0, 0};
  const ssize_t got = size >= 3 ? pread(fd, magic, 3, 0) : 0;
  if (got != 3 || magic[0] != 0x6c || magic[1] != 0x1b) {
    ::close(fd);
    return Status::Corrupt(p.bed, ": not a PLINK 1 .bed file (the first bytes are not 6c 1b",
                           size < 3 ? "; the file is shorter than 3 bytes" : "", ")");
  }
  if (magic[2] == 0x00) {
    ::close(fd);
    return Status::Unsupported(p.bed, ": sample-major .bed (mode byte 00) is not supported; "
                               "rewrite it variant-major with `plink --bfile PREFIX --make-bed`");
  }
  if (magic[2] != 0x01) {
    ::close(fd);
    return Status::Corrupt(p.bed, ": unknown .bed mode byte 0x", std::hex, int(magic[2]),
                           " (expected 01, variant-major)");
  }

  // The .fam and the .bim side by side on the caller's pool (in order without one); the
  // .fam's error comes first, as when they are read in turn.
  Result<SampleInfo> fam = Status::Internal("not read");
  Result<BimTable> bim = Status::Internal("not read");
  const Status read = parallel_for(pool, 2, [&](int64_t i) -> Status {
    if (i == 0) {
      fam = read_fam(p.fam);
      return fam.status();
    }
    bim = read_bim(p.bim);
    return bim.status();
  });
  if (!read.ok()) {
    ::close(fd);
    return read;
  }
  r->samples_ = std::move(*fam);
  r->bim_ = std::move(*bim);
  r->num_variants_ = r->bim_.variants.size();
  const int64_t n = r->samples_.size();
  const int64_t m = r->num_variants_;
  r->row_bytes_ = packed_row_bytes(n);
  auto body = checked_mul(m, r->row_bytes_);
  auto expected = body.ok() ? checked_add(*body, 3) : body;
  if (!expected.ok() || *expected != size) {
    ::close(fd);
    std::string why;
    if (r->row_bytes_ > 0 && (size - 3) % r->row_bytes_ == 0) {
      why = str_cat("; that is ", (size - 3) / r->row_bytes_, " variants for the ", n,
                    " samples of ", p.fam, " (do the .bim and .fam belong to this .bed?)");
    } else if (expected.ok() && size < *expected) {
      why = "; the file is truncated";
    }
    return Status::Corrupt(p.bed, ": size is ", size, " bytes but ", p.bim, " lists ", m,
                           " variants and ", p.fam, " lists ", n, " samples, so it should be 3 + ",
                           m, " x ", r->row_bytes_, " = ", expected.ok() ? *expected : -1, " bytes", why);
  }
  r->fd_ = fd;
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return r;
}

Result<VariantInfo> BedReader::variants(int64_t start, int64_t count) const {
  if (start < 0 || count < 0 || start + count > num_variants_) {
    return Status::Invalid(paths_.bed, ": variant range [", start, ", ", start + count, ") out of bounds (",
                           num_variants_, " variants)");
  }
  VariantInfo out;
  out.start = start;
  out.reserve(count);
  out.append_range(bim_.variants, start, count);
  return out;
}

Status BedReader::read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out,
                             int64_t stride) const {
  const int64_t n = num_samples();
  if (v0 < 0 || nv < 0 || v0 + nv > num_variants_ || s0 < 0 || ns < 0 || s0 + ns > n) {
    return Status::Invalid(paths_.bed, ": block [", v0, ", +", nv, ") x [", s0, ", +", ns,
                           ") out of bounds (", num_variants_, " x ", n, ")");
  }
  if (stride < packed_row_bytes(ns)) return Status::Invalid("read_codes: stride too small");
  if (s0 == 0 && ns == n && stride == row_bytes_) {
    // Whole rows back to back: read straight into `out` and translate in place (no staging
    // buffer; the rows are still in cache when translated).
    STRATA_RETURN_NOT_OK(pread_rows(v0, nv, out));
    for (int64_t v = 0; v < nv; ++v) {
      bed_row_to_codes(out + v * stride, row_bytes_, out + v * stride);
      detail::pad_row(out + v * stride, ns);
    }
    return Status::OK();
  }
  // Whole rows are read in pieces of at most ~4 MiB through a per-thread buffer.
  thread_local Bytes raw;  // not zeroed on growth: pread fills what is used
  const int64_t per_read = std::max<int64_t>(1, (int64_t{4} << 20) / std::max<int64_t>(1, row_bytes_));
  for (int64_t done = 0; done < nv;) {
    const int64_t rows = std::min(per_read, nv - done);
    const int64_t bytes = rows * row_bytes_;
    raw.resize(static_cast<size_t>(bytes));
    STRATA_RETURN_NOT_OK(pread_rows(v0 + done, rows, raw.data()));
    for (int64_t v = 0; v < rows; ++v) {
      const uint8_t* src = raw.data() + v * row_bytes_;
      uint8_t* dst = out + (done + v) * stride;
      if (s0 == 0) {
        bed_row_to_codes(src, packed_row_bytes(ns), dst);
        detail::pad_row(dst, ns);
      } else {
        detail::extract_row(src, s0, ns, kBedToCodeTable.data(), dst);
      }
    }
    done += rows;
  }
  return Status::OK();
}

Status BedReader::pread_rows(int64_t v0, int64_t nv, uint8_t* out) const {
  const int64_t bytes = nv * row_bytes_, offset = 3 + v0 * row_bytes_;
  for (int64_t got = 0; got < bytes;) {
    const ssize_t r = pread(fd_, out + got, static_cast<size_t>(bytes - got), offset + got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      return Status::IOError(paths_.bed, ": cannot read variants [", v0, ", +", nv, ") at byte ", offset + got, ": ",
                             r < 0 ? std::strerror(errno) : "unexpected end of file");
    }
    got += r;
  }
  return Status::OK();
}

int64_t BedReader::variant_chunk() const {
  // About 4 MiB of .bed per block.
  return std::max<int64_t>(1, (int64_t{4} << 20) / std::max<int64_t>(1, row_bytes_));
}

}  // namespace strata::io
