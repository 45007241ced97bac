// `strata zarr export` and `strata zarr import`: Zarr <-> .npy in row slabs of bounded size.
#include <algorithm>

#include "io/zarr_tools/zarr_tools.hpp"
#include "io/zarr_tools/zarr_tools_internal.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/job.hpp"
#include "strata/core/output.hpp"
#include "strata/io/npy.hpp"
#include "strata/io/remote.hpp"

namespace strata::io {
using zarr_tools_internal::open_location;
using zarr_tools_internal::Opened;
using zarr_tools_internal::slab_rows;

Status zarr_export_npy(const Context& ctx, const std::string& zarr_path, const std::string& npy_path, int64_t slab_bytes) {
  STRATA_ASSIGN_OR_RETURN(Opened o, open_location(zarr_path));
  STRATA_ASSIGN_OR_RETURN(ZarrArray a, ZarrArray::open(o.store, o.node));
  const Shape& shape = a.shape();
  const int64_t itemsize = a.dtype().itemsize();
  OutputRules rules;
  rules.inputs = {zarr_path};
  STRATA_ASSIGN_OR_RETURN(NpyWriter w, NpyWriter::create(npy_path, a.dtype(), shape, std::move(rules)));
  if (shape.empty()) {
    STRATA_ASSIGN_OR_RETURN(Buffer one, Buffer::allocate(itemsize));
    STRATA_RETURN_NOT_OK(a.read_region({}, {}, one.data()));
    STRATA_RETURN_NOT_OK(w.write(one.data(), 1));
    return w.finish();
  }
  int64_t rows = slab_rows(shape, a.chunk_grid().chunk_shape()[0], itemsize, slab_bytes);
  STRATA_ASSIGN_OR_RETURN(int64_t row_elems, shape_numel(Shape(shape.begin() + 1, shape.end())));
  STRATA_ASSIGN_OR_RETURN(int64_t slab_elems, checked_mul(rows, row_elems));
  STRATA_ASSIGN_OR_RETURN(Buffer slab, Buffer::allocate(std::max<int64_t>(slab_elems * itemsize, 1)));
  ProgressScope progress(ctx, "export", shape[0], "rows");
  for (int64_t r0 = 0; r0 < shape[0]; r0 += rows) {
    int64_t n = std::min(rows, shape[0] - r0);
    Shape start(shape.size(), 0), count = shape;
    start[0] = r0;
    count[0] = n;
    STRATA_RETURN_NOT_OK(ctx.check_cancelled());
    STRATA_RETURN_NOT_OK(a.read_region(start, count, slab.data(), &ctx.pool()));
    STRATA_RETURN_NOT_OK(w.write(slab.data(), n * row_elems));
    ctx.advance_progress(n);
  }
  return w.finish();
}

namespace {
// The array's rows, slab by slab, into a new array at the store's root.
Status write_npy_rows(const Context& ctx, NpyReader& r, const std::shared_ptr<Store>& store, const ZarrCreateOptions& co,
                      const ZarrImportOptions& opt) {
  const NpyHeader& h = r.header();
  const DType dtype = co.dtype;
  STRATA_ASSIGN_OR_RETURN(ZarrArray a, ZarrArray::create(store, "", co));
  const int64_t itemsize = dtype.itemsize();
  if (h.shape.empty()) {
    STRATA_ASSIGN_OR_RETURN(Buffer one, Buffer::allocate(itemsize));
    STRATA_RETURN_NOT_OK(r.read(one.data(), 1));
    STRATA_RETURN_NOT_OK(a.write_region({}, {}, one.data()));
  } else {
    int64_t align = co.shard_shape.empty() ? co.chunks[0] : co.shard_shape[0];
    int64_t rows = slab_rows(h.shape, align, itemsize, opt.slab_bytes);
    STRATA_ASSIGN_OR_RETURN(int64_t row_elems, shape_numel(Shape(h.shape.begin() + 1, h.shape.end())));
    STRATA_ASSIGN_OR_RETURN(Buffer slab, Buffer::allocate(std::max<int64_t>(rows * row_elems * itemsize, 1)));
    ProgressScope progress(ctx, "import", h.shape[0], "rows");
    for (int64_t r0 = 0; r0 < h.shape[0]; r0 += rows) {
      int64_t n = std::min(rows, h.shape[0] - r0);
      STRATA_RETURN_NOT_OK(r.read(slab.data(), n * row_elems));
      Shape start(h.shape.size(), 0), count = h.shape;
      start[0] = r0;
      count[0] = n;
      STRATA_RETURN_NOT_OK(ctx.check_cancelled());
      STRATA_RETURN_NOT_OK(a.write_region(start, count, slab.data(), &ctx.pool()));
      ctx.advance_progress(n);
    }
  }
  return Status::OK();
}
}  // namespace

Result<Summary> zarr_import_npy(const Context& ctx, const std::string& npy_path, const std::string& zarr_path,
                                const ZarrImportOptions& opt) {
  STRATA_ASSIGN_OR_RETURN(NpyReader r, NpyReader::open(npy_path));
  const NpyHeader& h = r.header();
  DType dtype = h.dtype.native();
  // Checked before any work: an existing store needs --overwrite, the input is never replaced.
  // Local stores are staged and committed atomically by the job; remote ones are written in
  // place (each object PUT is atomic, the store as a whole is not).
  Job job(ctx, "zarr import", npy_path, zarr_path);
  std::shared_ptr<Store> store;
  const bool remote = is_remote_url(zarr_path);
  if (remote) {
    STRATA_ASSIGN_OR_RETURN(store, open_store(zarr_path));
    STRATA_ASSIGN_OR_RETURN(ZarrNodeInfo existing, zarr_node_info(store, ""));
    if (existing.kind != NodeKind::Missing && !opt.overwrite)
      return Status::AlreadyExists(zarr_path, " holds a Zarr ", existing.kind == NodeKind::Array ? "array" : "group",
                                   "; pass --overwrite to replace it");
    if (existing.kind != NodeKind::Missing) STRATA_RETURN_NOT_OK(store->erase_prefix(""));
  } else {
    OutputRules rules;
    rules.overwrite = opt.overwrite;
    std::string staged;
    STRATA_RETURN_NOT_OK(job.declare(zarr_path, std::move(rules), [&](OutputSet& out) -> Status {
      STRATA_ASSIGN_OR_RETURN(staged, out.add_directory(zarr_path));
      return Status::OK();
    }));
    STRATA_ASSIGN_OR_RETURN(store, open_store(staged, true));
  }
  ZarrCreateOptions co;
  co.format = opt.format;
  co.shape = h.shape;
  co.dtype = dtype;
  co.chunks = opt.chunks.empty() ? default_chunks(h.shape) : opt.chunks;
  if (co.chunks.size() != h.shape.size())
    return Status::Invalid("--chunks ", shape_to_string(co.chunks), " has ", co.chunks.size(), " entries but ", npy_path,
                           " has ", h.shape.size(), " dimensions");
  std::string spec = opt.codec;
  if (spec == "default") spec = dtype.itemsize() == 1 ? "blosc:zstd:5:bitshuffle" : "blosc:zstd:5:shuffle";
  STRATA_ASSIGN_OR_RETURN(auto codec, parse_codec_spec(spec, dtype.itemsize()));
  co.compressor = std::shared_ptr<const BytesCodec>(std::move(codec));
  if (!opt.shards.empty()) {
    if (opt.format != ZarrFormat::V3) return Status::Invalid("--shard needs --zarr-format 3 (sharding is a Zarr v3 codec)");
    if (opt.shards.size() != h.shape.size())
      return Status::Invalid("--shard ", shape_to_string(opt.shards), " does not match the array's ", h.shape.size(),
                             " dimensions");
    for (size_t i = 0; i < opt.shards.size(); ++i)
      if (opt.shards[i] % co.chunks[i] != 0)
        return Status::Invalid("--shard ", shape_to_string(opt.shards), " must be a multiple of the chunks ",
                               shape_to_string(co.chunks));
    co.shard_shape = opt.shards;
  }
  co.fill_value = dtype.is_float() ? ZarrFillValue("NaN") : ZarrFillValue(0);
  if (dtype.is_bool()) co.fill_value = false;

  PhaseTimer phase = job.phase("import");
  STRATA_RETURN_NOT_OK(job.commit(write_npy_rows(ctx, r, store, co, opt)));
  phase.stop();
  Summary& rep = job.summary();
  if (remote) rep.set("files", std::vector<std::string>{zarr_path});
  rep.set("shape", std::vector<int64_t>(h.shape.begin(), h.shape.end()));
  rep.set("chunks", std::vector<int64_t>(co.chunks.begin(), co.chunks.end()));
  rep.set("dtype", dtype.name()).set("codec", spec).set("zarr_format", opt.format == ZarrFormat::V3 ? 3 : 2);
  return Summary(rep);  // a copy: the Job logs its summary when it ends
}

}  // namespace strata::io
