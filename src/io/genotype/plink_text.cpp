// PLINK 1 text companions: `.fam` (samples) and `.bim` (variants) parsing, `.fam` formatting.
#include <charconv>
#include <filesystem>
#include <string>
#include <unordered_map>

#include "io/genotype/sample_ids_internal.hpp"
#include "io/genotype/text_reader_internal.hpp"
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

Result<SampleInfo> read_fam(const std::string& path) {
  detail::LineReader r;
  STRATA_RETURN_NOT_OK(r.open(path));
  SampleInfo s;
  std::string_view line;
  std::string_view tok[6];
  // plink2 rejects a repeated sample ID (FID and IID together: IIDs may repeat across families).
  std::vector<std::string> keys;
  std::vector<int64_t> line_of;
  while (r.next(line)) {
    if (detail::is_blank(line)) continue;
    if (line.find('\0') != std::string_view::npos)
      return Status::Corrupt(path, " line ", r.line_no(), ": contains a NUL byte (not a text .fam file?)");
    const int n = detail::split_ws(line, tok, 6);
    if (n != 6) {
      return Status::Corrupt(path, " line ", r.line_no(), ": expected 6 columns (FID IID father mother sex phenotype), found ",
                             n > 6 ? "more than 6" : std::to_string(n));
    }
    keys.push_back(str_cat(tok[0], '\t', tok[1]));
    line_of.push_back(r.line_no());
    s.family_id.emplace_back(tok[0]);
    s.id.emplace_back(tok[1]);
    s.paternal_id.emplace_back(tok[2]);
    s.maternal_id.emplace_back(tok[3]);
    // PLINK reads any sex token other than 1/2 as unknown.
    s.sex.push_back(tok[4] == "1" ? 1 : tok[4] == "2" ? 2 : 0);
    s.phenotype.emplace_back(tok[5]);
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
  while (r.next(line)) {
    if (detail::is_blank(line)) continue;
    if (line.find('\0') != std::string_view::npos)
      return Status::Corrupt(path, " line ", r.line_no(), ": contains a NUL byte (not a text .bim file?)");
    const int n = detail::split_ws(line, tok, 6);
    if (n != 6) {
      return Status::Corrupt(path, " line ", r.line_no(), ": expected 6 columns (chrom id cM position A1 A2), found ",
                             n > 6 ? "more than 6" : std::to_string(n));
    }
    auto cm = parse_double(tok[2]);
    if (!cm.ok()) return Status::Corrupt(path, " line ", r.line_no(), ": cM column '", tok[2], "' is not a number");
    auto pos = parse_int(tok[3]);
    if (!pos.ok()) return Status::Corrupt(path, " line ", r.line_no(), ": position '", tok[3], "' is not an integer");
    std::string chrom(tok[0]);
    auto it = contig_index.find(chrom);
    if (it == contig_index.end()) {
      if (t.contigs.size() >= static_cast<size_t>(INT32_MAX)) return Status::Unsupported(path, ": too many contigs");
      it = contig_index.emplace(chrom, static_cast<int32_t>(t.contigs.size())).first;
      t.contigs.push_back(chrom);
    }
    v.contig.push_back(it->second);
    v.id.emplace_back(tok[1]);
    v.cm.push_back(*cm);
    v.position.push_back(*pos);
    v.alt.emplace_back(tok[4]);  // A1 = ALT
    v.ref.emplace_back(tok[5]);  // A2 = REF
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
