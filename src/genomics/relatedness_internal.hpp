#pragma once
// Shared by the KING and distance outputs: sample ID columns, the pairwise commands' genotypes
// and (text_writer.hpp) the buffered text writer.
#include <string>
#include <string_view>
#include <vector>

#include "genomics/text_writer.hpp"
#include "strata/core/result.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics::detail {

// IDs of a view's samples: FID (when the source has them) and IID, numbered from 0 where the
// source has no IDs (plain dosage arrays).
struct SampleIds {
  bool has_fid = false;
  std::vector<std::string> fid, iid;
  static SampleIds of(const io::SampleInfo& s, int64_t n) {
    SampleIds ids;
    ids.iid = static_cast<int64_t>(s.id.size()) == n ? s.id : std::vector<std::string>{};
    for (int64_t i = static_cast<int64_t>(ids.iid.size()); i < n; ++i) ids.iid.push_back(std::to_string(i));
    ids.has_fid = static_cast<int64_t>(s.family_id.size()) == n && n > 0;
    if (ids.has_fid) ids.fid = s.family_id;
    return ids;
  }
  // "FID\tIID" or "IID" of sample i.
  std::string columns(int64_t i) const {
    const auto k = static_cast<size_t>(i);
    return has_fid ? fid[k] + '\t' + iid[k] : iid[k];
  }
};

// The genotypes of `input` for a pairwise command (`what`: "kinship needs", "distances need"; `calculation`
// names it where X, Y and MT are skipped, as plink2 does): InvalidData naming the input when it has fewer
// than two samples (there is no pair).
inline Result<io::GenotypeViewPtr> open_pairwise_genotypes(const Context& ctx, const std::string& input,
                                                          SelectionOptions selection, const char* what,
                                                          const char* calculation, SelectionReport* report) {
  selection.skip_non_autosomes_for = calculation;
  STRATA_ASSIGN_OR_RETURN(Selection sel, open_selected_genotypes(ctx, input, selection));
  *report = std::move(sel.report);
  io::GenotypeViewPtr view = std::move(sel.view);
  const int64_t n = view->num_samples();
  if (n < 2)
    return Status::InvalidData(input, ": ", n, n == 1 ? " sample" : " samples", ": ", what,
                               " at least two samples (there is no pair)");
  return view;
}

}  // namespace strata::genomics::detail
