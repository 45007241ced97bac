#pragma once
// Decoding of one PLINK 2 `.pgen` variant record (pgen_spec: main track, hardcall-phase and
// dosage tracks) into canonical 2-bit codes and float dosages. Pure functions over the bytes
// of a record; the reader (pgen_reader.cpp) finds the records and keeps the LD base row.

#include <cstdint>
#include <string>

namespace strata::io::detail::pgen {

/// The bytes of one record still to be parsed.
struct Cursor {
  const uint8_t* p = nullptr;
  const uint8_t* end = nullptr;
  int64_t left() const { return end - p; }
};

/// Variants per variant block (pgen_spec "Header": the index holds one offset per block).
inline constexpr int64_t kBlockVariants = int64_t{1} << 16;

/// Record-type bits (pgen_spec "Variant records").
inline constexpr uint8_t kMainMask = 0x07;        // how the main track is stored
inline constexpr uint8_t kMultiallelicBit = 0x08; // auxiliary track 1 present
inline constexpr uint8_t kPhaseBit = 0x10;        // auxiliary track 2 present
inline constexpr uint8_t kDosageMask = 0x60;      // auxiliary tracks 3-4 present (and how)
inline constexpr uint8_t kPhasedDosageBit = 0x80; // auxiliary tracks 7-8 present

/// Whether a main track refers to the previous non-LD-compressed record (types 2 and 3).
inline bool is_ld_compressed(uint8_t type) { return (type & 6) == 2; }

/// Decode the main track of a record of `type` for `n` samples into the packed row `row`
/// (⌈n/4⌉ bytes, codes 0 hom-REF, 1 het, 2 two non-REF alleles, 3 missing; trailing pairs 0).
/// `ld_base` is the row of the previous non-LD-compressed record (only read for types 2, 3).
/// Returns "" or what is malformed.
std::string decode_main_track(uint8_t type, int64_t n, const uint8_t* ld_base, Cursor& c, uint8_t* row);

/// Add the code counts of a main track that is not LD-compressed (types 0, 1, 4-7) to
/// counts[4] (code → samples) without decoding it: a difflist record counts its fill code n
/// minus the list's length times and each entry's code once. Returns "" or what is malformed.
std::string count_main_track(uint8_t type, int64_t n, Cursor& c, int64_t counts[4]);

/// The same for an LD-compressed main track (types 2, 3): the counts of its base row
/// `ld_base` (decoded) adjusted by the difflist's entries.
std::string count_ld_main_track(uint8_t type, int64_t n, const uint8_t* ld_base, const int64_t base_counts[4],
                                Cursor& c, int64_t counts[4]);

/// Step over the hardcall-phase track of a record whose main track decoded to `row`.
std::string skip_phase_track(int64_t n, const uint8_t* row, Cursor& c);

/// Decode the dosage track (type bits 5-6) into `dosage` (n floats): samples without an
/// explicit dosage take their hard call (0/1/2, missing → NaN); explicit ones value / 16384.
std::string decode_dosage_track(uint8_t type, int64_t n, const uint8_t* row, Cursor& c, float* dosage);

/// Fill `dosage` with the hard calls of `row` (0/1/2, 3 → NaN).
void codes_to_dosages(const uint8_t* row, int64_t n, float* dosage);

}  // namespace strata::io::detail::pgen
