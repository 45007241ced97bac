// .zarray and zarr.json: parsing (strict about types, lenient about unknown v2 keys) and writing.
#include "io/zarr/zarr_metadata_internal.hpp"

#include <set>

#include "io/codecs/codec_json_internal.hpp"
#include "io/zarr/fill_value_internal.hpp"
#include "io/zarr/metadata_json_internal.hpp"

namespace strata::io::detail {
namespace {

using nlohmann::json;

Result<Shape> int_list(const json& doc, const char* key, int64_t min_value) {
  auto it = doc.find(key);
  if (it == doc.end()) return Status::Corrupt("missing \"", key, "\"");
  if (!it->is_array()) return Status::Corrupt("\"", key, "\" must be a list of integers");
  Shape out;
  for (const auto& v : *it) {
    if (!v.is_number_integer() || v.get<int64_t>() < min_value)
      return Status::Corrupt("\"", key, "\" must hold integers >= ", min_value);
    out.push_back(v.get<int64_t>());
  }
  return out;
}

Status check_format(const json& doc, int expected) {
  auto it = doc.find("zarr_format");
  if (it == doc.end()) return Status::Corrupt("missing \"zarr_format\"");
  if (!it->is_number_integer()) return Status::Corrupt("\"zarr_format\" must be an integer");
  if (it->get<int64_t>() != expected)
    return Status::Unsupported("zarr_format ", it->get<int64_t>(), " where ", expected, " was expected");
  return Status::OK();
}

// Every size the metadata implies must fit in 64 bits: the element and byte counts of the
// array and of one chunk, and the number of chunks. Checked here, naming the field, so that no
// later product (grid walks, buffer sizes, keys) can overflow.
Status check_sizes(const Shape& shape, const Shape& chunks, int64_t itemsize, std::string_view chunks_field) {
  int64_t n = 1, grid = 1, chunk = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (__builtin_mul_overflow(n, shape[i], &n))
      return Status::Corrupt("\"shape\" ", shape_to_string(shape), ": the element count overflows 64 bits");
    if (__builtin_mul_overflow(grid, ceil_div(shape[i], chunks[i]), &grid))
      return Status::Corrupt("\"", chunks_field, "\" ", shape_to_string(chunks), ": the number of chunks over shape ",
                             shape_to_string(shape), " overflows 64 bits");
    if (__builtin_mul_overflow(chunk, chunks[i], &chunk))
      return Status::Corrupt("\"", chunks_field, "\" ", shape_to_string(chunks), ": the element count of one chunk overflows 64 bits");
  }
  if (__builtin_mul_overflow(n, itemsize, &n))
    return Status::Corrupt("\"shape\" ", shape_to_string(shape), ": the size in bytes overflows 64 bits");
  if (__builtin_mul_overflow(chunk, itemsize, &chunk))
    return Status::Corrupt("\"", chunks_field, "\" ", shape_to_string(chunks), ": the size of one chunk in bytes overflows 64 bits");
  return Status::OK();
}

// Stored metadata that does not parse is corrupt data, never a usage error: errors from the
// layers below (codec factories, fill values, grids) that say Invalid become Corrupt.
Status as_corrupt(const Status& st) {
  return st.code() == StatusCode::Invalid ? Status::Corrupt(st.message()) : st;
}

// Validate the grid, the chunk size and the fill value shared by v2 and v3.
Status finish(ArrayMetadata& m, const json& fill, std::string_view chunks_field) {
  STRATA_RETURN_NOT_OK(check_sizes(m.shape, m.chunks, m.dtype.itemsize(), m.sharding ? "chunk_shape" : chunks_field));
  STRATA_RETURN_NOT_OK(check_sizes(m.shape, m.outer_chunks, m.dtype.itemsize(), chunks_field));
  STRATA_RETURN_NOT_OK(ChunkGrid::make(m.shape, m.chunks));
  STRATA_RETURN_NOT_OK(ChunkGrid::make(m.shape, m.outer_chunks));
  auto fv = parse_fill_value(fill, m.dtype, m.format);
  if (!fv.ok()) return fv.status();
  m.fill = std::move(fv).value();
  m.fill_json = fill;
  return Status::OK();
}

Result<std::string> string_field(const json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end()) return Status::Corrupt("missing \"", key, "\"");
  if (!it->is_string()) return Status::Corrupt("\"", key, "\" must be a string");
  return it->get<std::string>();
}

