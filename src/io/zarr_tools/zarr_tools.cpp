#include "io/zarr_tools/zarr_tools.hpp"

#include "io/zarr_tools/zarr_tools_internal.hpp"
#include "io/remote/fetch_threads_internal.hpp"
#include "io/remote/metadata_cache_store_internal.hpp"
#include "io/zarr/chunk_pipeline_internal.hpp"
#include "io/zarr/metadata_json_internal.hpp"
#include "io/zarr/zarr_group_internal.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <new>
#include <optional>
#include <semaphore>

#include "strata/core/buffer.hpp"
#include "strata/io/npy.hpp"
#include "strata/io/remote.hpp"
#include "strata/io/zarr_strings.hpp"

namespace strata::io {
namespace fs = std::filesystem;

namespace zarr_tools_internal {

Result<Opened> open_location(const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(StoreLocation loc, open_zarr_location(path));
  return Opened{loc.store, loc.node_path};
}

int64_t slab_rows(const Shape& shape, int64_t chunk_rows, int64_t itemsize, int64_t slab_bytes) {
  if (shape.empty()) return 1;
  int64_t row_bytes = itemsize;
  for (size_t i = 1; i < shape.size(); ++i) row_bytes *= shape[i];
  int64_t rows = std::max<int64_t>(1, slab_bytes / std::max<int64_t>(row_bytes, 1));
  if (rows >= chunk_rows) rows = rows / chunk_rows * chunk_rows;
  return std::min(rows, std::max<int64_t>(shape[0], 1));
}

}  // namespace zarr_tools_internal

using zarr_tools_internal::open_location;
using zarr_tools_internal::Opened;
namespace {

std::string join_path(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "/" + b;
}

// Describe an array strata cannot open for decoding (unsupported dtype) from its raw metadata.
bool describe_unreadable(const std::shared_ptr<Store>& store, const std::string& path, const Status& why,
                         ZarrInfoEntry& e) {
  if (why.code() != StatusCode::Unsupported) return false;
  e.unreadable_reason = why.message();
  const bool v3 = e.format == ZarrFormat::V3;
  auto raw = detail::read_metadata_object(*store, join_path(path, v3 ? "zarr.json" : ".zarray"));
  if (!raw.ok() || !*raw) return true;
  const nlohmann::json& j = **raw;
  auto ints = [](const nlohmann::json& v) {
    Shape out;
    if (v.is_array())
      for (const auto& x : v)
        if (x.is_number_integer()) out.push_back(x.get<int64_t>());
    return out;
  };
  e.shape = ints(j.value("shape", nlohmann::json()));
  if (v3) {
    const auto& t = j.value("data_type", nlohmann::json());
    e.raw_dtype = t.is_string() ? t.get<std::string>() : t.dump();
    if (j.contains("chunk_grid") && j["chunk_grid"].is_object())
      e.chunks = ints(j["chunk_grid"].value("configuration", nlohmann::json::object()).value("chunk_shape", nlohmann::json()));
    e.codecs = j.value("codecs", nlohmann::json::array()).dump();
  } else {
    const auto& t = j.value("dtype", nlohmann::json());
    e.raw_dtype = t.is_string() ? t.get<std::string>() : t.dump();
    e.chunks = ints(j.value("chunks", nlohmann::json()));
    const auto& c = j.value("compressor", nlohmann::json());
    const auto& f = j.value("filters", nlohmann::json());
    e.codecs = (f.is_array() && !f.empty() ? f.dump() + " " : std::string()) + (c.is_null() ? "no compressor" : c.dump());
  }
  return true;
}

// Whether `path` is a string array: read through ZarrStringArray, not ZarrArray. Unreadable
// metadata answers false, so ZarrArray::open reports it as for any other array.
bool is_strings(const std::shared_ptr<Store>& store, const std::string& path) {
  auto s = is_zarr_string_array(store, path);
  return s.ok() && *s;
}

Status describe_strings(const ZarrStringArray& a, ZarrInfoEntry& e) {
  e.strings = true;
  e.raw_dtype = a.dtype();
  e.shape = a.shape();
  e.chunks = a.chunk_grid().chunk_shape();
  e.codecs = a.codecs_description();
  STRATA_ASSIGN_OR_RETURN(auto si, a.storage_info());
  e.stored_bytes = si.stored_bytes;
  e.stored_objects = si.stored_objects;
  e.grid_objects = a.chunk_grid().num_chunks();
  return Status::OK();
}

}  // namespace

Shape default_chunks(const Shape& shape, int64_t target) {
  Shape c = shape;
  for (auto& e : c) e = std::max<int64_t>(e, 1);
  auto numel = [&] {
    int64_t n = 1;
    for (int64_t e : c) n = (n > INT64_MAX / e) ? INT64_MAX : n * e;
    return n;
  }();
  while (numel > target) {
    auto it = std::max_element(c.begin(), c.end());
    *it = ceil_div(*it, 2);
    numel = 1;
    for (int64_t e : c) numel = (numel > INT64_MAX / e) ? INT64_MAX : numel * e;
  }
  return c;
}

Result<std::vector<ZarrInfoEntry>> zarr_info(const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(Opened o, open_location(path));
  // The real tree, listed from the store: consolidated metadata may omit nodes.
  STRATA_ASSIGN_OR_RETURN(auto nodes, detail::walk_by_listing(o.store, o.node));
  if (nodes.empty()) return Status::NotFound(path, ": no Zarr group or array here");
  std::vector<ZarrInfoEntry> out;
  for (const auto& n : nodes) {
    ZarrInfoEntry e;
    e.path = n.path;
    e.kind = n.kind;
    e.format = n.format;
    if (n.kind == NodeKind::Array && is_strings(o.store, n.path)) {
      auto opened = ZarrStringArray::open(o.store, n.path);
      if (opened.ok()) STRATA_RETURN_NOT_OK(describe_strings(*opened, e));
      else if (!describe_unreadable(o.store, n.path, opened.status(), e)) return opened.status();
    } else if (n.kind == NodeKind::Array) {
      auto opened = ZarrArray::open(o.store, n.path);
      if (!opened.ok()) {
        if (describe_unreadable(o.store, n.path, opened.status(), e)) {
          out.push_back(std::move(e));
          continue;
        }
        return opened.status();
      }
      ZarrArray& a = *opened;
      e.dtype = a.stored_dtype();
      e.shape = a.shape();
      e.chunks = a.chunk_grid().chunk_shape();
      e.shards = a.shard_shape();
      e.codecs = a.codecs_description();
      STRATA_ASSIGN_OR_RETURN(int64_t numel, shape_numel(a.shape()));
      e.logical_bytes = numel * a.dtype().itemsize();
      STRATA_ASSIGN_OR_RETURN(auto si, a.storage_info());
      e.stored_bytes = si.stored_bytes;
      e.stored_objects = si.stored_objects;
      if (e.shards.empty()) {
        e.grid_objects = a.chunk_grid().num_chunks();
      } else {
        STRATA_ASSIGN_OR_RETURN(auto sg, ChunkGrid::make(a.shape(), e.shards));
        e.grid_objects = sg.num_chunks();
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string format_zarr_info(const std::vector<ZarrInfoEntry>& entries) {
  std::string s;
  for (const auto& e : entries) {
    int depth = e.path.empty() ? 0 : static_cast<int>(std::count(e.path.begin(), e.path.end(), '/')) + 1;
    std::string indent(static_cast<size_t>(2 * depth), ' ');
    std::string name = e.path.empty() ? "/" : e.path.substr(e.path.rfind('/') == std::string::npos ? 0 : e.path.rfind('/') + 1);
    int fmt = static_cast<int>(e.format);
    if (e.kind == NodeKind::Group) {
      s += str_cat(indent, name, "  (group, zarr v", fmt, ")\n");
      continue;
    }
    if (e.strings) {
      s += str_cat(indent, name, "  (array, zarr v", fmt, ")\n");
      s += str_cat(indent, "  shape   ", shape_to_string(e.shape), "  dtype ", e.raw_dtype, " (strings)\n");
      s += str_cat(indent, "  chunks  ", shape_to_string(e.chunks), "\n");
      s += str_cat(indent, "  codecs  ", e.codecs, "\n");
      s += str_cat(indent, "  stored  ", format_bytes(e.stored_bytes), " in ", e.stored_objects, "/", e.grid_objects,
                   " chunks\n");
      continue;
    }
    if (!e.unreadable_reason.empty()) {
      s += str_cat(indent, name, "  (array, zarr v", fmt, "; not decoded by strata)\n");
      s += str_cat(indent, "  shape   ", shape_to_string(e.shape), "  dtype ", e.raw_dtype, "\n");
      s += str_cat(indent, "  chunks  ", shape_to_string(e.chunks), "\n");
      s += str_cat(indent, "  codecs  ", e.codecs, "\n");
      continue;
    }
    double ratio = e.stored_bytes > 0 ? static_cast<double>(e.logical_bytes) / static_cast<double>(e.stored_bytes) : 0.0;
    char ratio_buf[32];
    std::snprintf(ratio_buf, sizeof ratio_buf, "%.2f", ratio);
    s += str_cat(indent, name, "  (array, zarr v", fmt, ")\n");
    s += str_cat(indent, "  shape   ", shape_to_string(e.shape), "  dtype ", e.dtype.numpy_str(), " (", e.dtype.name(), ")\n");
    s += str_cat(indent, "  chunks  ", shape_to_string(e.chunks));
    if (!e.shards.empty()) s += str_cat("  shards ", shape_to_string(e.shards));
    s += "\n";
    s += str_cat(indent, "  codecs  ", e.codecs.empty() ? "none" : e.codecs, "\n");
    s += str_cat(indent, "  stored  ", format_bytes(e.stored_bytes), " in ", e.stored_objects, "/", e.grid_objects,
                 e.shards.empty() ? " chunks" : " shards", "; logical ", format_bytes(e.logical_bytes),
                 "; ratio ", ratio_buf, "x\n");
  }
  return s;
}

nlohmann::json zarr_info_json(const std::vector<ZarrInfoEntry>& entries) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : entries) {
    nlohmann::json j;
    j["path"] = e.path;
    j["zarr_format"] = static_cast<int>(e.format);
    j["node_type"] = e.kind == NodeKind::Group ? "group" : "array";
    if (e.kind == NodeKind::Array && e.strings) {
      j["shape"] = e.shape;
      j["dtype"] = e.raw_dtype;
      j["strings"] = true;
      j["chunks"] = e.chunks;
      j["codecs"] = e.codecs;
      j["stored_bytes"] = e.stored_bytes;
      j["stored_objects"] = e.stored_objects;
      j["grid_objects"] = e.grid_objects;
    } else if (e.kind == NodeKind::Array && !e.unreadable_reason.empty()) {
      j["shape"] = e.shape;
      j["dtype"] = e.raw_dtype;
      j["chunks"] = e.chunks;
      j["codecs"] = e.codecs;
      j["unreadable"] = e.unreadable_reason;
    } else if (e.kind == NodeKind::Array) {
      j["shape"] = e.shape;
      j["dtype"] = e.dtype.numpy_str();
      j["chunks"] = e.chunks;
      if (!e.shards.empty()) j["shards"] = e.shards;
      j["codecs"] = e.codecs;
      j["logical_bytes"] = e.logical_bytes;
      j["stored_bytes"] = e.stored_bytes;
      j["stored_objects"] = e.stored_objects;
      j["grid_objects"] = e.grid_objects;
      j["compression_ratio"] = e.stored_bytes > 0 ? static_cast<double>(e.logical_bytes) / e.stored_bytes : 0.0;
    }
    out.push_back(std::move(j));
  }
  return out;
}

namespace {

// What verifying one node found: a report, a reason it was not verified, or an error that ends
// the whole verification (as reading an object fails beyond a corrupt chunk).
struct NodeOutcome {
  bool has_report = false;
  ZarrArray::VerifyReport report;
  std::optional<std::string> unverified;
  Status fatal;
};

// Arrays verified at once share the memory their batches and decode buffers hold: arrays
// whose decoded chunks are large (a batch of them would exceed this) are verified at most
// kLargeArraysAtOnce at a time, so lanes overlap small arrays' round trips (and two large
// arrays' gaps) without multiplying the bytes held by the number of lanes.
constexpr int64_t kLargeChunkBatchBytes = int64_t{32} << 20;
constexpr int kLargeArraysAtOnce = 2;

using LargeArraySlots = std::counting_semaphore<kLargeArraysAtOnce>;

// Holds one of `slots` while alive when a batch of `chunk_bytes` chunks counts as large.
class LargeArrayGuard {
 public:
  LargeArrayGuard(LargeArraySlots* slots, const Store& store, int64_t chunk_bytes)
      : slots_(slots && chunk_bytes > kLargeChunkBatchBytes / std::max(1, store.concurrency()) ? slots : nullptr) {
    if (slots_) slots_->acquire();
  }
  ~LargeArrayGuard() {
    if (slots_) slots_->release();
  }
  LargeArrayGuard(const LargeArrayGuard&) = delete;
  LargeArrayGuard& operator=(const LargeArrayGuard&) = delete;

 private:
  LargeArraySlots* slots_;
};

int64_t shape_elements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t c : shape) n = detail::saturating_mul(n, c);
  return n;
}

int64_t chunk_elements(const ChunkGrid& g) { return shape_elements(g.chunk_shape()); }

NodeOutcome verify_node(const Context& ctx, const std::shared_ptr<Store>& store, const detail::ListedNode& n,
                        LargeArraySlots* large) {
  NodeOutcome out;
  auto metadata_error = [&](const Status& st) {
    out.has_report = true;
    out.report.corrupt.emplace_back(join_path(n.info.path, "<metadata>"), st.message());
  };
  if (!n.error.ok()) {
    if (n.error.code() == StatusCode::Unsupported) out.unverified = n.error.message();
    else metadata_error(n.error);
    return out;
  }
  if (n.info.kind != NodeKind::Array) return out;
  auto take = [&](Result<ZarrArray::VerifyReport> rep) {
    if (!rep.ok()) {
      out.fatal = rep.status();
      return;
    }
    out.has_report = true;
    out.report = std::move(rep).value();
  };
  if (is_strings(store, n.info.path)) {
    auto sa = ZarrStringArray::open(store, n.info.path);
    if (!sa.ok() && sa.status().code() == StatusCode::Unsupported) out.unverified = sa.status().message();
    else if (!sa.ok()) metadata_error(sa.status());
    else {
      // Decoded strings: at least a pointer-sized entry each.
      LargeArrayGuard guard(large, *store, detail::saturating_mul(chunk_elements(sa->chunk_grid()), 16));
      take(sa->verify());
    }
    return out;
  }
  auto a = ZarrArray::open(store, n.info.path);
  if (!a.ok() && a.status().code() == StatusCode::Unsupported) out.unverified = a.status().message();
  else if (!a.ok()) metadata_error(a.status());
  else {
    // A sharded array's objects are whole shards: their decoded size is what a batch holds.
    const int64_t elements = a->shard_shape().empty() ? chunk_elements(a->chunk_grid()) : shape_elements(a->shard_shape());
    LargeArrayGuard guard(large, *store, detail::saturating_mul(elements, a->dtype().itemsize()));
    take(a->verify(&ctx.pool()));
  }
  return out;
}

// Arrays verified at once on a remote store: each array's listing and first round trips are
// latency-bound, so several in flight keep the connections and the decoding workers busy.
constexpr size_t kConcurrentArrays = 8;

}  // namespace

Result<ZarrVerifyResult> zarr_verify(const Context& ctx, const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(Opened o, open_location(path));
  // Walk the real tree (directory listing), not .zmetadata, which may omit arrays; nodes whose
  // metadata cannot be read are reported rather than ending the walk.
  STRATA_ASSIGN_OR_RETURN(auto nodes, detail::walk_tree(o.store, o.node));
  if (nodes.empty()) return Status::NotFound(path, ": no Zarr group or array here");
  remote::keep_no_chunks(*o.store);  // each chunk is read once: cached copies would be waste
  // Outcomes are kept in walk order, so the result does not depend on scheduling; the first
  // fatal error in that order is the answer, as when the nodes are verified one by one.
  std::vector<NodeOutcome> outcomes(nodes.size());
  const size_t lanes = o.store->concurrency() > 1 ? std::min(kConcurrentArrays, nodes.size()) : 1;
  std::atomic<bool> failed{false};
  LargeArraySlots large(kLargeArraysAtOnce);
  // The caller and up to lanes − 1 kept threads take nodes in walk order; after a fatal error
  // the nodes not yet started are skipped (the first fatal one in walk order is the answer).
  remote::FetchThreads threads(static_cast<int>(lanes) - 1);
  threads.run(nodes.size(), lanes, [&](size_t i) {
    if (failed.load()) return;
    try {
      outcomes[i] = verify_node(ctx, o.store, nodes[i], lanes > 1 ? &large : nullptr);
    } catch (const std::bad_alloc&) {
      outcomes[i].fatal = Status::OutOfMemory("out of memory verifying ", nodes[i].info.path);
    } catch (const std::exception& e) {
      outcomes[i].fatal = Status::Internal("verifying ", nodes[i].info.path, ": ", e.what());
    }
    if (!outcomes[i].fatal.ok()) failed.store(true);
  });
  ZarrVerifyResult out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeOutcome& r = outcomes[i];
    if (!r.fatal.ok()) return r.fatal;
    if (r.unverified) out.unverified.emplace_back(nodes[i].info.path, std::move(*r.unverified));
    if (r.has_report) out.arrays.emplace_back(nodes[i].info.path, std::move(r.report));
  }
  return out;
}

}  // namespace strata::io
