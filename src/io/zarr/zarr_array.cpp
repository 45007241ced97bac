// ZarrArray: opening, creating, metadata accessors, single-chunk I/O and attributes.
#include <cstring>

#include "io/zarr/fill_value_internal.hpp"
#include "io/zarr/metadata_json_internal.hpp"
#include "io/zarr/zarr_array_internal.hpp"
#include "io/zarr/zarr_group_internal.hpp"

namespace strata::io {

using detail::Impl;
using nlohmann::json;

namespace {

const Impl& empty_impl() {
  static const Impl kEmpty;
  return kEmpty;
}

Status not_open() { return Status::Invalid("the ZarrArray is not open"); }

// Finish an Impl from parsed metadata: chunk grids and shard shape.
Result<std::shared_ptr<const Impl>> make_impl(std::shared_ptr<Store> store, std::string path,
                                              detail::ArrayMetadata meta) {
  auto impl = std::make_shared<Impl>();
  impl->description = detail::describe_node(*store, path);
  impl->store = std::move(store);
  impl->path = std::move(path);
  STRATA_ASSIGN_OR_RETURN(impl->grid, ChunkGrid::make(meta.shape, meta.chunks));
  STRATA_ASSIGN_OR_RETURN(impl->outer, ChunkGrid::make(meta.shape, meta.outer_chunks));
  if (meta.sharding) impl->shard_shape = meta.outer_chunks;
  impl->meta = std::move(meta);
  return std::shared_ptr<const Impl>(std::move(impl));
}

Result<detail::ArrayMetadata> load_metadata(const Store& store, const std::string& path, const std::string& desc) {
  STRATA_ASSIGN_OR_RETURN(auto zarray, detail::read_metadata_bytes(store, detail::join_key(path, detail::kZarray)));
  if (zarray) {
    const std::string what = detail::join_key(desc, detail::kZarray);
    STRATA_ASSIGN_OR_RETURN(json doc, detail::parse_json_object(*zarray, what));
    auto meta = detail::parse_v2_array(doc);
    if (!meta.ok()) return meta.status().with_context(what);
    STRATA_ASSIGN_OR_RETURN(auto zattrs, detail::read_metadata_bytes(store, detail::join_key(path, detail::kZattrs)));
    if (zattrs) {
      STRATA_ASSIGN_OR_RETURN(json attrs, detail::parse_json_object(*zattrs, detail::join_key(desc, detail::kZattrs)));
      detail::attach_v2_attributes(*meta, attrs);
    }
    return meta;
  }
  STRATA_ASSIGN_OR_RETURN(auto zjson, detail::read_metadata_bytes(store, detail::join_key(path, detail::kZarrJson)));
  if (zjson) {
    const std::string what = detail::join_key(desc, detail::kZarrJson);
    STRATA_ASSIGN_OR_RETURN(json doc, detail::parse_json_object(*zjson, what));
    if (auto nt = doc.find("node_type"); nt != doc.end() && *nt == "group")
      return Status::InvalidData(desc, ": is a Zarr group, not an array");
    auto meta = detail::parse_v3_array(doc);
    if (!meta.ok()) return meta.status().with_context(what);
    return meta;
  }
  STRATA_ASSIGN_OR_RETURN(bool group, store.exists(detail::join_key(path, detail::kZgroup)));
  if (group) return Status::InvalidData(desc, ": is a Zarr group, not an array");
  return Status::NotFound(desc, ": no Zarr array here (no .zarray or zarr.json)");
}

Status check_chunk_index(const Impl& a, const Shape& index) {
  const Shape& g = a.grid.grid_shape();
  bool ok = index.size() == g.size();
  for (size_t i = 0; ok && i < g.size(); ++i) ok = index[i] >= 0 && index[i] < g[i];
  if (!ok)
    return Status::Invalid(a.description, ": chunk index ", shape_to_string(index), " is outside the chunk grid ",
                           shape_to_string(g));
  return Status::OK();
}

}  // namespace

Shape Impl::shard_of(const Shape& inner_index) const {
  Shape s(inner_index.size());
  for (size_t i = 0; i < s.size(); ++i) s[i] = inner_index[i] * meta.chunks[i] / meta.outer_chunks[i];
  return s;
}

Status Impl::chunk_error(const std::string& key, const Status& st) const {
  // Keys are shown relative to the array, which the description already names.
  std::string_view k = key;
  if (!path.empty() && k.size() > path.size() && k.starts_with(path) && k[path.size()] == '/') k.remove_prefix(path.size() + 1);
  return st.with_context(str_cat(description, ": chunk '", k, "'"));
}

ZarrArray::ZarrArray() = default;
ZarrArray::~ZarrArray() = default;
ZarrArray::ZarrArray(const ZarrArray&) = default;
ZarrArray& ZarrArray::operator=(const ZarrArray&) = default;
ZarrArray::ZarrArray(ZarrArray&&) noexcept = default;
ZarrArray& ZarrArray::operator=(ZarrArray&&) noexcept = default;

Result<ZarrArray> ZarrArray::open(std::shared_ptr<Store> store, const std::string& path) {
  if (!store) return Status::Invalid("ZarrArray::open: no store");
  STRATA_ASSIGN_OR_RETURN(std::string p, detail::normalize_node_path(path));
  const std::string desc = detail::describe_node(*store, p);
  STRATA_ASSIGN_OR_RETURN(auto meta, load_metadata(*store, p, desc));
  ZarrArray a;
  STRATA_ASSIGN_OR_RETURN(a.impl_, make_impl(std::move(store), std::move(p), std::move(meta)));
  return a;
}

Result<ZarrArray> ZarrArray::create(std::shared_ptr<Store> store, const std::string& path,
                                    const ZarrCreateOptions& options) {
  if (!store) return Status::Invalid("ZarrArray::create: no store");
  STRATA_ASSIGN_OR_RETURN(std::string p, detail::normalize_node_path(path));
  const std::string desc = detail::describe_node(*store, p);
  auto fail = [&](const Status& st) { return st.with_context(desc); };

  // Validate everything before touching the store.
  detail::ArrayMetadata meta;
  json doc, zattrs;
  if (options.format == ZarrFormat::V2) {
    auto d = detail::build_v2_zarray(options);
    if (!d.ok()) return fail(d.status());
    auto z = detail::build_v2_zattrs(options);
    if (!z.ok()) return fail(z.status());
    doc = std::move(d).value();
    zattrs = std::move(z).value();
    auto m = detail::parse_v2_array(doc);
    if (!m.ok()) return fail(m.status());
    meta = std::move(m).value();
    detail::attach_v2_attributes(meta, zattrs);
  } else {
    auto d = detail::build_v3_array(options);
    if (!d.ok()) return fail(d.status());
    doc = std::move(d).value();
    auto m = detail::parse_v3_array(doc);
    if (!m.ok()) return fail(m.status());
    meta = std::move(m).value();
  }

  STRATA_ASSIGN_OR_RETURN(ZarrNodeInfo existing, zarr_node_info(store, p));
  if (existing.kind != NodeKind::Missing) {
    if (!options.overwrite)
      return Status::AlreadyExists(desc, ": a Zarr ", existing.kind == NodeKind::Array ? "array" : "group",
                                   " already exists (use overwrite)");
    STRATA_RETURN_NOT_OK(store->erase_prefix(p));
  }
  STRATA_RETURN_NOT_OK(detail::ensure_parent_groups(store, p, options.format));
  if (options.format == ZarrFormat::V2) {
    // Attributes first, so a reader that sees .zarray also sees them.
    if (!zattrs.empty()) {
      const std::string s = detail::dump_metadata(zattrs);
      STRATA_RETURN_NOT_OK(store->set(detail::join_key(p, detail::kZattrs),
                                      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size())));
    }
    const std::string s = detail::dump_metadata(doc);
    STRATA_RETURN_NOT_OK(store->set(detail::join_key(p, detail::kZarray),
                                    std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size())));
  } else {
    const std::string s = detail::dump_metadata(doc);
    STRATA_RETURN_NOT_OK(store->set(detail::join_key(p, detail::kZarrJson),
                                    std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size())));
  }
  ZarrArray a;
  STRATA_ASSIGN_OR_RETURN(a.impl_, make_impl(std::move(store), std::move(p), std::move(meta)));
  return a;
}

