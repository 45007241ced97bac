// strata command-line tool: parses arguments and dispatches to one subcommand. All logic lives
// in the library; each subcommand is a thin file in this directory.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <new>
#include <optional>
#include <system_error>

#include "cli_common.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/config.hpp"
#include "strata/core/cpu_pin.hpp"
#include "strata/core/log.hpp"
#include "strata/core/output.hpp"
#include "strata/io/remote.hpp"
#include "strata/dist/mpi.hpp"
#include "terminal_progress.hpp"

namespace strata::cli {

void add_common_options(CLI::App* cmd, CliState& state) {
  cmd->add_flag("-q,--quiet", state.quiet,
                "Quiet terminal: no progress bar, tables or closing summary (PREFIX.log keeps everything)");
  cmd->add_option("--threads", state.threads, "Worker threads: 0 = all cores (default), or 1-1024")
      ->check(integer_in(0, kMaxThreads, "0 (all cores) or 1–1024"));
  cmd->add_option("--report", state.report_path,
                  "Write a JSON run report (time per phase, bytes, peak memory); an existing file there is replaced "
                  "only when it is a strata run report")
      ->check(non_empty_path());
  add_device_option(cmd, state);
  add_endpoint_option(cmd, state);
}

void add_memory_option(CLI::App* cmd, CliState& state, const std::string& what) {
  // Parsed when given (the validator checked the text); left out, memory_budget stays 0 and the
  // Context takes default_memory_budget().
  cmd->add_option_function<std::string>(
         "--memory", [&state](const std::string& s) { state.memory_budget = parse_memory_budget(s).value_or(0); },
         "Memory budget, e.g. 2G (default: half the physical memory): " + what)
      ->check(memory_size());
}

void add_device_option(CLI::App* cmd, CliState& state) {
  cmd->add_option("--device", state.device,
                  "Where the work runs: cpu (default), cuda (= cuda:0), cuda:N, cuda:all (every GPU) or auto "
                  "(a GPU when one is present)")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            const Status st = backend::check_device_spec(s);
            return st.ok() ? std::string() : st.message();
          },
          "DEVICE", ""));
}

void add_endpoint_option(CLI::App* cmd, CliState& state) {
  cmd->add_option("--endpoint-url", state.endpoint_url,
                  "S3-compatible service for s3:// paths (default: $AWS_ENDPOINT_URL, else AWS)")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0 ? std::string()
                                                                             : "must be an http:// or https:// URL";
          },
          "URL", ""));
  cmd->add_option("--http-deadline", state.http_deadline_s,
                  "Seconds an http(s)://, s3:// or gs:// request may take, all retries together, before the "
                  "command fails (default 120; $STRATA_HTTP_DEADLINE_SECONDS)")
      ->check(integer_in(1, 86'400, "1–86400 seconds"));
  cmd->add_option("--http-stall", state.http_stall_s,
                  "Seconds a request may go below 1 KB/s (a server that accepts and does not answer) before it "
                  "is retried, once (default 15; $STRATA_HTTP_STALL_SECONDS)")
      ->check(integer_in(1, 3'600, "1–3600 seconds"));
}

// A file at the report path is replaced only when it is an earlier run report (a JSON object
// with "command"): `--report base.bed` must not destroy an input.
Status check_report_target(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path, ec))) return Status::OK();
  std::ifstream f(path, std::ios::binary);
  std::string text(1 << 20, '\0');
  f.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(f.gcount()));
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("command")) return Status::OK();
  return Status::AlreadyExists(path, " exists and is not a strata run report; refusing to replace it with one");
}

// Every option given to the chosen (innermost) subcommand, as the user wrote its value.
nlohmann::json given_parameters(const CLI::App& app) {
  const CLI::App* cmd = &app;
  while (!cmd->get_subcommands().empty()) cmd = cmd->get_subcommands().front();
  nlohmann::json p = nlohmann::json::object();
  for (const CLI::Option* opt : cmd->get_options()) {
    if (opt->count() == 0) continue;
    const std::vector<std::string>& r = opt->results();
    if (r.size() == 1) {
      p[opt->get_name()] = r[0];
    } else {
      p[opt->get_name()] = r;
    }
  }
  return p;
}

