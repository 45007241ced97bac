// The fast text VCF path: the nine fixed columns split here (QUAL skipped, FILTER/INFO/FORMAT
// names only checked against the header), and GT read straight from each sample's text into
// codes. htslib's vcf_parse builds every FORMAT field of every sample, which is most of the cost
// of opening a VCF; here a diploid GT-only row is read four samples per 16 bytes (SSE2). Whatever
// htslib would treat differently (an undefined name it adds with a warning, a malformed field it
// rejects, multi-digit or polyploid calls) is left to it, so the records are the same.
#include "strata/core/config.hpp"

#if STRATA_HAVE_HTSLIB
#include "io/genotype/vcf_fast_gt_internal.hpp"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "io/genotype/codes_internal.hpp"
#include "strata/core/cpu_pin.hpp"

namespace strata::io::detail {
namespace {

#if defined(__x86_64__)
// Eight calls "a/b\t" or "a|b\t" (a, b in {0, 1}) per 32 bytes into `row` from sample i, while
// the bytes have that shape and the last sample (no tab after it) is not among them; returns the
// next sample. The allele bits go to the sign bits (a shift by 7) and out by movemask: call j's
// alleles are bits 4j and 4j + 2, summed in place and then packed to two bits per call.
__attribute__((target("avx2"))) int64_t diploid_calls_avx2(const char*& s, const char* end, int64_t i, int64_t n,
                                                           uint8_t* row) {
  const __m256i calls = _mm256_set1_epi32(0x09302F30), phased = _mm256_set1_epi32(0x00005300);
  const __m256i allele_bits = _mm256_set1_epi32(0x00010001), zero = _mm256_setzero_si256();
  while (i + 8 < n && end - s >= 32) {
    const __m256i x = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)), calls);
    const __m256i rest = _mm256_andnot_si256(allele_bits, x);
    const __m256i ok = _mm256_or_si256(_mm256_cmpeq_epi8(rest, zero), _mm256_cmpeq_epi8(rest, phased));
    if (static_cast<uint32_t>(_mm256_movemask_epi8(ok)) != 0xFFFFFFFFu) break;
    const auto m = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_slli_epi16(x, 7)));
    uint32_t t = (m & 0x11111111u) + ((m >> 2) & 0x11111111u);  // call j's code in nibble j
    t = (t | (t >> 2)) & 0x0F0F0F0Fu;
    t = (t | (t >> 4)) & 0x00FF00FFu;
    t = (t | (t >> 8)) & 0x0000FFFFu;
    const unsigned shift = 2 * static_cast<unsigned>(i & 3);
    const uint32_t v = t << shift;
    uint8_t* r = row + (i >> 2);  // (i + 8) / 4 bytes at most: within the row, as i + 8 < n
    r[0] = static_cast<uint8_t>(r[0] | v);
    r[1] = static_cast<uint8_t>(r[1] | (v >> 8));
    if (shift != 0) r[2] = static_cast<uint8_t>(r[2] | (v >> 16));
    i += 8;
    s += 32;
  }
  return i;
}

bool avx2_allowed() {
  static const bool ok = __builtin_cpu_supports("avx2") && cpu_pin().max_level >= kCpuLevelAvx2;
  return ok;
}
#endif

// Allele index of one GT character: a digit below n_allele, or −1 for '.'; false otherwise.
inline bool allele_of(char c, int n_allele, int& a) {
  if (c >= '0' && c <= '9') {
    a = c - '0';
    return a < n_allele;
  }
  a = -1;
  return c == '.';
}

inline void put_code(uint8_t* row, int64_t s, unsigned code) {
  row[s >> 2] = static_cast<uint8_t>(row[s >> 2] | (code << (2 * (s & 3))));
}

}  // namespace

bool FastGtParser::defined(int type, const char* name, size_t len) {
  if (len == 0) return false;
  key_.assign(name, len);
  if (type == BCF_HL_CTG) return bcf_hdr_name2id(hdr_, key_.c_str()) >= 0;
  const int id = bcf_hdr_id2int(hdr_, BCF_DT_ID, key_.c_str());
  return bcf_hdr_idinfo_exists(hdr_, type, id);
}

