#pragma once
/// \file
/// Structured-population genotype simulation (Balding–Nichols), as a lazy genotype view and as
/// PLINK 1 / VCF Zarr files.
///
/// Model, per variant v: an ancestral ALT frequency p ~ U(0.05, 0.95); per population k a
/// frequency p_k ~ Beta(p(1 − F)/F, (1 − p)(1 − F)/F) (p_k = p when F = 0); each sample of
/// population k gets two independent ALT alleles with probability p_k each, and the call is
/// set missing with probability `missing`. Populations are assigned by one uniform label per
/// sample, then sorted (population 0 first) — the semantics of ../shared/bench/simulate.py.
///
/// Every random number comes from strata/core/random.hpp keyed by (seed, purpose, variant,
/// sample), so any block of the matrix is generated independently and the output is identical
/// for any chunking, block order, thread count or kernel.
///
/// \code
/// genomics::SimulateOptions o; o.num_samples = 1000; o.num_variants = 10000; o.num_pops = 3;
/// STRATA_ASSIGN_OR_RETURN(auto view, genomics::make_simulated_genotypes(o));
/// STRATA_RETURN_NOT_OK(genomics::simulate_to_files(o, "sim", genomics::SimulateFormat::Bed));
/// \endcode

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/job.hpp"
#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics {

/// \brief Parameters of a simulated cohort.
struct SimulateOptions {
  int64_t num_samples = 1000;
  int64_t num_variants = 10000;
  int64_t num_pops = 3;     ///< K ≥ 1
  double fst = 0.05;        ///< F in [0, 1)
  double missing = 0.0;     ///< per-call missing probability in [0, 1]
  uint64_t seed = 1;
};

/// \brief Check the options (positive sizes, F and missing rate in range).
Status validate_simulate_options(const SimulateOptions& options);

/// \brief A lazily generated genotype view of the cohort. Samples are named `s<i>` with
/// family ID `pop<k>` and population `pop<k>`; variants are on contig "1" at positions
/// 100·v + 1, named `v<v>`, REF "G", ALT "A".
Result<std::shared_ptr<const io::GenotypeView>> make_simulated_genotypes(const SimulateOptions& options);

/// \brief The population index of every sample (sorted ascending).
std::vector<int32_t> simulated_populations(const SimulateOptions& options);

/// \brief Output formats of simulate_to_files.
enum class SimulateFormat { Bed, Vcz, Both };
/// \brief "bed", "vcz" or "both".
const char* simulate_format_name(SimulateFormat format);
/// \brief The inverse of simulate_format_name; Invalid otherwise.
Result<SimulateFormat> parse_simulate_format(const std::string& name);

/// \brief Options for writing the simulated files.
struct SimulateWriteOptions {
  int64_t variants_chunk = 0;   ///< VCF Zarr chunking (0 = defaults of io::VczWriteOptions)
  int64_t samples_chunk = 0;
  bool overwrite = false;       ///< replace an existing `prefix.vcz` (files are always replaced)
};

/// \brief Write `prefix.bed/.bim/.fam` and/or `prefix.vcz` (with a `sample_population`
/// array) for the cohort, as one OutputSet (strata/core/output.hpp): all appear together,
/// only when complete.
Status simulate_to_files(const Context& ctx, const SimulateOptions& options, const std::string& prefix,
                         SimulateFormat format, const SimulateWriteOptions& write = {});

/// \brief What run_simulate_to_files() wrote.
struct SimulateSummary {
  std::vector<std::string> files;
  Summary report;  ///< the report fields (the CLI's --report)
};

/// \brief simulate_to_files, with its outputs and report fields (a Job: core/job.hpp).
Result<SimulateSummary> run_simulate_to_files(const Context& ctx, const SimulateOptions& options,
                                              const std::string& prefix, SimulateFormat format,
                                              const SimulateWriteOptions& write = {});

}  // namespace strata::genomics
