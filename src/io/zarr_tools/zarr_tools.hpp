#pragma once
// Whole-store operations behind `strata zarr info|export|import|verify`: describe a hierarchy,
// move arrays between Zarr and `.npy` in bounded memory, and check every chunk decodes.
// Internal (not installed): the CLI's own layer, with JSON output for `--json`.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "strata/core/job.hpp"
#include "strata/core/context.hpp"
#include "strata/core/result.hpp"
#include "strata/io/zarr.hpp"

namespace strata::io {

/// \brief Description of one node for `strata zarr info`.
struct ZarrInfoEntry {
  std::string path;  ///< relative to the store root
  NodeKind kind = NodeKind::Missing;
  ZarrFormat format = ZarrFormat::V2;
  // Arrays only:
  DType dtype;
  Shape shape, chunks, shards;
  std::string codecs;
  int64_t logical_bytes = 0;
  int64_t stored_bytes = 0;
  int64_t stored_objects = 0;
  int64_t grid_objects = 0;  ///< chunk (or shard) objects in a fully written array
  /// The stored dtype as written in the metadata: set for string arrays (`strings`) and for
  /// arrays strata lists but cannot decode (`unreadable_reason` says why).
  std::string raw_dtype;
  std::string unreadable_reason;
  bool strings = false;  ///< a string array (|O vlen-utf8, |S, <U): no logical byte size
};

/// \brief Walk the store, group or array at `path` (e.g. "store.zarr/a/b"), listing its
/// directories (consolidated metadata is not trusted to name every node).
Result<std::vector<ZarrInfoEntry>> zarr_info(const std::string& path);
/// \brief Human-readable tree of `entries`.
std::string format_zarr_info(const std::vector<ZarrInfoEntry>& entries);
/// \brief JSON form of `entries` (a list of objects).
nlohmann::json zarr_info_json(const std::vector<ZarrInfoEntry>& entries);

/// \brief Write the whole array at `zarr_path` to `npy_path` (C order), streaming row slabs
/// of at most `slab_bytes`. The .npy appears only when complete.
Status zarr_export_npy(const Context& ctx, const std::string& zarr_path, const std::string& npy_path,
                       int64_t slab_bytes = int64_t{256} << 20);

/// \brief Options of `strata zarr import`.
struct ZarrImportOptions {
  Shape chunks;                 ///< empty = about 1 Mi elements per chunk
  std::string codec = "default";///< CLI codec spec; "default" = blosc zstd level 5, shuffle
  ZarrFormat format = ZarrFormat::V2;
  Shape shards;                 ///< v3 only; empty = no sharding
  bool overwrite = false;
  int64_t slab_bytes = int64_t{256} << 20;
};

/// \brief Import `npy_path` as a new array at `zarr_path`, streaming row slabs, as a `Job`: a
/// local store is staged and committed when complete; returns the report fields (shape,
/// chunks, dtype, codec, format, files, phases).
Result<Summary> zarr_import_npy(const Context& ctx, const std::string& npy_path, const std::string& zarr_path,
                       const ZarrImportOptions& options);

/// \brief Default chunk shape for `shape`: halve the largest extent until ≤ `target` elements.
Shape default_chunks(const Shape& shape, int64_t target = int64_t{1} << 20);

/// \brief Outcome of zarr_verify(): one report per decodable array (string arrays included),
/// and the arrays that could not be verified because strata does not decode their dtype or
/// codecs (path, reason). A verification with unverified arrays has not checked the whole store.
struct ZarrVerifyResult {
  std::vector<std::pair<std::string, ZarrArray::VerifyReport>> arrays;
  std::vector<std::pair<std::string, std::string>> unverified;
};

/// \brief Verify every array under `path`, found by listing the store's directories (not from
/// consolidated metadata, which may omit arrays). Metadata that fails to parse counts as
/// corrupt; arrays strata cannot decode are listed as unverified.
Result<ZarrVerifyResult> zarr_verify(const Context& ctx, const std::string& path);

}  // namespace strata::io