// The command line as a shell would take it back (for PREFIX.log): words with spaces or quotes
// single-quoted.
std::string shell_words(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    std::string w = argv[i];
    if (i == 0) w = std::filesystem::path(w).filename().string();
    const bool plain = !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                         "-_./=:,+@%") == std::string::npos;
    if (!plain) {
      std::string q = "'";
      for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      w = q + "'";
    }
    out += (i ? " " : "") + w;
  }
  return out;
}

// A successful command's last line on the terminal (unless --quiet): its counts, the files it
// wrote and its log, and the time it took.
void print_done(const CliState& state) {
  const nlohmann::json& r = state.report;
  if (!r.is_object() || !r.contains("files") || !r["files"].is_array()) return;
  std::string line = "strata: " + r.value("command", std::string("done"));
  char secs[32];
  std::snprintf(secs, sizeof secs, " done in %.1f s", r.value("wall_seconds", 0.0));
  line += secs;
  std::string counts;
  const std::pair<const char*, const char*> shown[] = {
      {"samples", "samples"}, {"variants", "variants"}, {"pairs_written", "pairs written"}};
  for (const auto& [key, label] : shown)
    if (r.contains(key) && r[key].is_number_integer())
      counts += (counts.empty() ? "" : ", ") + std::to_string(r[key].get<int64_t>()) + " " + label;
  if (!counts.empty()) line += ": " + counts;
  std::string files;
  for (const auto& f : r["files"])
    if (f.is_string()) files += (files.empty() ? "" : ", ") + f.get<std::string>();
  const std::string log = r.contains("output_prefix") && r["output_prefix"].is_string()
                              ? log_path_for(r["output_prefix"].get<std::string>())
                              : std::string();
  if (!log.empty()) files += (files.empty() ? "" : ", ") + log;
  if (!files.empty()) line += "; wrote " + files;
  std::fprintf(stderr, "%s\n", line.c_str());
}

// Runs the chosen command. Commands that do not split their work across ranks yet run on rank 0
// alone, on a single-process view of the context; the other ranks wait at the agreement.
Status run_command(CliState& state, bool root) {
  const Communicator& comm = state.ctx().communicator();
  if (comm.size() == 1 || state.distributed) return state.run();
  if (!root) return Status::OK();
  log_warning("this command is not distributed yet: rank 0 of ", comm.size(), " runs it alone");
  Context whole = state.ctx();  // (emplace would destroy the context it copies from)
  state.context.emplace(whole.local());
  const Status st = state.run();
  state.context.emplace(std::move(whole));  // the report and the agreement need every rank
  return st;
}

// Per-rank figures for the report (collective): bytes read, bytes sent, time communicating.
Status gather_rank_reports(const CliState& state, double seconds, nlohmann::json* ranks) {
  const Communicator& comm = state.ctx().communicator();
  const CommStats cs = comm.stats();
  const RunReport run = state.ctx().report().snapshot();
  // Per pass over the data: the command's own pass count when it reports one, else the engine's.
  int64_t passes = run.passes;
  if (state.report.is_object() && state.report.contains("passes") && state.report["passes"].is_number_integer())
    passes = state.report["passes"].get<int64_t>();
  passes = std::max<int64_t>(1, passes);
  const nlohmann::json mine = {{"rank", comm.rank()},
                               {"seconds", seconds},
                               {"bytes_read", run.bytes_read},
                               {"bytes_sent", cs.bytes_sent},
                               {"collectives", cs.collectives},
                               {"comm_seconds", cs.seconds},
                               {"passes", passes},
                               {"bytes_sent_per_pass", cs.bytes_sent / passes},
                               {"comm_seconds_per_pass", cs.seconds / static_cast<double>(passes)},
                               {"threads", run.threads}};
  std::vector<std::string> all;
  STRATA_RETURN_NOT_OK(comm.gather(mine.dump(), &all));
  *ranks = nlohmann::json::array();
  for (const std::string& a : all) ranks->push_back(nlohmann::json::parse(a, nullptr, false));
  return Status::OK();
}

