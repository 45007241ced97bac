// The reference of `strata project`: reading P.eigenvec.var / P.afreq / P.eigenval, and
// matching a target's variants to its rows (ID, else CHROM:POS; alleles swapped or complemented).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "io/genotype/text_reader_internal.hpp"
#include "strata/genomics/project.hpp"
#include "strata/io/chromosome.hpp"

namespace strata::genomics {
namespace {

// Reference files are read with io::detail::LineReader as every text input is: regular files
// only, lines of at most 8 MiB; errors name the file, the line and the field.
Result<double> parse_double(std::string_view s, const io::detail::LineReader& in, std::string_view field) {
  if (s == "nan" || s == "NaN") return std::nan("");
  double v = 0.0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    return Status::Corrupt(in.path(), " line ", in.line_no(), ": ", field, " '", s, "' is not a number");
  return v;
}

Status open_reference_file(io::detail::LineReader& in, const std::string& path) {
  const Status st = in.open(path);
  if (st.code() == StatusCode::NotFound)
    return Status::NotFound(path, ": no such file (written by strata pca --out PREFIX)");
  return st;
}

// After the last line: the reader's error, or Corrupt when the file ends mid-line (strata pca
// ends every line; a cut at a field boundary would otherwise read as a shorter valid file).
Status check_ended(const io::detail::LineReader& in) {
  STRATA_RETURN_NOT_OK(in.status());
  if (!in.line_ended())
    return Status::Corrupt(in.path(), " line ", in.line_no(), ": no line end; the file is cut short");
  return Status::OK();
}

// The first line (the header): Corrupt when the file is empty.
Result<std::vector<std::string>> read_header(io::detail::LineReader& in) {
  std::string_view line;
  if (!in.next(line)) {
    STRATA_RETURN_NOT_OK(in.status());
    return Status::Corrupt(in.path(), ": empty file (no header line)");
  }
  std::vector<std::string> head;
  for (std::string_view f : io::detail::split_all(line)) head.emplace_back(f);
  return head;
}

Status read_eigenvec_var(const std::string& path, ProjectReference& r) {
  io::detail::LineReader in;
  STRATA_RETURN_NOT_OK(open_reference_file(in, path));
  STRATA_ASSIGN_OR_RETURN(const std::vector<std::string> head, read_header(in));
  if (head.size() < 5 || head[0] != "#CHROM" || head[1] != "ID" || head[2] != "REF" || head[3] != "ALT")
    return Status::Corrupt(path, " line 1: header is not #CHROM ID REF ALT PC1 ...");
  r.k = static_cast<int64_t>(head.size()) - 4;
  std::string_view line;
  while (in.next(line)) {
    if (line.empty()) continue;
    const auto cols = io::detail::split_all(line);
    if (static_cast<int64_t>(cols.size()) != r.k + 4)
      return Status::Corrupt(path, " line ", in.line_no(), ": ", cols.size(), " fields, the header has ", r.k + 4);
    r.chrom.emplace_back(cols[0]);
    r.id.emplace_back(cols[1]);
    r.ref.emplace_back(cols[2]);
    r.alt.emplace_back(cols[3]);
    for (size_t j = 4; j < cols.size(); ++j) {
      STRATA_ASSIGN_OR_RETURN(double w, parse_double(cols[j], in, head[j]));
      if (!std::isfinite(w))
        return Status::Corrupt(path, " line ", in.line_no(), ": ", head[j], " of variant ", cols[1], " is not finite");
      r.weights.push_back(w);
    }
  }
  STRATA_RETURN_NOT_OK(check_ended(in));
  if (r.id.empty()) return Status::Corrupt(path, ": no variant");
  return Status::OK();
}

Status read_afreq(const std::string& path, ProjectReference& r) {
  io::detail::LineReader in;
  STRATA_RETURN_NOT_OK(open_reference_file(in, path));
  STRATA_ASSIGN_OR_RETURN(const std::vector<std::string> head, read_header(in));
  int id = -1, ref = -1, alt = -1, freq = -1;
  for (size_t c = 0; c < head.size(); ++c) {
    if (head[c] == "ID") id = static_cast<int>(c);
    if (head[c] == "REF") ref = static_cast<int>(c);
    if (head[c] == "ALT") alt = static_cast<int>(c);
    if (head[c] == "ALT_FREQS") freq = static_cast<int>(c);
  }
  if (id < 0 || ref < 0 || alt < 0 || freq < 0)
    return Status::Corrupt(path, " line 1: header lacks ID, REF, ALT or ALT_FREQS");
  std::unordered_map<std::string, int64_t> row;
  row.reserve(r.id.size());
  for (int64_t i = 0; i < r.size(); ++i) row.emplace(r.id[static_cast<size_t>(i)], i);
  r.alt_freq.assign(r.id.size(), std::nan(""));
  std::vector<uint8_t> seen(r.id.size(), 0);
  const size_t need = static_cast<size_t>(std::max({id, ref, alt, freq})) + 1;
  std::string_view line;
  while (in.next(line)) {
    if (line.empty()) continue;
    ++r.grm_variants;
    const auto cols = io::detail::split_all(line);
    if (cols.size() < need)
      return Status::Corrupt(path, " line ", in.line_no(), ": ", cols.size(), " fields, the header needs ", need);
    const auto it = row.find(std::string(cols[static_cast<size_t>(id)]));
    if (it == row.end()) continue;
    const auto v = static_cast<size_t>(it->second);
    STRATA_ASSIGN_OR_RETURN(double p, parse_double(cols[static_cast<size_t>(freq)], in, "ALT_FREQS"));
    if (cols[static_cast<size_t>(ref)] == r.ref[v] && cols[static_cast<size_t>(alt)] == r.alt[v]) {
      r.alt_freq[v] = p;
    } else if (cols[static_cast<size_t>(ref)] == r.alt[v] && cols[static_cast<size_t>(alt)] == r.ref[v]) {
      r.alt_freq[v] = 1.0 - p;
    } else {
      return Status::Corrupt(path, " line ", in.line_no(), ": variant ", r.id[v], " has alleles ",
                             cols[static_cast<size_t>(ref)], "/", cols[static_cast<size_t>(alt)], ", the .eigenvec.var ",
                             r.ref[v], "/", r.alt[v]);
    }
    seen[v] = 1;
  }
  STRATA_RETURN_NOT_OK(check_ended(in));
  for (size_t v = 0; v < seen.size(); ++v) {
    if (!seen[v]) return Status::Corrupt(path, ": variant ", r.id[v], " of the .eigenvec.var has no frequency");
    const double p = r.alt_freq[v];
    if (!(p > 0.0 && p < 1.0))
      return Status::Corrupt(path, ": variant ", r.id[v], " has ALT_FREQS ", p, " (a PC variant must be polymorphic)");
  }
  return Status::OK();
}

Status read_eigenval(const std::string& path, ProjectReference& r) {
  io::detail::LineReader in;
  STRATA_RETURN_NOT_OK(open_reference_file(in, path));
  std::string_view line;
  while (in.next(line)) {
    if (line.empty()) continue;
    STRATA_ASSIGN_OR_RETURN(double v, parse_double(line, in, "eigenvalue"));
    r.eigenvalues.push_back(v);
  }
  STRATA_RETURN_NOT_OK(check_ended(in));
  if (static_cast<int64_t>(r.eigenvalues.size()) < r.k)
    return Status::Corrupt(path, ": ", r.eigenvalues.size(), " eigenvalues for ", r.k, " PCs of the .eigenvec.var");
  return Status::OK();
}

char complement(char b) {
  switch (b) {
    case 'A': return 'T';
    case 'T': return 'A';
    case 'C': return 'G';
    case 'G': return 'C';
    default: return 0;
  }
}

// The complement of a one-base allele ("" when it is not A, C, G or T).
std::string complemented(const std::string& a) {
  if (a.size() != 1) return {};
  const char c = complement(a[0]);
  return c ? std::string(1, c) : std::string();
}

bool ambiguous(const std::string& a, const std::string& b) {
  return a.size() == 1 && b.size() == 1 && complement(a[0]) == b[0];
}

// "CHROM:POS" of a reference ID spelled CHROM:POS[:…] ("" otherwise).
std::string position_key(const std::string& id) {
  const size_t c1 = id.find(':');
  if (c1 == std::string::npos || c1 == 0) return {};
  const size_t c2 = id.find(':', c1 + 1);
  const std::string_view pos = std::string_view(id).substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1);
  if (pos.empty() || pos.find_first_not_of("0123456789") != std::string_view::npos) return {};
  return io::plink_chromosome_name(id.substr(0, c1)) + ":" + std::string(pos);
}

}  // namespace

