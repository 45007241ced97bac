// BGEN probability blocks → ALT dosages in plink2's 1/16384 units (bgen_internal.hpp).
#include <array>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "io/genotype/bgen_internal.hpp"

namespace strata::io::detail {
namespace {

// "sample 12 (ID)" for messages.
std::string sample_name(const BgenDecodeInput& in, int64_t j) {
  if (in.sample_ids && j < static_cast<int64_t>(in.sample_ids->size()))
    return str_cat("sample ", j, " (", (*in.sample_ids)[static_cast<size_t>(j)], ")");
  return str_cat("sample ", j);
}

// Layout 1 probabilities are 16-bit numerators of 32768; writers round each of the three, so
// their sum may exceed 32768 by a little. More than this (1/1024) is not rounding.
constexpr uint32_t kLayout1SumTolerance = 32;

// ALT dosage from the first (REF) allele's dosage numerator `ref_numer` (0..2·mask, in units of
// 1/mask alleles, mask = 2^bits − 1): 2 − the REF dosage in 1/16384 units, rounded as plink2's
// import rounds it: ⌊(ref_numer·16384 + 2^(bits−1)) / mask⌋ — half-up rounding whose half is
// 2^(bits−1)/mask, a hair above ½ (so e.g. 8-bit 253/255 → 16256, not 16255.498 → 16255).
// One bit is exact (every quotient is whole).
uint16_t alt_dosage_from_ref(uint64_t ref_numer, uint64_t mask) {
  const uint64_t half = mask > 1 ? (mask + 1) / 2 : 0;
  const uint64_t ref = (ref_numer * kBgenDosageOne + half) / mask;
  return static_cast<uint16_t>(2 * kBgenDosageOne - ref);
}

// The same as a table over every numerator, for bits ≤ 16 (a division per call costs more
// than decompressing).
constexpr int kMaxTableBits = 16;
const uint16_t* alt_dosage_table(int bits) {
  static std::array<std::once_flag, kMaxTableBits + 1> once;
  static std::array<std::unique_ptr<uint16_t[]>, kMaxTableBits + 1> tables;
  std::call_once(once[bits], [bits] {
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    auto t = std::make_unique<uint16_t[]>(2 * mask + 1);
    for (uint64_t x = 0; x <= 2 * mask; ++x) t[x] = alt_dosage_from_ref(x, mask);
    tables[bits] = std::move(t);
  });
  return tables[bits].get();
}

// plink2's layout-1 import: the second allele's dosage (p1 + 2·p2) / (p0 + p1 + p2) in 1/16384
// units, rounded half to even.
uint16_t layout1_dosage(uint32_t p0, uint32_t p1, uint32_t p2) {
  const uint64_t sum = uint64_t{p0} + p1 + p2;
  const uint64_t numer = uint64_t{kBgenDosageOne} * p1 + uint64_t{2 * kBgenDosageOne} * p2;
  uint64_t q = numer / sum;
  const uint64_t twice_rem = 2 * (numer - q * sum);
  if (twice_rem > sum || (twice_rem == sum && (q & 1))) ++q;
  return static_cast<uint16_t>(q);
}

Status decode_layout1(const BgenDecodeInput& in, uint16_t* dosage) {
  const int64_t n = in.num_samples;
  if (in.size != 6 * n)
    return Status::Corrupt("probability block holds ", in.size, " bytes, expected 6 x ", n, " samples = ", 6 * n);
  for (int64_t j = 0; j < n; ++j) {
    const uint8_t* p = in.data + 6 * j;
    const uint32_t p0 = load_u16(p), p1 = load_u16(p + 2), p2 = load_u16(p + 4);
    const uint32_t sum = p0 + p1 + p2;
    if (sum == 0) {
      dosage[j] = kBgenMissingDosage;
      continue;
    }
    if (sum > 2 * kBgenDosageOne + kLayout1SumTolerance)
      return Status::Corrupt(sample_name(in, j), ": probabilities sum to ", sum / 32768.0, " (", p0, " + ", p1, " + ", p2,
                             " of 32768), more than 1");
    dosage[j] = layout1_dosage(p0, p1, p2);
  }
  return Status::OK();
}

// Stored probabilities of one sample (layout 2): phased: ploidy × (K − 1); unphased: the
// genotypes of `ploidy` draws from K alleles, minus the last one.
int64_t values_per_sample(int ploidy, int64_t k, bool phased) {
  if (ploidy == 0) return 0;
  if (phased) return ploidy * (k - 1);
  if (ploidy == 1) return k - 1;
  return k * (k + 1) / 2 - 1;  // ploidy 2 (larger ploidy is refused before this)
}

class BitReader {
 public:
  BitReader(const uint8_t* data, int bits) : data_(data), bits_(bits), mask_((uint64_t{1} << bits) - 1) {}
  // Value number i (reads 8 bytes at its first byte: the caller pads the buffer).
  uint64_t get(int64_t i) const {
    const uint64_t bit = static_cast<uint64_t>(i) * static_cast<uint64_t>(bits_);
    uint64_t word;
    std::memcpy(&word, data_ + (bit >> 3), 8);
    return (word >> (bit & 7)) & mask_;
  }
  uint64_t mask() const { return mask_; }

