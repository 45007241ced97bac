// Subcommands of this area register here; see cli_common.hpp.
#include "cli_common.hpp"

namespace strata::cli {

void register_linalg_commands(CLI::App& app, CliState& state) {}

}  // namespace strata::cli
