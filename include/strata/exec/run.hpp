#pragma once
/// \file
/// Running lazy arrays: compute into host memory, persist blocks in memory (raw, 2-bit packed
/// or Blosc-compressed, decoded on the fly when read), and write to Zarr.
///
/// Before the main pass, every reduction inside the expression is evaluated by its own pass and
/// held (small, reduced-shape) for the duration of the call only; nothing else is cached.
///
/// \code
/// Array x = Array::random_normal({40000, 40000}, {10000, 10000}, 10.0, 1.0, 0);
/// Context ctx;
/// STRATA_ASSIGN_OR_RETURN(HostArray r, compute(ctx, sum((x + 1).slice({Slice::every(2), Slice::every(2)}))));
/// // ctx.report(): passes, blocks, elements generated, time per phase
/// \endcode

#include <memory>
#include <string>
#include <vector>

#include "strata/array/array.hpp"
#include "strata/exec/pass.hpp"
#include "strata/io/zarr.hpp"

namespace strata {

/// \brief Evaluate `a` into a dense host array.
Result<HostArray> compute(const Context& ctx, const Array& a, const PassOptions& options = {});

/// \brief How persisted blocks are held in memory.
enum class PersistEncoding {
  Raw,       ///< dense blocks as computed
  Packed2Bit,///< four values per byte; every value must be an integer in 0..3 (genotype codes)
  Codec,     ///< compressed with a bytes codec (e.g. "blosc:zstd:1:bitshuffle")
};

struct PersistOptions {
  PersistEncoding encoding = PersistEncoding::Raw;
  std::string codec = "blosc:zstd:1:bitshuffle";  ///< for PersistEncoding::Codec (io::parse_codec_spec)
};

/// \brief Compute every block of `a` once and keep it in memory; the returned array reads those
/// blocks (decoding them on the fly). Packed2Bit fails with Invalid naming the first value
/// outside 0..3.
Result<Array> persist(const Context& ctx, const Array& a, const PersistOptions& persist_options = {},
                      const PassOptions& options = {});

/// \brief Bytes held by a persisted array (0 for other arrays).
int64_t persisted_bytes(const Array& a);

/// \brief Write `a` as a new Zarr array at `path` of `store`. `zarr_options.shape/dtype` are
/// taken from `a`; empty `zarr_options.chunks` = `a.chunks()`. Blocks are written in parallel,
/// aligned to the Zarr chunks (or shards).
Status to_zarr(const Context& ctx, const Array& a, const std::shared_ptr<io::Store>& store, const std::string& path,
               io::ZarrCreateOptions zarr_options = {}, const PassOptions& options = {});

/// \brief Options of write_zarr().
struct ZarrWriteOptions {
  io::ZarrFormat format = io::ZarrFormat::V2;
  Shape chunks;                               ///< empty = the array's chunks
  std::string codec = "blosc:zstd:5:shuffle";  ///< io::parse_codec_spec ("none" = uncompressed)
  std::vector<std::string> dimension_names;   ///< v3 dimension_names / v2 _ARRAY_DIMENSIONS
  bool overwrite = false;                     ///< replace an existing Zarr store at the path
};

/// \brief Write `a` as a new Zarr store at the directory `path` (the array at its root),
/// staged and committed as every strata output is (strata/core/output.hpp): the path is
/// checked before the pass, an existing store is replaced only with `overwrite` (and only when
/// it is a Zarr node), a Zarr store `a` reads is never replaced, and a failed or cancelled
/// write leaves nothing behind.
Status write_zarr(const Context& ctx, const Array& a, const std::string& path, const ZarrWriteOptions& options = {},
                  const PassOptions& pass = {});

}  // namespace strata
