// PLINK 1 text companions: `.fam` (samples) and `.bim` (variants) parsing, `.fam` formatting.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <string>
#include <unordered_map>

#include "io/genotype/sample_ids_internal.hpp"
#include "io/genotype/text_reader_internal.hpp"
#include "strata/io/chromosome.hpp"
#include "strata/io/plink.hpp"

namespace strata::io {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<int64_t> parse_int(std::string_view tok) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc() || p != tok.data() + tok.size()) return Status::Corrupt("not an integer");
  return v;
}

Result<double> parse_double(std::string_view tok) {
  // from_chars for double is available in GCC 11+; strtod would accept trailing garbage.
  double v = 0;
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc() || p != tok.data() + tok.size()) return Status::Corrupt("not a number");
  return v;
}

}  // namespace

PlinkPaths plink_paths(const std::string& prefix_or_path) {
  std::string prefix = prefix_or_path;
  for (const char* ext : {".bed", ".bim", ".fam"}) {
    if (ends_with(prefix, ext)) {
      prefix.resize(prefix.size() - 4);
      break;
    }
  }
  return {prefix + ".bed", prefix + ".bim", prefix + ".fam"};
}

bool is_plink_path(const std::string& path) {
  std::error_code ec;
  if (ends_with(path, ".bed") || ends_with(path, ".bim") || ends_with(path, ".fam")) return true;
  return std::filesystem::is_regular_file(path + ".bed", ec);
}

namespace {

// The columns of a `.fam` line: plain PLINK 1 order, or the order a `#FID`/`#IID` header names
// (plink2 reads a .psam-style header in a `.fam`). -1: absent (plink2's default is used).
struct FamColumns {
  int fid = 0, iid = 1, pat = 2, mat = 3, sex = 4, pheno = 5;
  int count = 6;         // columns per line
  bool header = false;   // lines must have exactly `count` columns
};

Result<FamColumns> parse_fam_header(const std::string& path, int64_t line_no, std::string_view line) {
  FamColumns c{-1, -1, -1, -1, -1, -1, 0, true};
  line.remove_prefix(1);  // '#'
  const std::vector<std::string_view> names = detail::split_all(line);
  for (size_t k = 0; k < names.size(); ++k) {
    const int idx = static_cast<int>(k);
    int* slot = names[k] == "FID" ? &c.fid : names[k] == "IID" ? &c.iid : names[k] == "PAT" ? &c.pat
              : names[k] == "MAT" ? &c.mat : names[k] == "SEX" ? &c.sex : nullptr;
    if (slot) {
      if (*slot >= 0) return Status::Corrupt(path, " line ", line_no, ": header names column '", names[k], "' twice");
      *slot = idx;
    } else if (c.pheno < 0 && names[k] != "SID") {  // SID: a .psam source ID, not a phenotype
      c.pheno = idx;  // the first other column is the phenotype (PHENO1 in plink2's files)
    }
  }
  if (c.iid < 0)
    return Status::Corrupt(path, " line ", line_no, ": a header line must name an IID column (#FID IID ... or #IID ...)");
  if (names.size() > 4096) return Status::Corrupt(path, " line ", line_no, ": header has more than 4096 columns");
  c.count = static_cast<int>(names.size());
  return c;
}

}  // namespace

Result<SampleInfo> read_fam(const std::string& path) {
  detail::LineReader r;
  STRATA_RETURN_NOT_OK(r.open(path));
  SampleInfo s;
  std::string_view line;
  std::vector<std::string_view> tok(8);
  FamColumns cols;
  bool data_seen = false;
  int64_t blank_line = 0;  // the last blank line seen (plink2 refuses blank lines between samples)
  // plink2 rejects a repeated sample ID (FID and IID together: IIDs may repeat across families).
  std::vector<std::string> keys;
  std::vector<int64_t> line_of;
  while (r.next(line)) {
    if (detail::is_blank(line)) {
      blank_line = r.line_no();
      continue;
    }
    if (line.find('\0') != std::string_view::npos)
      return Status::Corrupt(path, " line ", r.line_no(), ": contains a NUL byte (not a text .fam file?)");
    if (blank_line > 0 && (data_seen || cols.header))
      return Status::Corrupt(path, " line ", blank_line, ": empty line between samples (plink2 refuses it too)");
    if (line[0] == '#') {
      // `##` comment lines may open the file; then one `#FID`/`#IID` header. Anything else that
      // starts with '#' is refused: it would otherwise become a sample and shift every ID.
      if (!data_seen && !cols.header && line.size() > 1 && line[1] == '#') continue;
      if (!data_seen && !cols.header && (line.substr(0, 4) == "#FID" || line.substr(0, 4) == "#IID")) {
        STRATA_ASSIGN_OR_RETURN(cols, parse_fam_header(path, r.line_no(), line));
        tok.resize(static_cast<size_t>(cols.count) + 1);
        continue;
      }
      return Status::Corrupt(path, " line ", r.line_no(), ": a line starting with '#' ",
                             data_seen ? "after the first sample" : "that is not a #FID/#IID header",
                             " (a header must be the first line and name IID)");
    }
    const int want = cols.count;
    const int n = detail::split_ws(line, tok.data(), static_cast<int>(tok.size()));
    if (cols.header ? n != want : n < want) {
      if (cols.header)
        return Status::Corrupt(path, " line ", r.line_no(), ": expected ", want, " columns (as the header names), found ",
                               n > want ? "more" : std::to_string(n));
      return Status::Corrupt(path, " line ", r.line_no(),
                             ": expected 6 columns (FID IID father mother sex phenotype), found ", n);
    }
    data_seen = true;
    auto col = [&](int i, std::string_view dflt) { return i >= 0 ? tok[static_cast<size_t>(i)] : dflt; };
    const std::string_view fid = col(cols.fid, "0"), iid = col(cols.iid, "0"), sex = col(cols.sex, "0");
    keys.push_back(str_cat(fid, '\t', iid));
    line_of.push_back(r.line_no());
    s.family_id.emplace_back(fid);
    s.id.emplace_back(iid);
    s.paternal_id.emplace_back(col(cols.pat, "0"));
    s.maternal_id.emplace_back(col(cols.mat, "0"));
    // PLINK reads any sex token other than 1/2 as unknown.
    s.sex.push_back(sex == "1" ? 1 : sex == "2" ? 2 : 0);
    s.phenotype.emplace_back(col(cols.pheno, "-9"));
  }
  STRATA_RETURN_NOT_OK(r.status());
  if (const auto d = detail::first_duplicate(keys)) {
    const size_t j = d->second;
    return Status::InvalidData(path, " line ", line_of[j], ": duplicate sample ID '", s.id[j], "' (FID '",
                               s.family_id[j], "'), first on line ", line_of[d->first], "; sample IDs must be unique");
  }
  return s;
}

