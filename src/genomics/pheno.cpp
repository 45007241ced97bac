// Phenotype / covariate tables as plink2 reads them (see pheno.hpp).
#include "strata/genomics/pheno.hpp"

#include <cmath>
#include <fstream>
#include <sstream>
#include <algorithm>
#include <cctype>
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

// The column names' checks and the chosen columns (file order unless names are given).
Result<std::vector<size_t>> pick_columns(const std::vector<std::string>& names, const std::string& source,
                                         const char* what, const SampleTableOptions& options) {
  if (names.empty()) return Status::InvalidData(source, ": no ", what, " columns");
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (names[i] == names[j]) return Status::InvalidData(source, ": column '", names[i], "' appears twice");
  std::vector<size_t> pick;
  if (options.names.empty()) {
    for (size_t i = 0; i < names.size(); ++i) pick.push_back(i);
    return pick;
  }
  for (size_t i = 0; i < options.names.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (options.names[i] == options.names[j])
        return Status::InvalidData(source, ": ", what, " column '", options.names[i], "' is asked for twice");
  for (const auto& want : options.names) {
    size_t k = names.size();
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == want) k = i;
    if (k == names.size()) return Status::InvalidData(source, ": no ", what, " column named '", want, "'");
    pick.push_back(k);
  }
  return pick;
}

// The chosen columns as they fill (a file's rows or a table's columns), then plink2's rules
// for all of them at once: one path for files and tables in memory.
class TableBuilder {
 public:
  TableBuilder(std::string source, const char* unit, const std::vector<std::string>& names, int64_t n,
               const SampleTableOptions& options)
      : source_(std::move(source)), unit_(unit), what_(options.phenotypes ? "phenotype" : "covariate"),
        options_(options), tokens_(names.size()), first_text_(names.size(), {0, ""}) {
    t_.columns.resize(names.size());
    for (size_t c = 0; c < names.size(); ++c) {
      t_.columns[c].name = names[c];
      t_.columns[c].values.assign(static_cast<size_t>(n), std::nan(""));
    }
  }
  SampleTable& table() { return t_; }
  const char* what() const { return what_; }

  // Sample s's cell `tok` of column c, found on line/row `at`.
  Status put_cell(size_t c, int64_t s, const std::string& tok, int64_t at) {
    double v = std::nan("");
    const Value kind = parse_value(tok, &v);
    if (kind == Value::kBadNumber)
      return Status::Corrupt(source_, " ", unit_, " ", at, ": ", what_, " '", t_.columns[c].name, "' value '", tok,
                             "' is not a number (a number followed by other characters, or too large; plink2 "
                             "refuses it too)");
    if (kind == Value::kText) {
      if (options_.phenotypes)
        return Status::Corrupt(source_, " ", unit_, " ", at, ": ", what_, " '", t_.columns[c].name, "' value '", tok,
                               "' is not a number (missing is NA or -9)");
      if (first_text_[c].first == 0) first_text_[c] = {at, tok};
    }
    if (!options_.phenotypes) {
      if (tokens_[c].empty()) tokens_[c].resize(t_.columns[c].values.size());
      tokens_[c][s] = tok;
    }
    t_.columns[c].values[s] = v;
    return Status::OK();
  }
  // Sample s's number v of column c, row `at` (-9 missing, as in a file; a file cannot hold ±inf).
  Status put_number(size_t c, int64_t s, double v, int64_t at) {
    if (std::isinf(v))
      return Status::InvalidData(source_, " ", unit_, " ", at, ": ", what_, " '", t_.columns[c].name, "' value ", v,
                                 " is not a finite number");
    t_.columns[c].values[s] = v == -9.0 ? std::nan("") : v;
    return Status::OK();
  }
  // Column c is case/control as a table in memory codes it (0/1) whatever --1 says.
  void set_zero_one(size_t c) { zero_one_.resize(t_.columns.size(), 0), zero_one_[c] = 1; }

  Result<SampleTable> finish();

 private:
  std::string source_;
  const char* unit_;
  const char* what_;
  const SampleTableOptions& options_;
  SampleTable t_;
  // Covariates that are not numbers are categorical (plink2 splits them into indicators): their
  // tokens are kept per sample until the whole table is read.
  std::vector<std::vector<std::string>> tokens_;
  std::vector<std::pair<int64_t, std::string>> first_text_;  // line/row and token
  std::vector<char> zero_one_;
};

