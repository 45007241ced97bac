// Phenotype / covariate tables as plink2 reads them (see pheno.hpp).
#include "strata/genomics/pheno.hpp"

#include <cmath>
#include <fstream>
#include <sstream>
#include <algorithm>
#include <unordered_map>

#include "io/genotype/plink_numbers_internal.hpp"
#include "io/genotype/text_reader_internal.hpp"

namespace strata::genomics {
namespace {

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> f;
  std::istringstream ss(line);
  for (std::string x; ss >> x;) f.push_back(std::move(x));
  return f;
}

// plink2's missing values: NA/NaN in any case and -9 (a number equal to -9: "-9.0" too).
bool is_missing_token(const std::string& s) { return s == "-9" || io::detail::is_plink_nan_word(s); }

enum class Value { kNumber, kText, kBadNumber };

// A value as plink2 parses it (see plink_numbers_internal.hpp): a decimal number, NA (NaN), or
// text (a category name). A number with other characters after it ("1.5x", "0x1p3") or too
// large ("1e999") is neither: plink2 refuses it.
Value parse_value(const std::string& s, double* out) {
  if (io::detail::is_plink_nan_word(s)) {
    *out = std::nan("");
    return Value::kNumber;
  }
  const io::detail::ScannedNumber x = io::detail::scan_plink_number(s);
  if (x.kind == io::detail::NumberScan::kNotNumber) return Value::kText;
  if (x.kind != io::detail::NumberScan::kNumber) return Value::kBadNumber;
  *out = x.value == -9.0 ? std::nan("") : x.value;
  return Value::kNumber;
}

// Binary when every non-missing value is a case/control code; recode to 0/1 (NaN missing).
void classify_binary(SampleColumn& c, bool zero_one) {
  bool any = false;
  for (double v : c.values) {
    if (std::isnan(v)) continue;
    const bool ok = zero_one ? (v == 0.0 || v == 1.0) : (v == 0.0 || v == 1.0 || v == 2.0);
    if (!ok) return;
    any = true;
  }
  if (!any) return;  // all missing: left quantitative, refused later as all-missing
  c.binary = true;
  for (double& v : c.values) {
    if (std::isnan(v)) continue;
    if (zero_one) continue;                     // already 0/1
    v = v == 0.0 ? std::nan("") : v - 1.0;      // 1/2 → 0/1, 0 missing
  }
}

}  // namespace

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : list) {
    if (ch == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

Result<SampleTable> read_sample_table(const std::string& path, const io::SampleInfo& samples,
                                      const SampleTableOptions& options) {
  io::detail::LineReader in;  // a regular file or a pipe the user named; bounded lines
  STRATA_RETURN_NOT_OK(in.open(path, /*allow_pipe=*/true));
  auto getline = [&in](io::detail::LineReader&, std::string& out) {
    std::string_view v;
    if (!in.next(v)) return false;
    out.assign(v);
    return true;
  };
  const char* what = options.phenotypes ? "phenotype" : "covariate";
  std::string line;
  int64_t line_no = 0;
  // First non-empty line: header or data.
  std::vector<std::string> first;
  while (first.empty() && getline(in, line)) {
    ++line_no;
    // A UTF-8 byte order mark (spreadsheet exports) must not become part of the header's first
    // name; `##` lines before the header are comments.
    if (line_no == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    if (line.rfind("##", 0) == 0) continue;
    first = fields_of(line);
  }
  STRATA_RETURN_NOT_OK(in.status());
  if (first.empty()) return Status::InvalidData(path, ": empty ", what, " file");
  bool has_fid = true, header = true;
  if (first[0] == "#FID" || first[0] == "FID") {
    if (first.size() < 2 || first[1] != "IID")
      return Status::Corrupt(path, " line ", line_no, ": header must start with FID IID or IID");
  } else if (first[0] == "#IID" || first[0] == "IID") {
    has_fid = false;
  } else {
    header = false;
  }
  const size_t id_cols = has_fid ? 2 : 1;
  std::vector<std::string> names;
  if (header) {
    names.assign(first.begin() + static_cast<long>(id_cols), first.end());
  } else {
    for (size_t i = 2; i < first.size(); ++i)
      names.push_back((options.phenotypes ? "PHENO" : "COVAR") + std::to_string(i - 2 + options.first_number));
  }
  if (names.empty()) return Status::InvalidData(path, ": no ", what, " columns");
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (names[i] == names[j]) return Status::InvalidData(path, ": column '", names[i], "' appears twice");

  // Selected columns (file order unless names are given).
  std::vector<size_t> pick;
  if (options.names.empty()) {
    for (size_t i = 0; i < names.size(); ++i) pick.push_back(i);
  } else {
    for (size_t i = 0; i < options.names.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (options.names[i] == options.names[j])
          return Status::InvalidData(path, ": ", what, " column '", options.names[i], "' is asked for twice");
    for (const auto& want : options.names) {
      size_t k = names.size();
      for (size_t i = 0; i < names.size(); ++i)
        if (names[i] == want) k = i;
      if (k == names.size()) return Status::InvalidData(path, ": no ", what, " column named '", want, "'");
      pick.push_back(k);
    }
  }

  // Sample lookup by FID+IID or IID.
  const int64_t n = samples.size();
  std::unordered_map<std::string, int64_t> index;
  index.reserve(static_cast<size_t>(n) * 2);
  for (int64_t i = 0; i < n; ++i) {
    const std::string fid = i < static_cast<int64_t>(samples.family_id.size()) ? samples.family_id[i] : "0";
    // Without a FID column plink2 takes FID 0: only samples without a family ID match.
    if (!has_fid && !(fid.empty() || fid == "0")) continue;
    index.emplace(has_fid ? fid + '\t' + samples.id[i] : samples.id[i], i);
  }

  SampleTable t;
  t.columns.resize(pick.size());
  for (size_t c = 0; c < pick.size(); ++c) {
    t.columns[c].name = names[pick[c]];
    t.columns[c].values.assign(static_cast<size_t>(n), std::nan(""));
  }
  // Covariates that are not numbers are categorical (plink2 splits them into indicators): their
  // tokens are kept per sample until the whole file is read.
  std::vector<std::vector<std::string>> tokens(pick.size());
  std::vector<std::pair<int64_t, std::string>> first_text(pick.size(), {0, ""});  // line and token
  std::vector<char> seen(static_cast<size_t>(n), 0);
  auto take_row = [&](const std::vector<std::string>& f) -> Status {
    if (f.size() != id_cols + names.size())
      return Status::Corrupt(path, " line ", line_no, ": ", f.size(), " fields, expected ", id_cols + names.size());
    ++t.rows;
    const std::string key = has_fid ? f[0] + '\t' + f[1] : f[0];
    auto it = index.find(key);
    if (it == index.end()) {
      ++t.unknown_rows;
      return Status::OK();
    }
    const int64_t s = it->second;
    if (seen[s]) return Status::InvalidData(path, " line ", line_no, ": sample '", f[id_cols - 1], "' appears twice");
    seen[s] = 1;
    ++t.matched_rows;
    for (size_t c = 0; c < pick.size(); ++c) {
      double v = std::nan("");
      const std::string& tok = f[id_cols + pick[c]];
      const Value kind = parse_value(tok, &v);
      if (kind == Value::kBadNumber)
        return Status::Corrupt(path, " line ", line_no, ": ", what, " '", names[pick[c]], "' value '", tok,
                               "' is not a number (a number followed by other characters, or too large; plink2 "
                               "refuses it too)");
      if (kind == Value::kText) {
        if (options.phenotypes)
          return Status::Corrupt(path, " line ", line_no, ": ", what, " '", names[pick[c]], "' value '", tok,
                                 "' is not a number (missing is NA or -9)");
        if (first_text[c].first == 0) first_text[c] = {line_no, tok};
      }
      if (!options.phenotypes) {
        if (tokens[c].empty()) tokens[c].resize(static_cast<size_t>(n));
        tokens[c][s] = tok;
      }
      t.columns[c].values[s] = v;
    }
    return Status::OK();
  };
  if (!header) STRATA_RETURN_NOT_OK(take_row(first));
  int64_t blank_line = 0;  // blank lines may end the file; between rows plink2 refuses them
  while (getline(in, line)) {
    ++line_no;
    auto f = fields_of(line);
    if (f.empty()) {
      if (blank_line == 0) blank_line = line_no;
      continue;
    }
    if (blank_line > 0)
      return Status::Corrupt(path, " line ", blank_line, ": empty line between rows (plink2 refuses it too)");
    STRATA_RETURN_NOT_OK(take_row(f));
  }
  STRATA_RETURN_NOT_OK(in.status());
  if (t.matched_rows == 0)
    return Status::InvalidData(path, ": none of its ", t.rows, " rows names a sample of the genotype input",
                               has_fid ? " (matched on FID and IID)" : " (matched on IID, FID 0 as plink2 does)");
  if (options.phenotypes) {
    for (auto& c : t.columns) classify_binary(c, options.zero_one_binary);
    return t;
  }
  // Covariates: categorical columns become indicators NAME=CATEGORY for every category but the
  // first in sorted order (the reference); columns with no value at all are left out (plink2
  // excludes them as constant). Either way a warning says so.
  std::vector<SampleColumn> out;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    SampleColumn& col = t.columns[c];
    if (first_text[c].first > 0) {
      std::vector<std::string> cats;
      for (int64_t s = 0; s < n; ++s)
        if (!tokens[c][s].empty() && !is_missing_token(tokens[c][s])) cats.push_back(tokens[c][s]);
      std::sort(cats.begin(), cats.end());
      cats.erase(std::unique(cats.begin(), cats.end()), cats.end());
      if (cats.size() > 1000)
        return Status::InvalidData(path, ": covariate '", col.name, "' has ", cats.size(), " categories (first text value '",
                                   first_text[c].second, "' on line ", first_text[c].first,
                                   "); a covariate is a number, or a category among at most 1000");
      t.warnings.push_back(str_cat("covariate '", col.name, "' is categorical (", cats.size(), " categories, e.g. '",
                                   first_text[c].second, "'): ", cats.size() - 1, " indicator covariate",
                                   cats.size() == 2 ? "" : "s", ", '", cats.front(), "' the reference"));
      for (size_t k = 1; k < cats.size(); ++k) {
        SampleColumn d;
        d.name = col.name + "=" + cats[k];
        d.values.assign(static_cast<size_t>(n), std::nan(""));
        for (int64_t s = 0; s < n; ++s)
          if (!tokens[c][s].empty() && !is_missing_token(tokens[c][s])) d.values[s] = tokens[c][s] == cats[k] ? 1.0 : 0.0;
        out.push_back(std::move(d));
      }
      continue;
    }
    bool any = false;
    for (double v : col.values) any = any || !std::isnan(v);
    if (!any) {
      t.warnings.push_back(str_cat("covariate '", col.name, "' has no value and is left out"));
      continue;
    }
    out.push_back(std::move(col));
  }
  t.columns = std::move(out);
  return t;
}

}  // namespace strata::genomics