ZarrFormat ZarrArray::format() const { return impl_ ? impl_->meta.format : ZarrFormat::V2; }
const std::string& ZarrArray::path() const { return (impl_ ? *impl_ : empty_impl()).path; }
const std::shared_ptr<Store>& ZarrArray::store() const { return (impl_ ? *impl_ : empty_impl()).store; }
std::string ZarrArray::describe() const { return impl_ ? impl_->description : std::string("(closed array)"); }
const Shape& ZarrArray::shape() const { return (impl_ ? *impl_ : empty_impl()).meta.shape; }
int64_t ZarrArray::ndim() const { return static_cast<int64_t>(shape().size()); }
DType ZarrArray::dtype() const { return impl_ ? impl_->meta.dtype.native() : DType(); }
DType ZarrArray::stored_dtype() const { return impl_ ? impl_->meta.dtype : DType(); }
const ChunkGrid& ZarrArray::chunk_grid() const { return (impl_ ? *impl_ : empty_impl()).grid; }
const Shape& ZarrArray::shard_shape() const { return (impl_ ? *impl_ : empty_impl()).shard_shape; }
std::span<const uint8_t> ZarrArray::fill_value_bytes() const {
  if (!impl_) return {};
  return {impl_->meta.fill.data(), impl_->meta.fill.size()};
}
ZarrFillValue ZarrArray::fill_value() const {
  return detail::fill_value_from_json((impl_ ? *impl_ : empty_impl()).meta.fill_json);
}
std::string ZarrArray::attributes_json() const {
  return detail::dump_compact((impl_ ? *impl_ : empty_impl()).meta.attributes);
}
std::vector<std::string> ZarrArray::dimension_names() const {
  return impl_ ? impl_->meta.dimension_names : std::vector<std::string>();
}
std::string ZarrArray::metadata_json() const {
  return detail::dump_compact((impl_ ? *impl_ : empty_impl()).meta.document);
}

