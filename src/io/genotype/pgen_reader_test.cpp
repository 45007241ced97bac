// PLINK 2 .pgen reader against plink2 itself: filesets plink2 writes (from its --dummy cohorts,
// from VCFs this test writes to reach every record type, from the shared VCFs) read like the
// .bed plink2 makes of them; dosages as written / as `plink2 --export A` prints them; bad input.
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "strata/io/genotype.hpp"
#include "strata/io/genotype_counts.hpp"
#include "strata/io/pgen.hpp"
#include "strata/io/plink.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_rows;
using strata::testing::run_command;
using strata::testing::TempDir;
using strata::testing::write_file;

bool have_plink2() { return fs::exists("/usr/bin/plink2"); }

void plink2(const TempDir& tmp, const std::string& args) {
  auto r = run_command("cd " + tmp.str() + " && /usr/bin/plink2 --threads 1 " + args + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << "plink2 " << args << "\n" << r.output;
}

// Every code of `a` equals `b`'s, and the sample and variant metadata agree.
void expect_same_genotypes(const GenotypeView& a, const GenotypeView& b) {
  ASSERT_EQ(a.num_variants(), b.num_variants());
  ASSERT_EQ(a.num_samples(), b.num_samples());
  const int64_t m = a.num_variants(), n = a.num_samples();
  STRATA_ASSERT_OK_AND_ASSIGN(auto ga, read_genotype_block(a, 0, m));
  STRATA_ASSERT_OK_AND_ASSIGN(auto gb, read_genotype_block(b, 0, m));
  for (int64_t v = 0; v < m; ++v)
    for (int64_t j = 0; j < n; ++j)
      ASSERT_EQ(code_at(ga.row(v), j), code_at(gb.row(v), j)) << "variant " << v << " sample " << j;
  ASSERT_EQ(ga.codes, gb.codes);  // the padding too
  // An unaligned sample range and single-variant reads (LD-compressed records need their base).
  if (n > 7 && m > 3) {
    STRATA_ASSERT_OK_AND_ASSIGN(auto pa, read_genotype_block(a, m / 2, m - m / 2, 5, n - 7));
    STRATA_ASSERT_OK_AND_ASSIGN(auto pb, read_genotype_block(b, m / 2, m - m / 2, 5, n - 7));
    EXPECT_EQ(pa.codes, pb.codes);
    for (int64_t v = 0; v < m; v += 3) {
      STRATA_ASSERT_OK_AND_ASSIGN(auto one, read_genotype_block(a, v, 1));
      ASSERT_TRUE(std::equal(one.codes.begin(), one.codes.end(), ga.row(v))) << "variant " << v << " alone";
    }
  }
  EXPECT_EQ(a.samples().id, b.samples().id);
  EXPECT_EQ(a.samples().family_id, b.samples().family_id);
  EXPECT_EQ(a.samples().sex, b.samples().sex);
  EXPECT_EQ(a.contigs(), b.contigs());
  STRATA_ASSERT_OK_AND_ASSIGN(auto va, a.variants(0, m));
  STRATA_ASSERT_OK_AND_ASSIGN(auto vb, b.variants(0, m));
  EXPECT_EQ(va.id, vb.id);
  EXPECT_EQ(va.position, vb.position);
  EXPECT_EQ(va.contig, vb.contig);
  EXPECT_EQ(va.ref, vb.ref);
  EXPECT_EQ(va.alt, vb.alt);
}

// The view counts from its storage (GenotypeCounter) what `reference`'s codes hold: every
// variant at once, and short ranges starting anywhere (inside runs of LD-compressed records).
void expect_counts_like(const GenotypeView& view, const GenotypeView& reference) {
  const GenotypeCounter* counter = genotype_counter(view);
  ASSERT_NE(counter, nullptr) << view.describe() << " does not count from its storage";
  const int64_t m = reference.num_variants(), n = reference.num_samples();
  ASSERT_EQ(view.num_variants(), m);
  STRATA_ASSERT_OK_AND_ASSIGN(auto g, read_genotype_block(reference, 0, m));
  std::vector<int64_t> want(static_cast<size_t>(4 * m)), got(want.size());
  for (int64_t v = 0; v < m; ++v)
    for (int64_t j = 0; j < n; ++j) ++want[static_cast<size_t>(4 * v + code_at(g.row(v), j))];
  STRATA_ASSERT_OK(counter->count_genotypes(0, m, got.data()));
  for (int64_t v = 0; v < m; ++v)
    ASSERT_TRUE(std::equal(got.begin() + 4 * v, got.begin() + 4 * v + 4, want.begin() + 4 * v)) << "variant " << v;
  for (int64_t v0 = 0; v0 < m; v0 += 3) {
    const int64_t nv = std::min<int64_t>(1 + v0 % 4, m - v0);
    std::vector<int64_t> part(static_cast<size_t>(4 * nv), -1);
    STRATA_ASSERT_OK(counter->count_genotypes(v0, nv, part.data()));
    ASSERT_TRUE(std::equal(part.begin(), part.end(), want.begin() + 4 * v0)) << "variants " << v0 << " +" << nv;
  }
  std::vector<int64_t> none(4);
  STRATA_EXPECT_STATUS(counter->count_genotypes(m - 1, 2, none.data()), StatusCode::Invalid, "out of bounds");
}

// The main-track storage types (record type & 7) and other type bits a mode-0x10 .pgen uses.
std::set<int> record_types(const std::string& path) {
  const std::string s = strata::testing::read_file(path);
  std::set<int> out;
  if (s.size() < 12 || static_cast<uint8_t>(s[2]) != 0x10) return out;
  const uint32_t m = static_cast<uint8_t>(s[3]) | static_cast<uint8_t>(s[4]) << 8 | static_cast<uint8_t>(s[5]) << 16;
  const bool four = (s[11] & 15) < 4;
  const size_t base = 12 + 8 * ((m + 65535) / 65536);  // one block is enough for these tests
  for (uint32_t v = 0; v < m && m <= 65536; ++v) {
    const uint8_t b = static_cast<uint8_t>(s[base + (four ? v / 2 : v)]);
    out.insert(four ? (b >> (4 * (v & 1))) & 15 : b);
  }
  return out;
}

// A VCF whose variants take every shape plink2 stores differently: common, rare (difflist from
// hom-REF), nearly all hom-ALT, nearly all missing, near-copies and inverted near-copies of the
// previous variant (LD-compressed), two dominant genotypes (1-bit), optionally phased calls and
// multi-allelic sites. Returns the expected ALT counts (-1 missing).
std::vector<std::vector<int>> write_shaped_vcf(const std::string& path, int n, int m, bool phased, bool multi) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  std::string text = "##fileformat=VCFv4.2\n##contig=<ID=1>\n##contig=<ID=2>\n"
                     "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n"
                     "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT";
  for (int j = 0; j < n; ++j) text += "\ts" + std::to_string(j);
  text += "\n";
  std::vector<std::vector<int>> expect;
  std::vector<int> last(n, 0);
  static const int kKinds[8] = {0, 4, 5, 1, 2, 3, 6, 7};
  for (int v = 0; v < m; ++v) {
    const int kind = kKinds[v % 8];
    const bool tri = multi && v % 5 == 2;
    std::vector<int> g(n);
    for (int j = 0; j < n; ++j) {
      const double x = u(rng);
      switch (kind) {
        case 0: g[j] = x < 0.49 ? 0 : x < 0.82 ? 1 : x < 0.97 ? 2 : -1; break;
        case 4: g[j] = x < 0.02 ? (last[j] + 1) % 3 : last[j]; break;
        case 5: g[j] = x < 0.02 ? 1 : last[j] < 0 ? -1 : 2 - last[j]; break;
        case 1: g[j] = x < 0.01 ? 1 : x < 0.015 ? 2 : x < 0.02 ? -1 : 0; break;
        case 2: g[j] = x < 0.03 ? 1 : x < 0.04 ? -1 : 2; break;
        case 3: g[j] = x < 0.03 ? 0 : x < 0.05 ? 1 : -1; break;
        case 6: g[j] = x < 0.55 ? 0 : x < 0.97 ? 1 : x < 0.985 ? 2 : -1; break;
        default: g[j] = x < 0.25 ? 0 : x < 0.6 ? 1 : x < 0.9 ? 2 : -1; break;
      }
    }
    if (kind == 0) last = g;
    text += (v < m / 2 ? "1\t" : "2\t") + std::to_string(1000 + 10 * v) + "\tv" + std::to_string(v) + "\tA\t" +
            (tri ? "C,G" : "C") + "\t.\t.\t.\tGT";
    for (int j = 0; j < n; ++j) {
      const char sep = phased && u(rng) < 0.7 ? '|' : '/';
      const bool flip = u(rng) < 0.5;
      std::string a = "0", b = "0";
      if (g[j] < 0) a = b = ".";
      else if (g[j] >= 1) {
        b = tri && u(rng) < 0.5 ? "2" : "1";
        if (g[j] == 2) a = tri && u(rng) < 0.5 ? "2" : "1";
        if (g[j] == 1 && flip) std::swap(a, b);
      }
      text += "\t" + a + sep + b;
    }
    text += "\n";
    expect.push_back(g);
  }
  write_file(path, text);
  return expect;
}

