#pragma once
// Helpers shared by the `strata zarr` tool implementations (info/verify and import/export).

#include <memory>
#include <string>

#include "strata/core/result.hpp"
#include "strata/core/shape.hpp"
#include "strata/io/store.hpp"

namespace strata::io::zarr_tools_internal {

struct Opened {
  std::shared_ptr<Store> store;
  std::string node;
};

/// Open the store holding `path` (store.zarr/a/b) and name the node inside it.
Result<Opened> open_location(const std::string& path);

/// Rows per slab so that a slab of full rows (axis 0) stays under `slab_bytes`, aligned to the
/// chunk rows so each chunk is decoded once.
int64_t slab_rows(const Shape& shape, int64_t chunk_rows, int64_t itemsize, int64_t slab_bytes);

}  // namespace strata::io::zarr_tools_internal
