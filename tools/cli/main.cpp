// strata command-line tool: parses arguments and dispatches to one subcommand. All logic lives
// in the library; each subcommand is a thin file in this directory.
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>

#include "cli_common.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/config.hpp"
#include "strata/core/progress.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata::cli {

void add_common_options(CLI::App* cmd, CliState& state) {
  cmd->add_flag("-q,--quiet", state.quiet, "No progress bars");
  cmd->add_option("--threads", state.threads, "Worker threads (default: all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--report", state.report_path, "Write a JSON run report (time per phase, bytes, peak memory)");
}

// Commands with phase-level instrumentation write their own report; for the others `--report`
// still records the command, wall time and memory high-water marks.
Status write_basic_report(const std::string& path, int argc, char** argv, double seconds) {
  std::error_code ec;
  if (path.empty() || std::filesystem::exists(path, ec)) return Status::OK();
  nlohmann::json j;
  std::string cmd;
  for (int i = 0; i < argc; ++i) cmd += (i ? " " : "") + std::string(argv[i]);
  j["command"] = cmd;
  j["version"] = STRATA_VERSION_STRING;
  j["seconds"] = seconds;
  j["threads"] = ThreadPool::default_threads();
  j["peak_rss_bytes"] = peak_rss_bytes();
  j["peak_tracked_bytes"] = memory_stats().peak_bytes;
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    if (!f) return Status::IOError("cannot write report ", tmp);
    f << j.dump(2) << "\n";
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status::IOError("cannot rename ", tmp, " to ", path, ": ", ec.message());
  return Status::OK();
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
  const auto t0 = std::chrono::steady_clock::now();
  try {
    st = state.run();
    if (st.ok())
      st = cli::write_basic_report(state.report_path, argc, argv,
                                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  } catch (const std::exception& e) {
    st = Status::Internal("unexpected exception: ", e.what());
  }
  if (!st.ok()) {
    std::fprintf(stderr, "strata: error: %s\n", st.message().c_str());
    return cli::exit_code_for(st);
  }
  return 0;
}
