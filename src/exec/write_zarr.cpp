// write_zarr(): to_zarr() into a new store at a path, through the outputs' staging and commit.
#include <functional>
#include <unordered_set>

#include "array/nodes.hpp"
#include "strata/core/output.hpp"
#include "strata/exec/run.hpp"
#include "strata/io/codec.hpp"
#include "strata/io/store.hpp"

namespace strata {
namespace {

// The store roots of the local Zarr arrays `a` reads: never replaced by its own output.
std::vector<std::string> zarr_inputs(const Array& a) {
  std::vector<std::string> roots;
  std::unordered_set<const detail::Node*> seen;
  std::function<void(const detail::Node*)> walk = [&](const detail::Node* n) {
    if (!n || !seen.insert(n).second) return;
    if (const auto* z = dynamic_cast<const detail::ZarrNode*>(n)) {
      if (const auto* local = dynamic_cast<const io::LocalStore*>(z->zarr().store().get())) roots.push_back(local->root());
    }
    for (const detail::Node* in : n->inputs()) walk(in);
  };
  walk(a.node().get());
  return roots;
}

}  // namespace

Status write_zarr(const Context& ctx, const Array& a, const std::string& path, const ZarrWriteOptions& options,
                  const PassOptions& pass) {
  STRATA_RETURN_NOT_OK(a.status());
  if (path.empty()) return Status::Invalid("write_zarr: no output path");
  if (options.format != io::ZarrFormat::V2 && options.format != io::ZarrFormat::V3) {
    return Status::Invalid("write_zarr: zarr format must be 2 or 3");
  }
  if (!options.dimension_names.empty() && options.dimension_names.size() != a.shape().size()) {
    return Status::Invalid("write_zarr: ", options.dimension_names.size(), " dimension names for ", a.ndim(), " axes");
  }
  io::ZarrCreateOptions zo;
  zo.format = options.format;
  zo.chunks = options.chunks;
  zo.dimension_names = options.dimension_names;
  zo.separator = options.format == io::ZarrFormat::V3 ? '/' : '.';
  STRATA_ASSIGN_OR_RETURN(auto codec, io::parse_codec_spec(options.codec, a.dtype().itemsize()));
  zo.compressor = std::move(codec);
  OutputRules rules;
  rules.overwrite = options.overwrite;
  rules.replace_own_stores = false;  // a library write, not a command's rerun
  rules.inputs = zarr_inputs(a);
  STRATA_ASSIGN_OR_RETURN(auto out, OutputSet::begin(path, std::move(rules)));
  STRATA_ASSIGN_OR_RETURN(std::string staged, out->add_directory(path));
  STRATA_ASSIGN_OR_RETURN(auto store, io::LocalStore::open(staged));
  STRATA_RETURN_NOT_OK(to_zarr(ctx, a, store, "", std::move(zo), pass));
  return out->commit();
}

}  // namespace strata
