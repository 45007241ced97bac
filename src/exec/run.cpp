// compute() and to_zarr(): one pass over the array's blocks after its reductions are evaluated.
#include "strata/exec/run.hpp"

#include <cstring>

#include "exec/run_context.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata {

Result<HostArray> compute(const Context& ctx, const Array& a, const PassOptions& options) {
  STRATA_RETURN_NOT_OK(a.status());
  detail::RunContext run(ctx, options);
  STRATA_RETURN_NOT_OK(run.prepare({a}));
  if (const HostArray* m = run.materialized(a.node().get())) {  // a reduction: already computed
    run.finish();
    return *m;
  }
  STRATA_ASSIGN_OR_RETURN(HostArray out, HostArray::allocate(a.shape(), a.dtype()));
  STRATA_ASSIGN_OR_RETURN(detail::PassGrid grid, detail::PassGrid::make({a}, {}));
  const int64_t isz = a.dtype().itemsize();
  const std::string label = options.label.empty() ? "compute" : options.label;
  Status st = run.run_pass(
      grid.grid.num_chunks(), grid.block_bytes({a}),
      [&](int64_t i) -> Status {
        const BlockInfo info = grid.info(i);
        STRATA_ASSIGN_OR_RETURN(Buffer tmp, run.read_block(*a.node(), info, isz));
        copy_box(tmp.data(), info.extent, Shape(info.extent.size(), 0), out.raw(), a.shape(), info.origin,
                 info.extent, isz);
        return Status::OK();
      },
      nullptr, run.pass_options(label));
  run.finish();
  STRATA_RETURN_NOT_OK(st);
  return out;
}

Status to_zarr(const Context& ctx, const Array& a, const std::shared_ptr<io::Store>& store, const std::string& path,
               io::ZarrCreateOptions zopts, const PassOptions& options) {
  STRATA_RETURN_NOT_OK(a.status());
  zopts.shape = a.shape();
  zopts.dtype = a.dtype();
  if (zopts.chunks.empty()) zopts.chunks = a.chunks();
  detail::RunContext run(ctx, options);
  STRATA_RETURN_NOT_OK(run.prepare({a}));
  STRATA_ASSIGN_OR_RETURN(io::ZarrArray z, io::ZarrArray::create(store, path, zopts));
  // Blocks are whole chunks (or shards), so no chunk is read back and merged.
  Shape block = zopts.shard_shape.empty() ? z.chunk_grid().chunk_shape() : zopts.shard_shape;
  STRATA_ASSIGN_OR_RETURN(detail::PassGrid grid, detail::PassGrid::make({a}, block));
  const int64_t isz = a.dtype().itemsize();
  const std::string label = options.label.empty() ? "to_zarr " + path : options.label;
  Status st = run.run_pass(
      grid.grid.num_chunks(), 2 * grid.block_bytes({a}),
      [&](int64_t i) -> Status {
        const BlockInfo info = grid.info(i);
        STRATA_ASSIGN_OR_RETURN(Buffer tmp, run.read_block(*a.node(), info, isz));
        return z.write_region(info.origin, info.extent, tmp.data(), &ctx.pool());
      },
      nullptr, run.pass_options(label));
  run.finish();
  return st.with_context(str_cat("writing ", z.describe()));
}

}  // namespace strata
