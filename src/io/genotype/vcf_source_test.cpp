// The VCF/BCF genotype source against `strata convert F out.bed` read back and against plink2
// (its .bed, its --export A dosages); indexed regions; bad inputs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "core/test_context.hpp"
#include "strata/core/config.hpp"
#include "strata/io/chromosome.hpp"
#include "strata/io/genotype_convert.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::shared_data_dir;
using strata::testing::TempDir;
using strata::testing::test_ctx;
using strata::testing::write_file;

bool have_plink2() { return fs::exists("/usr/bin/plink2"); }

class VcfSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!STRATA_HAVE_HTSLIB) GTEST_SKIP() << "built without htslib";
  }
  std::string data(const std::string& name) const {
    const std::string dir = shared_data_dir() + "/vcf";
    if (shared_data_dir().empty() || !fs::is_directory(dir)) return "";
    return dir + "/" + name;
  }
  std::vector<std::string> data_files() const {
    std::vector<std::string> out;
    const std::string dir = data("");
    if (dir.empty()) return out;
    for (auto& e : fs::directory_iterator(dir))
      if (is_vcf_path(e.path().string())) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

// Codes (all samples), sample IDs and variant metadata of two views are the same.
void expect_same_view(const GenotypeView& a, const GenotypeView& b) {
  ASSERT_EQ(a.num_variants(), b.num_variants());
  ASSERT_EQ(a.num_samples(), b.num_samples());
  EXPECT_EQ(a.samples().id, b.samples().id);
  if (a.num_variants() == 0) return;
  STRATA_ASSERT_OK_AND_ASSIGN(GenotypeBlock ca, read_genotype_block(a, 0, a.num_variants()));
  STRATA_ASSERT_OK_AND_ASSIGN(GenotypeBlock cb, read_genotype_block(b, 0, b.num_variants()));
  EXPECT_EQ(std::vector<uint8_t>(ca.codes.data(), ca.codes.data() + ca.codes.size()),
            std::vector<uint8_t>(cb.codes.data(), cb.codes.data() + cb.codes.size()));
  STRATA_ASSERT_OK_AND_ASSIGN(VariantInfo va, a.variants(0, a.num_variants()));
  STRATA_ASSERT_OK_AND_ASSIGN(VariantInfo vb, b.variants(0, b.num_variants()));
  for (int64_t i = 0; i < va.size(); ++i) {
    SCOPED_TRACE(i);
    // A .bim holds contig names as plink2 writes them (chrM → MT); the VCF source keeps the file's.
    EXPECT_EQ(plink_chromosome_name(a.contigs()[static_cast<size_t>(va.contig[i])]),
              plink_chromosome_name(b.contigs()[static_cast<size_t>(vb.contig[i])]));
    EXPECT_EQ(va.position[i], vb.position[i]);
    EXPECT_EQ(va.id[i], vb.id[i]);
    EXPECT_EQ(va.ref[i], vb.ref[i]);
    // No ALT: "" in a view, "." in a .bim.
    EXPECT_EQ(va.alt[i].empty() ? "." : va.alt[i], vb.alt[i].empty() ? "." : vb.alt[i]);
  }
}

TEST_F(VcfSourceTest, EveryFileReadsAsItsConvertedBed) {
  const auto files = data_files();
  if (files.empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  TempDir tmp;
  int compared = 0;
  for (const auto& f : files) {
    for (MultiallelicMode mode : {MultiallelicMode::Skip, MultiallelicMode::NonRefDosage}) {
      SCOPED_TRACE(f + " " + multiallelic_mode_name(mode));
      ConvertOptions co;
      co.multiallelic = mode;
      co.multiallelic_set = true;
      const std::string bed = tmp.str(fs::path(f).filename().string() + multiallelic_mode_name(mode) + ".bed");
      auto converted = convert_genotypes(test_ctx(), f, bed, co);
      GenotypeOpenOptions oo;
      oo.multiallelic = mode;
      auto direct = open_genotypes(f, oo);
      // The files convert refuses (no samples, no GT) are refused here too.
      ASSERT_EQ(converted.ok(), direct.ok()) << converted.status().to_string() << " / " << direct.status().to_string();
      if (!converted.ok()) continue;
      STRATA_ASSERT_OK_AND_ASSIGN(GenotypeViewPtr back, open_genotypes(bed, oo));
      expect_same_view(**direct, *back);
      EXPECT_EQ((*direct)->report().multiallelic_sites, converted->multiallelic);
      EXPECT_EQ((*direct)->report().skipped_sites, converted->skipped);
      EXPECT_EQ((*direct)->report().polyploid_calls, converted->polyploid_calls);
      ++compared;
    }
  }
  EXPECT_GE(compared, 8);
}

TEST_F(VcfSourceTest, CodesMatchPlink2MakeBed) {
  if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  const std::string f = data("chr22.vcf.gz");
  if (f.empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  TempDir tmp;
  auto r = run_command("/usr/bin/plink2 --vcf " + f + " --max-alleles 2 --make-bed --out " + tmp.str("p") + " >/dev/null 2>&1");
  ASSERT_EQ(r.exit_code, 0) << read_file(tmp.str("p.log"));
  GenotypeOpenOptions skip;  // plink2 writes biallelic sites only to a .bed
  skip.multiallelic = MultiallelicMode::Skip;
  STRATA_ASSERT_OK_AND_ASSIGN(GenotypeViewPtr direct, open_genotypes(f, skip));
  STRATA_ASSERT_OK_AND_ASSIGN(GenotypeViewPtr p, open_genotypes(tmp.str("p")));
  ASSERT_EQ(direct->num_variants(), p->num_variants());
  STRATA_ASSERT_OK_AND_ASSIGN(GenotypeBlock a, read_genotype_block(*direct, 0, direct->num_variants()));
  STRATA_ASSERT_OK_AND_ASSIGN(GenotypeBlock b, read_genotype_block(*p, 0, p->num_variants()));
  EXPECT_EQ(0, std::memcmp(a.codes.data(), b.codes.data(), a.codes.size()));
}

TEST_F(VcfSourceTest, BcfReadsAsVcf) {
  const std::string vcf = data("sample.vcf.gz"), bcf = data("sample.bcf");
  if (vcf.empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  STRATA_ASSERT_OK_AND_ASSIGN(GenotypeViewPtr a, open_genotypes(vcf));
  STRATA_ASSERT_OK_AND_ASSIGN(GenotypeViewPtr b, open_genotypes(bcf));
  EXPECT_GT(a->num_variants(), 0);
  expect_same_view(*a, *b);
}

// Through the index only the chosen contig (and range) is read: the variants equal those of a
// full read filtered afterwards.
TEST_F(VcfSourceTest, IndexedRegionsEqualFilteringAfterwards) {
  for (const std::string name : {"sample.vcf.gz", "sample.bcf", "chr22.vcf.gz"}) {
    const std::string f = data(name);
    if (f.empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
    SCOPED_TRACE(f);
    STRATA_ASSERT_OK_AND_ASSIGN(GenotypeViewPtr all, open_genotypes(f));
    STRATA_ASSERT_OK_AND_ASSIGN(VariantInfo info, all->variants(0, all->num_variants()));
    const std::string contig = all->contigs()[static_cast<size_t>(info.contig[info.size() / 2])];
    const int64_t from = info.position[info.size() / 3], to = info.position[info.size() * 2 / 3];
    for (bool range : {false, true}) {
      GenotypeOpenOptions oo;
      oo.vcf_contig_filter = [&](const std::string& c) { return c == contig; };
      if (range) oo.vcf_bp_from = from, oo.vcf_bp_to = to;
      std::vector<int64_t> kept;
      for (int64_t i = 0; i < info.size(); ++i)
        if (all->contigs()[static_cast<size_t>(info.contig[i])] == contig &&
            (!range || (info.position[i] >= from && info.position[i] <= to)))
          kept.push_back(i);
      ASSERT_FALSE(kept.empty());
      STRATA_ASSERT_OK_AND_ASSIGN(GenotypeViewPtr part, open_genotypes(f, oo));
      expect_same_view(*part, *make_variant_subset(all, kept));
    }
  }
}

// A text VCF of `records` records over 5 samples: GTs from a fixed pattern (haploid, missing,
// multi-allelic and unphased/phased calls), a contig the header lacks from record 700 on.
std::string pattern_vcf(int records, int broken_at = -1) {
  std::string t =
      "##fileformat=VCFv4.2\n##contig=<ID=1>\n##FORMAT=<ID=GT,Number=1,Type=String,Description=\"g\">\n"
      "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ta\tb\tc\td\te\n";
  const char* calls[] = {"0/0", "0|1", "1/1", "./.", "1", "0", "1/2", "2|2", "0/.", "."};
  for (int r = 0; r < records; ++r) {
    const bool multi = r % 17 == 3;
    t += std::string(r < 700 ? "1" : "extra") + "\t" + std::to_string(100 + r) + "\tv" + std::to_string(r) + "\tA\t" +
         (multi ? "C,G" : "C") + "\t.\t.\t.\tGT";
    const int samples = r == broken_at ? 4 : 5;
    for (int s = 0; s < samples; ++s) {
      const int k = (r * 7 + s * 3) % 10;
      t += std::string("\t") + (!multi && (k == 6 || k == 7) ? "0/1" : calls[k]);
    }
    t += "\n";
  }
  return t;
}

// Parsing on several threads (batches of lines, one header copy each) gives the view and the
// errors one thread gives.
TEST_F(VcfSourceTest, ThreadsDoNotChangeTheCodesOrTheErrors) {
  TempDir tmp;
  const std::string vcf = tmp.str("many.vcf");
  write_file(vcf, pattern_vcf(1500));
  GenotypeOpenOptions one, three;
  three.threads = 3;
  STRATA_ASSERT_OK_AND_ASSIGN(GenotypeViewPtr a, open_genotypes(vcf, one));
  STRATA_ASSERT_OK_AND_ASSIGN(GenotypeViewPtr b, open_genotypes(vcf, three));
  EXPECT_EQ(a->num_variants(), 1500);
  expect_same_view(*a, *b);
  EXPECT_EQ(a->contigs(), b->contigs());
  EXPECT_EQ(a->report().multiallelic_sites, b->report().multiallelic_sites);
  EXPECT_GT(a->report().multiallelic_sites, 0);
  // Files whose last round of batches (256 lines a worker) leaves some workers without lines:
  // every record once, none repeated from the round before.
  for (int records : {520, 800, 1030}) {
    const std::string f = tmp.str("n" + std::to_string(records) + ".vcf");
    write_file(f, pattern_vcf(records));
    STRATA_ASSERT_OK_AND_ASSIGN(GenotypeViewPtr ref, open_genotypes(f, one));
    ASSERT_EQ(ref->num_variants(), records);
    for (int threads : {2, 3, 4}) {
      SCOPED_TRACE(std::to_string(records) + " records, " + std::to_string(threads) + " threads");
      GenotypeOpenOptions o;
      o.threads = threads;
      STRATA_ASSERT_OK_AND_ASSIGN(GenotypeViewPtr v, open_genotypes(f, o));
      expect_same_view(*ref, *v);
    }
  }
  // A record with a missing column late in the file: the same message either way.
  const std::string bad = tmp.str("bad.vcf");
  write_file(bad, pattern_vcf(1500, 1234));
  auto ea = open_genotypes(bad, one), eb = open_genotypes(bad, three);
  ASSERT_FALSE(ea.ok());
  ASSERT_FALSE(eb.ok());
  EXPECT_EQ(ea.status().to_string(), eb.status().to_string());
  EXPECT_THAT(ea.status().message(), ::testing::HasSubstr("record 1235"));
}

// A VCF with DS (with GT, without GT, haploid, missing) against plink2's --export A.
TEST_F(VcfSourceTest, DsDosagesMatchPlink2) {
  if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  const std::string vcf = tmp.str("ds.vcf");
  write_file(vcf,
             "##fileformat=VCFv4.2\n##contig=<ID=1>\n"
             "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"g\">\n"
             "##FORMAT=<ID=DS,Number=A,Type=Float,Description=\"d\">\n"
             "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ts1\ts2\ts3\ts4\n"
             "1\t10\tv1\tA\tG\t.\t.\t.\tGT:DS\t0/0:0.02\t0/1:1.3\t1/1:1.97\t./.:.\n"
             "1\t20\tv2\tC\tT\t.\t.\t.\tDS\t0.05\t0.5\t1.91\t.\n"
             "1\t30\tv3\tG\tA\t.\t.\t.\tGT:DS\t0/1:0.123456\t1/1:2\t0/0:0\t0/1:.\n");
  auto r = run_command("/usr/bin/plink2 --vcf " + vcf + " dosage=DS --export A --out " + tmp.str("p") + " >/dev/null 2>&1");
  ASSERT_EQ(r.exit_code, 0) << read_file(tmp.str("p.log"));
  // .raw: FID IID PAT MAT SEX PHENOTYPE then one column per variant counting the ALT allele.
  const auto rows = strata::testing::read_rows(tmp.str("p.raw"));
  ASSERT_EQ(rows.size(), 5u);
  GenotypeOpenOptions oo;
  oo.vcf_dosage = "DS";
  STRATA_ASSERT_OK_AND_ASSIGN(GenotypeViewPtr view, open_genotypes(vcf, oo));
  ASSERT_TRUE(view->has_dosages());
  std::vector<float> d(3 * 4);
  ASSERT_TRUE(view->read_dosages(0, 3, 0, 4, d.data(), 4).ok());
  for (int v = 0; v < 3; ++v) {
    // plink2 --export A counts REF (its column is ID_REF): the ALT dosage is 2 − that.
    const std::string col = rows[0][static_cast<size_t>(6 + v)];
    ASSERT_EQ(col, std::vector<std::string>({"v1_A", "v2_C", "v3_G"})[static_cast<size_t>(v)]);
    for (int s = 0; s < 4; ++s) {
      SCOPED_TRACE("variant " + std::to_string(v) + " sample " + std::to_string(s));
      const std::string want = rows[static_cast<size_t>(s + 1)][static_cast<size_t>(6 + v)];
      const float got = d[static_cast<size_t>(v * 4 + s)];
      if (want == "NA") {
        EXPECT_TRUE(std::isnan(got));
      } else {
        EXPECT_NEAR(got, 2.0 - std::stod(want), 1e-4);  // plink2 prints its 1/16384 steps rounded
      }
    }
  }
  // Hard calls: GT where present; without GT, a dosage within 0.1 of an integer (v2: 0, -, 2, -).
  STRATA_ASSERT_OK_AND_ASSIGN(GenotypeBlock b, read_genotype_block(*view, 0, 3));
  EXPECT_EQ(code_at(b.row(0), 1), 1);
  EXPECT_EQ(code_at(b.row(1), 0), 0);
  EXPECT_EQ(code_at(b.row(1), 1), kCodeMissing);
  EXPECT_EQ(code_at(b.row(1), 2), 2);
  EXPECT_EQ(code_at(b.row(1), 3), kCodeMissing);
}

TEST_F(VcfSourceTest, DosageOutOfRangeNamesVariantAndSample) {
  TempDir tmp;
  const std::string vcf = tmp.str("bad.vcf");
  write_file(vcf,
             "##fileformat=VCFv4.2\n##contig=<ID=1>\n"
             "##FORMAT=<ID=DS,Number=A,Type=Float,Description=\"d\">\n"
             "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ts1\ts2\n"
             "1\t10\tv1\tA\tG\t.\t.\t.\tDS\t0.5\t1\n"
             "1\t20\tv2\tC\tT\t.\t.\t.\tDS\t0.5\t2.5\n");
  GenotypeOpenOptions oo;
  oo.vcf_dosage = "DS";
  auto r = open_genotypes(vcf, oo);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::InvalidData);
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("1:20 v2"));
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("sample s2"));
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr(vcf));
  // Without the option the same file has no GT: refused, naming the way to read it.
  auto g = open_genotypes(vcf);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), ::testing::HasSubstr("--vcf-dosage"));
}