// Every `sep`-separated name of a FILTER, INFO or FORMAT column is defined as `type` (an INFO
// value present exactly when the tag is not a Flag); "." has none.
bool FastGtParser::keys_defined(int type, const char* s, size_t len, char sep) {
  if (len == 1 && s[0] == '.') return true;
  const char* end = s + len;
  while (s <= end) {
    const char* t = static_cast<const char*>(std::memchr(s, sep, static_cast<size_t>(end - s)));
    if (!t) t = end;
    const char* eq = type == BCF_HL_INFO ? static_cast<const char*>(std::memchr(s, '=', static_cast<size_t>(t - s))) : nullptr;
    const char* key_end = eq ? eq : t;
    if (!defined(type, s, static_cast<size_t>(key_end - s))) return false;
    if (type == BCF_HL_INFO) {
      const int id = bcf_hdr_id2int(hdr_, BCF_DT_ID, key_.c_str());
      if ((bcf_hdr_id2type(hdr_, BCF_HL_INFO, id) == BCF_HT_FLAG) != (eq == nullptr)) return false;
    }
    s = t + 1;
  }
  return true;
}

// The n sample columns from `s` to the end of the line: GT first (one or two single-digit
// alleles or '.', '/' or '|' between), the rest of each field skipped with at most n_fmt fields.
bool FastGtParser::parse_samples(const char* s, const char* end, int n_fmt, int n_allele, uint8_t* row) {
  const bool gt_only = n_fmt == 1;
  // "a/b\tc|d\t" with a..d in {0, 1}, xor'ed with "0/0\t0/0\t": only bit 0 of the alleles and
  // '|' ^ '/' (0x53) in the separators may remain.
  constexpr uint64_t kTwoCalls = 0x09302F3009302F30ull;
  constexpr uint64_t kAlleleBits = 0x0001000100010001ull;
  const bool words = gt_only && n_allele >= 2;
  int64_t i = 0;
  while (i < n_) {
    if (words) {
      // The last sample has no tab after it: it always takes the byte path below.
#if defined(__x86_64__)
      if (avx2_allowed()) i = diploid_calls_avx2(s, end, i, n_, row);
#endif
#if defined(__SSE2__)
      // Four calls per 16 bytes; each 32-bit lane's code is byte 0 + byte 2.
      const __m128i calls = _mm_set1_epi32(0x09302F30), phased = _mm_set1_epi32(0x00005300);
      const __m128i allele_bits = _mm_set1_epi32(0x00010001), zero = _mm_setzero_si128();
      while (i + 4 < n_ && end - s >= 16) {
        const __m128i x = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s)), calls);
        const __m128i rest = _mm_andnot_si128(allele_bits, x);
        const __m128i ok = _mm_or_si128(_mm_cmpeq_epi8(rest, zero), _mm_cmpeq_epi8(rest, phased));
        if (_mm_movemask_epi8(ok) != 0xFFFF) break;
        const __m128i codes = _mm_and_si128(_mm_add_epi32(x, _mm_srli_epi32(x, 16)), _mm_set1_epi32(3));
        const auto b = static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_packus_epi16(_mm_packs_epi32(codes, zero), zero)));
        const uint32_t packed = (b | (b >> 6) | (b >> 12) | (b >> 18)) & 0xFF;
        if ((i & 3) == 0) {
          row[i >> 2] = static_cast<uint8_t>(packed);
        } else {
          for (int k = 0; k < 4; ++k) put_code(row, i + k, (packed >> (2 * k)) & 3);
        }
        i += 4;
        s += 16;
      }
