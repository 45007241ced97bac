// svd_to_zarr: validate, decompose with the streamed factor going straight to disk, then
// rename the finished group into place.
#include "strata/linalg/svd_zarr.hpp"

#include "strata/core/job.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <mutex>
#include <system_error>

#include "io/zarr/metadata_json_internal.hpp"
#include "linalg/svd_internal.hpp"
#include "strata/core/output.hpp"
#include "strata/io/codec.hpp"
#include "strata/io/store.hpp"
#include "strata/io/zarr.hpp"

namespace strata::linalg {
namespace {

Result<io::ZarrArray> create_array(const std::shared_ptr<io::Store>& store, const std::string& name, Shape shape,
                                   Shape chunks, const std::string& codec) {
  io::ZarrCreateOptions co;
  co.shape = std::move(shape);
  co.chunks = std::move(chunks);
  co.dtype = DType(ScalarType::Float64);
  STRATA_ASSIGN_OR_RETURN(auto c, io::parse_codec_spec(codec, 8));
  co.compressor = std::shared_ptr<const io::BytesCodec>(std::move(c));
  return io::ZarrArray::create(store, name, co);
}

struct Outputs {
  io::ZarrArray u, s, vt;
  int64_t rows = 0, cols = 0, k = 0;
};

Status write_in_memory(const Outputs& o, const SvdResult& r) {
  STRATA_RETURN_NOT_OK(o.s.write_region({0}, {o.k}, r.s.data()));
  if (!r.u.empty()) {
    const std::vector<double> u = r.u.to_row_major();
    STRATA_RETURN_NOT_OK(o.u.write_region({0, 0}, {o.rows, o.k}, u.data()));
  }
  if (!r.v.empty()) {
    // Vt row-major (k × cols) is V column-major.
    STRATA_RETURN_NOT_OK(o.vt.write_region({0, 0}, {o.k, o.cols}, r.v.data.data()));
  }
  return Status::OK();
}

// Under MPI every rank runs the passes (each its share of the blocks); rank 0 alone holds the
// output store (`tmp` is empty elsewhere) and receives the streamed factors.
Result<SvdResult> run_into(const Context& ctx, const RowBlockSourcePtr& src, const std::string& tmp, const SvdParams& options,
                           const SvdZarrOptions& zo, int64_t k, const std::string& input) {
  const bool writer = ctx.communicator().rank() == 0;
  std::shared_ptr<io::LocalStore> store;
  Outputs o;
  o.rows = src->rows();
  o.cols = src->cols();
  o.k = k;
  auto create = [&]() -> Status {
    STRATA_ASSIGN_OR_RETURN(store, io::LocalStore::open(tmp, true));
    STRATA_RETURN_NOT_OK(io::zarr_create_group(store, "", io::ZarrFormat::V2));
    const int64_t target = int64_t{1} << 20;
    STRATA_ASSIGN_OR_RETURN(o.u, create_array(store, "U", {o.rows, k}, {std::clamp<int64_t>(target / k, 1, o.rows), k}, zo.codec));
    STRATA_ASSIGN_OR_RETURN(o.s, create_array(store, "S", {k}, {k}, zo.codec));
    STRATA_ASSIGN_OR_RETURN(o.vt, create_array(store, "Vt", {k, o.cols}, {k, std::clamp<int64_t>(target / k, 1, o.cols)}, zo.codec));
    return Status::OK();
  };
  STRATA_RETURN_NOT_OK(ctx.communicator().agree(writer ? create() : Status::OK()));

  // Blocks of the streamed factor need not align with output chunks: writes are serialized so
  // partly covered chunks are merged safely.
  auto mu = std::make_shared<std::mutex>();
  SvdParams opt = options;
  opt.k = k;
  opt.u_sink = [&o, mu, writer](int64_t r0, int64_t n, int64_t kk, const double* blk) -> Status {
    if (!writer) return Status::OK();
    std::lock_guard<std::mutex> lk(*mu);
    return o.u.write_region({r0, 0}, {n, kk}, blk);
  };
  opt.v_sink = [&o, mu, writer](int64_t r0, int64_t n, int64_t kk, const double* blk) -> Status {
    if (!writer) return Status::OK();
    std::vector<double> t(static_cast<size_t>(n * kk));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < kk; ++j) t[static_cast<size_t>(j * n + i)] = blk[i * kk + j];
    std::lock_guard<std::mutex> lk(*mu);
    return o.vt.write_region({0, r0}, {kk, n}, t.data());
  };
  STRATA_ASSIGN_OR_RETURN(SvdResult r, svd(ctx, src, opt));
  if (!writer) return r;
  STRATA_RETURN_NOT_OK(write_in_memory(o, r));
  nlohmann::json attrs = {
      {"source", input},
      {"method", svd_method_name(r.method)},
      {"k", k},
      {"passes", r.passes},
      {"singular_values", r.s},
      {"error_estimate", r.error_estimate},
      {"residual_norms", r.residual_norms},
      {"sign_convention", r.transposed ? "largest-magnitude entry of each column of U is positive"
                                       : "largest-magnitude entry of each row of Vt is positive"},
  };
  if (r.method == SvdMethod::Randomized) attrs["krylov_width"] = r.krylov_width;
  STRATA_RETURN_NOT_OK(io::zarr_create_group(store, "", io::ZarrFormat::V2, io::detail::dump_compact(attrs)));
  STRATA_RETURN_NOT_OK(io::zarr_consolidate(store, ""));
  return r;
}

}  // namespace

Result<SvdZarrSummary> svd_to_zarr(const Context& ctx, const std::string& input, const std::string& output,
                                   const SvdParams& options, const SvdZarrOptions& zarr_options) {
  STRATA_ASSIGN_OR_RETURN(RowBlockSourcePtr src, open_zarr_source(input));
  if (options.k < 1) return Status::Invalid("k must be at least 1, got ", options.k);
  STRATA_ASSIGN_OR_RETURN(int64_t k, validate_k(*src, options.k, /*allow_full=*/false));
  if (output.empty()) return Status::Invalid("no output path");
  STRATA_RETURN_NOT_OK(io::parse_codec_spec(zarr_options.codec, 8).status());
  // The output is checked before the passes: an existing store needs overwrite, and the input
  // (or a store holding it) is never replaced. Under MPI rank 0 alone declares and commits it,
  // after every rank agrees.
  Job job(ctx, "svd", input, output);
  std::string staged;
  OutputRules rules;
  rules.overwrite = zarr_options.overwrite;
  STRATA_RETURN_NOT_OK(job.declare(output, std::move(rules), [&](OutputSet& out) -> Status {
    STRATA_ASSIGN_OR_RETURN(staged, out.add_directory(output));
    return Status::OK();
  }));
  SvdZarrSummary s;
  STRATA_ASSIGN_OR_RETURN(s.result, run_into(ctx, src, staged, options, zarr_options, k, input));
  STRATA_RETURN_NOT_OK(job.commit(Status::OK()));
  s.files = job.files();
  const SvdResult& r = s.result;
  Summary& rep = job.summary();
  rep.set("output", output).set("method", svd_method_name(r.method)).set("passes", r.passes).set("stop", r.stop);
  rep.set("converged", r.converged).set("max_error_estimate", r.max_error_estimate);
  rep.set("singular_values", r.s).set("error_estimate", r.error_estimate).set("residual_norms", r.residual_norms);
  s.report = rep;  // a copy: the Job logs its summary when it ends
  return s;
}

}  // namespace strata::linalg