TEST_F(VcfSourceTest, SampleCountMismatchIsCorrupt) {
  TempDir tmp;
  const std::string vcf = tmp.str("short.vcf");
  write_file(vcf,
             "##fileformat=VCFv4.2\n##contig=<ID=1>\n"
             "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"g\">\n"
             "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ts1\ts2\ts3\n"
             "1\t10\tv1\tA\tG\t.\t.\t.\tGT\t0/1\t1/1\t0/0\n"
             "1\t20\tv2\tC\tT\t.\t.\t.\tGT\t0/1\t1/1\n");
  auto r = open_genotypes(vcf);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::Corrupt);
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr(vcf + ": record 2 (after 1:10): malformed record"));
}

TEST_F(VcfSourceTest, TruncatedBgzfIsCorrupt) {
  const std::string f = data("chr22.vcf.gz");
  if (f.empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  TempDir tmp;
  const std::string cut = tmp.str("cut.vcf.gz");
  const std::string bytes = read_file(f);
  write_file(cut, bytes.substr(0, bytes.size() / 2));
  auto r = open_genotypes(cut);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::Corrupt);
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("truncated"));
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr(cut));
}

TEST_F(VcfSourceTest, OverTheMemoryBudgetIsRefusedNamingConvert) {
  const std::string f = data("chr22.vcf.gz");
  if (f.empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  GenotypeOpenOptions oo;
  oo.memory_budget = 1000;  // chr22: 100 samples × 100 variants = 2,500 bytes of codes
  auto r = open_genotypes(f, oo);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("memory budget"));
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("strata convert " + f));
}

}  // namespace
}  // namespace strata::io
