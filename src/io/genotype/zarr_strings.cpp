// Zarr v2 string arrays on a Store (see zarr_strings_internal.hpp).
#include <algorithm>
#include <cstring>

#include "io/genotype/zarr_strings_internal.hpp"
#include "io/zarr/metadata_json_internal.hpp"
#include "io/codecs/codec_json_internal.hpp"
#include "strata/io/codec.hpp"

namespace strata::io::detail {
namespace {

using nlohmann::json;

std::string key_of(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "/" + name;
}

// Through the zarr layer's bounded parser (size and nesting depth limits).
Result<json> load_json(const Store& store, const std::string& key) {
  STRATA_ASSIGN_OR_RETURN(auto doc, read_metadata_object(store, key));
  if (!doc) return Status::NotFound(store.describe(), "/", key, ": missing");
  return std::move(*doc);
}

Status put_json(Store& store, const std::string& key, const json& doc) {
  const std::string s = doc.dump();
  return store.set(key, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

std::string ucs4_to_utf8(const uint8_t* p, int64_t chars, bool big_endian) {
  std::string out;
  for (int64_t i = 0; i < chars; ++i) {
    uint32_t c = load_u32(p + 4 * i);
    if (big_endian) c = __builtin_bswap32(c);
    if (c == 0) break;  // numpy strips trailing NULs
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

}  // namespace

Bytes encode_vlen(const std::vector<std::string>& items, size_t first, size_t count) {
  size_t total = 4;
  for (size_t i = 0; i < count; ++i) total += 4 + (first + i < items.size() ? items[first + i].size() : 0);
  Bytes out(total);
  uint8_t* p = out.data();
  const auto put = [&p](uint32_t v) {
    std::memcpy(p, &v, 4);
    p += 4;
  };
  put(static_cast<uint32_t>(count));
  for (size_t i = 0; i < count; ++i) {
    const std::string empty;
    const std::string& s = first + i < items.size() ? items[first + i] : empty;
    put(static_cast<uint32_t>(s.size()));
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  }
  return out;
}

Result<std::vector<std::string>> decode_vlen(std::span<const uint8_t> d, int64_t expected,
                                             const std::string& what) {
  if (d.size() < 4) return Status::Corrupt(what, ": vlen chunk shorter than its header");
  const uint32_t n = load_u32(d.data());
  if (static_cast<int64_t>(n) != expected)
    return Status::Corrupt(what, ": vlen chunk holds ", n, " items, expected ", expected);
  std::vector<std::string> out;
  out.reserve(n);
  size_t pos = 4;
  for (uint32_t i = 0; i < n; ++i) {
    if (pos + 4 > d.size()) return Status::Corrupt(what, ": vlen chunk truncated at item ", i);
    const uint32_t len = load_u32(d.data() + pos);
    pos += 4;
    if (len > d.size() - pos) return Status::Corrupt(what, ": vlen chunk truncated at item ", i);
    out.emplace_back(reinterpret_cast<const char*>(d.data() + pos), len);
    pos += len;
  }
  return out;
}

Result<StringArray> StringArray::open(std::shared_ptr<Store> store, const std::string& path) {
  StringArray a;
  const std::string what = store->describe() + "/" + path;
  STRATA_ASSIGN_OR_RETURN(json z, load_json(*store, key_of(path, ".zarray")));
  a.store_ = std::move(store);
  a.path_ = path;
  try {
    a.shape_ = z.at("shape").get<Shape>();
    a.chunks_ = z.at("chunks").get<Shape>();
    a.compressor_ = z.value("compressor", json());
    a.separator_ = z.value("dimension_separator", std::string(".")) == "/" ? '/' : '.';
    const std::string dtype = z.at("dtype").get<std::string>();
    const json filters = z.value("filters", json());
    if (z.value("order", std::string("C")) != "C" && a.shape_.size() > 1)
      return Status::Unsupported(what, ": F-order string arrays are not supported");
    if (dtype == "|O") {
      std::string id;
      if (filters.is_array() && !filters.empty()) id = filters.back().value("id", "");
      if (id == "vlen-utf8") a.kind_ = Kind::VlenUtf8;
      else if (id == "vlen-bytes") a.kind_ = Kind::VlenBytes;
      else return Status::Unsupported(what, ": object array without a vlen-utf8/vlen-bytes filter");
    } else if (dtype.size() > 2 && dtype[1] == 'S') {
      a.kind_ = Kind::FixedBytes;
      a.width_ = std::stoll(dtype.substr(2));
    } else if (dtype.size() > 2 && dtype[1] == 'U') {
      a.kind_ = Kind::FixedUcs4;
      a.width_ = std::stoll(dtype.substr(2));
      a.big_endian_ = dtype[0] == '>';
    } else {
      return Status::Invalid(what, ": expected a string array, found dtype ", dtype);
    }
  } catch (const std::exception& e) {
    return Status::Corrupt(what, "/.zarray: ", e.what());
  }
  if (a.shape_.empty() || a.shape_.size() > 2 || a.chunks_.size() != a.shape_.size())
    return Status::Unsupported(what, ": string arrays must be 1-D or 2-D");
  for (int64_t c : a.chunks_)
    if (c < 1) return Status::Corrupt(what, ": bad chunk shape");
  return a;
}

Result<std::vector<std::string>> StringArray::decode_chunk(const Shape& index) const {
  std::string key;
  for (size_t i = 0; i < index.size(); ++i) {
    if (i) key += separator_;
    key += std::to_string(index[i]);
  }
  const std::string what = store_->describe() + "/" + key_of(path_, key);
  int64_t numel = 1;
  for (int64_t c : chunks_) numel *= c;
  STRATA_ASSIGN_OR_RETURN(auto raw, store_->get(key_of(path_, key)));
  if (!raw) return std::vector<std::string>(static_cast<size_t>(numel));  // missing → ""
  Bytes data;
  if (!compressor_.is_null()) {
    STRATA_ASSIGN_OR_RETURN(auto codec, make_codec_v2(compressor_, 1));
    auto dec = codec->decode(*raw);
    if (!dec.ok()) return dec.status().with_context(what);
    data = std::move(dec).value();
  } else {
    data = std::move(*raw);
  }
  if (kind_ == Kind::VlenUtf8 || kind_ == Kind::VlenBytes) return decode_vlen(data, numel, what);
  const int64_t item = kind_ == Kind::FixedBytes ? width_ : 4 * width_;
  if (static_cast<int64_t>(data.size()) != numel * item)
    return Status::Corrupt(what, ": chunk has ", data.size(), " bytes, expected ", numel * item);
  std::vector<std::string> out(static_cast<size_t>(numel));
  for (int64_t i = 0; i < numel; ++i) {
    const uint8_t* p = data.data() + i * item;
    if (kind_ == Kind::FixedBytes) {
      int64_t len = width_;
      while (len > 0 && p[len - 1] == 0) --len;
      out[i].assign(reinterpret_cast<const char*>(p), static_cast<size_t>(len));
    } else {
      out[i] = ucs4_to_utf8(p, width_, big_endian_);
    }
  }
  return out;
}

Result<std::vector<std::string>> StringArray::read_rows(int64_t start, int64_t count) const {
  if (start < 0 || count < 0 || start + count > shape_[0])
    return Status::Invalid(store_->describe(), "/", path_, ": rows [", start, ", ", start + count, ") out of bounds");
  const int64_t cols = columns();
  std::vector<std::string> out(static_cast<size_t>(count * cols));
  if (count == 0 || cols == 0) return out;
  const int64_t cr = chunks_[0], cc = chunks_.size() > 1 ? chunks_[1] : 1;
  for (int64_t r0 = start / cr; r0 * cr < start + count; ++r0) {
    for (int64_t c0 = 0; c0 * cc < cols; ++c0) {
      Shape index = {r0};
      if (shape_.size() > 1) index.push_back(c0);
      STRATA_ASSIGN_OR_RETURN(auto items, decode_chunk(index));
      const int64_t rlo = std::max(start, r0 * cr), rhi = std::min(start + count, (r0 + 1) * cr);
      const int64_t clo = c0 * cc, chi = std::min(cols, (c0 + 1) * cc);
      for (int64_t r = rlo; r < rhi; ++r)
        for (int64_t c = clo; c < chi; ++c)
          out[static_cast<size_t>((r - start) * cols + c)] = std::move(items[static_cast<size_t>((r - r0 * cr) * cc + (c - clo))]);
    }
  }
  return out;
}

Result<StringArrayWriter> StringArrayWriter::create(std::shared_ptr<Store> store, const std::string& path,
                                                    int64_t chunk_rows, int64_t columns,
                                                    std::vector<std::string> dims, json compressor) {
  if (chunk_rows < 1) return Status::Invalid("string array chunk length must be positive");
  StringArrayWriter w;
  w.store_ = std::move(store);
  w.path_ = path;
  w.chunk_rows_ = chunk_rows;
  w.columns_ = columns;
  w.dims_ = std::move(dims);
  w.compressor_ = std::move(compressor);
  return w;
}

Status StringArrayWriter::write_rows(int64_t start, const std::vector<std::string>& values) const {
  const int64_t cols = std::max<int64_t>(columns_, 1);
  const int64_t rows = static_cast<int64_t>(values.size()) / cols;
  if (start % chunk_rows_ != 0) return Status::Internal("string array write not chunk-aligned");
  std::unique_ptr<BytesCodec> codec;
  if (!compressor_.is_null()) {
    STRATA_ASSIGN_OR_RETURN(codec, make_codec_v2(compressor_, 1));
  }
  for (int64_t r = 0; r < rows; r += chunk_rows_) {
    // Edge chunks are stored at the full chunk shape, padded with "".
    const int64_t have = std::min(chunk_rows_, rows - r);
    std::vector<std::string> items(static_cast<size_t>(chunk_rows_ * cols));
    for (int64_t i = 0; i < have * cols; ++i) items[static_cast<size_t>(i)] = values[static_cast<size_t>(r * cols + i)];
    Bytes raw = encode_vlen(items, 0, items.size());
    std::string key = std::to_string((start + r) / chunk_rows_);
    if (columns_ > 0) key += ".0";
    if (codec) {
      STRATA_ASSIGN_OR_RETURN(raw, codec->encode(raw));
    }
    STRATA_RETURN_NOT_OK(store_->set(key_of(path_, key), raw));
  }
  return Status::OK();
}

Status StringArrayWriter::finish(int64_t rows) const {
  json z = {{"zarr_format", 2},
            {"shape", columns_ > 0 ? json::array({rows, columns_}) : json::array({rows})},
            {"chunks", columns_ > 0 ? json::array({chunk_rows_, std::max<int64_t>(columns_, 1)}) : json::array({chunk_rows_})},
            {"dtype", "|O"},
            {"compressor", compressor_},
            {"fill_value", nullptr},
            {"filters", json::array({json{{"id", "vlen-utf8"}}})},
            {"order", "C"}};
  STRATA_RETURN_NOT_OK(put_json(*store_, key_of(path_, ".zattrs"), json{{"_ARRAY_DIMENSIONS", dims_}}));
  return put_json(*store_, key_of(path_, ".zarray"), z);
}

Status set_v2_length(Store& store, const std::string& path, int64_t length) {
  STRATA_ASSIGN_OR_RETURN(json z, load_json(store, key_of(path, ".zarray")));
  if (!z.contains("shape") || !z["shape"].is_array() || z["shape"].empty())
    return Status::Corrupt(store.describe(), "/", path, "/.zarray: no shape");
  z["shape"][0] = length;
  return put_json(store, key_of(path, ".zarray"), z);
}

}  // namespace strata::io::detail