// A v3 extension point ({"name": ..., "configuration": {...}} or a bare name).
Status named_object(const json& v, const char* field, std::string& name, json& config) {
  if (v.is_string()) {
    name = v.get<std::string>();
    config = json::object();
    return Status::OK();
  }
  if (!v.is_object()) return Status::Corrupt("\"", field, "\" must be an object");
  auto n = v.find("name");
  if (n == v.end() || !n->is_string()) return Status::Corrupt("\"", field, "\" needs a string \"name\"");
  name = n->get<std::string>();
  auto c = v.find("configuration");
  config = (c == v.end() || c->is_null()) ? json::object() : *c;
  if (!config.is_object()) return Status::Corrupt("\"", field, "\" configuration must be an object");
  return Status::OK();
}

bool optional_extension(const json& v) {
  if (!v.is_object()) return false;
  auto m = v.find("must_understand");
  return m != v.end() && m->is_boolean() && !m->get<bool>();
}

Status parse_key_encoding(const json& doc, ArrayMetadata& m) {
  auto it = doc.find("chunk_key_encoding");
  if (it == doc.end()) return Status::Corrupt("missing \"chunk_key_encoding\"");
  std::string name;
  json cfg;
  STRATA_RETURN_NOT_OK(named_object(*it, "chunk_key_encoding", name, cfg));
  if (name == "default") {
    m.key_encoding = KeyEncoding::Default;
    m.separator = '/';
  } else if (name == "v2") {
    m.key_encoding = KeyEncoding::V2;
    m.separator = '.';
  } else {
    return Status::Unsupported("chunk_key_encoding '", name, "' is not supported");
  }
  if (auto s = cfg.find("separator"); s != cfg.end()) {
    if (*s == "/") m.separator = '/';
    else if (*s == ".") m.separator = '.';
    else return Status::Corrupt("chunk_key_encoding separator must be \"/\" or \".\"");
  }
  return Status::OK();
}

Status check_create_shape(const ZarrCreateOptions& o) {
  if (o.chunks.size() != o.shape.size())
    return Status::Invalid("chunks ", shape_to_string(o.chunks), " do not match the rank of shape ",
                           shape_to_string(o.shape));
  STRATA_RETURN_NOT_OK(ChunkGrid::make(o.shape, o.chunks));
  if (!o.dimension_names.empty() && o.dimension_names.size() != o.shape.size())
    return Status::Invalid(o.dimension_names.size(), " dimension names for a ", o.shape.size(), "-d array");
  return parse_attributes_json(o.attributes_json).status();
}

json fill_json_for(const ZarrCreateOptions& o, const std::vector<uint8_t>& fill, ZarrFormat f) {
  if (o.fill_value.is_null() && f == ZarrFormat::V2) return nullptr;
  return fill_value_to_json(fill, o.dtype, f);
}

}  // namespace

Result<json> parse_attributes_json(std::string_view text) {
  if (text.empty()) return json::object();
  // The same size and depth bounds as stored documents (the json type recurses).
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  if (Status st = check_metadata_bounds(bytes, "attributes"); !st.ok()) return Status::Invalid(st.message());
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Invalid("attributes are not valid JSON");
  if (!j.is_object()) return Status::Invalid("attributes must be a JSON object");
  return j;
}

Result<json> parse_json_object(std::span<const uint8_t> bytes, std::string_view what) {
  STRATA_ASSIGN_OR_RETURN(json doc, parse_metadata_json(bytes, what));
  if (!doc.is_object()) return Status::Corrupt(what, ": expected a JSON object");
  return doc;
}

