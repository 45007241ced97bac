// Fuzzes the Zarr metadata parsers with arbitrary documents.
// Byte 0 picks the parser (even: v2 `.zarray`, odd: v3 `zarr.json`); the rest is the document.
// Besides "no crash, no sanitizer report", every accepted document must survive a dump and
// re-parse, and small chunks must round-trip through the pipeline the metadata describes.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "io/zarr/fill_value_internal.hpp"
#include "io/zarr/zarr_metadata_internal.hpp"

namespace {

using namespace strata;
using namespace strata::io::detail;

// Chunks larger than this are not encoded (the fuzzer would spend its time in memset).
constexpr int64_t kMaxChunkBytes = 1 << 16;

Result<ArrayMetadata> parse(bool v3, std::span<const uint8_t> text) {
  auto doc = parse_json_object(text, v3 ? "zarr.json" : ".zarray");
  if (!doc.ok()) return doc.status();
  return v3 ? parse_v3_array(*doc) : parse_v2_array(*doc);
}

void check_pipeline(const ChunkPipeline& p, std::span<const uint8_t> fill) {
  if (p.chunk_nbytes() > kMaxChunkBytes) return;
  std::vector<uint8_t> chunk(static_cast<size_t>(p.chunk_nbytes()));
  for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = fill.empty() ? 0 : fill[i % fill.size()] ^ static_cast<uint8_t>(i);
  auto enc = p.encode(chunk);
  if (!enc.ok()) return;  // e.g. a compressor refusing its configuration at run time
  std::vector<uint8_t> back(chunk.size());
  if (!p.decode(*enc, back).ok() || back != chunk) __builtin_trap();
  (void)p.describe();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool v3 = data[0] & 1;
  auto meta = parse(v3, std::span<const uint8_t>(data + 1, size - 1));
  if (!meta.ok()) return 0;
  const ArrayMetadata& m = *meta;
  // Accepted metadata must be self-consistent.
  if (m.fill.size() != static_cast<size_t>(m.dtype.itemsize())) __builtin_trap();
  if (m.chunks.size() != m.shape.size() || m.outer_chunks.size() != m.shape.size()) __builtin_trap();
  (void)chunk_key_suffix(m, Shape(m.shape.size(), 0));
  (void)fill_value_to_json(m.fill, m.dtype, m.format);
  const std::string text = dump_metadata(m.document);
  auto again = parse(v3, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  if (!again.ok() || again->shape != m.shape || again->fill != m.fill) __builtin_trap();
  check_pipeline(*m.pipeline, m.fill);
  if (m.sharding) {
    const ShardingSpec& s = *m.sharding;
    if (s.inner_per_shard > 4096) return 0;
    // One stored inner chunk in a shard: the index must decode and validate.
    std::vector<std::optional<Bytes>> inner(static_cast<size_t>(s.inner_per_shard));
    inner[0] = Bytes(3, 0x5a);
    auto shard = assemble_shard(inner, s);
    if (!shard.ok() || !*shard) __builtin_trap();
    const Bytes& b = **shard;
    const int64_t at = s.index_at_end ? static_cast<int64_t>(b.size()) - s.index_nbytes : 0;
    auto index = decode_shard_index(std::span<const uint8_t>(b.data() + at, s.index_nbytes), s);
    if (!index.ok() || !validate_shard_index(*index, s, static_cast<int64_t>(b.size())).ok()) __builtin_trap();
    if ((*index)[1] != 3 || (s.inner_per_shard > 1 && (*index)[2] != kShardEmpty)) __builtin_trap();
  }
  return 0;
}
