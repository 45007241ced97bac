// Persisted blocks: chunks held in memory raw, 2-bit packed (values 0..3, four per byte) or
// compressed with a bytes codec, and decoded on the fly whenever a box is read.
#include "array/persisted.hpp"

#include <cstring>

#include "array/elementwise.hpp"

namespace strata::detail {

PersistedNode::PersistedNode(Shape shape, Shape chunks, DType dtype, std::shared_ptr<const Storage> storage)
    : Node(NodeKind::Persisted, std::move(shape), dtype, std::move(chunks)), storage_(std::move(storage)) {}

int64_t PersistedNode::working_bytes(const Box&) const {
  int64_t n = 1;
  for (int64_t c : chunks()) n *= c;
  return 2 * n * dtype().itemsize();
}

std::string PersistedNode::label() const {
  static const char* kinds[] = {"raw", "2-bit", "codec"};
  return str_cat("persisted(", kinds[static_cast<int>(storage_->kind)], ", ", storage_->stored_bytes, " bytes)");
}

void unpack_2bit(const uint8_t* packed, int64_t n, uint8_t* codes) {
  for (int64_t i = 0; i < n; ++i) codes[i] = (packed[i >> 2] >> (2 * (i & 3))) & 3;
}

Status pack_2bit(const void* values, DType dtype, int64_t n, const Shape& chunk_shape, Bytes& out) {
  out.assign(static_cast<size_t>((n + 3) / 4), 0);
  Status bad;
  Status st = visit_scalar(dtype.type, [&](auto tag) {
    using T = decltype(tag);
    const T* v = static_cast<const T*>(values);
    for (int64_t i = 0; i < n; ++i) {
      const double d = static_cast<double>(v[i]);
      if (!(d >= 0 && d <= 3) || d != static_cast<double>(static_cast<int>(d))) {
        if (bad.ok()) {
          bad = Status::Invalid("2-bit packing needs values in 0..3, found ", d, " at element ", i,
                                " of a chunk of shape ", shape_to_string(chunk_shape));
        }
        return;
      }
      out[i >> 2] |= static_cast<uint8_t>(static_cast<int>(d) << (2 * (i & 3)));
    }
  });
  STRATA_RETURN_NOT_OK(st);
  return bad;
}

Status PersistedNode::read_box(const Box& box, void* out, EvalContext& ctx) const {
  const Storage& s = *storage_;
  const int64_t isz = dtype().itemsize();
  STRATA_ASSIGN_OR_RETURN(ChunkGrid grid, ChunkGrid::make(shape(), chunks()));
  const int64_t n = grid.chunk_numel();
  std::vector<uint8_t> codes(s.kind == Storage::Kind::Packed2Bit ? static_cast<size_t>(n) : 0);
  return read_box_from_chunks(shape(), chunks(), isz, box, out, [&](const Shape& idx, void* buf) -> Status {
    const Bytes& stored = s.chunks[grid.ravel(idx)];
    switch (s.kind) {
      case Storage::Kind::Raw: std::memcpy(buf, stored.data(), static_cast<size_t>(n * isz)); break;
      case Storage::Kind::Packed2Bit:
        unpack_2bit(stored.data(), n, codes.data());
        STRATA_RETURN_NOT_OK(ctx.be().ew_cast(ScalarType::UInt8, dtype().type, codes.data(), buf, n));
        break;
      case Storage::Kind::Codec:
        STRATA_RETURN_NOT_OK(s.codec->decode_into(stored, {static_cast<uint8_t*>(buf), static_cast<size_t>(n * isz)}));
        break;
    }
    count_chunk(ctx, static_cast<int64_t>(stored.size()), n * isz);
    return Status::OK();
  });
}

}  // namespace strata::detail
