// Codec factories (Zarr v2 / v3 JSON, CLI specs), the JSON field readers shared by the codecs,
// and the default BytesCodec::decode_into.

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <new>
#include <vector>

#include "io/codecs/codec_internal.hpp"
#include "io/codecs/codec_json_internal.hpp"
#include "strata/io/codec.hpp"

namespace strata::io {

using nlohmann::json;

Status BytesCodec::decode_into(std::span<const uint8_t> in, std::span<uint8_t> out) const {
  STRATA_ASSIGN_OR_RETURN(Bytes decoded, decode(in));
  STRATA_RETURN_NOT_OK(detail::check_decoded_size(name(), static_cast<int64_t>(decoded.size()),
                                                  static_cast<int64_t>(out.size())));
  if (!decoded.empty()) std::memcpy(out.data(), decoded.data(), decoded.size());
  return Status::OK();
}

namespace detail {
namespace {

// Short JSON rendering for error messages (long values are cut).
std::string brief(const json& value) {
  std::string s = value.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

}  // namespace

Result<int64_t> json_int(const json& obj, std::string_view codec, const char* field,
                         std::optional<int64_t> fallback, int64_t lo, int64_t hi) {
  auto it = obj.find(field);
  if (it == obj.end() || it->is_null()) {
    if (fallback) return *fallback;
    return Status::Invalid(codec, ": missing field '", field, "'");
  }
  bool fits = it->is_number_integer() &&
              !(it->is_number_unsigned() && it->get<uint64_t>() > uint64_t{INT64_MAX});
  if (!fits) {
    return Status::Invalid(codec, ": field '", field, "' must be an integer, got ", brief(*it));
  }
  int64_t v = it->get<int64_t>();
  if (v < lo || v > hi) {
    return Status::Invalid(codec, ": field '", field, "' must be between ", lo, " and ", hi,
                           ", got ", v);
  }
  return v;
}

Result<std::string> json_string(const json& obj, std::string_view codec, const char* field,
                                std::optional<std::string> fallback) {
  auto it = obj.find(field);
  if (it == obj.end() || it->is_null()) {
    if (fallback) return *fallback;
    return Status::Invalid(codec, ": missing field '", field, "'");
  }
  if (!it->is_string()) {
    return Status::Invalid(codec, ": field '", field, "' must be a string, got ", brief(*it));
  }
  return it->get<std::string>();
}

Result<bool> json_bool(const json& obj, std::string_view codec, const char* field,
                       std::optional<bool> fallback) {
  auto it = obj.find(field);
  if (it == obj.end() || it->is_null()) {
    if (fallback) return *fallback;
    return Status::Invalid(codec, ": missing field '", field, "'");
  }
  if (!it->is_boolean()) {
    return Status::Invalid(codec, ": field '", field, "' must be true or false, got ",
                           brief(*it));
  }
  return it->get<bool>();
}

Result<Bytes> allocate_bytes(int64_t n, std::string_view codec) {
  if (n < 0) return Status::Internal(codec, ": negative buffer size ", n);
  try {
    Bytes b;
    b.resize(static_cast<size_t>(n));
    return b;
  } catch (const std::exception&) {
    return Status::OutOfMemory(codec, ": cannot allocate ", n, " bytes");
  }
}

Status check_decoded_size(std::string_view codec, int64_t got, int64_t expected) {
  if (got == expected) return Status::OK();
  return Status::Corrupt(codec, ": decoded ", got, " bytes but ", expected, " were expected");
}

namespace {

// A codec's own JSON text back to a document; codecs written outside strata may get it wrong.
Result<json> parse_codec_json(const BytesCodec& codec, const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return Status::Invalid(codec.name(), ": codec configuration is not a JSON object: ", text);
  return j;
}

}  // namespace

Result<json> codec_json_v2(const BytesCodec& codec) {
  return parse_codec_json(codec, codec.config_json_v2());
}

Result<json> codec_json_v3(const BytesCodec& codec) {
  STRATA_ASSIGN_OR_RETURN(std::string text, codec.config_json_v3());
  return parse_codec_json(codec, text);
}

}  // namespace detail

namespace {

Status unknown_codec(std::string_view what, std::string_view id) {
  return Status::Unsupported("unsupported ", what, " '", id,
                             "' (strata knows blosc, zstd, lz4, zlib, gzip, crc32c)");
}

}  // namespace

Result<std::unique_ptr<BytesCodec>> make_codec_v2(const json& config, int64_t itemsize) {
  if (!config.is_object()) {
    return Status::Invalid("codec configuration must be a JSON object with an \"id\", got ",
                           detail::brief(config));
  }
  STRATA_ASSIGN_OR_RETURN(std::string id, detail::json_string(config, "codec", "id", {}));
  if (id == "blosc") return detail::blosc_from_v2(config, itemsize);
  if (id == "zstd") return detail::zstd_from_json(config, false);
  if (id == "lz4") return detail::lz4_from_v2(config);
  if (id == "zlib") return detail::deflate_from_json(config, false, false);
  if (id == "gzip") return detail::deflate_from_json(config, true, false);
  if (id == "crc32c") {
    // numcodecs >= 0.13 CRC32C; only the trailing-checksum layout matches the v3 codec.
    STRATA_ASSIGN_OR_RETURN(std::string loc, detail::json_string(config, "crc32c", "location", "end"));
    if (loc != "end") return Status::Unsupported("crc32c: location '", loc, "' (only 'end')");
    return detail::make_crc32c();
  }
  return unknown_codec("codec id", id);
}

Result<std::unique_ptr<BytesCodec>> make_codec_v3(const json& config, int64_t itemsize) {
  std::string name;
  json configuration = json::object();
  if (config.is_string()) {
    name = config.get<std::string>();
  } else if (config.is_object()) {
    STRATA_ASSIGN_OR_RETURN(name, detail::json_string(config, "codec", "name", {}));
    auto it = config.find("configuration");
    if (it != config.end() && !it->is_null()) {
      if (!it->is_object()) {
        return Status::Invalid(name, ": field 'configuration' must be an object, got ",
                               detail::brief(*it));
      }
      configuration = *it;
    }
  } else {
    return Status::Invalid("codec entry must be a name or an object with \"name\", got ",
                           detail::brief(config));
  }
  if (name == "blosc") return detail::blosc_from_v3(configuration, itemsize);
  if (name == "zstd") return detail::zstd_from_json(configuration, true);
  if (name == "gzip") return detail::deflate_from_json(configuration, true, true);
  if (name == "crc32c") return detail::make_crc32c();
  // zarr-python 3 wraps numcodecs codecs as "numcodecs.<id>" with the v2 fields.
  constexpr std::string_view kNumcodecs = "numcodecs.";
  if (name.starts_with(kNumcodecs)) {
    json v2 = configuration;
    v2["id"] = name.substr(kNumcodecs.size());
    return make_codec_v2(v2, itemsize);
  }
  return unknown_codec("bytes-to-bytes codec", name);
}

namespace {

constexpr std::string_view kSpecGrammar =
    "expected none | zstd:LEVEL | lz4 | zlib:LEVEL | gzip:LEVEL | blosc:CNAME:LEVEL:SHUFFLE "
    "(SHUFFLE = noshuffle|shuffle|bitshuffle)";

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos == std::string_view::npos ? pos : pos - start));
    if (pos == std::string_view::npos) return parts;
    start = pos + 1;
  }
}

