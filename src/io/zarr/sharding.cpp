// sharding_indexed: configuration parsing, index encode/decode/validation, shard layout.
#include "io/zarr/sharding_internal.hpp"

#include <cstring>

#include "strata/io/codec.hpp"

namespace strata::io::detail {
namespace {

using nlohmann::json;

Result<Shape> parse_inner_shape(const json& cfg, const Shape& shard_shape) {
  auto it = cfg.find("chunk_shape");
  if (it == cfg.end() || !it->is_array()) return Status::Corrupt("needs a \"chunk_shape\" list");
  Shape inner;
  for (const auto& v : *it) {
    if (!v.is_number_integer() || v.get<int64_t>() < 1)
      return Status::Corrupt("chunk_shape entries must be positive integers");
    inner.push_back(v.get<int64_t>());
  }
  if (inner.size() != shard_shape.size())
    return Status::Corrupt("inner chunk_shape ", shape_to_string(inner), " does not match the rank of shard shape ",
                           shape_to_string(shard_shape));
  for (size_t i = 0; i < inner.size(); ++i) {
    if (shard_shape[i] % inner[i] != 0)
      return Status::Corrupt("shard shape ", shape_to_string(shard_shape), " is not a multiple of inner chunk_shape ",
                             shape_to_string(inner));
  }
  return inner;
}

// index_codecs must give a fixed-size index: `bytes` plus an optional trailing crc32c.
Status parse_index_codecs(const json& cfg, ShardingSpec& spec) {
  auto it = cfg.find("index_codecs");
  if (it == cfg.end() || !it->is_array()) return Status::Corrupt("needs an \"index_codecs\" list");
  bool have_bytes = false;
  for (size_t i = 0; i < it->size(); ++i) {
    auto er = parse_codec_entry((*it)[i]);
    if (!er.ok()) return er.status().with_context(str_cat("index_codecs[", i, "]"));
    const CodecEntry& e = *er;
    if (e.name == "bytes" && !have_bytes) {
      have_bytes = true;
      auto en = e.configuration.find("endian");
      if (en != e.configuration.end() && *en == "big") spec.index_big_endian = true;
      else if (en != e.configuration.end() && !en->is_null() && *en != "little")
        return Status::Corrupt("index_codecs[", i, "]: bytes endian must be \"little\" or \"big\"");
    } else if (e.name == "crc32c" && have_bytes && !spec.index_crc32c) {
      spec.index_crc32c = true;
    } else if (!e.must_understand && have_bytes) {
      continue;
    } else {
      return Status::Unsupported("index_codecs[", i, "]: '", e.name,
                                 "' is not supported in a shard index (expected bytes, then optionally crc32c)");
    }
  }
  if (!have_bytes) return Status::Corrupt("index_codecs has no \"bytes\" codec");
  return Status::OK();
}

void store_u64(uint8_t* p, uint64_t v, bool big) {
  if (big) v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}

uint64_t load_u64(const uint8_t* p, bool big) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return big ? __builtin_bswap64(v) : v;
}

}  // namespace

std::string ShardingSpec::describe() const {
  return str_cat("sharding(inner ", shape_to_string(inner_shape), ": ", inner->describe(), "; index ",
                 index_big_endian ? "big" : "little", index_crc32c ? "+crc32c" : "", " at ",
                 index_at_end ? "end" : "start", ")");
}

int64_t ShardingSpec::slot_of(const Shape& inner_index) const {
  int64_t lin = 0;
  for (size_t i = 0; i < inner_index.size(); ++i)
    lin = lin * chunks_per_shard[i] + inner_index[i] % chunks_per_shard[i];
  return lin;
}

std::string inner_slot_string(const ShardingSpec& spec, int64_t slot) {
  Shape idx(spec.chunks_per_shard.size());
  for (size_t i = idx.size(); i-- > 0;) {
    idx[i] = slot % spec.chunks_per_shard[i];
    slot /= spec.chunks_per_shard[i];
  }
  return shape_to_string(idx);
}

Result<std::shared_ptr<const ShardingSpec>> parse_sharding(const json& cfg, DType dtype, const Shape& shard_shape,
                                                           int depth) {
  if (!cfg.is_object()) return Status::Corrupt("configuration must be an object");
  auto spec = std::make_shared<ShardingSpec>();
  spec->shard_shape = shard_shape;
  STRATA_ASSIGN_OR_RETURN(spec->inner_shape, parse_inner_shape(cfg, shard_shape));
  spec->chunks_per_shard.resize(shard_shape.size());
  for (size_t i = 0; i < shard_shape.size(); ++i) spec->chunks_per_shard[i] = shard_shape[i] / spec->inner_shape[i];
  STRATA_ASSIGN_OR_RETURN(spec->inner_per_shard, shape_numel(spec->chunks_per_shard));
  // The index holds 16 bytes per inner chunk and is read whole: beyond this it could not be.
  constexpr int64_t kMaxInnerPerShard = int64_t{1} << 24;
  if (spec->inner_per_shard > kMaxInnerPerShard)
    return Status::Unsupported("shards of ", spec->inner_per_shard, " inner chunks (", shape_to_string(spec->chunks_per_shard),
                               ") exceed the supported ", kMaxInnerPerShard);

  auto codecs = cfg.find("codecs");
  if (codecs == cfg.end()) return Status::Corrupt("needs a \"codecs\" list");
  auto inner = parse_v3_codecs(*codecs, dtype, spec->inner_shape, depth);
  if (!inner.ok()) return inner.status().with_context("codecs");
  if (!inner->pipeline) return Status::Unsupported("nested sharding_indexed is not supported");
  spec->inner = inner->pipeline;

  STRATA_RETURN_NOT_OK(parse_index_codecs(cfg, *spec));
  if (auto loc = cfg.find("index_location"); loc != cfg.end()) {
    if (*loc == "start") spec->index_at_end = false;
    else if (*loc != "end") return Status::Corrupt("index_location must be \"start\" or \"end\"");
  }
  STRATA_ASSIGN_OR_RETURN(int64_t entries, checked_mul(spec->inner_per_shard, 16));
  STRATA_ASSIGN_OR_RETURN(spec->index_nbytes, checked_add(entries, spec->index_crc32c ? 4 : 0));
  return std::shared_ptr<const ShardingSpec>(std::move(spec));
}