static Result<ArrayMetadata> parse_v2_array_impl(const json& doc) {
  ArrayMetadata m;
  m.format = ZarrFormat::V2;
  m.document = doc;
  STRATA_RETURN_NOT_OK(check_format(doc, 2));
  STRATA_ASSIGN_OR_RETURN(m.shape, int_list(doc, "shape", 0));
  STRATA_ASSIGN_OR_RETURN(m.chunks, int_list(doc, "chunks", 1));
  if (m.chunks.size() != m.shape.size())
    return Status::Corrupt("chunks ", shape_to_string(m.chunks), " do not match the rank of shape ",
                           shape_to_string(m.shape));
  m.outer_chunks = m.chunks;
  auto dt = doc.find("dtype");
  if (dt == doc.end()) return Status::Corrupt("missing \"dtype\"");
  if (!dt->is_string()) return Status::Unsupported("structured dtypes are not supported");
  auto dtype = DType::from_numpy(dt->get<std::string>());
  if (!dtype.ok()) return Status::Unsupported(dtype.status().message());
  m.dtype = *dtype;
  STRATA_RETURN_NOT_OK(check_sizes(m.shape, m.chunks, m.dtype.itemsize(), "chunks"));
  if (auto o = doc.find("order"); o != doc.end()) {
    if (*o == "C") m.order = 'C';
    else if (*o == "F") m.order = 'F';
    else return Status::Corrupt("\"order\" must be \"C\" or \"F\"");
  }
  if (auto s = doc.find("dimension_separator"); s != doc.end() && !s->is_null()) {
    if (*s == ".") m.separator = '.';
    else if (*s == "/") m.separator = '/';
    else return Status::Corrupt("\"dimension_separator\" must be \".\" or \"/\"");
  }
  const json null_json;
  auto filters = doc.find("filters");
  auto compressor = doc.find("compressor");
  auto p = make_v2_pipeline(filters == doc.end() ? null_json : *filters,
                            compressor == doc.end() ? null_json : *compressor, m.dtype, m.order, m.chunks);
  if (!p.ok()) return p.status();
  m.pipeline = std::make_shared<const ChunkPipeline>(std::move(p).value());
  auto fill = doc.find("fill_value");
  STRATA_RETURN_NOT_OK(finish(m, fill == doc.end() ? null_json : *fill, "chunks"));
  return m;
}

Result<ArrayMetadata> parse_v2_array(const json& doc) {
  auto m = parse_v2_array_impl(doc);
  if (!m.ok()) return as_corrupt(m.status());
  return m;
}

void attach_v2_attributes(ArrayMetadata& meta, const json& zattrs) {
  meta.attributes = zattrs;
  meta.dimension_names.clear();
  auto it = zattrs.find("_ARRAY_DIMENSIONS");
  if (it == zattrs.end() || !it->is_array() || it->size() != meta.shape.size()) return;
  for (const auto& n : *it) {
    if (!n.is_string()) {
      meta.dimension_names.clear();
      return;
    }
    meta.dimension_names.push_back(n.get<std::string>());
  }
}