void expect_codes(const GenotypeView& view, const std::vector<std::vector<int>>& expect) {
  const int64_t m = view.num_variants(), n = view.num_samples();
  ASSERT_EQ(m, static_cast<int64_t>(expect.size()));
  STRATA_ASSERT_OK_AND_ASSIGN(auto g, read_genotype_block(view, 0, m));
  for (int64_t v = 0; v < m; ++v)
    for (int64_t j = 0; j < n; ++j) {
      const int e = expect[v][j];
      ASSERT_EQ(code_at(g.row(v), j), e < 0 ? 3 : e) << "variant " << v << " sample " << j;
    }
}

TEST(PgenReader, DummyCohortsReadLikeTheirBed) {
  if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  plink2(tmp, "--seed 1 --dummy 203 700 0.05 --make-bed --out d");
  plink2(tmp, "--bfile d --make-pgen --out p");
  plink2(tmp, "--bfile d --make-pgen vzs --out z");
  plink2(tmp, "--bfile d --make-pgen format=2 --out f");
  STRATA_ASSERT_OK_AND_ASSIGN(auto bed, open_genotypes(tmp.str("d.bed")));
  for (const char* name : {"p.pgen", "z", "f.pgen"}) {
    SCOPED_TRACE(name);
    STRATA_ASSERT_OK_AND_ASSIGN(auto pgen, open_genotypes(tmp.str(name)));
    EXPECT_FALSE(pgen->has_dosages());
    expect_same_genotypes(*pgen, *bed);
    expect_counts_like(*pgen, *bed);
  }
  EXPECT_EQ(strata::testing::read_file(tmp.str("f.pgen"))[2], 0x02);
  // A .bed renamed .pgen (storage mode 0x01) with the .bim/.fam as a headerless .pvar/.psam.
  for (const char* ext : {".bed", ".bim", ".fam"}) {
    const std::string to = std::string(ext) == ".bed" ? "o.pgen" : std::string(ext) == ".bim" ? "o.pvar" : "o.psam";
    fs::copy_file(tmp.str(std::string("d") + ext), tmp.str(to));
  }
  STRATA_ASSERT_OK_AND_ASSIGN(auto mode1, open_genotypes(tmp.str("o.pgen")));
  expect_same_genotypes(*mode1, *bed);
  expect_counts_like(*mode1, *bed);
}