#endif
      while (i + 2 < n_ && end - s >= 8) {
        uint64_t w;
        std::memcpy(&w, s, 8);
        const uint64_t x = w ^ kTwoCalls;
        if ((x & ~kAlleleBits & ~0x0000FF000000FF00ull) != 0) break;
        const unsigned sep1 = static_cast<unsigned>(x >> 8) & 0xFF, sep2 = static_cast<unsigned>(x >> 40) & 0xFF;
        if ((sep1 != 0 && sep1 != 0x53) || (sep2 != 0 && sep2 != 0x53)) break;
        put_code(row, i, static_cast<unsigned>((x & 1) + ((x >> 16) & 1)));
        put_code(row, i + 1, static_cast<unsigned>(((x >> 32) & 1) + ((x >> 48) & 1)));
        i += 2;
        s += 8;
      }
    }
    // One call; the line ends in a NUL, so reading one past a non-NUL character is safe.
    int a0, a1 = -2;
    const char* q = s;
    if (!allele_of(*q, n_allele, a0)) return false;
    ++q;
    if (*q == '/' || *q == '|') {
      if (!allele_of(q[1], n_allele, a1)) return false;
      q += 2;
    }
    const bool last = i == n_ - 1;
    if (q == end) {
      if (!last) return false;
      s = end;
    } else if (*q == '\t') {
      if (last) return false;
      s = q + 1;
    } else if (*q == ':' && !gt_only) {
      const char* tab = static_cast<const char*>(std::memchr(q, '\t', static_cast<size_t>(end - q)));
      const char* stop = tab ? tab : end;
      if (std::count(q, stop, ':') > n_fmt - 1 || (tab == nullptr) != last) return false;
      s = tab ? tab + 1 : end;
    } else {
      return false;
    }
    unsigned code;
    if (a1 == -2) code = a0 < 0 ? unsigned{kCodeMissing} : a0 > 0 ? unsigned{kCodeHomAlt} : unsigned{kCodeHomRef};
    else code = (a0 < 0 || a1 < 0) ? unsigned{kCodeMissing} : static_cast<unsigned>((a0 > 0) + (a1 > 0));
    put_code(row, i, code);
    ++i;
  }
  return true;
}

bool FastGtParser::parse(const char* line, size_t len, VcfParsedRecord& p) {
  const char* end = line + len;
  const char* col[9];
  size_t col_len[9];
  const char* s = line;
  for (int c = 0; c < 9; ++c) {
    const char* t = static_cast<const char*>(std::memchr(s, '\t', static_cast<size_t>(end - s)));
    if (!t || t == s) return false;  // fewer than ten columns, or an empty one
    col[c] = s;
    col_len[c] = static_cast<size_t>(t - s);
    s = t + 1;
  }
  // POS: 1 to 18 digits, at least 1.
  if (col_len[1] > 18) return false;
  int64_t pos = 0;
  for (size_t k = 0; k < col_len[1]; ++k) {
    const char c = col[1][k];
    if (c < '0' || c > '9') return false;
    pos = pos * 10 + (c - '0');
  }
  if (pos < 1) return false;
  // FORMAT: GT first, every name defined (the last FORMAT found so is remembered).
  const char* fmt = col[8];
  const size_t fmt_len = col_len[8];
  if (fmt_len < 2 || fmt[0] != 'G' || fmt[1] != 'T' || (fmt_len > 2 && fmt[2] != ':')) return false;
  if (last_format_.size() != fmt_len || std::memcmp(last_format_.data(), fmt, fmt_len) != 0) {
    if (!keys_defined(BCF_HL_FMT, fmt, fmt_len, ':')) return false;
    last_format_.assign(fmt, fmt_len);
  }
  const int n_fmt = 1 + static_cast<int>(std::count(fmt, fmt + fmt_len, ':'));
  if (!defined(BCF_HL_CTG, col[0], col_len[0]) || !keys_defined(BCF_HL_FLT, col[6], col_len[6], ';') ||
      !keys_defined(BCF_HL_INFO, col[7], col_len[7], ';'))
    return false;
  // ALT: "." (no ALT) or alleles without empty ones.
  const char* alt = col[4];
  const size_t alt_len = col_len[4];
  int n_allele = 1;
  if (!(alt_len == 1 && alt[0] == '.')) {
    if (alt[0] == ',' || alt[alt_len - 1] == ',') return false;
    for (size_t k = 0; k < alt_len; ++k) {
      if (alt[k] != ',') continue;
      if (alt[k + 1] == ',') return false;
      ++n_allele;
    }
    ++n_allele;
  }
  if (n_allele > 127) return false;
  p.codes.assign(static_cast<size_t>(packed_row_bytes(n_)), 0);
  if (!parse_samples(s, end, n_fmt, n_allele, p.codes.data())) return false;
  pad_row(p.codes.data(), n_);
  p.broken.clear();
  p.status = Status::OK();
  p.polyploid = 0;
  p.pos = pos;
  p.n_allele = n_allele;
  p.contig.assign(col[0], col_len[0]);
  p.skipped = n_allele > 2 && multiallelic_ == MultiallelicMode::Skip;
  if (p.skipped) return true;
  p.id.assign(col[2], col_len[2]);
  p.ref.assign(col[3], col_len[3]);
  if (n_allele == 1) p.alt.clear();
  else p.alt.assign(alt, alt_len);
  return true;
}

}  // namespace strata::io::detail

#endif