static Result<ArrayMetadata> parse_v3_array_impl(const json& doc) {
  static const std::set<std::string> kKnown = {
      "zarr_format", "node_type", "shape",      "data_type",  "chunk_grid",           "chunk_key_encoding",
      "fill_value",  "codecs",    "attributes", "dimension_names", "storage_transformers"};
  ArrayMetadata m;
  m.format = ZarrFormat::V3;
  m.document = doc;
  STRATA_RETURN_NOT_OK(check_format(doc, 3));
  STRATA_ASSIGN_OR_RETURN(std::string node_type, string_field(doc, "node_type"));
  if (node_type != "array") return Status::Corrupt("node_type is '", node_type, "', not 'array'");
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!kKnown.count(it.key()) && !optional_extension(it.value()))
      return Status::Unsupported("unknown field '", it.key(), "' (not marked \"must_understand\": false)");
  }
  STRATA_ASSIGN_OR_RETURN(m.shape, int_list(doc, "shape", 0));

  auto dt = doc.find("data_type");
  if (dt == doc.end()) return Status::Corrupt("missing \"data_type\"");
  std::string dt_name;
  json dt_cfg;
  STRATA_RETURN_NOT_OK(named_object(*dt, "data_type", dt_name, dt_cfg));
  auto dtype = DType::from_v3(dt_name);
  if (!dtype.ok()) return Status::Unsupported("data_type '", dt_name, "' is not supported");

  auto grid = doc.find("chunk_grid");
  if (grid == doc.end()) return Status::Corrupt("missing \"chunk_grid\"");
  std::string grid_name;
  json grid_cfg;
  STRATA_RETURN_NOT_OK(named_object(*grid, "chunk_grid", grid_name, grid_cfg));
  if (grid_name != "regular") return Status::Unsupported("chunk_grid '", grid_name, "' is not supported");
  auto outer = int_list(grid_cfg, "chunk_shape", 1);
  if (!outer.ok()) return outer.status().with_context("chunk_grid");
  m.outer_chunks = *outer;
  if (m.outer_chunks.size() != m.shape.size())
    return Status::Corrupt("chunk_grid chunk_shape ", shape_to_string(m.outer_chunks),
                           " does not match the rank of shape ", shape_to_string(m.shape));
  STRATA_RETURN_NOT_OK(check_sizes(m.shape, m.outer_chunks, dtype->itemsize(), "chunk_grid.chunk_shape"));
  STRATA_RETURN_NOT_OK(parse_key_encoding(doc, m));

  if (auto st = doc.find("storage_transformers"); st != doc.end() && !st->is_null()) {
    if (!st->is_array()) return Status::Corrupt("\"storage_transformers\" must be a list");
    for (const auto& t : *st) {
      if (!optional_extension(t)) {
        std::string name = t.is_object() && t.contains("name") && t["name"].is_string() ? t["name"].get<std::string>() : "?";
        return Status::Unsupported("storage transformer '", name, "' is not supported");
      }
    }
  }
  auto codecs = doc.find("codecs");
  if (codecs == doc.end()) return Status::Corrupt("missing \"codecs\"");
  auto parsed = parse_v3_codecs(*codecs, *dtype, m.outer_chunks, 0);
  if (!parsed.ok()) return parsed.status();
  if (parsed->sharding) {
    m.sharding = parsed->sharding;
    m.pipeline = m.sharding->inner;
    m.chunks = m.sharding->inner_shape;
  } else {
    m.pipeline = parsed->pipeline;
    m.chunks = m.outer_chunks;
  }
  m.dtype = m.pipeline->stored_dtype();

  if (auto a = doc.find("attributes"); a != doc.end() && !a->is_null()) {
    if (!a->is_object()) return Status::Corrupt("\"attributes\" must be an object");
    m.attributes = *a;
  }
  if (auto d = doc.find("dimension_names"); d != doc.end() && !d->is_null()) {
    if (!d->is_array() || d->size() != m.shape.size())
      return Status::Corrupt("\"dimension_names\" must be a list with one entry per dimension");
    for (const auto& n : *d) {
      if (!n.is_null() && !n.is_string()) return Status::Corrupt("\"dimension_names\" entries must be strings or null");
      m.dimension_names.push_back(n.is_string() ? n.get<std::string>() : std::string());
    }
  }
  auto fill = doc.find("fill_value");
  if (fill == doc.end()) return Status::Corrupt("missing \"fill_value\"");
  STRATA_RETURN_NOT_OK(finish(m, *fill, "chunk_grid.chunk_shape"));
  return m;
}

Result<ArrayMetadata> parse_v3_array(const json& doc) {
  auto m = parse_v3_array_impl(doc);
  if (!m.ok()) return as_corrupt(m.status());
  return m;
}

Result<json> build_v2_zarray(const ZarrCreateOptions& o) {
  STRATA_RETURN_NOT_OK(check_create_shape(o));
  if (!o.shard_shape.empty()) return Status::Invalid("sharding needs Zarr v3");
  if (o.crc32c) return Status::Invalid("the crc32c codec needs Zarr v3");
  if (o.separator != '.' && o.separator != '/') return Status::Invalid("dimension separator must be '.' or '/'");
  STRATA_ASSIGN_OR_RETURN(auto fill, parse_fill_value(fill_value_json(o.fill_value), o.dtype, ZarrFormat::V2));
  json compressor = nullptr;
  if (o.compressor) {
    STRATA_ASSIGN_OR_RETURN(compressor, codec_json_v2(*o.compressor));
  }
  json doc = json::object();
  doc["zarr_format"] = 2;
  doc["shape"] = o.shape;
  doc["chunks"] = o.chunks;
  doc["dtype"] = o.dtype.numpy_str();
  doc["compressor"] = std::move(compressor);
  doc["fill_value"] = fill_json_for(o, fill, ZarrFormat::V2);
  doc["filters"] = nullptr;
  doc["order"] = "C";
  if (o.separator == '/') doc["dimension_separator"] = "/";
  return doc;
}