 private:
  const uint8_t* data_;
  int bits_;
  uint64_t mask_;
};

// The unphased diploid biallelic 8-bit block: table[2·aa + ab] (alt_dosage_table(8)) in 16-bit
// arithmetic, without branches, so that the compiler vectorizes it (missing calls are scattered:
// a branch on each mispredicts). With r = 2·aa + ab ≤ 510, ⌊(16384·r + 128) / 255⌋ =
// 64·r + ⌊(64·r + 128) / 255⌋ and, for y ≤ 32768, ⌊y / 255⌋ = (y + 1 + ⌊y / 256⌋) / 256
// (bgen_reader_test.cpp checks every pair against the table). Returns non-zero when a call's
// probabilities sum above 1 (the checked loop then names the sample).
// (Not inlined: GCC vectorizes the loop only as a function of its own.)
[[gnu::noinline]] uint16_t decode_diploid_8bit(const uint8_t* __restrict p, const uint8_t* __restrict ploidy,
                                               int64_t n, uint16_t* __restrict dosage) {
  uint16_t over = 0;
  for (int64_t j = 0; j < n; ++j) {
    const uint16_t aa = p[2 * j], ab = p[2 * j + 1];
    const uint16_t missing = static_cast<uint16_t>(ploidy[j] >> 7);
    over |= static_cast<uint16_t>(((aa + ab) >> 8) & (missing ^ 1));
    const uint16_t r64 = static_cast<uint16_t>((2 * aa + ab) << 6), y = static_cast<uint16_t>(r64 + 128);
    const uint16_t ref = static_cast<uint16_t>(r64 + ((y + 1 + (y >> 8)) >> 8));
    dosage[j] = static_cast<uint16_t>((2 * kBgenDosageOne - ref) | (0u - missing));  // missing: 0xFFFF
  }
  return over;
}

Status decode_layout2(const BgenDecodeInput& in, uint16_t* dosage) {
  const int64_t n = in.num_samples;
  const uint8_t* d = in.data;
  if (in.size < 10 + n)
    return Status::Corrupt("probability block holds ", in.size, " bytes, fewer than its ", 10 + n, "-byte header");
  if (load_u32(d) != static_cast<uint64_t>(n))
    return Status::Corrupt("probability block is for ", load_u32(d), " samples, the file has ", n);
  const uint16_t k = load_u16(d + 4);
  if (k != in.allele_count)
    return Status::Corrupt("probability block has ", k, " alleles, the variant ", in.allele_count);
  const int min_ploidy = d[6], max_ploidy = d[7];
  if (min_ploidy > max_ploidy || max_ploidy > 63)
    return Status::Corrupt("ploidy range ", min_ploidy, "..", max_ploidy, " is invalid");
  const uint8_t* ploidy_bytes = d + 8;
  const int phased_byte = d[8 + n];
  const int bits = d[9 + n];
  if (phased_byte > 1) return Status::Corrupt("phased flag is ", phased_byte, " (expected 0 or 1)");
  if (bits == 0 || bits > 32) return Status::Corrupt("probabilities have ", bits, " bits (expected 1 to 32)");
  const bool phased = phased_byte == 1;
  const BitReader probs(d + 10 + n, bits);
  const uint64_t mask = probs.mask();
  const uint16_t* table = bits <= kMaxTableBits ? alt_dosage_table(bits) : nullptr;

  // Total values first: the block's size must match them exactly.
  int64_t total = 0;
  bool counted = false;
  if (!phased && min_ploidy == 2 && max_ploidy == 2) {
    // Every sample diploid (the common block): one branch-free pass checks the ploidies.
    uint32_t off = 0;
    for (int64_t j = 0; j < n; ++j) off |= (ploidy_bytes[j] & 63u) ^ 2u;
    counted = off == 0;
    if (counted) total = n * values_per_sample(2, k, false);
  }
  for (int64_t j = 0; j < n && !counted; ++j) {
    const int ploidy = ploidy_bytes[j] & 63;
    if (ploidy < min_ploidy || ploidy > max_ploidy)
      return Status::Corrupt(sample_name(in, j), ": ploidy ", ploidy, " is outside the block's range ", min_ploidy, "..",
                             max_ploidy);
    if (ploidy > 2)
      return Status::Unsupported(sample_name(in, j), ": ploidy ", ploidy, "; strata reads ploidy 1 and 2 only");
    total += values_per_sample(ploidy, k, phased);
  }
  const int64_t expected = 10 + n + (total * bits + 7) / 8;
  if (in.size != expected)
    return Status::Corrupt("probability block holds ", in.size, " bytes, expected ", expected, " for ", total, " ",
                           bits, "-bit probabilities");

  const bool fast_diploid = !phased && k == 2 && min_ploidy == 2 && max_ploidy == 2 && table;
  if (fast_diploid) {
    // The common block (unphased diploid biallelic, ≤ 16 bits): whole bytes for 8 and 16 bits.
    const uint8_t* p = d + 10 + n;
    auto decode = [&](auto get_pair) -> Status {
      for (int64_t j = 0; j < n; ++j) {
        if (ploidy_bytes[j] & 0x80) {
          dosage[j] = kBgenMissingDosage;
          continue;
        }
        const auto [aa, ab] = get_pair(j);
        if (aa + ab > mask)
          return Status::Corrupt(sample_name(in, j), ": probabilities sum to ", double(aa + ab) / double(mask),
                                 ", more than 1");
        dosage[j] = table[2 * aa + ab];
      }
      return Status::OK();
    };
    if (bits == 8) {
      // Branch-free (missing calls are scattered: a branch on each mispredicts); a sum above 1
      // is looked for again by the checked loop, which names the sample.
      if (decode_diploid_8bit(p, ploidy_bytes, n, dosage) == 0) return Status::OK();
      return decode([p](int64_t j) { return std::pair<uint64_t, uint64_t>(p[2 * j], p[2 * j + 1]); });
    }
    if (bits == 16)
      return decode([p](int64_t j) { return std::pair<uint64_t, uint64_t>(load_u16(p + 4 * j), load_u16(p + 4 * j + 2)); });
    return decode([&probs](int64_t j) { return std::pair<uint64_t, uint64_t>(probs.get(2 * j), probs.get(2 * j + 1)); });
  }

  int64_t at = 0;  // index of the sample's first value
  for (int64_t j = 0; j < n; ++j) {
    const int ploidy = ploidy_bytes[j] & 63;
    const int64_t count = values_per_sample(ploidy, k, phased);
    const int64_t first = at;
    at += count;
    if ((ploidy_bytes[j] & 0x80) || ploidy == 0) {
      dosage[j] = kBgenMissingDosage;
      continue;
    }
    uint64_t ref_numer = 0;  // first allele's dosage, in 1/mask alleles
    if (phased) {
      for (int h = 0; h < ploidy; ++h) {
        uint64_t sum = 0;
        for (int64_t a = 0; a < k - 1; ++a) sum += probs.get(first + h * (k - 1) + a);
        if (sum > mask)
          return Status::Corrupt(sample_name(in, j), ", haplotype ", h + 1, ": probabilities sum to ",
                                 double(sum) / double(mask), ", more than 1");
        ref_numer += k >= 2 ? probs.get(first + h * (k - 1)) : mask;
      }
      if (ploidy == 1) ref_numer *= 2;  // a haploid call counts as homozygous
    } else {
      uint64_t sum = 0;
      for (int64_t a = 0; a < count; ++a) sum += probs.get(first + a);
      if (sum > mask)
        return Status::Corrupt(sample_name(in, j), ": probabilities sum to ", double(sum) / double(mask), ", more than 1");
      if (k < 2) {
        ref_numer = 2 * mask;
      } else if (ploidy == 1) {
        ref_numer = 2 * probs.get(first);
      } else {
        // Genotypes (a ≤ b) in colex order: (a, b) is value b(b+1)/2 + a. REF copies:
        // 2 for (0, 0), 1 for each (0, b).
        ref_numer = 2 * probs.get(first);
        for (int64_t b = 1; b < k; ++b) ref_numer += probs.get(first + b * (b + 1) / 2);
      }
    }
    dosage[j] = table ? table[ref_numer] : alt_dosage_from_ref(ref_numer, mask);
  }
  return Status::OK();
}

}  // namespace

Status decode_bgen_dosages(const BgenDecodeInput& in, uint16_t* dosage) {
  return in.layout == 1 ? decode_layout1(in, dosage) : decode_layout2(in, dosage);
}

}  // namespace strata::io::detail
