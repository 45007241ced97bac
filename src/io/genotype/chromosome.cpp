// plink2's human chromosome model: codes, kinds and output spelling of contig names.
#include "strata/io/chromosome.hpp"

#include <charconv>
#include <string>

#include "strata/io/genotype.hpp"

namespace strata::io {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = (a[i] >= 'A' && a[i] <= 'Z') ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    const char y = (b[i] >= 'A' && b[i] <= 'Z') ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) return false;
  }
  return true;
}

std::string_view strip_chr(std::string_view s) {
  if (s.size() > 3 && iequals(s.substr(0, 3), "chr")) s.remove_prefix(3);
  return s;
}

}  // namespace

int chromosome_code(std::string_view name) {
  const std::string_view s = strip_chr(name);
  if (iequals(s, "X")) return 23;
  if (iequals(s, "Y")) return 24;
  if (iequals(s, "XY")) return 25;
  if (iequals(s, "MT") || iequals(s, "M")) return 26;
  // Oxford software writes X, Y and MT as 0X, 0Y, 0M; plink2 reads them so.
  if (s.size() == 2 && s[0] == '0' && !(s[1] >= '0' && s[1] <= '9')) {
    const int letter = chromosome_code(s.substr(1));
    if (letter == 23 || letter == 24 || letter == 26) return letter;
  }
  // Digits only: from_chars would take a sign, and "1e3" or " 1" are not chromosome numbers.
  if (s.empty() || s.size() > 9) return -1;
  for (char c : s)
    if (c < '0' || c > '9') return -1;
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

ChromosomeKind chromosome_kind(std::string_view name) {
  const int c = chromosome_code(name);
  if (c >= 1 && c <= 22) return ChromosomeKind::kAutosome;
  switch (c) {
    case 23: return ChromosomeKind::kX;
    case 24: return ChromosomeKind::kY;
    case 25: return ChromosomeKind::kXY;
    case 26: return ChromosomeKind::kMT;
    default: return ChromosomeKind::kOther;
  }
}

bool has_haploid_contig(const GenotypeView& view) {
  for (const std::string& c : view.contigs())
    if (is_haploid_somewhere(chromosome_kind(c))) return true;
  return false;
}

Result<std::vector<ChromosomeKind>> variant_chromosome_kinds(const GenotypeView& view,
                                                             const std::vector<int64_t>* variants) {
  std::vector<ChromosomeKind> of_contig;
  bool mixed = false;
  for (const std::string& c : view.contigs()) {
    of_contig.push_back(chromosome_kind(c));
    mixed |= of_contig.back() != of_contig.front();
  }
  const int64_t count = variants ? static_cast<int64_t>(variants->size()) : view.num_variants();
  std::vector<ChromosomeKind> kind(static_cast<size_t>(count),
                                   of_contig.empty() ? ChromosomeKind::kOther : of_contig.front());
  if (!mixed || count == 0) return kind;
  const int64_t lo = variants ? variants->front() : 0, hi = variants ? variants->back() + 1 : count;
  STRATA_ASSIGN_OR_RETURN(VariantInfo vi, view.variants(lo, hi - lo));
  for (int64_t i = 0; i < count; ++i) {
    const int32_t c = vi.contig[static_cast<size_t>((variants ? (*variants)[static_cast<size_t>(i)] : i) - lo)];
    if (c >= 0 && c < static_cast<int32_t>(of_contig.size())) kind[static_cast<size_t>(i)] = of_contig[static_cast<size_t>(c)];
  }
  return kind;
}

std::string plink_chromosome_name(std::string_view name) {
  const int c = chromosome_code(name);
  if (c >= 1 && c <= 22) return std::to_string(c);
  switch (c) {
    case 23: return "X";
    case 24: return "Y";
    case 25: return "XY";
    case 26: return "MT";
    default: return std::string(name);
  }
}

}  // namespace strata::io
