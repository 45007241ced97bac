// Zarr source: a box is assembled from exactly the chunks that hold one of its elements, each
// decoded once per read (nothing is cached between reads).
#include <algorithm>

#include "array/nodes.hpp"
#include "strata/array/array.hpp"

namespace strata {
namespace detail {

ZarrNode::ZarrNode(const io::ZarrArray& zarr)
    : Node(NodeKind::Zarr, zarr.shape(), zarr.dtype(), zarr.chunk_grid().chunk_shape()),
      zarr_(std::make_shared<io::ZarrArray>(zarr)) {}

int64_t ZarrNode::working_bytes(const Box&) const { return zarr_->chunk_grid().chunk_numel() * dtype().itemsize(); }

Status ZarrNode::read_box(const Box& box, void* out, EvalContext& ctx) const {
  const int64_t isz = dtype().itemsize();
  const int64_t chunk_bytes = zarr_->chunk_grid().chunk_numel() * isz;
  const bool plain_keys = zarr_->shard_shape().empty();
  return read_box_from_chunks(shape(), chunks(), isz, box, out, [&](const Shape& idx, void* buf) -> Status {
    auto stored = zarr_->read_chunk(idx, {static_cast<uint8_t*>(buf), static_cast<size_t>(chunk_bytes)});
    if (!stored.ok()) return stored.status();
    int64_t encoded = 0;
    if (plain_keys && *stored) {
      auto sz = zarr_->store()->size(zarr_->chunk_key(idx));
      if (sz.ok() && sz->has_value()) encoded = **sz;
    }
    count_chunk(ctx, encoded, chunk_bytes);
    return Status::OK();
  });
}

std::string ZarrNode::label() const { return "zarr(" + zarr_->describe() + ")"; }

}  // namespace detail

Array Array::from_zarr(const io::ZarrArray& zarr) {
  if (zarr.dtype().type == ScalarType::Float16) {
    return from_error(Status::Unsupported("from_zarr: ", zarr.describe(), " is float16"));
  }
  return from_node(std::make_shared<detail::ZarrNode>(zarr));
}

}  // namespace strata