std::vector<double> ProjectReference::singular_values(int64_t count) const {
  std::vector<double> d;
  for (int64_t j = 0; j < count; ++j)
    d.push_back(std::sqrt(std::max(0.0, eigenvalues[static_cast<size_t>(j)]) * static_cast<double>(grm_variants)));
  return d;
}

Result<ProjectReference> read_project_reference(const std::string& prefix) {
  if (prefix.empty()) return Status::Invalid("project: no reference prefix (--ref)");
  ProjectReference r;
  STRATA_RETURN_NOT_OK(read_eigenvec_var(prefix + ".eigenvec.var", r));
  STRATA_RETURN_NOT_OK(read_afreq(prefix + ".afreq", r));
  STRATA_RETURN_NOT_OK(read_eigenval(prefix + ".eigenval", r));
  return r;
}

Result<ProjectMatch> match_project_variants(const ProjectReference& ref, const io::GenotypeView& view,
                                            bool drop_ambiguous) {
  std::unordered_map<std::string, int64_t> by_id, by_pos;
  by_id.reserve(static_cast<size_t>(ref.size()));
  for (int64_t i = 0; i < ref.size(); ++i) {
    by_id.emplace(ref.id[static_cast<size_t>(i)], i);
    const std::string key = position_key(ref.id[static_cast<size_t>(i)]);
    if (!key.empty()) by_pos.emplace(key, i);
  }
  std::vector<std::string> chrom;
  for (const std::string& c : view.contigs()) chrom.push_back(io::plink_chromosome_name(c));
  ProjectMatch m;
  ProjectMatchCounts& n = m.counts;
  std::vector<uint8_t> used(static_cast<size_t>(ref.size()), 0);
  const int64_t span = 65536;
  for (int64_t start = 0; start < view.num_variants(); start += span) {
    const int64_t count = std::min(span, view.num_variants() - start);
    STRATA_ASSIGN_OR_RETURN(io::VariantInfo info, view.variants(start, count));
    if (info.size() != count) return Status::IOError(view.describe(), ": no metadata for variant ", start);
    for (int64_t i = 0; i < count; ++i) {
      const auto u = static_cast<size_t>(i);
      const std::string& id = info.id.empty() ? std::string() : info.id[u];
      auto it = id.empty() || id == "." ? by_id.end() : by_id.find(id);
      bool positional = false;
      if (it == by_id.end() && !info.contig.empty() && info.contig[u] >= 0 &&
          info.contig[u] < static_cast<int32_t>(chrom.size())) {
        it = by_pos.find(chrom[static_cast<size_t>(info.contig[u])] + ":" + std::to_string(info.position[u]));
        if (it == by_pos.end()) continue;
        positional = true;
      }
      if (it == by_id.end()) continue;
      const auto r = static_cast<size_t>(it->second);
      const std::string& a = info.ref.empty() ? std::string() : info.ref[u];
      const std::string& b = info.alt.empty() ? std::string() : info.alt[u];
      int8_t sign = 0;
      bool flipped = false;
      const bool amb = ambiguous(ref.ref[r], ref.alt[r]);
      if (amb && drop_ambiguous) {
        ++n.ambiguous_dropped;
        continue;
      }
      if (a == ref.ref[r] && b == ref.alt[r]) {
        sign = 1;
      } else if (a == ref.alt[r] && b == ref.ref[r]) {
        sign = -1;
      } else if (!amb) {
        const std::string ca = complemented(a), cb = complemented(b);
        if (!ca.empty() && !cb.empty()) {
          if (ca == ref.ref[r] && cb == ref.alt[r]) sign = 1;
          else if (ca == ref.alt[r] && cb == ref.ref[r]) sign = -1;
          flipped = sign != 0;
        }
      }
      if (sign == 0) {
        ++n.allele_mismatch;
        continue;
      }
      if (used[r]) {
        ++n.duplicate;
        continue;
      }
      used[r] = 1;
      ++n.matched;
      n.by_position += positional;
      n.swapped += sign < 0;
      n.strand_flipped += flipped;
      n.ambiguous += amb;
      m.target.push_back(start + i);
      m.reference.push_back(static_cast<int64_t>(r));
      m.sign.push_back(sign);
    }
  }
  n.missing = ref.size() - n.matched;
  return m;
}

}  // namespace strata::genomics