Status bad_spec(std::string_view spec, std::string_view why) {
  return Status::Invalid("codec spec '", spec, "': ", why, "; ", kSpecGrammar);
}

Result<int> spec_level(std::string_view spec, std::string_view text) {
  int v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return bad_spec(spec, str_cat("level '", text, "' is not an integer"));
  }
  return v;
}

}  // namespace

Result<std::unique_ptr<BytesCodec>> parse_codec_spec(std::string_view spec, int64_t itemsize) {
  std::vector<std::string_view> p = split(spec, ':');
  std::string_view kind = p[0];
  auto want = [&](size_t n) -> Status {
    if (p.size() == n) return Status::OK();
    return bad_spec(spec, str_cat("'", kind, "' takes ", n - 1, " parameter(s)"));
  };
  if (kind == "none") {
    STRATA_RETURN_NOT_OK(want(1));
    return std::unique_ptr<BytesCodec>();
  }
  if (kind == "lz4") {
    STRATA_RETURN_NOT_OK(want(1));
    return detail::make_lz4({});
  }
  if (kind == "zstd" || kind == "zlib" || kind == "gzip") {
    STRATA_RETURN_NOT_OK(want(2));
    STRATA_ASSIGN_OR_RETURN(int level, spec_level(spec, p[1]));
    if (kind == "zstd") return detail::make_zstd({.level = level, .checksum = false});
    return detail::make_deflate({.gzip = kind == "gzip", .level = level});
  }
  if (kind == "blosc") {
    STRATA_RETURN_NOT_OK(want(4));
    STRATA_ASSIGN_OR_RETURN(int level, spec_level(spec, p[2]));
    int shuffle = -2;
    if (p[3] == "noshuffle") shuffle = 0;
    if (p[3] == "shuffle") shuffle = 1;
    if (p[3] == "bitshuffle") shuffle = 2;
    if (shuffle == -2) return bad_spec(spec, str_cat("unknown shuffle '", p[3], "'"));
    return detail::make_blosc({.cname = std::string(p[1]),
                               .clevel = level,
                               .shuffle = shuffle,
                               .typesize = itemsize,
                               .blocksize = 0});
  }
  return bad_spec(spec, str_cat("unknown codec '", kind, "'"));
}

}  // namespace strata::io