// The run report: what the command put in state.report plus the fields every report has.
std::string report_text(const CliState& state, const CLI::App& app, int argc, char** argv, double seconds,
                        const nlohmann::json& ranks) {
  nlohmann::json j = state.report.is_object() ? state.report : nlohmann::json::object();
  j["parameters"] = given_parameters(app);
  std::string cmd;
  for (int i = 0; i < argc; ++i) cmd += (i ? " " : "") + std::string(argv[i]);
  j["command_line"] = cmd;
  if (!j.contains("command") && argc > 1) j["command"] = argv[1];
  j["version"] = STRATA_VERSION_STRING;
  j["seconds"] = seconds;
  // The backend that ran the operations, with its instruction set ("cpu-avx512-vnni").
  j["backend"] = backend::of(state.ctx()).name();
  // The CPU level the kernels ran at and what this CPU has (they differ under STRATA_CPU).
  j["cpu"] = {{"level", backend::cpu_isa_name(backend::best_cpu_isa())},
              {"detected", backend::cpu_isa_name(backend::detected_cpu_isa())},
              {"pinned", cpu_pin().text.empty() ? nlohmann::json(nullptr) : nlohmann::json(cpu_pin().text)}};
  j["device"] = state.device;  // as asked (--device); "backend" names the device that ran
  // Remote stores: requests, retries, bytes and time spent in requests (process-wide tally).
  const io::NetworkCounters net = io::network_counters();
  if (net.requests > 0) {
    j["network"] = {{"requests", net.requests},        {"retries", net.retries},
                    {"bytes_received", net.bytes_received}, {"bytes_sent", net.bytes_sent},
                    {"wait_seconds", net.wait_seconds}};
    if (net.prefetched > 0) {
      j["network"]["prefetched"] = net.prefetched;
      j["network"]["prefetch_hits"] = net.prefetch_hits;
      j["network"]["prefetch_peak_bytes"] = net.prefetch_peak_bytes;
    }
  }
  // The ranks of an MPI run (one entry for a single process): what each read, sent and waited.
  j["ranks"] = state.ctx().communicator().size();
  j["per_rank"] = ranks;
  // What the engine recorded: passes, blocks, bytes read, phases, peaks, backend, threads.
  const nlohmann::json run = nlohmann::json::parse(state.ctx().report().to_json());
  for (const auto& [key, value] : run.items()) {
    if (!j.contains(key)) {
      j[key] = value;
    } else {
      j["engine"][key] = value;  // e.g. the engine's pass count beside the command's own
    }
  }
  return j.dump(2) + "\n";
}

CLI::Validator memory_size() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        // The library's check, shared with Python's memory= ("memory must be ..." → "must be ...").
        auto bytes = parse_memory_budget(s);
        if (!bytes.ok()) return bytes.status().message().substr(std::string_view("memory ").size());
        return std::string();
      },
      "SIZE", "");
}

