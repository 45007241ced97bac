#pragma once
// A read-only view of a remote store that answers Zarr metadata reads from consolidated
// metadata (fetched once) or from a cache of earlier answers, so opening a hierarchy costs one
// request when it is consolidated and metadata is never fetched twice.
#include <memory>

#include "strata/io/store.hpp"

namespace strata::io::remote {

/// Fetches `.zmetadata` and, when absent, the root `zarr.json` (v3 inline consolidation).
Result<std::shared_ptr<Store>> make_metadata_cache_store(std::shared_ptr<Store> inner);

/// Whether the view holds consolidated metadata (for the location search).
bool has_consolidated_metadata(const Store& store);

/// A view whose reader reads each chunk once (verify) keeps no copies of chunks; no-op for
/// other stores. Metadata answers are still cached.
void keep_no_chunks(const Store& store);

}  // namespace strata::io::remote