Result<json> build_v2_zattrs(const ZarrCreateOptions& o) {
  STRATA_ASSIGN_OR_RETURN(json attrs, parse_attributes_json(o.attributes_json));
  if (!o.dimension_names.empty()) attrs["_ARRAY_DIMENSIONS"] = o.dimension_names;
  return attrs;
}

Result<json> build_v3_array(const ZarrCreateOptions& o) {
  STRATA_RETURN_NOT_OK(check_create_shape(o));
  const bool sharded = !o.shard_shape.empty();
  if (sharded) {
    if (o.shard_shape.size() != o.shape.size())
      return Status::Invalid("shard shape ", shape_to_string(o.shard_shape), " does not match the rank of shape ",
                             shape_to_string(o.shape));
    for (size_t i = 0; i < o.shape.size(); ++i)
      if (o.shard_shape[i] < 1 || o.shard_shape[i] % o.chunks[i] != 0)
        return Status::Invalid("shard shape ", shape_to_string(o.shard_shape), " is not a multiple of chunks ",
                               shape_to_string(o.chunks));
  }
  STRATA_ASSIGN_OR_RETURN(auto fill, parse_fill_value(fill_value_json(o.fill_value), o.dtype, ZarrFormat::V3));
  STRATA_ASSIGN_OR_RETURN(json attrs, parse_attributes_json(o.attributes_json));
  json bytes = {{"name", "bytes"},
                {"configuration", {{"endian", o.dtype.order == ByteOrder::Big ? "big" : "little"}}}};
  json inner = json::array({bytes});
  if (o.compressor) {
    STRATA_ASSIGN_OR_RETURN(json c, codec_json_v3(*o.compressor));
    inner.push_back(std::move(c));
  }
  if (o.crc32c) inner.push_back({{"name", "crc32c"}});
  json doc = json::object();
  doc["zarr_format"] = 3;
  doc["node_type"] = "array";
  doc["shape"] = o.shape;
  doc["data_type"] = o.dtype.v3_name();
  doc["chunk_grid"] = {{"name", "regular"}, {"configuration", {{"chunk_shape", sharded ? o.shard_shape : o.chunks}}}};
  doc["chunk_key_encoding"] = {{"name", "default"}, {"configuration", {{"separator", "/"}}}};
  doc["fill_value"] = fill_json_for(o, fill, ZarrFormat::V3);
  if (sharded) {
    json index_bytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
    json cfg = {{"chunk_shape", o.chunks},
                {"codecs", inner},
                {"index_codecs", json::array({index_bytes, {{"name", "crc32c"}}})},
                {"index_location", "end"}};
    doc["codecs"] = json::array({{{"name", "sharding_indexed"}, {"configuration", cfg}}});
  } else {
    doc["codecs"] = inner;
  }
  doc["attributes"] = std::move(attrs);
  if (!o.dimension_names.empty()) doc["dimension_names"] = o.dimension_names;
  return doc;
}

std::string dump_metadata(const json& doc) {
  return doc.dump(4, ' ', /*ensure_ascii=*/true, json::error_handler_t::replace);
}

std::string chunk_key_suffix(const ArrayMetadata& meta, const Shape& index) {
  std::string key = meta.key_encoding == KeyEncoding::Default ? "c" : "";
  if (index.empty()) return meta.key_encoding == KeyEncoding::Default ? key : "0";
  for (size_t i = 0; i < index.size(); ++i) {
    if (i > 0 || meta.key_encoding == KeyEncoding::Default) key += meta.separator;
    key += std::to_string(index[i]);
  }
  return key;
}

std::string join_key(std::string_view path, std::string_view name) {
  if (path.empty()) return std::string(name);
  if (name.empty()) return std::string(path);
  return str_cat(path, "/", name);
}

Result<std::string> normalize_node_path(std::string_view path) {
  std::string out;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(pos, slash - pos);
    if (part == "." || part == "..") return Status::Invalid("node path '", path, "' contains '", part, "'");
    if (!part.empty()) out = join_key(out, part);
    pos = slash + 1;
  }
  return out;
}

std::string parent_path(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string() : std::string(path.substr(0, slash));
}

std::string describe_node(const Store& store, std::string_view path) {
  return path.empty() ? store.describe() : str_cat(store.describe(), "/", path);
}

}  // namespace strata::io::detail