// "strata zarr frobnicate": CLI11 only says a subcommand is required; name the word and the
// commands that exist.
std::string explain_missing_subcommand(const CLI::App& app, int argc, char** argv) {
  const CLI::App* cmd = &app;
  while (!cmd->get_subcommands().empty()) cmd = cmd->get_subcommands().front();
  std::vector<std::string> names;
  for (const CLI::App* sub : cmd->get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  if (names.empty()) return {};
  std::string word;
  for (int i = 1; i < argc; ++i) {
    if (cmd != &app && argv[i] != cmd->get_name()) continue;
    for (int j = cmd == &app ? i : i + 1; j < argc; ++j) {
      if (argv[j][0] != '-') {
        word = argv[j];
        break;
      }
    }
    break;
  }
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  const std::string prefix = cmd == &app ? "strata" : "strata " + cmd->get_name();
  if (word.empty()) return prefix + " needs a command: one of " + list;
  return "unknown command '" + word + "' for " + prefix + " (expected one of: " + list + ")";
}

int exit_code_for(const Status& st) {
  if (st.ok()) return 0;
  return st.code() == StatusCode::Invalid ? 2 : 1;
}

// OpenBLAS's pthread build starts a server thread per core in its constructor (and that thread
// maps its 128 MB buffer); strata never uses them: the executor owns parallelism and the backend
// asks BLAS for one thread. An executable's preinit functions run before every initializer, so
// presetting OpenBLAS's thread count here (its constructor keeps a count already set) means none
// starts. (OPENBLAS_NUM_THREADS cannot be set this early: libc's initializer resets environ.)
// Weak: another BLAS has no such variables.
extern "C" int blas_num_threads __attribute__((weak));
extern "C" int blas_cpu_number __attribute__((weak));
void one_blas_thread(int, char**, char**) {
  if (&blas_num_threads != nullptr && &blas_cpu_number != nullptr && blas_num_threads == 0) {
    blas_num_threads = 1;
    blas_cpu_number = 1;
  }
}
__attribute__((section(".preinit_array"), used)) void (*const g_preinit_blas)(int, char**, char**) = one_blas_thread;

}  // namespace strata::cli

