// `strata qc --check-sex`: PLINK 1.9's `.sexcheck` from the X sums of the qc pass
// (qc_tables_count.hpp). F = 1 − O(HET)/E(HET) over a sample's called polymorphic X variants;
// SNPSEX 1 above min-male-xf, 2 below max-female-xf, 0 between or without X calls.
#include <cstdio>
#include <string>

#include "genomics/qc_tables_count.hpp"
#include "genomics/text_writer.hpp"

namespace strata::genomics::detail {
namespace {

// PLINK 1.9's column widths: 4, or a longer ID's length + 2 the first time one exceeds the
// width so far (its imitation of PLINK 1.07's pretty-printing).
size_t id_width(const std::vector<std::string>& ids) {
  size_t w = 4;
  for (const std::string& id : ids)
    if (id.size() > w) w = id.size() + 2;
  return w;
}

void pad_left(std::string& out, const std::string& s, size_t width) {
  if (s.size() < width) out.append(width - s.size(), ' ');
  out += s;
}

// 4 significant digits right-aligned in 12 columns (PLINK 1.9's dtoa_g_wxp4).
void put_f(std::string& out, double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", f);
  pad_left(out, buf, 12);
}

}  // namespace

Result<SexCheckCounts> write_sexcheck(const std::string& staged, const std::string& path, const io::SampleInfo& s,
                                      int64_t n, const QcSampleTotals& t, double max_female_xf, double min_male_xf) {
  std::vector<std::string> fids(static_cast<size_t>(n)), iids(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    fids[k] = k < s.family_id.size() && !s.family_id[k].empty() ? s.family_id[k] : (k < s.id.size() ? s.id[k] : "0");
    iids[k] = k < s.id.size() ? s.id[k] : "";
  }
  const size_t wf = id_width(fids), wi = id_width(iids);
  STRATA_ASSIGN_OR_RETURN(TextWriter w, TextWriter::open(staged, path));
  std::string b;
  pad_left(b, "FID", wf);
  b += ' ';
  pad_left(b, "IID", wi);
  b += "       PEDSEX       SNPSEX       STATUS            F\n";
  SexCheckCounts counts;
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    const int sex = k < s.sex.size() ? s.sex[k] : 0;
    const int pedsex = sex == 1 || sex == 2 ? sex : 0;
    pad_left(b, fids[k], wf);
    b += ' ';
    pad_left(b, iids[k], wi);
    b.append(12, ' ');
    b += static_cast<char>('0' + pedsex);
    b.append(12, ' ');
    const int64_t called = t.x_variants - t.x_missing[k];
    if (called == 0) {
      b += "0      PROBLEM          nan\n";
      ++counts.problems;
      ++counts.no_x_calls;
    } else {
      const double e_het = static_cast<double>(t.x_expected_all - t.x_expected_missing[k]) / kFixedScale;
      const double f = (e_het - static_cast<double>(t.x_het[k])) / e_het;
      const int snpsex = f > min_male_xf ? 1 : f < max_female_xf ? 2 : 0;
      b += static_cast<char>('0' + snpsex);
      const bool ok = pedsex != 0 && pedsex == snpsex;
      b += ok ? "           OK " : "      PROBLEM ";
      counts.problems += !ok;
      put_f(b, f);
      b += '\n';
    }
    STRATA_RETURN_NOT_OK(w.write(b));
    b.clear();
  }
  STRATA_RETURN_NOT_OK(w.close());
  return counts;
}

}  // namespace strata::genomics::detail