TEST(PgenReader, EveryRecordTypeDecodes) {
  if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  for (bool phased : {false, true}) {
    SCOPED_TRACE(phased ? "phased" : "unphased");
    auto expect = write_shaped_vcf(tmp.str("s.vcf"), 301, 400, phased, false);
    plink2(tmp, "--vcf s.vcf --make-pgen --out i");
    plink2(tmp, "--pfile i --make-pgen --out p");  // a second pass compresses fully
    plink2(tmp, "--pfile p --make-bed --out b");
    STRATA_ASSERT_OK_AND_ASSIGN(auto bed, open_genotypes(tmp.str("b")));
    std::set<int> mains;
    for (const char* name : {"i.pgen", "p.pgen"}) {
      SCOPED_TRACE(name);
      STRATA_ASSERT_OK_AND_ASSIGN(auto pgen, open_genotypes(tmp.str(name)));
      expect_codes(*pgen, expect);
      expect_same_genotypes(*pgen, *bed);
      expect_counts_like(*pgen, *bed);
      for (int t : record_types(tmp.str(name))) mains.insert(t & 7);
    }
    // The test is only as good as the shapes plink2 chose for it.
    for (int t : {0, 1, 2, 3, 4, 6, 7}) EXPECT_TRUE(mains.count(t)) << "no record of main type " << t;
    if (phased) {
      bool phase_track = false;
      for (int t : record_types(tmp.str("p.pgen"))) phase_track |= (t & 0x10) != 0;
      EXPECT_TRUE(phase_track);
    }
  }
}