Result<std::vector<uint64_t>> decode_shard_index(std::span<const uint8_t> encoded, const ShardingSpec& spec) {
  if (static_cast<int64_t>(encoded.size()) != spec.index_nbytes)
    return Status::Corrupt("shard index has ", encoded.size(), " bytes, expected ", spec.index_nbytes);
  const int64_t body = spec.inner_per_shard * 16;
  if (spec.index_crc32c) {
    uint32_t stored;
    std::memcpy(&stored, encoded.data() + body, 4);
    uint32_t actual = crc32c(encoded.subspan(0, static_cast<size_t>(body)));
    if (stored != actual)
      return Status::Corrupt("shard index crc32c mismatch (stored ", stored, ", computed ", actual, ")");
  }
  std::vector<uint64_t> index(static_cast<size_t>(spec.inner_per_shard) * 2);
  for (size_t i = 0; i < index.size(); ++i) index[i] = load_u64(encoded.data() + 8 * i, spec.index_big_endian);
  return index;
}

Status validate_shard_index(const std::vector<uint64_t>& index, const ShardingSpec& spec, int64_t shard_size) {
  if (shard_size < spec.index_nbytes)
    return Status::Corrupt("shard of ", shard_size, " bytes is smaller than its ", spec.index_nbytes, "-byte index");
  // Data lives before the index (index at end) or after it (index at start).
  const uint64_t lo = spec.index_at_end ? 0 : static_cast<uint64_t>(spec.index_nbytes);
  const uint64_t hi = static_cast<uint64_t>(spec.index_at_end ? shard_size - spec.index_nbytes : shard_size);
  for (int64_t s = 0; s < spec.inner_per_shard; ++s) {
    const uint64_t off = index[2 * s], n = index[2 * s + 1];
    if (off == kShardEmpty && n == kShardEmpty) continue;
    if (off < lo || off > hi || n > hi - off)
      return Status::Corrupt("shard index out of range: inner chunk ", inner_slot_string(spec, s), " at offset ", off,
                             " with ", n, " bytes, but data spans bytes [", lo, ", ", hi, ")");
  }
  return Status::OK();
}

Bytes encode_shard_index(const std::vector<uint64_t>& index, const ShardingSpec& spec) {
  Bytes out(static_cast<size_t>(spec.index_nbytes));
  for (size_t i = 0; i < index.size(); ++i) store_u64(out.data() + 8 * i, index[i], spec.index_big_endian);
  if (spec.index_crc32c) {
    const size_t body = index.size() * 8;
    uint32_t c = crc32c(std::span<const uint8_t>(out.data(), body));
    std::memcpy(out.data() + body, &c, 4);
  }
  return out;
}

Result<std::optional<Bytes>> assemble_shard(const std::vector<std::optional<Bytes>>& inner, const ShardingSpec& spec) {
  if (static_cast<int64_t>(inner.size()) != spec.inner_per_shard)
    return Status::Internal("shard with ", inner.size(), " inner chunks, expected ", spec.inner_per_shard);
  int64_t data = 0;
  bool any = false;
  for (const auto& c : inner) {
    if (!c) continue;
    any = true;
    STRATA_ASSIGN_OR_RETURN(data, checked_add(data, static_cast<int64_t>(c->size())));
  }
  if (!any) return std::optional<Bytes>();
  STRATA_ASSIGN_OR_RETURN(int64_t total, checked_add(data, spec.index_nbytes));
  STRATA_ASSIGN_OR_RETURN(Bytes out, allocate_bytes(total));
  std::vector<uint64_t> index(inner.size() * 2, kShardEmpty);
  int64_t pos = spec.index_at_end ? 0 : spec.index_nbytes;
  for (size_t s = 0; s < inner.size(); ++s) {
    if (!inner[s]) continue;
    std::memcpy(out.data() + pos, inner[s]->data(), inner[s]->size());
    index[2 * s] = static_cast<uint64_t>(pos);
    index[2 * s + 1] = inner[s]->size();
    pos += static_cast<int64_t>(inner[s]->size());
  }
  Bytes idx = encode_shard_index(index, spec);
  std::memcpy(out.data() + (spec.index_at_end ? data : 0), idx.data(), idx.size());
  return std::optional<Bytes>(std::move(out));
}

}  // namespace strata::io::detail
