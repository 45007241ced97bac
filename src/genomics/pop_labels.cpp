// Population labels of the PCA plot: a --pop-file read by column name, else the source's labels.
// A sample sheet read by position once gave 444 "unknown" samples and 513 one-sample
// "populations" (HapMap's 7-column relationships file: FID taken as the sample, IID as the
// population); so columns are taken by name, what matched is said, and a file that labels
// almost nothing, or names nearly one population per sample, is refused.
#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/genotype/text_reader_internal.hpp"
#include "strata/core/log.hpp"
#include "strata/genomics/pca_output.hpp"

namespace strata::genomics {
namespace {

std::vector<std::string> tokens(std::string_view line) {
  std::vector<std::string> out;
  for (std::string_view t : io::detail::split_all(line)) out.emplace_back(t);
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!s.empty() && s[0] == '#') s.erase(0, 1);
  return s;
}

constexpr const char* kIidNames[] = {"iid", "sample", "sample_id", "sampleid", "sample_name", "id"};
constexpr const char* kFidNames[] = {"fid", "family_id", "family"};
// Population columns in order of preference: the population before the super-population.
constexpr const char* kPopNames[] = {"pop",       "population",       "population_code", "super_pop",
                                     "superpop",  "super_population", "superpopulation", "super_population_code",
                                     "group",     "cluster",          "ancestry"};

int find_column(const std::vector<std::string>& names, std::string_view want) {
  for (size_t k = 0; k < names.size(); ++k)
    if (lower(names[k]) == want) return static_cast<int>(k);
  return -1;
}

template <size_t N>
int find_any(const std::vector<std::string>& names, const char* const (&candidates)[N]) {
  for (const char* c : candidates)
    if (int k = find_column(names, c); k >= 0) return k;
  return -1;
}

bool looks_like_header(const std::vector<std::string>& t, const std::string& pop_column) {
  if (t[0][0] == '#') return true;
  if (!pop_column.empty() && find_column(t, lower(pop_column)) >= 0) return true;
  return find_any(t, kIidNames) >= 0 || find_any(t, kFidNames) >= 0;
}

std::string column_list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : " ") + n;
  return s;
}

}  // namespace

Result<std::vector<std::string>> pca_population_labels(const io::SampleInfo& samples, const std::string& pop_file,
                                                       const std::string& pop_column, std::string* matched_note) {
  const auto n = static_cast<size_t>(samples.size());
  if (pop_file.empty()) {
    if (samples.population.size() == n) return samples.population;
    if (samples.family_id.size() == n) return samples.family_id;
    return std::vector<std::string>(n);
  }
  io::detail::LineReader f;
  STRATA_RETURN_NOT_OK(f.open(pop_file, /*allow_pipe=*/true).with_context("--pop-file"));
  std::unordered_map<std::string, std::string> by_iid, by_fid_iid;
  std::string_view view;
  int iid_col = 0, pop_col = 1, fid_col = -1;
  size_t width = 2;  // columns per line
  bool first = true;
  std::string described = "columns 1 (IID) and 2 (population), no header";
  while (f.next(view)) {
    std::vector<std::string> t = tokens(view);
    if (t.empty() || (view.size() > 1 && view[0] == '#' && view[1] == '#')) continue;
    // A header (`#IID POP`, `FID IID dad mom sex pheno population`, `sample pop super_pop`)
    // names the columns; they are taken by name, never by position.
    if (first && looks_like_header(t, pop_column)) {
      first = false;
      iid_col = find_any(t, kIidNames);
      fid_col = find_any(t, kFidNames);
      pop_col = pop_column.empty() ? find_any(t, kPopNames) : find_column(t, lower(pop_column));
      if (iid_col < 0 && t.size() == 2 && fid_col != 0 && pop_col != 0) iid_col = 0;
      if (pop_col < 0 && pop_column.empty() && t.size() == 2 && iid_col != 1) pop_col = 1;
      if (iid_col < 0 || pop_col < 0)
        return Status::InvalidData(pop_file, ":", f.line_no(), ": the header (", column_list(t), ") names no ",
                                   iid_col < 0 ? "IID column (IID, #IID or sample)"
                                   : pop_column.empty()
                                       ? "population column (POP, population, super_pop, …; or name it with --pop-col)"
                                       : "column '" + pop_column + "' (--pop-col)");
      width = t.size();
      described = str_cat("IID from column ", iid_col + 1, " (", t[static_cast<size_t>(iid_col)], ")",
                          fid_col >= 0 ? str_cat(", FID from column ", fid_col + 1, " (", t[static_cast<size_t>(fid_col)], ")") : "",
                          ", population from column ", pop_col + 1, " (", t[static_cast<size_t>(pop_col)], ")");
      continue;
    }
    if (first && !pop_column.empty())
      return Status::InvalidData(pop_file, ": --pop-col ", pop_column, " needs a header line naming the columns");
    first = false;
    if (t.size() != width)
      return Status::InvalidData(pop_file, ":", f.line_no(), ": ", t.size(), " columns, expected ", width,
                                 width == 2 ? " (IID POP, or a header naming the IID and population columns)"
                                            : " (as the header)");
    const std::string& iid = t[static_cast<size_t>(iid_col)];
    const std::string& pop = t[static_cast<size_t>(pop_col)];
    by_iid[iid] = pop;
    if (fid_col >= 0) by_fid_iid[t[static_cast<size_t>(fid_col)] + '\t' + iid] = pop;
  }
  STRATA_RETURN_NOT_OK(f.status());
  // FID + IID where both sides have families (IIDs may repeat across families), else IID.
  const bool use_fid = fid_col >= 0 && samples.family_id.size() == n;
  std::vector<std::string> out(n);
  int64_t matched = 0, by_family = 0;
  std::set<std::string> populations;
  for (size_t i = 0; i < n; ++i) {
    const std::string* pop = nullptr;
    if (use_fid) {
      auto it = by_fid_iid.find(samples.family_id[i] + '\t' + samples.id[i]);
      if (it != by_fid_iid.end()) pop = &it->second, ++by_family;
    }
    if (!pop) {
      auto it = by_iid.find(samples.id[i]);
      if (it != by_iid.end()) pop = &it->second;
    }
    if (pop) out[i] = *pop, ++matched, populations.insert(*pop);
  }
  const auto nn = static_cast<int64_t>(n);
  if (matched == 0 && n > 0)
    return Status::InvalidData(pop_file, ": none of its ", by_iid.size(), " IDs names a sample of the input (", described,
                               ")");
  // Almost nothing matched (under 5 %): the wrong file or the wrong column.
  if (nn >= 20 && matched * 20 < nn)
    return Status::InvalidData(pop_file, ": only ", matched, " of ", nn, " samples have a population there (", described,
                               "): the wrong file or the wrong IID column?");
  const auto npop = static_cast<int64_t>(populations.size());
  if (matched >= 10 && npop * 2 > matched)
    return Status::InvalidData(pop_file, ": ", npop, " populations for ", matched, " labelled samples (", described,
                               "): that column is not a population; name it with --pop-col");
  std::string note = str_cat(pop_file, ": ", described, "; ", matched, " of ", nn, " samples labelled",
                             use_fid ? str_cat(" (", by_family, " by FID+IID)") : "", ", ", npop, " populations");
  log_info("--pop-file ", note);
  if (matched_note) *matched_note = std::move(note);
  if (matched < nn)
    log_warning("--pop-file ", pop_file, ": ", nn - matched, " of ", nn,
                " samples have no population there (drawn as unknown)");
  return out;
}

}  // namespace strata::genomics
