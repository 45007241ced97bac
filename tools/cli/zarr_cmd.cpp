// `strata zarr info|export|import|verify`: thin wrappers over src/io/zarr_tools/zarr_tools.hpp.
#include <cstdio>

#include "cli_common.hpp"
#include "io/zarr_tools/zarr_tools.hpp"

namespace strata::cli {
namespace {

struct ZarrArgs {
  std::string path, file;
  bool json = false;
  std::string chunks, codec = "default", shards;
  int format = 2;
  bool overwrite = false;
};

Status run_info(const ZarrArgs& a) {
  STRATA_ASSIGN_OR_RETURN(auto entries, io::zarr_info(a.path));
  if (a.json) {
    std::printf("%s\n", io::zarr_info_json(entries).dump(2).c_str());
  } else {
    std::printf("%s", io::format_zarr_info(entries).c_str());
  }
  return Status::OK();
}

Status run_import(const ZarrArgs& a, CliState& state) {
  io::ZarrImportOptions opt;
  if (!a.chunks.empty()) {
    auto c = parse_shape(a.chunks);
    if (!c.ok()) return c.status().with_context("--chunks");
    opt.chunks = *c;
  }
  if (!a.shards.empty()) {
    auto s = parse_shape(a.shards);
    if (!s.ok()) return s.status().with_context("--shard");
    opt.shards = *s;
  }
  opt.codec = a.codec;
  opt.format = a.format == 3 ? io::ZarrFormat::V3 : io::ZarrFormat::V2;
  opt.overwrite = a.overwrite;
  STRATA_ASSIGN_OR_RETURN(Summary summary, io::zarr_import_npy(state.ctx(), a.file, a.path, opt));
  set_report(state, summary);
  return Status::OK();
}

Status run_verify(const ZarrArgs& a, const CliState& state) {
  STRATA_ASSIGN_OR_RETURN(auto result, io::zarr_verify(state.ctx(), a.path));
  int64_t corrupt = 0;
  for (const auto& [path, rep] : result.arrays) {
    const char* name = path.empty() ? "/" : path.c_str();
    std::printf("%s: %lld/%lld chunks ok, %lld missing, %zu corrupt\n", name,
                static_cast<long long>(rep.chunks_ok), static_cast<long long>(rep.chunks_total),
                static_cast<long long>(rep.chunks_missing), rep.corrupt.size());
    for (const auto& key : rep.missing) std::printf("  missing  %s\n", key.c_str());
    if (rep.chunks_missing > static_cast<int64_t>(rep.missing.size()))
      std::printf("  (%lld missing chunks not listed by name)\n",
                  static_cast<long long>(rep.chunks_missing - static_cast<int64_t>(rep.missing.size())));
    for (const auto& [key, msg] : rep.corrupt) std::printf("  corrupt  %s: %s\n", key.c_str(), msg.c_str());
    corrupt += static_cast<int64_t>(rep.corrupt.size());
  }
  // What could not be checked fails the verification too: exit 0 means every array was read.
  for (const auto& [path, why] : result.unverified)
    std::printf("unverified: %s (%s)\n", path.empty() ? "/" : path.c_str(), why.c_str());
  std::fflush(stdout);  // the report precedes the error line
  if (corrupt > 0) return Status::Corrupt(a.path, ": ", corrupt, " chunk(s) failed to decode");
  if (!result.unverified.empty())
    return Status::Unsupported(a.path, ": ", result.unverified.size(), " array(s) could not be verified");
  return Status::OK();
}

}  // namespace

void register_zarr_commands(CLI::App& app, CliState& state) {
  auto args = std::make_shared<ZarrArgs>();
  auto* zarr = app.add_subcommand("zarr", "Inspect, import, export and verify Zarr stores");
  zarr->require_subcommand(1);

  auto* info = zarr->add_subcommand("info", "Tree of groups and arrays: shape, dtype, chunks, shards, codecs, sizes");
  info->add_option("PATH", args->path, "Store, group or array (store.zarr/a/b)")->required();
  info->add_flag("--json", args->json, "Print JSON instead of a tree");
  add_endpoint_option(info, state);
  info->callback([&state, args] { state.run = [args] { return run_info(*args); }; });

  auto* exp = zarr->add_subcommand("export", "Write a whole array to a NumPy .npy file (C order)");
  exp->add_option("PATH", args->path, "Array (store.zarr/a/b)")->required();
  exp->add_option("OUT", args->file, "Output .npy file")->required();
  add_common_options(exp, state);
  exp->callback([&state, args] { state.run = [args, &state] { return io::zarr_export_npy(state.ctx(), args->path, args->file); }; });

  auto* imp = zarr->add_subcommand("import", "Create a Zarr array from a NumPy .npy file");
  imp->add_option("IN", args->file, "Input .npy file")->required();
  imp->add_option("PATH", args->path, "New array: a directory (may be inside an existing store) or an s3:// URL")->required();
  imp->add_option("--chunks", args->chunks, "Chunk shape, e.g. 1000,1000 (default: ~1M elements per chunk)");
  imp->add_option("--codec", args->codec,
                  "none | zstd:LEVEL | lz4 | zlib:LEVEL | gzip:LEVEL | blosc:CNAME:LEVEL:SHUFFLE "
                  "(SHUFFLE = noshuffle|shuffle|bitshuffle); default blosc:zstd:5:shuffle");
  imp->add_option("--zarr-format", args->format, "Zarr format 2 or 3")->check(CLI::IsMember({2, 3}));
  imp->add_option("--shard", args->shards, "Shard shape (Zarr v3), a multiple of --chunks, e.g. 10000,10000");
  imp->add_flag("--overwrite", args->overwrite, "Replace an existing array at PATH that strata did not write (its own earlier import is replaced without it)");
  add_common_options(imp, state);
  imp->callback([&state, args] { state.run = [args, &state] { return run_import(*args, state); }; });

  auto* ver = zarr->add_subcommand("verify", "Decode every chunk; report missing and corrupt chunks by key");
  ver->add_option("PATH", args->path, "Store, group or array")->required();
  add_common_options(ver, state);
  ver->callback([&state, args] { state.run = [args, &state] { return run_verify(*args, state); }; });
}

}  // namespace strata::cli