std::string ZarrArray::codecs_description() const {
  if (!impl_) return "";
  if (impl_->meta.sharding) return impl_->meta.sharding->describe();
  return impl_->meta.pipeline->describe();
}

std::string ZarrArray::chunk_key(const Shape& chunk_index) const {
  if (!impl_) return "";
  if (chunk_index.size() != impl_->meta.chunks.size()) return "";
  return impl_->object_key(impl_->sharded() ? impl_->shard_of(chunk_index) : chunk_index);
}

Result<bool> ZarrArray::read_chunk(const Shape& chunk_index, std::span<uint8_t> out) const {
  if (!impl_) return not_open();
  const Impl& a = *impl_;
  STRATA_RETURN_NOT_OK(check_chunk_index(a, chunk_index));
  if (static_cast<int64_t>(out.size()) != a.chunk_nbytes())
    return Status::Invalid(a.description, ": chunk buffer has ", out.size(), " bytes, expected ", a.chunk_nbytes());
  if (!a.sharded()) return detail::read_plain_chunk(a, a.object_key(chunk_index), out);
  const std::string key = a.object_key(a.shard_of(chunk_index));
  STRATA_ASSIGN_OR_RETURN(detail::ShardIndex index, detail::read_shard_index(a, key));
  return detail::read_inner_chunk(a, key, index, a.meta.sharding->slot_of(chunk_index), out);
}

Status ZarrArray::write_chunk(const Shape& chunk_index, std::span<const uint8_t> data) const {
  if (!impl_) return not_open();
  const Impl& a = *impl_;
  STRATA_RETURN_NOT_OK(check_chunk_index(a, chunk_index));
  if (static_cast<int64_t>(data.size()) != a.chunk_nbytes())
    return Status::Invalid(a.description, ": chunk data has ", data.size(), " bytes, expected ", a.chunk_nbytes());
  if (!a.sharded()) {
    const std::string key = a.object_key(chunk_index);
    auto enc = a.meta.pipeline->encode(data);
    if (!enc.ok()) return a.chunk_error(key, enc.status());
    Status st = a.store->set(key, *enc);
    return st.ok() ? st : a.chunk_error(key, st);
  }
  // A shard is rewritten as a whole: merge this chunk's in-array part through write_region.
  const Shape origin = a.grid.chunk_origin(chunk_index);
  const Shape extent = a.grid.chunk_extent(chunk_index);
  if (extent == a.meta.chunks) return write_region(origin, extent, data.data());
  STRATA_ASSIGN_OR_RETURN(int64_t n, shape_numel(extent));
  STRATA_ASSIGN_OR_RETURN(Bytes part, detail::allocate_bytes(n * a.itemsize()));
  const Shape zero(extent.size(), 0);
  copy_box(data.data(), a.meta.chunks, zero, part.data(), extent, zero, extent, a.itemsize());
  return write_region(origin, extent, part.data());
}

Status ZarrArray::read_region(const Shape& start, const Shape& count, void* out, ThreadPool* pool) const {
  if (!impl_) return not_open();
  STRATA_RETURN_NOT_OK(detail::check_box(*impl_, start, count));
  return detail::read_region_impl(*impl_, start, count, out, pool);
}

void ZarrArray::prefetch_region(const Shape& start, const Shape& count, int64_t window_bytes) const {
  if (!impl_ || impl_->sharded() || impl_->store->concurrency() <= 1) return;
  if (!detail::check_box(*impl_, start, count).ok()) return;
  std::vector<std::string> keys;
  for (const Shape& c : impl_->grid.chunks_in(start, count)) keys.push_back(impl_->object_key(c));
  impl_->store->prefetch(keys, impl_->max_object_nbytes(), window_bytes);
}

Status ZarrArray::write_region(const Shape& start, const Shape& count, const void* data, ThreadPool* pool) const {
  if (!impl_) return not_open();
  STRATA_RETURN_NOT_OK(detail::check_box(*impl_, start, count));
  return detail::write_region_impl(*impl_, start, count, data, pool);
}

Status ZarrArray::set_attributes_json(std::string_view attributes_json) {
  if (!impl_) return not_open();
  auto parsed = detail::parse_attributes_json(attributes_json);
  if (!parsed.ok()) return parsed.status().with_context(impl_->description);
  const json& attributes = *parsed;
  auto next = std::make_shared<Impl>(*impl_);
  std::string key, text;
  if (next->meta.format == ZarrFormat::V2) {
    key = detail::join_key(next->path, detail::kZattrs);
    text = detail::dump_metadata(attributes);
    detail::attach_v2_attributes(next->meta, attributes);
  } else {
    key = detail::join_key(next->path, detail::kZarrJson);
    next->meta.document["attributes"] = attributes;
    next->meta.attributes = attributes;
    text = detail::dump_metadata(next->meta.document);
  }
  STRATA_RETURN_NOT_OK(next->store->set(key, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()),
                                                                      text.size())));
  impl_ = std::move(next);
  return Status::OK();
}

}  // namespace strata::io
