#pragma once
// Shared plumbing for strata subcommands: each subcommand file registers itself on the app and
// stores the action to run; main() runs it and maps its Status to an exit code.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/job.hpp"
#include "strata/core/status.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/genotype.hpp"
#include "strata/io/genotype_input.hpp"

namespace strata::cli {

/// Options every computing command accepts, and the action chosen by the parser.
struct CliState {
  bool quiet = false;
  int threads = 0;              ///< 0 = all cores
  int64_t memory_budget = 0;    ///< --memory where a command has it (0 = the library default)
  std::string report_path;      ///< --report run.json
  std::string endpoint_url;     ///< --endpoint-url for s3:// (exported as AWS_ENDPOINT_URL)
  int64_t http_deadline_s = 0;  ///< --http-deadline (exported as STRATA_HTTP_DEADLINE_SECONDS); 0 = unset
  int64_t http_stall_s = 0;     ///< --http-stall (exported as STRATA_HTTP_STALL_SECONDS); 0 = unset
  std::string device = "cpu";   ///< --device: cpu, cuda, cuda:N, cuda:all or auto
  /// The resources of the run, made by main() after parsing (threads, budget, progress bar).
  std::optional<Context> context;
  const Context& ctx() const { return *context; }
  /// Filled by commands with phase-level figures; main() adds the common fields and writes it
  /// (staged before the command runs, so an unwritable report fails before any output).
  nlohmann::json report;
  std::function<Status()> run;  ///< set by the chosen subcommand's callback
  /// Set by commands whose library entry point splits its work across MPI ranks; the others
  /// run on rank 0 alone under mpirun.
  bool distributed = false;
};

/// Exit code for a failed status: 2 for usage-like errors (Invalid), 1 otherwise.
int exit_code_for(const Status& st);

// One registration function per subcommand file (each file owns its subcommands).
void register_zarr_commands(CLI::App& app, CliState& state);      // zarr_cmd.cpp
void register_bench_commands(CLI::App& app, CliState& state);     // bench_cmd.cpp
void register_genotype_commands(CLI::App& app, CliState& state);  // genotype_cmd.cpp: convert, freq, simulate
void register_linalg_commands(CLI::App& app, CliState& state);    // linalg_cmd.cpp: svd, pca
void register_relatedness_commands(CLI::App& app, CliState& state);  // relatedness_cmd.cpp: king, distance
void register_grm_commands(CLI::App& app, CliState& state);       // grm_cmd.cpp: grm
void register_gwas_commands(CLI::App& app, CliState& state);      // gwas_cmd.cpp: gwas
void register_glm_commands(CLI::App& app, CliState& state);       // glm_cmd.cpp: glm
void register_qc_commands(CLI::App& app, CliState& state);        // qc_cmd.cpp: qc
void register_prune_commands(CLI::App& app, CliState& state);     // prune_cmd.cpp: prune
void register_project_commands(CLI::App& app, CliState& state);   // project_cmd.cpp: project

/// Add --quiet, --threads, --device, --report and --endpoint-url to a computing subcommand.
void add_common_options(CLI::App* cmd, CliState& state);
/// Add --device (cpu|cuda|cuda:N|cuda:all|auto) alone (part of add_common_options; for commands
/// with their own --threads/--report, e.g. bench). main() makes the backend it names.
void add_device_option(CLI::App* cmd, CliState& state);
/// Add --endpoint-url, --http-deadline and --http-stall alone (commands without the other common
/// options, e.g. zarr info).
void add_endpoint_option(CLI::App* cmd, CliState& state);

/// Add --memory SIZE (bytes for blocks, caches and resident data; `what` says what it decides
/// for this command). Left out, the Context gets the library's default_memory_budget(), as
/// every command and Python's memory=None do.
void add_memory_option(CLI::App* cmd, CliState& state, const std::string& what);

/// Add --no-plot and --plot-format (svg, png, svg,png) to a command that plots by default.
inline void add_plot_options(CLI::App* cmd, bool& write_plot, std::string& format, const std::string& what) {
  cmd->add_flag("--no-plot{false}", write_plot, "Do not draw " + what);
  cmd->add_option("--plot-format", format,
                  "Plot files: svg, png or svg,png (default: svg, and png where libcairo is found)");
}

/// Add plink2's sample and variant selection flags (--keep, --remove, --extract, --exclude,
/// --chr, --from-bp, --to-bp, --mind, --geno, --hwe, --maf) to a computing subcommand;
/// cli_selection.cpp. The library applies them (strata/genomics/selection.hpp).
void add_selection_options(CLI::App* cmd, genomics::SelectionOptions& selection);
/// Add the genotype input: positional INPUT (when `input_help` is not empty; optional, as a
/// flag may name the input instead), --bfile, --pfile, --vcf, --bcf, --bgen and --sample, and
/// --vcf-dosage where `vcf_dosage` is given; cli_input.cpp. io::resolve_genotype_input checks
/// that exactly one input is given and picks the path.
void add_input_options(CLI::App* cmd, io::GenotypeInputFlags& in, std::string* vcf_dosage, const std::string& input_help);
/// argv with plink2's `--vcf FILE dosage=FIELD` (and --bcf) spelled `--vcf FILE --vcf-dosage FIELD`.
std::vector<std::string> plink2_input_modifiers(int argc, char** argv);
/// The command's report fields (a library Summary) become the run report's.
void set_report(CliState& state, const Summary& summary);
/// The command's wall time from its summary (0 when absent).
double wall_seconds(const Summary& summary);

/// Log what the selection did (plink2's lines). The report gets it from the command's Summary
/// (SelectionReport::add_to).
void note_selection(CliState& state, const genomics::SelectionReport& report);

// Parse-time validators with messages a person can read. CLI11 prints them as
// "OPTION: MESSAGE", so MESSAGE reads "must be ..., got ...". Each also rejects text that is not
// a number with the same message (CLI11's own conversion error is cryptic).

/// An integer in [lo, hi]; `allowed` says which values, as a person writes it ("1 or more").
inline CLI::Validator integer_in(long long lo, long long hi, std::string allowed) {
  return CLI::Validator(
      [lo, hi, allowed](std::string& s) -> std::string {
        long long v = 0;
        const char* b = s.data();
        const char* e = b + s.size();
        if (b != e && *b == '+') ++b;
        auto [p, ec] = std::from_chars(b, e, v);
        if (b == e || p != e || (ec != std::errc() && ec != std::errc::result_out_of_range))
          return "must be " + allowed + ", got '" + s + "'";
        if (ec == std::errc::result_out_of_range || v < lo || v > hi) return "must be " + allowed + ", got " + s;
        return std::string();
      },
      allowed, "");
}

/// A seed: any integer from 0 to 2^64 - 1.
inline CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        unsigned long long v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || p != s.data() + s.size() || ec != std::errc())
          return "must be an integer from 0 to 18446744073709551615, got '" + s + "'";
        return std::string();
      },
      "SEED", "");
}