Result<BimTable> read_bim(const std::string& path) {
  detail::LineReader r;
  STRATA_RETURN_NOT_OK(r.open(path));
  BimTable t;
  std::unordered_map<std::string, int32_t> contig_index;
  std::string_view line;
  std::string_view tok[6];
  VariantInfo& v = t.variants;
  int64_t blank_line = 0;
  while (r.next(line)) {
    if (detail::is_blank(line)) {
      blank_line = r.line_no();
      continue;
    }
    if (line.find('\0') != std::string_view::npos)
      return Status::Corrupt(path, " line ", r.line_no(), ": contains a NUL byte (not a text .bim file?)");
    if (blank_line > 0 && v.size() > 0)
      return Status::Corrupt(path, " line ", blank_line, ": empty line between variants (plink2 refuses it too)");
    // 6 columns (chrom id cM position A1 A2), or 5 without the cM column; plink2 ignores more.
    const int n = std::min(detail::split_ws(line, tok, 6), 6);
    if (n < 5)
      return Status::Corrupt(path, " line ", r.line_no(), ": expected 6 columns (chrom id cM position A1 A2) or 5 "
                             "(no cM), found ", n);
    const int o = n == 5 ? -1 : 0;  // offset of the columns after cM
    double cm_value = 0.0;
    if (n == 6) {
      auto cm = parse_double(tok[2]);
      if (!cm.ok() || !std::isfinite(*cm))
        return Status::Corrupt(path, " line ", r.line_no(), ": cM column '", tok[2], "' is not a finite number");
      cm_value = *cm;
    }
    auto pos = parse_int(tok[3 + o]);
    if (!pos.ok()) return Status::Corrupt(path, " line ", r.line_no(), ": position '", tok[3 + o], "' is not an integer");
    if (*pos > kMaxBimPosition)
      return Status::Corrupt(path, " line ", r.line_no(), ": position ", *pos, " is above plink2's limit (",
                             kMaxBimPosition, ")");
    if (*pos < 0) ++t.negative_positions;
    const int code = chromosome_code(tok[0]);
    if (code > 26)
      return Status::Corrupt(path, " line ", r.line_no(), ": chromosome code '", tok[0], "' is not a human chromosome "
                             "(1-22, X/23, Y/24, XY/25, MT/26; other contigs need names that are not numbers)");
    std::string chrom(tok[0]);
    auto it = contig_index.find(chrom);
    if (it == contig_index.end()) {
      if (t.contigs.size() >= static_cast<size_t>(INT32_MAX)) return Status::Unsupported(path, ": too many contigs");
      it = contig_index.emplace(chrom, static_cast<int32_t>(t.contigs.size())).first;
      t.contigs.push_back(chrom);
    }
    v.contig.push_back(it->second);
    v.id.emplace_back(tok[1]);
    v.cm.push_back(cm_value);
    v.position.push_back(*pos);
    v.alt.emplace_back(tok[4 + o]);  // A1 = ALT
    v.ref.emplace_back(tok[5 + o]);  // A2 = REF
  }
  STRATA_RETURN_NOT_OK(r.status());
  return t;
}

std::string format_fam_line(const SampleInfo& s, int64_t i) {
  auto col = [i](const std::vector<std::string>& c, const char* dflt) -> std::string {
    return i < static_cast<int64_t>(c.size()) && !c[i].empty() ? c[i] : std::string(dflt);
  };
  std::string sex = "0";
  if (i < static_cast<int64_t>(s.sex.size()) && (s.sex[i] == 1 || s.sex[i] == 2)) sex = std::to_string(s.sex[i]);
  std::string out = col(s.family_id, "0");
  out += '\t';
  out += col(s.id, "0");
  out += '\t';
  out += col(s.paternal_id, "0");
  out += '\t';
  out += col(s.maternal_id, "0");
  out += '\t';
  out += sex;
  out += '\t';
  out += col(s.phenotype, "-9");
  return out;
}

}  // namespace strata::io
