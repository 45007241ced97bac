// `strata king` and `strata distance`: pairwise relatedness and distances between samples.
#include <memory>
#include <optional>

#include "cli_common.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/log.hpp"
#include "strata/genomics/distance.hpp"
#include "strata/genomics/king.hpp"

namespace strata::cli {
namespace {

constexpr const char* kMemoryHelp =
    "when the bit planes of every genotype (3 bits each) do not fit, samples go in bands and the input is read "
    "once per band pair; pending output rows beyond a quarter of the budget wait in a spill file beside the outputs";

void register_king(CLI::App& app, CliState& state) {
  struct Args {
    io::GenotypeInputFlags input;
    std::string out;
    bool table = false, plot = true;
    std::string plot_format;
    std::optional<double> filter, cutoff;
    genomics::SelectionOptions selection;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "king",
      "KING-robust kinship of every pair of samples, as plink2 computes it: PREFIX.king + PREFIX.king.id "
      "(plink2 --make-king triangle), PREFIX.kin0 with --table (--make-king-table), and the --king-cutoff "
      "lists with --cutoff. Each pair uses the variants both samples have observed.");
  add_input_options(cmd, a->input, &a->selection.open.vcf_dosage,
                    "PLINK prefix or .bed, .pgen, .bgen, VCF/BCF, or a Zarr genotype store");
  cmd->add_option("--out", a->out, "Output prefix")->required()->check(non_empty_path());
  cmd->add_flag("--table", a->table,
                "Write PREFIX.kin0 (#FID1 IID1 FID2 IID2 NSNP HETHET IBS0 KINSHIP) instead of the triangle");
  cmd->add_option("--filter", a->filter,
                  "Table rows with kinship >= MIN only (plink2 --king-table-filter; implies --table), streamed: "
                  "memory does not grow with the number of pairs")
      ->check(real_in([](double) { return true; }, "a number"));
  cmd->add_option("--cutoff", a->cutoff,
                  "Write PREFIX.king.cutoff.in.id / .out.id: a maximal set of samples with no pair above C, by "
                  "plink2's --king-cutoff rule. Alone it writes only those two lists")
      ->check(real_in([](double v) { return v >= 0.0; }, "a kinship of 0 or more"));
  add_plot_options(cmd, a->plot, a->plot_format, "PREFIX.kin0.svg (kinship against IBS0) with --table");
  add_memory_option(cmd, state, kMemoryHelp);
  add_common_options(cmd, state);
  add_selection_options(cmd, a->selection);
  cmd->callback([a, &state] {
    state.run = [a, &state]() -> Status {
      genomics::KingOptions o;
      o.table = a->table;
      o.write_plot = a->plot;
      o.plot_format = a->plot_format;
      o.filter = a->filter;
      o.cutoff = a->cutoff;
      o.selection = a->selection;
      STRATA_ASSIGN_OR_RETURN(const std::string input, io::resolve_genotype_input(a->input, o.selection.open));
      STRATA_RETURN_NOT_OK(genomics::validate_selection(o.selection));
      STRATA_ASSIGN_OR_RETURN(auto s, genomics::run_king_to_files(state.ctx(), input, a->out, o));
      note_selection(state, s.selection);
      set_report(state, s.report);
      if (a->cutoff) {
        log_info("--cutoff: ", s.cutoff_removed, " samples removed, ", s.num_samples - s.cutoff_removed, " kept");
      }
      return Status::OK();
    };
    state.distributed = true;  // genomics::run_king_to_files shares the tiles across MPI ranks
  });
}

void register_distance(CLI::App& app, CliState& state) {
  struct Args {
    io::GenotypeInputFlags input;
    std::string out, metric, format = "square";
    bool overwrite = false;
    genomics::SelectionOptions selection;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "distance",
      "Pairwise distances between samples (observations) with ALT dosages 0/1/2 as coordinates: PREFIX.dist "
      "(tab-separated) + PREFIX.dist.id. Each pair uses only the variants both samples have observed (no "
      "rescaling): sums (euclidean, sqeuclidean, cityblock, minkowski) run over them, hamming/ibs/allele-sharing "
      "are fractions of them, cosine/correlation use their moments; a pair with none gets nan. On complete data "
      "the values equal scipy.spatial.distance.pdist; ibs and allele-sharing equal plink 1.9 --distance ibs / "
      "1-ibs with flat-missing (.mibs / .mdist). INPUT may instead name a 2-D numeric Zarr array (integer or "
      "float): its rows are the observations and its columns the coordinates, NaN is missing (each pair uses the "
      "coordinates both rows have), ibs/allele-sharing do not apply, and the IDs are the row numbers.");
  add_input_options(cmd, a->input, &a->selection.open.vcf_dosage,
                    "PLINK prefix or .bed, .pgen, .bgen, VCF/BCF, a Zarr genotype store, or a 2-D numeric Zarr array "
                    "(rows = observations)");
  cmd->add_option("--metric", a->metric, std::string("One of ") + std::string(genomics::kDistanceMetricNames))
      ->required()
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            auto r = genomics::parse_distance_metric(s);
            return r.ok() ? std::string() : r.status().message();
          },
          "METRIC", ""));
  cmd->add_option("--out", a->out, "Output prefix")->required()->check(non_empty_path());
  cmd->add_option("--format", a->format,
                  "square (default: N x N), triangle (line i: pairs (i, j < i); ibs also the diagonal, as "
                  "plink 1.9's .mibs), or zarr (PREFIX.dist.zarr: an N x N float64 array and sample_id)")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            auto r = genomics::parse_distance_format(s);
            return r.ok() ? std::string() : r.status().message();
          },
          "FORMAT", ""));
  cmd->add_flag("--overwrite", a->overwrite, "Replace an existing PREFIX.dist.zarr; files are always replaced");
  add_memory_option(cmd, state, kMemoryHelp);
  add_common_options(cmd, state);
  add_selection_options(cmd, a->selection);
  cmd->callback([a, &state] {
    state.run = [a, &state]() -> Status {
      genomics::DistanceOptions o;
      STRATA_ASSIGN_OR_RETURN(o.metric, genomics::parse_distance_metric(a->metric));
      STRATA_ASSIGN_OR_RETURN(o.format, genomics::parse_distance_format(a->format));
      o.overwrite = a->overwrite;
      o.selection = a->selection;
      STRATA_ASSIGN_OR_RETURN(const std::string input, io::resolve_genotype_input(a->input, o.selection.open));
      STRATA_RETURN_NOT_OK(genomics::validate_selection(o.selection));
      STRATA_ASSIGN_OR_RETURN(auto s, genomics::run_distance_to_files(state.ctx(), input, a->out, o));
      note_selection(state, s.selection);
      set_report(state, s.report);
      return Status::OK();
    };
    state.distributed = true;  // genomics::run_distance_to_files shares the tiles across MPI ranks
  });
}

}  // namespace

void register_relatedness_commands(CLI::App& app, CliState& state) {
  register_king(app, state);
  register_distance(app, state);
}

}  // namespace strata::cli
