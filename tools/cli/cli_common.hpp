#pragma once
// Shared plumbing for strata subcommands: each subcommand file registers itself on the app and
// stores the action to run; main() runs it and maps its Status to an exit code.

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "strata/core/status.hpp"

namespace strata::cli {

/// Options every computing command accepts, and the action chosen by the parser.
struct CliState {
  bool quiet = false;
  int threads = 0;              ///< 0 = all cores
  std::string report_path;      ///< --report run.json
  std::function<Status()> run;  ///< set by the chosen subcommand's callback
};

/// Exit code for a failed status: 2 for usage-like errors (Invalid), 1 otherwise.
int exit_code_for(const Status& st);

// One registration function per subcommand file (each file owns its subcommands).
void register_zarr_commands(CLI::App& app, CliState& state);      // zarr_cmd.cpp
void register_bench_commands(CLI::App& app, CliState& state);     // bench_cmd.cpp
void register_genotype_commands(CLI::App& app, CliState& state);  // genotype_cmd.cpp: convert, freq, simulate
void register_linalg_commands(CLI::App& app, CliState& state);    // linalg_cmd.cpp: svd, pca

/// Add --quiet, --threads and --report to a computing subcommand.
void add_common_options(CLI::App* cmd, CliState& state);

}  // namespace strata::cli