// Counted from storage as plink2 counts: `plink2 --geno-counts` on a fileset of every record
// type (LD-compressed and inverted ones, difflists, 1-bit tracks) gives the same numbers.
TEST(PgenReader, CountsMatchPlink2GenoCounts) {
  if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  write_shaped_vcf(tmp.str("s.vcf"), 1003, 300, true, false);
  plink2(tmp, "--vcf s.vcf --make-pgen --out i");
  plink2(tmp, "--pfile i --make-pgen --out p");
  plink2(tmp, "--pfile p --geno-counts --out c");
  std::set<int> mains;
  for (int t : record_types(tmp.str("p.pgen"))) mains.insert(t & 7);
  for (int t : {0, 1, 2, 3, 4, 6, 7}) EXPECT_TRUE(mains.count(t)) << "no record of main type " << t;
  STRATA_ASSERT_OK_AND_ASSIGN(auto pgen, open_genotypes(tmp.str("p.pgen")));
  const GenotypeCounter* counter = genotype_counter(*pgen);
  ASSERT_NE(counter, nullptr);
  const int64_t m = pgen->num_variants();
  std::vector<int64_t> got(static_cast<size_t>(4 * m));
  STRATA_ASSERT_OK(counter->count_genotypes(0, m, got.data()));
  auto rows = read_rows(tmp.str("c.gcount"));
  ASSERT_EQ(static_cast<int64_t>(rows.size()), m + 1);
  const auto& head = rows[0];
  auto col = [&](const std::string& name) {
    return static_cast<size_t>(std::find(head.begin(), head.end(), name) - head.begin());
  };
  const std::array<size_t, 4> cols = {col("HOM_REF_CT"), col("HET_REF_ALT_CTS"), col("TWO_ALT_GENO_CTS"),
                                      col("MISSING_CT")};
  for (size_t c : cols) ASSERT_LT(c, head.size()) << "c.gcount lacks a column";
  for (int64_t v = 0; v < m; ++v)
    for (int k = 0; k < 4; ++k)
      ASSERT_EQ(got[static_cast<size_t>(4 * v + k)], std::stoll(rows[static_cast<size_t>(v + 1)][cols[k]]))
          << "variant " << v << " code " << k;
}

TEST(PgenReader, MultiallelicSitesCountNonRefAlleles) {
  if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  auto expect = write_shaped_vcf(tmp.str("m.vcf"), 150, 120, false, true);
  plink2(tmp, "--vcf m.vcf --make-pgen --out p");
  STRATA_ASSERT_OK_AND_ASSIGN(auto pgen, open_genotypes(tmp.str("p.pgen")));
  expect_codes(*pgen, expect);
  expect_counts_like(*pgen, *pgen);  // the counts of the decoded non-REF codes
  EXPECT_EQ(pgen->report().multiallelic_sites, 24);
  GenotypeOpenOptions skip;
  skip.multiallelic = MultiallelicMode::Skip;
  STRATA_ASSERT_OK_AND_ASSIGN(auto kept, open_genotypes(tmp.str("p.pgen"), skip));
  EXPECT_EQ(kept->num_variants(), 120 - 24);
}

