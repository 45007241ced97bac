// Selection inputs: sample and variant ID files, `--chr` lists, and the option checks.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string_view>

#include "io/genotype/text_reader_internal.hpp"
#include "strata/genomics/prune.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/chromosome.hpp"

namespace strata::genomics {
namespace {

std::vector<std::string_view> tokens(std::string_view line) { return io::detail::split_all(line); }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

std::string_view strip_chr(std::string_view s) {
  if (s.size() > 3 && iequals(s.substr(0, 3), "chr")) s.remove_prefix(3);
  return s;
}

Status bad_byte(const io::detail::LineReader& r, std::string_view line) {
  if (line.find('\0') != std::string_view::npos)
    return Status::Corrupt(r.path(), " line ", r.line_no(), ": contains a NUL byte (not a text ID file?)");
  return Status::OK();
}

}  // namespace

std::string sample_key(const io::SampleInfo& s, int64_t i) {
  const auto k = static_cast<size_t>(i);
  const std::string fid = k < s.family_id.size() && !s.family_id[k].empty() ? s.family_id[k] : std::string("0");
  const std::string iid = k < s.id.size() ? s.id[k] : std::to_string(i);
  return fid + '\t' + iid;
}

Result<std::vector<std::string>> read_sample_id_file(const std::string& path) {
  io::detail::LineReader r;
  STRATA_RETURN_NOT_OK(r.open(path, /*allow_pipe=*/true));
  std::vector<std::string> keys;
  // Column positions from a `#FID IID` / `#IID` header; -1 = decide per line.
  int fid_col = -1, iid_col = -1;
  bool first = true;
  std::string_view line;
  while (r.next(line)) {
    STRATA_RETURN_NOT_OK(bad_byte(r, line));
    const auto t = tokens(line);
    if (t.empty()) continue;
    if (first && (t[0] == "#FID" || t[0] == "#IID")) {
      first = false;
      for (size_t c = 0; c < t.size(); ++c) {
        std::string_view name = c == 0 ? t[c].substr(1) : t[c];
        if (name == "FID") fid_col = static_cast<int>(c);
        if (name == "IID") iid_col = static_cast<int>(c);
      }
      if (iid_col < 0)
        return Status::Corrupt(path, " line ", r.line_no(), ": the header names no IID column");
      continue;
    }
    first = false;
    if (t[0].front() == '#') continue;  // a comment
    std::string_view fid = "0", iid;
    if (iid_col >= 0) {
      const int need = std::max(iid_col, fid_col) + 1;
      if (static_cast<int>(t.size()) < need)
        return Status::Corrupt(path, " line ", r.line_no(), ": expected at least ", need, " columns (", fid_col >= 0 ? "FID IID" : "IID",
                               " as the header says), found ", t.size());
      iid = t[static_cast<size_t>(iid_col)];
      if (fid_col >= 0) fid = t[static_cast<size_t>(fid_col)];
    } else if (t.size() == 1) {
      iid = t[0];
    } else {
      fid = t[0];
      iid = t[1];
    }
    keys.push_back(std::string(fid) + '\t' + std::string(iid));
  }
  STRATA_RETURN_NOT_OK(r.status());
  return keys;
}

Result<std::vector<std::string>> read_variant_id_file(const std::string& path) {
  io::detail::LineReader r;
  STRATA_RETURN_NOT_OK(r.open(path, /*allow_pipe=*/true));
  std::vector<std::string> ids;
  std::string_view line;
  while (r.next(line)) {
    STRATA_RETURN_NOT_OK(bad_byte(r, line));
    for (std::string_view t : tokens(line)) ids.emplace_back(t);
  }
  STRATA_RETURN_NOT_OK(r.status());
  return ids;
}

int chromosome_code(const std::string& name) { return io::chromosome_code(name); }

Result<ChromosomeSet> ChromosomeSet::parse(const std::string& list) {
  ChromosomeSet set;
  std::string norm = list;
  std::replace(norm.begin(), norm.end(), ',', ' ');
  const auto items = tokens(norm);
  if (items.empty()) return Status::Invalid("--chr: the list is empty");
  for (std::string_view item : items) {
    const size_t dash = item.find('-', 1);
    if (dash != std::string_view::npos) {
      const std::string a(item.substr(0, dash)), b(item.substr(dash + 1));
      const int ca = chromosome_code(a), cb = chromosome_code(b);
      if (ca < 0 || cb < 0)
        return Status::Invalid("--chr: range '", item, "' must join two chromosome numbers or X/Y/XY/MT");
      if (cb < ca) return Status::Invalid("--chr: range '", item, "' ends before it starts");
      set.ranges_.emplace_back(ca, cb);
    } else {
      const int c = chromosome_code(std::string(item));
      if (c >= 0) set.ranges_.emplace_back(c, c);
      else set.names_.emplace_back(strip_chr(item));
    }
  }
  return set;
}

bool ChromosomeSet::contains(const std::string& contig) const {
  const int c = chromosome_code(contig);
  if (c >= 0) {
    for (const auto& [a, b] : ranges_)
      if (c >= a && c <= b) return true;
    return false;
  }
  const std::string_view s = strip_chr(contig);
  return std::find(names_.begin(), names_.end(), s) != names_.end();
}

int64_t ChromosomeSet::size() const {
  std::vector<int> codes;
  for (const auto& [a, b] : ranges_)
    for (int c = a; c <= b; ++c) codes.push_back(c);
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  std::vector<std::string> names = names_;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return static_cast<int64_t>(codes.size() + names.size());
}

bool SelectionOptions::any() const {
  return !keep.empty() || !remove.empty() || !extract.empty() || !exclude.empty() || !chr.empty() ||
         from_bp || to_bp || mind || geno || hwe || maf || autosome || autosome_xy || !prune.empty();
}

std::vector<std::string> SelectionOptions::files() const {
  std::vector<std::string> out;
  for (const auto* v : {&keep, &remove, &extract, &exclude}) out.insert(out.end(), v->begin(), v->end());
  return out;
}

Status validate_selection(const SelectionOptions& o) {
  auto in01 = [](const std::optional<double>& v, const char* flag, double hi, const char* range) -> Status {
    if (v && !(*v >= 0.0 && *v <= hi)) return Status::Invalid(flag, " must be ", range, ", got ", *v);
    return Status::OK();
  };
  STRATA_RETURN_NOT_OK(in01(o.maf, "--maf", 0.5, "a number from 0 to 0.5"));
  STRATA_RETURN_NOT_OK(in01(o.geno, "--geno", 1.0, "a number from 0 to 1"));
  STRATA_RETURN_NOT_OK(in01(o.mind, "--mind", 1.0, "a number from 0 to 1"));
  if (o.hwe && !(*o.hwe > 0.0 && *o.hwe < 1.0))
    return Status::Invalid("--hwe must be a p-value above 0 and below 1, got ", *o.hwe);
  for (const auto& bp : {o.from_bp, o.to_bp})
    if (bp && !std::isfinite(*bp)) return Status::Invalid("--from-bp/--to-bp must be finite numbers");
  if (!o.chr.empty()) {
    STRATA_ASSIGN_OR_RETURN(ChromosomeSet set, ChromosomeSet::parse(o.chr));
    if ((o.from_bp || o.to_bp) && set.size() != 1)
      return Status::Invalid("--from-bp/--to-bp need --chr naming exactly one chromosome, got --chr '", o.chr, "'");
  } else if (o.from_bp || o.to_bp) {
    return Status::Invalid("--from-bp/--to-bp need --chr naming exactly one chromosome");
  }
  if (o.from_bp && o.to_bp && *o.to_bp < *o.from_bp)
    return Status::Invalid("--to-bp (", *o.to_bp, ") must not be below --from-bp (", *o.from_bp, ")");
  if (!o.prune.empty()) {
    // The window's errors, named for the flag the user gave.
    Result<PruneWindow> w = parse_indep_pairwise(o.prune);
    constexpr std::string_view kFlag = "--indep-pairwise";
    const std::string& why = w.status().message();
    if (!w.ok()) return Status::Invalid("--prune", why.starts_with(kFlag) ? why.substr(kFlag.size()) : ": " + why);
  }
  return Status::OK();
}

}  // namespace strata::genomics
