#pragma once
// Storage of persisted blocks (persisted.cpp) and the 2-bit packing used for genotype codes.

#include <memory>
#include <vector>

#include "array/nodes.hpp"
#include "strata/io/codec.hpp"

namespace strata::detail {

struct PersistedNode::Storage {
  enum class Kind { Raw, Packed2Bit, Codec };
  Kind kind = Kind::Raw;
  std::shared_ptr<const io::BytesCodec> codec;
  std::vector<Bytes> chunks;  ///< one per chunk (C order), each encoding the full chunk shape
  int64_t stored_bytes = 0;
};

/// Pack n values (0..3, any dtype) four per byte, element i in bits 2(i%4).. of byte i/4.
/// Invalid names the first value outside 0..3 (or not an integer).
Status pack_2bit(const void* values, DType dtype, int64_t n, const Shape& chunk_shape, Bytes& out);
/// Inverse of pack_2bit into one code per byte.
void unpack_2bit(const uint8_t* packed, int64_t n, uint8_t* codes);

}  // namespace strata::detail