// Dosages: plink2 --dummy's fractional and phased dosages against `plink2 --export A`, and a
// VCF of DS values on the 1/16384 grid read back exactly.
TEST(PgenReader, DosagesMatchPlink2) {
  if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  plink2(tmp, "--seed 1 --dummy 203 300 0.05 dosage-freq=0.3 phase-freq=0.5 --make-pgen --out d");
  plink2(tmp, "--pfile d --export A --out e");
  plink2(tmp, "--pfile d --make-bed --out b");
  STRATA_ASSERT_OK_AND_ASSIGN(auto pgen, open_genotypes(tmp.str("d")));
  STRATA_ASSERT_OK_AND_ASSIGN(auto bed, open_genotypes(tmp.str("b")));
  ASSERT_TRUE(pgen->has_dosages());
  expect_same_genotypes(*pgen, *bed);  // hard calls
  const int64_t m = pgen->num_variants(), n = pgen->num_samples();
  std::vector<float> d(static_cast<size_t>(m * n));
  STRATA_ASSERT_OK(pgen->read_dosages(0, m, 0, n, d.data(), n));
  auto raw = read_rows(tmp.str("e.raw"));
  ASSERT_EQ(static_cast<int64_t>(raw.size()), n + 1);
  STRATA_ASSERT_OK_AND_ASSIGN(auto info, pgen->variants(0, m));
  int fractional = 0;
  for (int64_t v = 0; v < m; ++v) {
    const std::string& col = raw[0][static_cast<size_t>(6 + v)];
    const bool counts_ref = col.substr(col.rfind('_') + 1) == info.ref[v];
    for (int64_t j = 0; j < n; ++j) {
      const std::string& s = raw[static_cast<size_t>(j + 1)][static_cast<size_t>(6 + v)];
      const float got = d[static_cast<size_t>(v * n + j)];
      if (s == "NA") {
        EXPECT_TRUE(std::isnan(got)) << v << "," << j;
        continue;
      }
      const double want = counts_ref ? 2 - std::stod(s) : std::stod(s);
      EXPECT_NEAR(got, want, 5e-5) << "variant " << v << " sample " << j;
      fractional += got != std::round(got);
    }
  }
  EXPECT_GT(fractional, 1000);
  // A sub-box reads the same values.
  std::vector<float> box(static_cast<size_t>(10 * 50));
  STRATA_ASSERT_OK(pgen->read_dosages(100, 10, 7, 50, box.data(), 50));
  for (int64_t v = 0; v < 10; ++v)
    for (int64_t j = 0; j < 50; ++j) {
      const float a = box[static_cast<size_t>(v * 50 + j)], b = d[static_cast<size_t>((100 + v) * n + 7 + j)];
      ASSERT_TRUE(a == b || (std::isnan(a) && std::isnan(b)));
    }

  // DS on the 1/16384 grid, some integral (stored sparsely), some missing.
  std::mt19937 rng(3);
  std::string text = "##fileformat=VCFv4.2\n##contig=<ID=1>\n"
                     "##FORMAT=<ID=DS,Number=A,Type=Float,Description=\"Dosage\">\n"
                     "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT";
  const int dn = 90, dm = 60;
  for (int j = 0; j < dn; ++j) text += "\ts" + std::to_string(j);
  std::vector<int> q(static_cast<size_t>(dn * dm));
  for (int v = 0; v < dm; ++v) {
    text += "\n1\t" + std::to_string(100 + v) + "\tv" + std::to_string(v) + "\tA\tG\t.\t.\t.\tDS";
    for (int j = 0; j < dn; ++j) {
      const int r = static_cast<int>(rng() % 100);
      int k = r < 5 ? -1 : r < 60 ? 16384 * static_cast<int>(rng() % 3) : static_cast<int>(rng() % 32769);
      if (v % 10 == 0 && k >= 0) k = 16384 * static_cast<int>(rng() % 3);  // some variants all integral
      q[static_cast<size_t>(v * dn + j)] = k;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.12g", k / 16384.0);
      text += k < 0 ? std::string("\t.") : "\t" + std::string(buf);
    }
  }
  write_file(tmp.str("ds.vcf"), text + "\n");
  plink2(tmp, "--vcf ds.vcf dosage=DS --make-pgen --out ds");
  STRATA_ASSERT_OK_AND_ASSIGN(auto dsv, open_genotypes(tmp.str("ds.pgen")));
  std::vector<float> got(static_cast<size_t>(dn * dm));
  STRATA_ASSERT_OK(dsv->read_dosages(0, dm, 0, dn, got.data(), dn));
  for (size_t i = 0; i < got.size(); ++i) {
    if (q[i] < 0) EXPECT_TRUE(std::isnan(got[i])) << i;
    else EXPECT_EQ(got[i], q[i] / 16384.0f) << "variant " << i / dn << " sample " << i % dn;
  }

  // The fixed-width dosage mode (0x03, which plink2 reads but does not write): header, then per
  // variant the 2-bit hard calls and a uint16 dosage per sample (65535 missing), by hand.
  STRATA_ASSERT_OK_AND_ASSIGN(auto calls, read_genotype_block(*dsv, 0, dm));
  std::string fixed = {'\x6c', '\x1b', '\x03'};
  for (uint32_t x : {static_cast<uint32_t>(dm), static_cast<uint32_t>(dn)})
    for (int k = 0; k < 4; ++k) fixed += static_cast<char>(x >> (8 * k));
  fixed += '\x40';  // REF alleles not provisional
  for (int v = 0; v < dm; ++v) {
    std::string row(reinterpret_cast<const char*>(calls.row(v)), static_cast<size_t>(calls.stride));
    if (dn % 4) row.back() = static_cast<char>(row.back() & ((1 << (2 * (dn % 4))) - 1));
    fixed += row;
    for (int j = 0; j < dn; ++j) {
      const int k = q[static_cast<size_t>(v * dn + j)];
      const uint16_t u = k < 0 ? 65535 : static_cast<uint16_t>(k);  // k / 16384 = the dosage
      fixed += static_cast<char>(u & 255);
      fixed += static_cast<char>(u >> 8);
    }
  }
  write_file(tmp.str("f3.pgen"), fixed);
  fs::copy_file(tmp.str("ds.pvar"), tmp.str("f3.pvar"));
  fs::copy_file(tmp.str("ds.psam"), tmp.str("f3.psam"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto f3, open_genotypes(tmp.str("f3.pgen")));
  ASSERT_TRUE(f3->has_dosages());
  expect_same_genotypes(*f3, *dsv);
  std::vector<float> got3(got.size());
  STRATA_ASSERT_OK(f3->read_dosages(0, dm, 0, dn, got3.data(), dn));
  for (size_t i = 0; i < got.size(); ++i) ASSERT_TRUE(got3[i] == got[i] || (std::isnan(got3[i]) && std::isnan(got[i]))) << i;
}

TEST(PgenReader, SharedVcfsReadLikeTheirBed) {
  if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  const std::string dir = strata::testing::shared_data_dir();
  if (dir.empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  TempDir tmp;
  for (const char* name : {"chr22", "sample", "1kg_2020_chrM", "mixed_ploidy"}) {
    SCOPED_TRACE(name);
    const std::string vcf = dir + "/vcf/" + name + ".vcf.gz";
    if (!fs::exists(vcf)) continue;
    const std::string p = std::string("p_") + name, b = std::string("b_") + name;
    plink2(tmp, "--vcf " + vcf + " --allow-extra-chr --max-alleles 2 --make-pgen --out " + p);
    plink2(tmp, "--pfile " + p + " --allow-extra-chr --make-bed --out " + b);
    STRATA_ASSERT_OK_AND_ASSIGN(auto pgen, open_genotypes(tmp.str(p + ".pgen")));
    STRATA_ASSERT_OK_AND_ASSIGN(auto bed, open_genotypes(tmp.str(b + ".bed")));
    expect_same_genotypes(*pgen, *bed);
  }
}

TEST(PgenReader, BadInputIsRefusedNamingTheFile) {
  if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  plink2(tmp, "--seed 1 --dummy 40 30 0.05 --make-pgen --out p");
  const std::string good = strata::testing::read_file(tmp.str("p.pgen"));
  auto with = [&](const std::string& bytes) {
    write_file(tmp.str("p.pgen"), bytes);
    return open_genotypes(tmp.str("p.pgen")).status();
  };
  STRATA_EXPECT_STATUS(with(good.substr(0, good.size() - 3)), StatusCode::Corrupt, "p.pgen: truncated");
  STRATA_EXPECT_STATUS(with(good.substr(0, 20)), StatusCode::Corrupt, "p.pgen: truncated header");
  std::string mode = good;
  mode[2] = 0x11;
  STRATA_EXPECT_STATUS(with(mode), StatusCode::Unsupported, "p.pgen: unknown .pgen storage mode 0x11");
  std::string magic = good;
  magic[0] = 'x';
  STRATA_EXPECT_STATUS(with(magic), StatusCode::Corrupt, "p.pgen: not a .pgen file");
  // A record whose type names a storage it does not hold: its bytes run out.
  std::string bad_type = good;
  bad_type[12 + 8] = 0x01;  // record 0 claims a 1-bit main track (4- or 8-bit types: low bits of byte 20)
  size_t first_record = 0;
  for (int k = 7; k >= 0; --k) first_record = first_record << 8 | static_cast<uint8_t>(good[12 + k]);
  ASSERT_LT(first_record, good.size());
  bad_type[first_record] = 0;  // which names no pair of common genotypes
  STRATA_ASSERT_OK(with(bad_type));
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_genotypes(tmp.str("p.pgen")));
  STRATA_EXPECT_STATUS(read_genotype_block(*view, 0, view->num_variants()).status(), StatusCode::Corrupt,
                       "p.pgen: variant 1 \\('snp0', record type 0x1\\): 1-bit main track names an unknown pair");
  std::string bad_format = good;
  bad_format[11] = static_cast<char>((good[11] & 0xf0) | 10);
  STRATA_EXPECT_STATUS(with(bad_format), StatusCode::Unsupported, "p.pgen: record-length format 10");
  write_file(tmp.str("p.pgen"), good);
  // .pvar / .psam counts that do not match the .pgen header.
  const std::string pvar = strata::testing::read_file(tmp.str("p.pvar"));
  write_file(tmp.str("p.pvar"), pvar.substr(0, pvar.rfind('\n', pvar.size() - 2) + 1));
  STRATA_EXPECT_STATUS(open_genotypes(tmp.str("p.pgen")).status(), StatusCode::Corrupt,
                       "p.pgen: holds 30 variants x 40 samples but .*p.pvar lists 29 variants");
  write_file(tmp.str("p.pvar"), pvar);
  const std::string psam = strata::testing::read_file(tmp.str("p.psam"));
  write_file(tmp.str("p.psam"), psam + "extra\t1\t1\n");
  STRATA_EXPECT_STATUS(open_genotypes(tmp.str("p.pgen")).status(), StatusCode::Corrupt, "41 samples");
}

TEST(Pvar, HeaderOrdersAndBimForm) {
  TempDir tmp;
  write_file(tmp.str("a.pvar"), "##fileformat=VCFv4.2\n#CHROM\tID\tPOS\tALT\tREF\tCM\tINFO\n1\trs1\t10\tG\tA\t0.5\t.\n"
                                "X\trs2\t20\tT\tC\t1.5\tAC=1\n");
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, read_pvar(tmp.str("a.pvar")));
  EXPECT_EQ(a.contigs, (std::vector<std::string>{"1", "X"}));
  EXPECT_EQ(a.variants.id, (std::vector<std::string>{"rs1", "rs2"}));
  EXPECT_EQ(a.variants.position, (std::vector<int64_t>{10, 20}));
  EXPECT_EQ(a.variants.ref, (std::vector<std::string>{"A", "C"}));
  EXPECT_EQ(a.variants.alt, (std::vector<std::string>{"G", "T"}));
  EXPECT_EQ(a.variants.cm, (std::vector<double>{0.5, 1.5}));
  write_file(tmp.str("b.pvar"), "1 rs1 0.5 10 G A\n1 rs2 0 20 T C\n");
  STRATA_ASSERT_OK_AND_ASSIGN(auto b, read_pvar(tmp.str("b.pvar")));
  EXPECT_EQ(b.variants.alt, a.variants.alt);
  EXPECT_EQ(b.variants.ref, a.variants.ref);
  EXPECT_EQ(b.variants.position, a.variants.position);
  write_file(tmp.str("c.pvar"), "#CHROM\tPOS\tID\tREF\tALT\tBOGUS\n");
  STRATA_EXPECT_STATUS(read_pvar(tmp.str("c.pvar")).status(), StatusCode::Corrupt, "c.pvar line 1: unknown .pvar column 'BOGUS'");
  write_file(tmp.str("d.pvar"), "#CHROM\tPOS\tID\tREF\tALT\n1\tten\trs1\tA\tG\n");
  STRATA_EXPECT_STATUS(read_pvar(tmp.str("d.pvar")).status(), StatusCode::Corrupt, "d.pvar line 2: position 'ten'");
}

}  // namespace
}  // namespace strata::io