/// A finite real number in the range `ok` accepts; `allowed` describes the range.
template <class Pred>
inline CLI::Validator real_in(Pred ok, std::string allowed) {
  return CLI::Validator(
      [ok, allowed](std::string& s) -> std::string {
        char* end = nullptr;
        const double v = s.empty() ? 0.0 : std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || std::isspace(static_cast<unsigned char>(s[0])))
          return "must be " + allowed + ", got '" + s + "'";
        if (!std::isfinite(v) || !ok(v)) return "must be " + allowed + ", got " + s;
        return std::string();
      },
      allowed, "");
}

/// A non-empty path or prefix.
/// --multiallelic: nonref or skip (io::parse_multiallelic_mode).
inline CLI::Validator multiallelic_check() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        return io::parse_multiallelic_mode(s).ok() ? std::string() : "must be 'nonref' or 'skip', got '" + s + "'";
      },
      "nonref|skip", "");
}

inline CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](std::string& s) -> std::string { return s.empty() ? std::string("must not be empty") : std::string(); }, "PATH",
      "");
}

/// A comma-separated list with at least one name (`--chr ''` or `--pheno-name ,` is not "no
/// filter": leaving the option out is).
inline CLI::Validator name_list() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        return s.find_first_not_of(", \t") == std::string::npos
                   ? std::string("must name at least one value (leave the option out for no filter)")
                   : std::string();
      },
      "LIST", "");
}

/// A value the library parses (`parse(text)` gives Result<T>): its message when it fails.
/// `names` is what the help shows (e.g. "auto|exact|randomized").
template <class Parse>
CLI::Validator library_check(Parse parse, std::string names) {
  return CLI::Validator(
      [parse](std::string& s) -> std::string {
        auto r = parse(s);
        return r.ok() ? std::string() : r.status().message();
      },
      std::move(names), "");
}

/// The names of an enum's values 0 … `last` through the library's name function: the list an
/// option's CLI::IsMember check shows, in the enum's order.
template <class E, class Name>
std::vector<std::string> enum_names(Name name, E last) {
  std::vector<std::string> out;
  for (int i = 0; i <= static_cast<int>(last); ++i) out.emplace_back(name(static_cast<E>(i)));
  return out;
}

/// An option whose text the library parses into `field` (an enum of a library parameter
/// struct): one name()/parse() pair in the library spells it for the CLI, the report and Python.
template <class T, class Parse>
CLI::Option* add_enum_option(CLI::App* cmd, const std::string& flag, T& field, Parse parse, const std::string& help,
                             CLI::Validator check) {
  return cmd
      ->add_option_function<std::string>(
          flag, [&field, parse](const std::string& s) { if (auto r = parse(s); r.ok()) field = *r; }, help)
      ->check(std::move(check));
}

/// A memory size such as 2G, 512M or 1000000 (bytes), at least 1 MiB; defined in main.cpp.
CLI::Validator memory_size();

/// Worker threads: 0 (all cores) or 1-1024 (the library's limit).
using strata::kMaxThreads;

}  // namespace strata::cli
