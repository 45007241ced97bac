// strata command-line tool: parses arguments and dispatches to one subcommand. All logic lives
// in the library; each subcommand is a thin file in this directory.
#include <cstdio>
#include <exception>

#include "cli_common.hpp"
#include "strata/core/config.hpp"
#include "strata/core/progress.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata::cli {

void add_common_options(CLI::App* cmd, CliState& state) {
  cmd->add_flag("-q,--quiet", state.quiet, "No progress bars");
  cmd->add_option("--threads", state.threads, "Worker threads (default: all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--report", state.report_path, "Write a JSON run report (time per phase, bytes, peak memory)");
}

int exit_code_for(const Status& st) {
  if (st.ok()) return 0;
  return st.code() == StatusCode::Invalid ? 2 : 1;
}

}  // namespace strata::cli

int main(int argc, char** argv) {
  using namespace strata;
  CLI::App app{"strata: genotype-scale linear algebra on chunked arrays"};
  app.set_version_flag("--version", std::string("strata ") + STRATA_VERSION_STRING);
  app.require_subcommand(1);
  cli::CliState state;

  cli::register_zarr_commands(app, state);
  cli::register_genotype_commands(app, state);
  cli::register_linalg_commands(app, state);
  cli::register_bench_commands(app, state);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "strata: error: %s\n", e.what());
    std::fprintf(stderr, "Run with --help for usage.\n");
    return 2;
  }
  if (state.quiet) set_progress_enabled(false);
  if (state.threads > 0) ThreadPool::set_default_threads(state.threads);
  if (!state.run) return 0;
  Status st;
  try {
    st = state.run();
  } catch (const std::exception& e) {
    st = Status::Internal("unexpected exception: ", e.what());
  }
  if (!st.ok()) {
    std::fprintf(stderr, "strata: error: %s\n", st.message().c_str());
    return cli::exit_code_for(st);
  }
  return 0;
}