int main(int argc, char** argv) {
  using namespace strata;
  CLI::App app{"strata: genotype-scale linear algebra on chunked arrays"};
  app.set_version_flag("--version", std::string("strata ") + STRATA_VERSION_STRING +
                                        "\nbackends: " + backend::backends_built() +
                                        "\ncpu level: " + backend::cpu_level_summary());
  app.require_subcommand(1);
  cli::CliState state;

  cli::register_zarr_commands(app, state);
  cli::register_genotype_commands(app, state);
  cli::register_qc_commands(app, state);
  cli::register_linalg_commands(app, state);
  cli::register_relatedness_commands(app, state);
  cli::register_grm_commands(app, state);
  cli::register_gwas_commands(app, state);
  cli::register_glm_commands(app, state);
  cli::register_prune_commands(app, state);
  cli::register_project_commands(app, state);
  cli::register_bench_commands(app, state);

  try {
    std::vector<std::string> args = cli::plink2_input_modifiers(argc, argv);
    std::vector<char*> parsed;
    for (auto& a : args) parsed.push_back(a.data());
    app.parse(static_cast<int>(parsed.size()), parsed.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    if (what.find("subcommand is required") != std::string::npos) {
      const std::string better = cli::explain_missing_subcommand(app, argc, argv);
      if (!better.empty()) what = better;
    }
    std::fprintf(stderr, "strata: error: %s\n", what.c_str());
    std::fprintf(stderr, "Run with --help for usage.\n");
    return 2;
  }
  if (!state.run) return 0;
  // A misspelt STRATA_CPU would silently run other kernels than asked: refuse it (usage error).
  if (const Status pin = cpu_pin_status(); !pin.ok()) {
    std::fprintf(stderr, "strata: error: %s\n", pin.message().c_str());
    return 2;
  }
  // The stores read the endpoint from the environment, like AWS's own tools.
  if (!state.endpoint_url.empty()) ::setenv("AWS_ENDPOINT_URL", state.endpoint_url.c_str(), 1);
  if (state.http_deadline_s > 0) ::setenv("STRATA_HTTP_DEADLINE_SECONDS", std::to_string(state.http_deadline_s).c_str(), 1);
  if (state.http_stall_s > 0) ::setenv("STRATA_HTTP_STALL_SECONDS", std::to_string(state.http_stall_s).c_str(), 1);
  // Under mpirun: MPI starts here and its communicator goes into the Context. Only rank 0
  // prints (progress, warnings, tables) and writes (the commands' OutputSets, the report).
  std::shared_ptr<const Communicator> comm = single_process_communicator();
  if (dist::launched_by_mpi()) {
    auto started = dist::start_mpi(&argc, &argv);
    if (!started.ok()) {
      std::fprintf(stderr, "strata: error: %s\n", started.status().message().c_str());
      return 1;
    }
    comm = *started;
  }
  const bool root = comm->rank() == 0;
  if (!root) {
    set_log_level(LogLevel::Off);
    if (!std::freopen("/dev/null", "w", stdout)) return 1;
  }
  {
    // The workers start now: a process limit fails here, with its reason.
    ContextOptions co;
    co.threads = state.threads;
    co.memory_budget = state.memory_budget;
    co.progress = cli::make_terminal_progress(state.quiet || !root);
    co.communicator = comm;
    co.command_line = cli::shell_words(argc, argv);
    co.machine = "cpu " + backend::cpu_level_summary() + "; device " + state.device;
    // --device: CUDA asked for and not usable (no module, driver or device) fails here, exit 1.
    Result<backend::BackendPtr> be = backend::backend_for_device(state.device);
    if (!be.ok()) {
      std::fprintf(stderr, "strata: error: %s\n", be.status().message().c_str());
      const int code = cli::exit_code_for(be.status());
      dist::finish_mpi(*comm, code);
      return code;
    }
    co.backend_impl = *be;
    Result<Context> made = Context::make(co);
    if (!made.ok()) {
      std::fprintf(stderr, "strata: error: %s\n", made.status().message().c_str());
      dist::finish_mpi(*comm, 1);
      return 1;
    }
    state.context.emplace(std::move(*made));
  }
  Status st, local;
  bool agreed = false;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    // Every output of the command (the report included) must be a different file.
    CommandOutputs outputs_of_command;
    // The report is staged first: a report that cannot be written fails before any output.
    std::optional<AtomicFile> report;
    if (root && !state.report_path.empty()) st = cli::check_report_target(state.report_path);
    if (root && st.ok() && !state.report_path.empty()) {
      auto r = AtomicFile::begin(state.report_path);
      if (!r.ok()) {
        st = r.status().with_context("--report");
      } else {
        report.emplace(std::move(*r));
      }
    }
    if (st.ok()) st = cli::run_command(state, root);
    local = st;
    // Error agreement: the first error of any rank becomes every rank's.
    st = comm->agree(st);
    agreed = true;
    if (st.ok() && !state.report_path.empty()) {
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      nlohmann::json ranks;
      st = cli::gather_rank_reports(state, secs, &ranks);  // collective
      if (st.ok() && report) {
        std::ofstream f(report->path(), std::ios::binary);
        f << cli::report_text(state, app, argc, argv, secs, ranks);
        f.close();
        st = f ? report->commit() : Status::IOError(state.report_path, ": cannot write the report");
      }
      st = comm->agree(st);
    }
  } catch (const std::bad_alloc&) {
    st = Status::OutOfMemory("out of memory (an allocation failed)");
  } catch (const std::system_error& e) {
    st = Status::IOError(e.what());
  } catch (const std::exception& e) {
    st = Status::Internal("unexpected exception: ", e.what());
  }
  if (!agreed) {  // the command threw
    local = st;
    st = comm->agree(st);
  }
  // What a command printed (zarr info, zarr verify, tables) must have reached its destination:
  // `strata zarr info x > /dev/full` is a failed run, not exit 0.
  if (st.ok() && root && (std::fflush(stdout) != 0 || std::ferror(stdout)))
    st = Status::IOError("cannot write to standard output: ", std::strerror(errno));
  // A failed command's PREFIX.log says why (its other outputs were never committed).
  if (!st.ok() && root) (void)write_failed_job_logs(st);
  if (st.ok() && root && !state.quiet) cli::print_done(state);
  const int code = cli::exit_code_for(st);
  if (!st.ok()) {
    // Rank 0 prints the agreed error; another rank prints its own only when that was a different one.
    if (root) {
      std::fprintf(stderr, "strata: error: %s\n", st.message().c_str());
    } else if (!local.ok() && st.message().find(local.message()) == std::string::npos &&
               local.message().find(st.message()) == std::string::npos) {  // not a peer's failure seen here
      std::fprintf(stderr, "strata: error: rank %d: %s\n", comm->rank(), local.message().c_str());
    }
  }
  state.context.reset();
  dist::finish_mpi(*comm, code);
  return code;
}
