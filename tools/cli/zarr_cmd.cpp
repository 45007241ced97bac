// `strata zarr info|export|import|verify` (placeholder registration; filled in with the Zarr layer).
#include "cli_common.hpp"

namespace strata::cli {

void register_zarr_commands(CLI::App& app, CliState& state) {
  auto* zarr = app.add_subcommand("zarr", "Inspect, import, export and verify Zarr stores");
  zarr->require_subcommand(1);
}

}  // namespace strata::cli
