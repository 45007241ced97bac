// Zarr v2 string arrays (see include/strata/io/zarr_strings.hpp): metadata, chunk decode and
// encode through the compressor, region reads along axis 0, verify and storage info.
#include "strata/io/zarr_strings.hpp"

#include <algorithm>
#include <limits>
#include <charconv>

#include "io/codecs/codec_json_internal.hpp"
#include "io/zarr/metadata_json_internal.hpp"
#include "io/zarr/string_items_internal.hpp"
#include "io/zarr/zarr_array_internal.hpp"

namespace strata::io {

using nlohmann::json;

namespace {

// Chunks are decoded whole into std::string items: bound what metadata can make us allocate.
constexpr int64_t kMaxChunkItems = int64_t{1} << 24;
constexpr int64_t kMaxFixedWidth = int64_t{1} << 20;

enum class Kind { VlenUtf8, VlenBytes, FixedBytes, FixedUcs4 };

struct ParsedDtype {
  Kind kind = Kind::VlenUtf8;
  int64_t width = 0;
  bool big_endian = false;
};

bool is_string_dtype(std::string_view d) {
  if (d == "|O") return true;
  return d.size() > 2 && (d[0] == '|' || d[0] == '<' || d[0] == '>') && (d[1] == 'S' || d[1] == 'U');
}

// `|S<n>` / `<U<n>`: the width, or Corrupt.
Result<int64_t> fixed_width(std::string_view d) {
  int64_t w = 0;
  const auto [end, ec] = std::from_chars(d.data() + 2, d.data() + d.size(), w);
  if (ec != std::errc() || end != d.data() + d.size() || w < 1)
    return Status::Corrupt("dtype '", d, "' has no valid width");
  if (w > kMaxFixedWidth) return Status::Unsupported("dtype '", d, "' is wider than ", kMaxFixedWidth);
  return w;
}

Result<ParsedDtype> parse_dtype(std::string_view d, const json* filters) {
  ParsedDtype p;
  if (d == "|O") {
    std::string id;
    if (filters && filters->is_array() && filters->size() == 1 && (*filters)[0].is_object())
      if (auto it = (*filters)[0].find("id"); it != (*filters)[0].end() && it->is_string()) id = it->get<std::string>();
    if (id == "vlen-utf8") p.kind = Kind::VlenUtf8;
    else if (id == "vlen-bytes") p.kind = Kind::VlenBytes;
    else return Status::Unsupported("object arrays need exactly one vlen-utf8 or vlen-bytes filter");
    return p;
  }
  if (!is_string_dtype(d)) return Status::Invalid("expected a string array, found dtype '", d, "'");
  STRATA_ASSIGN_OR_RETURN(p.width, fixed_width(d));
  p.kind = d[1] == 'S' ? Kind::FixedBytes : Kind::FixedUcs4;
  p.big_endian = d[0] == '>';
  return p;
}

Result<Shape> shape_field(const json& doc, const char* name) {
  auto it = doc.find(name);
  if (it == doc.end() || !it->is_array()) return Status::Corrupt("missing or malformed \"", name, "\"");
  Shape out;
  for (const auto& v : *it) {
    if (!v.is_number_integer()) return Status::Corrupt("\"", name, "\" holds a non-integer");
    out.push_back(v.get<int64_t>());
  }
  return out;
}

Status put_compact_json(Store& store, const std::string& key, const json& doc) {
  const std::string s = doc.dump();
  return store.set(key, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

}  // namespace

struct ZarrStringArray::Impl {
  std::shared_ptr<Store> store;
  std::string path, description, dtype;
  ChunkGrid grid;
  ParsedDtype parsed;
  std::shared_ptr<const BytesCodec> compressor;
  char separator = '.';

  std::string suffix(const Shape& index) const {
    std::string k;
    for (size_t i = 0; i < index.size(); ++i) {
      if (i) k += separator;
      k += std::to_string(index[i]);
    }
    return k.empty() ? "0" : k;
  }
  // Decoded items of one chunk; errors are bare (no chunk name). nullopt = not stored.
  Result<std::optional<std::vector<std::string>>> decode(const Shape& index,
                                                         std::optional<Bytes>* fetched = nullptr) const {
    std::optional<Bytes> raw;
    if (fetched) {
      raw = std::move(*fetched);
    } else {
      STRATA_ASSIGN_OR_RETURN(raw, store->get(detail::join_key(path, suffix(index))));
    }
    if (!raw) return std::optional<std::vector<std::string>>();
    Bytes data;
    if (compressor) {
      STRATA_ASSIGN_OR_RETURN(data, compressor->decode(*raw));
    } else {
      data = std::move(*raw);
    }
    const int64_t n = grid.chunk_numel();
    std::vector<std::string> items;
    if (parsed.kind == Kind::VlenUtf8 || parsed.kind == Kind::VlenBytes) {
      STRATA_ASSIGN_OR_RETURN(items, detail::decode_vlen(data, n));
    } else {
      STRATA_ASSIGN_OR_RETURN(items, detail::decode_fixed(data, n, parsed.width, parsed.kind == Kind::FixedUcs4,
                                                          parsed.big_endian));
    }
    return std::optional<std::vector<std::string>>(std::move(items));
  }
  Status chunk_error(const Shape& index, const Status& st) const {
    return st.with_context(str_cat(description, ": chunk '", suffix(index), "'"));
  }
};

Result<bool> is_zarr_string_array(const std::shared_ptr<Store>& store, const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(std::string p, detail::normalize_node_path(path));
  STRATA_ASSIGN_OR_RETURN(auto doc, detail::read_metadata_object(*store, detail::join_key(p, ".zarray")));
  if (!doc) return false;
  auto dt = doc->find("dtype");
  return dt != doc->end() && dt->is_string() && is_string_dtype(dt->get<std::string>());
}

ZarrStringArray::ZarrStringArray() = default;
ZarrStringArray::~ZarrStringArray() = default;
ZarrStringArray::ZarrStringArray(const ZarrStringArray&) = default;
ZarrStringArray& ZarrStringArray::operator=(const ZarrStringArray&) = default;
ZarrStringArray::ZarrStringArray(ZarrStringArray&&) noexcept = default;
ZarrStringArray& ZarrStringArray::operator=(ZarrStringArray&&) noexcept = default;

Result<ZarrStringArray> ZarrStringArray::open(std::shared_ptr<Store> store, const std::string& path) {
  if (!store) return Status::Invalid("ZarrStringArray::open: no store");
  auto a = std::make_shared<Impl>();
  STRATA_ASSIGN_OR_RETURN(a->path, detail::normalize_node_path(path));
  a->description = detail::describe_node(*store, a->path);
  const std::string what = detail::join_key(a->description, ".zarray");
  STRATA_ASSIGN_OR_RETURN(auto doc, detail::read_metadata_object(*store, detail::join_key(a->path, ".zarray")));
  if (!doc) {
    STRATA_ASSIGN_OR_RETURN(bool v3, store->exists(detail::join_key(a->path, "zarr.json")));
    if (v3) return Status::Unsupported(a->description, ": Zarr v3 string arrays are not supported");
    return Status::NotFound(a->description, ": no Zarr array here (no .zarray or zarr.json)");
  }
  auto parse = [&]() -> Status {
    auto dt = doc->find("dtype");
    if (dt == doc->end() || !dt->is_string()) return Status::Corrupt("missing or non-string \"dtype\"");
    a->dtype = dt->get<std::string>();
    auto filters = doc->find("filters");
    STRATA_ASSIGN_OR_RETURN(a->parsed, parse_dtype(a->dtype, filters == doc->end() ? nullptr : &*filters));
    STRATA_ASSIGN_OR_RETURN(Shape shape, shape_field(*doc, "shape"));
    STRATA_ASSIGN_OR_RETURN(Shape chunks, shape_field(*doc, "chunks"));
    if (shape.empty() || shape.size() > 2) return Status::Unsupported("string arrays must be 1-D or 2-D");
    STRATA_ASSIGN_OR_RETURN(a->grid, ChunkGrid::make(shape, chunks));
    if (a->grid.chunk_numel() > kMaxChunkItems)
      return Status::Unsupported("chunks of ", a->grid.chunk_numel(), " strings exceed the limit of ", kMaxChunkItems);
    if (auto o = doc->find("order"); o != doc->end() && *o != "C" && shape.size() > 1)
      return Status::Unsupported("F-order string arrays are not supported");
    if (auto s = doc->find("dimension_separator"); s != doc->end() && *s == "/") a->separator = '/';
    if (auto c = doc->find("compressor"); c != doc->end() && !c->is_null()) {
      STRATA_ASSIGN_OR_RETURN(auto codec, make_codec_v2(*c, 1));
      a->compressor = std::move(codec);
    }
    return Status::OK();
  };
  Status st = parse();
  if (!st.ok()) return st.with_context(what);
  a->store = std::move(store);
  ZarrStringArray out;
  out.impl_ = std::move(a);
  return out;
}

std::string ZarrStringArray::describe() const { return impl_ ? impl_->description : "(closed string array)"; }
const Shape& ZarrStringArray::shape() const { return impl_->grid.shape(); }
int64_t ZarrStringArray::columns() const { return shape().size() > 1 ? shape()[1] : 1; }
const ChunkGrid& ZarrStringArray::chunk_grid() const { return impl_->grid; }
const std::string& ZarrStringArray::dtype() const { return impl_->dtype; }
std::string ZarrStringArray::chunk_key(const Shape& index) const { return detail::join_key(impl_->path, impl_->suffix(index)); }

std::string ZarrStringArray::codecs_description() const {
  const Kind k = impl_->parsed.kind;
  std::string s = k == Kind::VlenUtf8 ? "vlen-utf8" : k == Kind::VlenBytes ? "vlen-bytes" : "";
  if (impl_->compressor) s += (s.empty() ? "" : ", ") + impl_->compressor->describe();
  return s.empty() ? "none" : s;
}

Result<bool> ZarrStringArray::read_chunk(const Shape& index, std::vector<std::string>& out) const {
  if (!impl_) return Status::Invalid("the ZarrStringArray is not open");
  const Impl& a = *impl_;
  const Shape& g = a.grid.grid_shape();
  bool inside = index.size() == g.size();
  for (size_t i = 0; inside && i < g.size(); ++i) inside = index[i] >= 0 && index[i] < g[i];
  if (!inside)
    return Status::Invalid(a.description, ": chunk index ", shape_to_string(index), " is outside the chunk grid ",
                           shape_to_string(g));
  auto items = a.decode(index);
  if (!items.ok()) return a.chunk_error(index, items.status());
  if (!*items) {
    out.assign(static_cast<size_t>(a.grid.chunk_numel()), std::string());
    return false;
  }
  out = std::move(**items);
  return true;
}

namespace {

// Chunk indices covering rows [start, start + count), all columns, in row-major order.
std::vector<Shape> chunks_of_rows(const ChunkGrid& grid, int64_t start, int64_t count, int64_t cols) {
  const Shape& cs = grid.chunk_shape();
  const int64_t cr = cs[0], cc = cs.size() > 1 ? cs[1] : 1;
  std::vector<Shape> out;
  for (int64_t r0 = start / cr; r0 * cr < start + count; ++r0)
    for (int64_t c0 = 0; c0 * cc < cols; ++c0) out.push_back(cs.size() > 1 ? Shape{r0, c0} : Shape{r0});
  return out;
}

}  // namespace

void ZarrStringArray::prefetch_rows(int64_t start, int64_t count, int64_t window_bytes) const {
  if (!impl_ || impl_->store->concurrency() <= 1) return;
  if (start < 0 || count <= 0 || count > shape()[0] - start) return;
  std::vector<std::string> keys;
  for (const Shape& index : chunks_of_rows(impl_->grid, start, count, columns())) keys.push_back(chunk_key(index));
  impl_->store->prefetch(keys, std::numeric_limits<int64_t>::max(), window_bytes);
}

Result<std::vector<std::string>> ZarrStringArray::read_rows(int64_t start, int64_t count) const {
  if (!impl_) return Status::Invalid("the ZarrStringArray is not open");
  const Impl& a = *impl_;
  if (start < 0 || count < 0 || count > shape()[0] - start)
    return Status::Invalid(a.description, ": rows [", start, ", ", start + count, ") are outside [0, ", shape()[0], ")");
  const int64_t cols = columns();
  std::vector<std::string> out(static_cast<size_t>(count * cols));
  if (count == 0 || cols == 0) return out;
  const Shape& cs = a.grid.chunk_shape();
  const int64_t cr = cs[0], cc = cs.size() > 1 ? cs[1] : 1;
  const std::vector<Shape> chunks = chunks_of_rows(a.grid, start, count, cols);
  auto place = [&](const Shape& index, std::optional<Bytes>* fetched) -> Status {
    auto decoded = a.decode(index, fetched);
    if (!decoded.ok()) return a.chunk_error(index, decoded.status());
    std::vector<std::string> items = *decoded ? std::move(**decoded)
                                              : std::vector<std::string>(static_cast<size_t>(a.grid.chunk_numel()));
    const int64_t r0 = index[0], c0 = cs.size() > 1 ? index[1] : 0;
    const int64_t rlo = std::max(start, r0 * cr), rhi = std::min(start + count, (r0 + 1) * cr);
    const int64_t clo = c0 * cc, chi = std::min(cols, (c0 + 1) * cc);
    for (int64_t r = rlo; r < rhi; ++r)
      for (int64_t c = clo; c < chi; ++c)
        out[static_cast<size_t>((r - start) * cols + c)] =
            std::move(items[static_cast<size_t>((r - r0 * cr) * cc + (c - clo))]);
    return Status::OK();
  };
  if (a.store->concurrency() <= 1) {
    for (const Shape& index : chunks) STRATA_RETURN_NOT_OK(place(index, nullptr));
    return out;
  }
  // Remote stores fetch batches of chunks with many requests in flight.
  std::vector<std::string> keys;
  for (const Shape& index : chunks) keys.push_back(chunk_key(index));
  STRATA_RETURN_NOT_OK(detail::for_each_fetched_batch(
      *a.store, keys, std::numeric_limits<int64_t>::max(), [&](int64_t b0, auto& got) -> Status {
        for (size_t i = 0; i < got.size(); ++i) {
          const Shape& index = chunks[static_cast<size_t>(b0) + i];
          if (!got[i].ok()) return a.chunk_error(index, got[i].status());
          STRATA_RETURN_NOT_OK(place(index, &*got[i]));
        }
        return Status::OK();
      }));
  return out;
}

Result<ZarrArray::StorageInfo> ZarrStringArray::storage_info() const {
  if (!impl_) return Status::Invalid("the ZarrStringArray is not open");
  const Impl& a = *impl_;
  STRATA_ASSIGN_OR_RETURN(auto stored, detail::list_stored_chunks(*a.store, a.path, a.grid, a.separator, false));
  ZarrArray::StorageInfo out;
  for (int64_t lin : stored) {
    const Shape index = a.grid.unravel(lin);
    auto size = a.store->size(chunk_key(index));
    if (!size.ok()) return a.chunk_error(index, size.status());
    if (!*size) continue;
    out.stored_bytes = detail::saturating_add(out.stored_bytes, **size);
    out.stored_objects += 1;
  }
  return out;
}

Result<ZarrArray::VerifyReport> ZarrStringArray::verify() const {
  if (!impl_) return Status::Invalid("the ZarrStringArray is not open");
  const Impl& a = *impl_;
  // The stored chunks come from listing, so a huge declared grid costs only what is stored.
  STRATA_ASSIGN_OR_RETURN(auto stored, detail::list_stored_chunks(*a.store, a.path, a.grid, a.separator, false));
  ZarrArray::VerifyReport r;
  r.chunks_total = a.grid.num_chunks();
  r.chunks_missing = r.chunks_total - static_cast<int64_t>(stored.size());
  const bool list_missing = r.chunks_total <= detail::kListMissingGridMax;
  int64_t next = 0;  // first grid cell not yet accounted for
  auto note_missing_before = [&](int64_t end) {
    for (; list_missing && next < end && r.missing.size() < detail::kMaxMissingNames; ++next)
      r.missing.push_back(a.suffix(a.grid.unravel(next)));
  };
  auto check = [&](int64_t lin, std::optional<Bytes>* fetched) {
    note_missing_before(lin);
    next = lin + 1;
    const Shape index = a.grid.unravel(lin);
    auto items = a.decode(index, fetched);
    if (items.ok() && *items) {
      ++r.chunks_ok;
    } else if (items.ok()) {
      ++r.chunks_missing;  // not stored (removed since listing, or a store that cannot list)
      if (list_missing && r.missing.size() < detail::kMaxMissingNames) r.missing.push_back(a.suffix(index));
    } else {
      r.corrupt.emplace_back(a.suffix(index), items.status().message());
    }
  };
  if (a.store->concurrency() <= 1) {
    for (int64_t lin : stored) check(lin, nullptr);
  } else {
    // Remote stores fetch batches of chunks with many requests in flight.
    std::vector<std::string> keys;
    for (int64_t lin : stored) keys.push_back(detail::join_key(a.path, a.suffix(a.grid.unravel(lin))));
    STRATA_RETURN_NOT_OK(detail::for_each_fetched_batch(
        *a.store, keys, std::numeric_limits<int64_t>::max(), [&](int64_t b0, auto& got) -> Status {
          for (size_t i = 0; i < got.size(); ++i) {
            const int64_t lin = stored[static_cast<size_t>(b0) + i];
            if (got[i].ok()) {
              check(lin, &*got[i]);
            } else {
              note_missing_before(lin);
              next = lin + 1;
              r.corrupt.emplace_back(a.suffix(a.grid.unravel(lin)), got[i].status().message());
            }
          }
          return Status::OK();
        }));
  }
  note_missing_before(r.chunks_total);
  return r;
}

Result<ZarrStringWriter> ZarrStringWriter::create(std::shared_ptr<Store> store, const std::string& path,
                                                  ZarrStringCreateOptions options) {
  if (!store) return Status::Invalid("ZarrStringWriter::create: no store");
  ZarrStringWriter w;
  STRATA_ASSIGN_OR_RETURN(w.path_, detail::normalize_node_path(path));
  w.description_ = detail::describe_node(*store, w.path_);
  if (options.chunk_rows < 1 || options.columns < 0)
    return Status::Invalid(w.description_, ": string array chunk length must be positive and columns non-negative");
  if (options.dtype != "|O") {
    if (!is_string_dtype(options.dtype) || options.dtype[0] == '>')
      return Status::Invalid(w.description_, ": dtype '", options.dtype, "' is not |O, |S<n> or <U<n>");
    auto width = fixed_width(options.dtype);
    if (!width.ok()) return width.status().with_context(w.description_);
    w.width_ = *width;
    w.ucs4_ = options.dtype[1] == 'U';
    if (w.ucs4_ && options.dtype[0] == '|') options.dtype[0] = '<';
  }
  const int64_t numel = options.chunk_rows * std::max<int64_t>(options.columns, 1);
  if (options.chunk_rows > kMaxChunkItems || numel > kMaxChunkItems)
    return Status::Invalid(w.description_, ": chunks of ", numel, " strings exceed the limit of ", kMaxChunkItems);
  w.store_ = std::move(store);
  w.options_ = std::move(options);
  return w;
}

Status ZarrStringWriter::write_rows(int64_t start, const std::vector<std::string>& values) const {
  const int64_t cols = std::max<int64_t>(options_.columns, 1);
  const int64_t cr = options_.chunk_rows;
  if (static_cast<int64_t>(values.size()) % cols != 0)
    return Status::Invalid(description_, ": ", values.size(), " values do not fill rows of ", cols);
  if (start < 0 || start % cr != 0)
    return Status::Invalid(description_, ": write at row ", start, " is not aligned to chunks of ", cr);
  const int64_t rows = static_cast<int64_t>(values.size()) / cols;
  for (int64_t r = 0; r < rows; r += cr) {
    // Edge chunks are stored at the full chunk shape, padded with "".
    const int64_t have = std::min(cr, rows - r);
    std::vector<std::string> items(static_cast<size_t>(cr * cols));
    std::copy_n(values.begin() + r * cols, have * cols, items.begin());
    std::string key = std::to_string((start + r) / cr);
    if (options_.columns > 0) key += ".0";
    auto fail = [&](const Status& st) { return st.with_context(str_cat(description_, ": chunk '", key, "'")); };
    Bytes raw;
    if (width_ == 0) {
      raw = detail::encode_vlen(items);
    } else {
      auto enc = detail::encode_fixed(items, width_, ucs4_);
      if (!enc.ok()) return fail(enc.status());
      raw = std::move(enc).value();
    }
    if (options_.compressor) {
      auto enc = options_.compressor->encode(raw);
      if (!enc.ok()) return fail(enc.status());
      raw = std::move(enc).value();
    }
    STRATA_RETURN_NOT_OK(store_->set(detail::join_key(path_, key), raw));
  }
  return Status::OK();
}

Status ZarrStringWriter::finish(int64_t rows) const {
  if (rows < 0) return Status::Invalid(description_, ": negative row count ", rows);
  json compressor;  // null
  if (options_.compressor) {
    STRATA_ASSIGN_OR_RETURN(compressor, detail::codec_json_v2(*options_.compressor));
  }
  const int64_t c = options_.columns;
  json z = {{"zarr_format", 2},
            {"shape", c > 0 ? json::array({rows, c}) : json::array({rows})},
            {"chunks", c > 0 ? json::array({options_.chunk_rows, c}) : json::array({options_.chunk_rows})},
            {"dtype", options_.dtype},
            {"compressor", compressor},
            {"fill_value", options_.empty_fill ? json("") : json(nullptr)},
            {"filters", width_ == 0 ? json::array({json{{"id", "vlen-utf8"}}}) : json()},
            {"order", "C"}};
  if (!options_.dimension_names.empty())
    STRATA_RETURN_NOT_OK(put_compact_json(*store_, detail::join_key(path_, ".zattrs"),
                                  json{{"_ARRAY_DIMENSIONS", options_.dimension_names}}));
  return put_compact_json(*store_, detail::join_key(path_, ".zarray"), z);
}

Status write_zarr_strings(const std::shared_ptr<Store>& store, const std::string& path,
                          const std::vector<std::string>& values, const std::string& dimension_name,
                          std::shared_ptr<const BytesCodec> compressor, bool empty_fill) {
  const auto n = static_cast<int64_t>(values.size());
  ZarrStringCreateOptions o;
  o.empty_fill = empty_fill;
  o.chunk_rows = std::max<int64_t>(n, 1);
  o.dimension_names = {dimension_name};
  o.compressor = std::move(compressor);
  STRATA_ASSIGN_OR_RETURN(auto w, ZarrStringWriter::create(store, path, std::move(o)));
  STRATA_RETURN_NOT_OK(w.write_rows(0, values));
  return w.finish(n);
}

}  // namespace strata::io
