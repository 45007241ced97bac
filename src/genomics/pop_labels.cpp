// Population labels of the PCA plot: a --pop-file read by column name, else the source's labels.
#include <algorithm>
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
  return s;
}

// The IID and population columns a header names: IID; the population under one of the names
// the common sample sheets use. -1 when absent.
void header_columns(const std::vector<std::string>& names, int& iid, int& pop) {
  iid = pop = -1;
  for (size_t k = 0; k < names.size(); ++k) {
    std::string n = lower(names[k]);
    if (!n.empty() && n[0] == '#') n.erase(0, 1);
    if (n == "iid" || n == "sample" || n == "sample_id") iid = iid < 0 ? static_cast<int>(k) : iid;
    if (n == "population" || n == "pop" || n == "super_population" || n == "superpopulation" || n == "super_pop")
      pop = pop < 0 ? static_cast<int>(k) : pop;
  }
}

}  // namespace

Result<std::vector<std::string>> pca_population_labels(const io::SampleInfo& samples, const std::string& pop_file) {
  const auto n = static_cast<size_t>(samples.size());
  if (pop_file.empty()) {
    if (samples.population.size() == n) return samples.population;
    if (samples.family_id.size() == n) return samples.family_id;
    return std::vector<std::string>(n);
  }
  io::detail::LineReader f;
  STRATA_RETURN_NOT_OK(f.open(pop_file, /*allow_pipe=*/true).with_context("--pop-file"));
  std::unordered_map<std::string, std::string> pop;
  std::string_view view;
  int iid_col = 0, pop_col = 1;
  size_t width = 2;  // columns per line
  bool first = true;
  while (f.next(view)) {
    std::vector<std::string> t = tokens(view);
    if (t.empty() || (view.size() > 1 && view[0] == '#' && view[1] == '#')) continue;
    // A header (`#IID POP`, `FID IID dad mom sex pheno population`, ...) names the columns; the
    // population is taken by name, never by position, from a sheet with more than two columns.
    const std::string head = lower(t[0]);
    if (first && (head[0] == '#' || head == "fid" || head == "iid" || head == "sample")) {
      first = false;
      header_columns(t, iid_col, pop_col);
      if (iid_col < 0 && t.size() == 2) iid_col = 0;
      if (pop_col < 0 && t.size() == 2) pop_col = 1;
      if (iid_col < 0 || pop_col < 0)
        return Status::InvalidData(pop_file, ":", f.line_no(), ": the header names no ",
                                   iid_col < 0 ? "IID" : "population (POP or population)", " column");
      width = t.size();
      continue;
    }
    first = false;
    if (t.size() != width)
      return Status::InvalidData(pop_file, ":", f.line_no(), ": ", t.size(), " columns, expected ", width,
                                 width == 2 ? " (IID POP, or a header naming the IID and population columns)"
                                            : " (as the header)");
    pop[t[static_cast<size_t>(iid_col)]] = t[static_cast<size_t>(pop_col)];
  }
  STRATA_RETURN_NOT_OK(f.status());
  std::vector<std::string> out(n);
  int64_t matched = 0;
  for (size_t i = 0; i < n; ++i) {
    auto it = pop.find(samples.id[i]);
    if (it != pop.end()) out[i] = it->second, ++matched;
  }
  if (matched == 0 && n > 0)
    return Status::InvalidData(pop_file, ": none of its ", pop.size(), " IDs names a sample of the input (matched on IID)");
  if (static_cast<size_t>(matched) < n)
    log_warning("--pop-file ", pop_file, ": ", n - static_cast<size_t>(matched), " of ", n,
                " samples have no population there (drawn as unknown)");
  return out;
}

}  // namespace strata::genomics