Result<SampleTable> TableBuilder::finish() {
  SampleTable& t = t_;
  if (options_.phenotypes) {
    for (size_t c = 0; c < t.columns.size(); ++c)
      classify_binary(t.columns[c], options_.zero_one_binary || (c < zero_one_.size() && zero_one_[c]));
    return std::move(t);
  }
  const int64_t n = t.columns.empty() ? 0 : static_cast<int64_t>(t.columns[0].values.size());
  // Covariates: categorical columns become indicators NAME=CATEGORY for every category but the
  // first in sorted order (the reference); columns with no value at all are left out (plink2
  // excludes them as constant). Either way a warning says so.
  std::vector<SampleColumn> out;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    SampleColumn& col = t.columns[c];
    if (first_text_[c].first > 0) {
      const std::vector<std::string>& tokens = tokens_[c];
      std::vector<std::string> cats;
      for (int64_t s = 0; s < n; ++s)
        if (!tokens[s].empty() && !is_missing_token(tokens[s])) cats.push_back(tokens[s]);
      std::sort(cats.begin(), cats.end());
      cats.erase(std::unique(cats.begin(), cats.end()), cats.end());
      if (cats.size() > 1000)
        return Status::InvalidData(source_, ": covariate '", col.name, "' has ", cats.size(), " categories (first text value '",
                                   first_text_[c].second, "' on ", unit_, " ", first_text_[c].first,
                                   "); a covariate is a number, or a category among at most 1000");
      t.warnings.push_back(str_cat("covariate '", col.name, "' is categorical (", cats.size(), " categories, e.g. '",
                                   first_text_[c].second, "'): ", cats.size() - 1, " indicator covariate",
                                   cats.size() == 2 ? "" : "s", ", '", cats.front(), "' the reference"));
      for (size_t k = 1; k < cats.size(); ++k) {
        SampleColumn d;
        d.name = col.name + "=" + cats[k];
        d.values.assign(static_cast<size_t>(n), std::nan(""));
        for (int64_t s = 0; s < n; ++s)
          if (!tokens[s].empty() && !is_missing_token(tokens[s])) d.values[s] = tokens[s] == cats[k] ? 1.0 : 0.0;
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
  return std::move(t);
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
  STRATA_ASSIGN_OR_RETURN(const std::vector<size_t> pick, pick_columns(names, path, what, options));

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

  std::vector<std::string> picked;
  for (size_t k : pick) picked.push_back(names[k]);
  TableBuilder b(path, "line", picked, n, options);
  SampleTable& t = b.table();
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
    for (size_t c = 0; c < pick.size(); ++c) STRATA_RETURN_NOT_OK(b.put_cell(c, s, f[id_cols + pick[c]], line_no));
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
  return b.finish();
}

Result<SampleTable> align_sample_table(const SampleTableData& data, const io::SampleInfo& samples,
                                       const std::vector<int64_t>& source_rows, const SampleTableOptions& options) {
  const char* what = options.phenotypes ? "phenotype" : "covariate";
  const std::string& source = data.source;
  const int64_t n = samples.size();
  const int64_t expected = source_rows.empty() ? n : static_cast<int64_t>(source_rows.size());
  if (data.rows < expected || (source_rows.empty() && data.rows != n))
    return Status::InvalidData(source, " has ", data.rows, " rows; it must have one value per sample of the input");
  std::vector<std::string> names;
  for (const auto& c : data.columns) {
    // A file cannot hold such a name; the outputs' header lines could not either.
    if (c.name.empty() || std::any_of(c.name.begin(), c.name.end(), [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); }))
      return Status::InvalidData(source, ": ", what, " column name '", c.name, "' cannot be empty or hold spaces");
    names.push_back(c.name);
  }
  STRATA_ASSIGN_OR_RETURN(const std::vector<size_t> pick, pick_columns(names, source, what, options));
  std::vector<std::string> picked;
  for (size_t k : pick) picked.push_back(names[k]);
  TableBuilder b(source, "row", picked, n, options);
  SampleTable& t = b.table();
  t.rows = data.rows;
  t.matched_rows = n;
  t.unknown_rows = data.rows - n;  // rows of samples the selection removed
  for (size_t c = 0; c < pick.size(); ++c) {
    const SampleTableData::Column& col = data.columns[pick[c]];
    auto row_of = [&](int64_t s) { return source_rows.empty() ? s : source_rows[static_cast<size_t>(s)]; };
    if (col.values == nullptr) {
      if (static_cast<int64_t>(col.cells.size()) != data.rows)
        return Status::InvalidData(source, ": ", what, " column '", col.name, "' has ", col.cells.size(),
                                   " values; it must have one value per sample of the input (", data.rows, ")");
      for (int64_t s = 0; s < n; ++s) {
        const int64_t r = row_of(s);
        const std::string& tok = col.cells[static_cast<size_t>(r)];
        if (tok.empty() || std::any_of(tok.begin(), tok.end(), [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); }))
          return Status::InvalidData(source, " row ", r + 1, ": ", what, " '", col.name, "' value '", tok,
                                     "' cannot be empty or hold spaces (None or NaN is missing)");
        STRATA_RETURN_NOT_OK(b.put_cell(c, s, tok, r + 1));
      }
      continue;
    }
    // A phenotype of 0/1 values only (over every row, as the table holds it) is case/control.
    bool zero_one = options.phenotypes, any = false;
    for (int64_t r = 0; r < data.rows && zero_one; ++r) {
      const double v = col.values[r * col.stride];
      if (std::isnan(v)) continue;
      any = true;
      zero_one = v == 0.0 || v == 1.0;
    }
    if (zero_one && any) b.set_zero_one(c);
    for (int64_t s = 0; s < n; ++s) {
      const int64_t r = row_of(s);
      STRATA_RETURN_NOT_OK(b.put_number(c, s, col.values[r * col.stride], r + 1));
    }
  }
  return b.finish();
}

}  // namespace strata::genomics
