// PLINK 1 text companions: `.fam` (samples) and `.bim` (variants) parsing, `.fam` formatting.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <unordered_map>

#include "io/genotype/plink_numbers_internal.hpp"
#include "io/genotype/sample_ids_internal.hpp"
#include "io/genotype/text_reader_internal.hpp"
#include "strata/core/log.hpp"
#include "strata/io/chromosome.hpp"
#include "strata/io/plink.hpp"

namespace strata::io {
namespace {


}  // namespace

PlinkPaths plink_paths(const std::string& prefix_or_path) {
  std::string prefix = prefix_or_path;
  for (const char* ext : {".bed", ".bim", ".fam"}) {
    if (prefix.ends_with(ext)) {
      prefix.resize(prefix.size() - 4);
      break;
    }
  }
  return {prefix + ".bed", prefix + ".bim", prefix + ".fam"};
}

bool is_plink_path(const std::string& path) {
  std::error_code ec;
  if (path.ends_with(".bed") || path.ends_with(".bim") || path.ends_with(".fam")) return true;
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

// The .fam phenotype is kept as text, but refused where plink2 refuses it: a number with other
// characters after it ("1.5x", "0x1p3"), a number too large ("1e999"), or a column that mixes
// category names with numbers/NA (the first sample decides which the column holds).
struct FamPhenotypeCheck {
  bool started = false, categorical = false;
  int64_t first_line = 0;
  std::string first;
  Status add(const std::string& path, int64_t line_no, std::string_view tok) {
    if (!started) {
      started = true;
      categorical = detail::is_plink_category_word(tok);
      first_line = line_no;
      first = std::string(tok);
    }
    const detail::ScannedNumber x = detail::scan_plink_number(tok);
    if (x.kind == detail::NumberScan::kTrailing || x.kind == detail::NumberScan::kOverflow)
      return Status::Corrupt(path, " line ", line_no, ": phenotype '", tok, "' is not a number",
                             x.kind == detail::NumberScan::kOverflow ? " (too large)" : "",
                             " (missing is -9 or NA; plink2 refuses it too)");
    const bool category = x.kind == detail::NumberScan::kNotNumber && !detail::is_plink_nan_word(tok);
    if (category != categorical && line_no == first_line)  // "-nan": numeric-looking, yet not a number
      return Status::Corrupt(path, " line ", line_no, ": phenotype '", tok, "' is not a number (missing is -9 or NA; "
                             "plink2 refuses it too)");
    if (category != categorical)
      return Status::Corrupt(path, " line ", line_no, ": phenotype '", tok, "' is ",
                             category ? "a category name" : "a number or NA", ", while line ", first_line, "'s '",
                             first, "' is ", categorical ? "a category name" : "a number or NA",
                             " (plink2 refuses a column that mixes them)");
    return Status::OK();
  }
};

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
  FamPhenotypeCheck pheno_check;
  while (r.next(line)) {
    if (detail::is_blank(line)) {
      blank_line = r.line_no();
      continue;
    }
    if (line.find('\0') != std::string_view::npos)
      return Status::Corrupt(path, " line ", r.line_no(), ": contains a NUL byte (not a text .fam file?)");
    if (blank_line > 0 && (data_seen || cols.header))
      return Status::Corrupt(path, " line ", blank_line, ": empty line between samples (plink2 refuses it too)");
    if (line[line.find_first_not_of(" \t")] == '#') {
      // plink2: '#' lines may open the file (comments); the first `#FID`/`#IID` one is the
      // header. After the header or a sample a '#' line is refused (it is not a sample).
      if (data_seen || cols.header)
        return Status::Corrupt(path, " line ", r.line_no(), ": a line starting with '#' after the ",
                               data_seen ? "first sample" : "#FID/#IID header", " (plink2 refuses it too)");
      const std::string_view rest = line.substr(line.find('#') + 1);
      const std::string_view word = rest.substr(0, rest.find_first_of(" \t"));
      if (word == "FID" || word == "IID") {
        STRATA_ASSIGN_OR_RETURN(cols, parse_fam_header(path, r.line_no(), line.substr(line.find('#'))));
        tok.resize(static_cast<size_t>(cols.count) + 1);
      }
      continue;
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
    std::string key;
    key.reserve(fid.size() + 1 + iid.size());
    key.append(fid).append(1, '\t').append(iid);
    keys.push_back(std::move(key));
    line_of.push_back(r.line_no());
    s.family_id.emplace_back(fid);
    s.id.emplace_back(iid);
    s.paternal_id.emplace_back(col(cols.pat, "0"));
    s.maternal_id.emplace_back(col(cols.mat, "0"));
    s.sex.push_back(static_cast<int8_t>(detail::plink_sex_code(sex)));  // 1/M/m, 2/F/f; else unknown
    if (cols.pheno >= 0) STRATA_RETURN_NOT_OK(pheno_check.add(path, r.line_no(), tok[static_cast<size_t>(cols.pheno)]));
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

namespace {

// The columns of a `.bim` line: chrom id cM pos A1 A2, 5 columns without cM, or the order a
// `#CHROM` header names (plink2 reads a .pvar-style header in a `.bim`). -1: absent.
struct BimColumns {
  int chrom = 0, id = 1, cm = 2, pos = 3, alt = 4, ref = 5;
  int needed = 5;  // columns a line must have (the highest named one + 1)
  bool header = false;
};

Result<BimColumns> parse_bim_header(const std::string& path, int64_t line_no, std::string_view line) {
  BimColumns c{-1, -1, -1, -1, -1, -1, 0, true};
  const std::vector<std::string_view> names = detail::split_all(line.substr(1));
  for (size_t k = 0; k < names.size() && k < 64; ++k) {
    int* slot = names[k] == "CHROM" ? &c.chrom : names[k] == "ID" ? &c.id : names[k] == "CM" ? &c.cm
              : names[k] == "POS" ? &c.pos : names[k] == "ALT" ? &c.alt : names[k] == "REF" ? &c.ref : nullptr;
    if (!slot) continue;  // QUAL, FILTER, INFO, ...: not read
    if (*slot >= 0) return Status::Corrupt(path, " line ", line_no, ": header names column '", names[k], "' twice");
    *slot = static_cast<int>(k);
    c.needed = std::max(c.needed, static_cast<int>(k) + 1);
  }
  if (c.chrom < 0 || c.pos < 0 || c.id < 0 || c.ref < 0 || c.alt < 0)
    return Status::Corrupt(path, " line ", line_no, ": a #CHROM header must name CHROM, POS, ID, REF and ALT");
  return c;
}

}  // namespace

Result<BimTable> read_bim(const std::string& path) {
  detail::LineReader r;
  STRATA_RETURN_NOT_OK(r.open(path));
  BimTable t;
  std::unordered_map<std::string, int32_t> contig_index;
  std::string_view line;
  std::vector<std::string_view> tok(7);
  VariantInfo& v = t.variants;
  BimColumns cols;
  int64_t blank_line = 0;
  int64_t notation = 0, notation_line = 0;  // positions written as 1e+05 / 100.0 (see below)
  std::string notation_example;
  int32_t run_contig = 0;
  // Columns grow once: room for the lines the file can hold at ~20 bytes a line (a .bim line
  // has 6 columns; the estimate only saves regrowing, it limits nothing).
  if (const int64_t bytes = r.file_bytes(); bytes > 0) v.reserve(std::min<int64_t>(bytes / 20 + 16, int64_t{1} << 26));
  while (r.next(line)) {
    if (detail::is_blank(line)) {
      blank_line = r.line_no();
      continue;
    }
    if (line.find('\0') != std::string_view::npos)
      return Status::Corrupt(path, " line ", r.line_no(), ": contains a NUL byte (not a text .bim file?)");
    if (blank_line > 0 && v.size() > 0)
      return Status::Corrupt(path, " line ", blank_line, ": empty line between variants (plink2 refuses it too)");
    if (r.line_no() == 1 && line.substr(0, 3) == "\xEF\xBB\xBF")
      return Status::Corrupt(path, " line 1: starts with a UTF-8 byte order mark (plink2 reads it as part of the "
                             "chromosome name); save the file without it");
    const size_t first = line.find_first_not_of(" \t");
    if (line[first] == '#') {
      // plink2: '#' lines may open the file (comments), one of them a `#CHROM` header.
      if (v.size() > 0 || cols.header)
        return Status::Corrupt(path, " line ", r.line_no(), ": a line starting with '#' after the ",
                               cols.header ? "#CHROM header" : "first variant", " (plink2 refuses it too)");
      const std::string_view rest = line.substr(first + 1);
      if (rest.substr(0, rest.find_first_of(" \t")) == "CHROM") {
        STRATA_ASSIGN_OR_RETURN(cols, parse_bim_header(path, r.line_no(), line.substr(first)));
        tok.resize(static_cast<size_t>(cols.needed) + 1);
      }
      continue;
    }
    const int max_cols = static_cast<int>(tok.size());
    const int n = std::min(detail::split_ws(line, tok.data(), max_cols), max_cols);
    if (cols.header) {
      if (n < cols.needed)
        return Status::Corrupt(path, " line ", r.line_no(), ": expected ", cols.needed,
                               " columns (as the #CHROM header names), found ", n);
    } else if (n < 5) {
      return Status::Corrupt(path, " line ", r.line_no(), ": expected 6 columns (chrom id cM position A1 A2) or 5 "
                             "(no cM), found ", n);
    }
    // 6 columns (chrom id cM position A1 A2), or 5 without the cM column; plink2 ignores more.
    if (!cols.header) cols = n == 5 ? BimColumns{0, 1, -1, 2, 3, 4, 5, false} : BimColumns{};
    double cm_value = 0.0;
    if (cols.cm >= 0) {
      const std::string_view cm = tok[static_cast<size_t>(cols.cm)];
      const detail::ScannedNumber x = detail::scan_plink_number(cm);
      if (x.kind != detail::NumberScan::kNumber)
        return Status::Corrupt(path, " line ", r.line_no(), ": cM column '", cm, "' is not ",
                               x.kind == detail::NumberScan::kOverflow ? "a finite number (too large)"
                                                                       : "a decimal number (plink2 reads 0.5, .5, "
                                                                         "1e-3; not inf, nan, hex or text)");
      cm_value = x.value;
    }
    const std::string_view pos_tok = tok[static_cast<size_t>(cols.pos)];
    const detail::ScannedPosition pos = detail::scan_plink_position(pos_tok);
    switch (pos.kind) {
      case detail::PositionScan::kInteger: break;
      case detail::PositionScan::kNotation:
        if (pos.value != pos.plink2_value && notation++ == 0) {
          notation_line = r.line_no();
          notation_example = std::string(pos_tok);
        }
        break;
      case detail::PositionScan::kOutOfRange:
        return Status::Corrupt(path, " line ", r.line_no(), ": position '", pos_tok, "' is beyond plink2's limit (",
                               kMaxBimPosition, ")");
      case detail::PositionScan::kNotWhole:
        return Status::Corrupt(path, " line ", r.line_no(), ": position '", pos_tok, "' is not a whole number");
      case detail::PositionScan::kNotNumber:
        return Status::Corrupt(path, " line ", r.line_no(), ": position '", pos_tok, "' is not an integer");
    }
    if (pos.value < 0) ++t.negative_positions;
    const std::string_view chrom_tok = tok[static_cast<size_t>(cols.chrom)];
    if (v.contig.empty() || chrom_tok != t.contigs[static_cast<size_t>(v.contig.back())]) {
      // A new run of lines on one contig (sorted files have a few dozen runs).
      const int code = chromosome_code(chrom_tok);
      if (code > 26)
        return Status::Corrupt(path, " line ", r.line_no(), ": chromosome code '", chrom_tok, "' is not a human "
                               "chromosome (1-22, X/23, Y/24, XY/25, MT/26; other contigs need names that are not "
                               "numbers)");
      std::string chrom(chrom_tok);
      auto it = contig_index.find(chrom);
      if (it == contig_index.end()) {
        if (t.contigs.size() >= static_cast<size_t>(INT32_MAX)) return Status::Unsupported(path, ": too many contigs");
        it = contig_index.emplace(chrom, static_cast<int32_t>(t.contigs.size())).first;
        t.contigs.push_back(chrom);
      }
      run_contig = it->second;
    }
    v.contig.push_back(run_contig);
    v.id.emplace_back(tok[static_cast<size_t>(cols.id)]);
    v.cm.push_back(cm_value);
    v.position.push_back(pos.value);
    v.alt.emplace_back(tok[static_cast<size_t>(cols.alt)]);  // A1 = ALT
    v.ref.emplace_back(tok[static_cast<size_t>(cols.ref)]);  // A2 = REF
  }
  STRATA_RETURN_NOT_OK(r.status());
  // R writes 100000 as "1e+05" (pandas a column with a gap as "100.0"): read as the number it is.
  // plink2 reads only the leading digits ("1e+05" → 1), so say where the two differ.
  if (notation > 0)
    log_warning(path, ": ", notation, " position", notation == 1 ? " is" : "s are",
                " written in decimal or exponent notation (first '", notation_example, "' on line ", notation_line,
                "); read as ", notation == 1 ? "its value" : "their values",
                ", where plink2 reads only the leading digits");
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
