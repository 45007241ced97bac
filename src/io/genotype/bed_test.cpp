// PLINK 1 reader/writer: the shared bed↔vcf pairs, round trips, sample ranges, bad inputs.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/test_context.hpp"
#include "strata/io/plink.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::io {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::shared_data_dir;
using strata::testing::TempDir;
using strata::testing::write_file;

std::string plink_dir() {
  const std::string d = shared_data_dir();
  return d.empty() ? d : d + "/plink";
}

// ALT dosage per (variant, sample) of an uncompressed diploid VCF; -1 = missing.
std::vector<std::vector<int>> vcf_dosages(const std::string& path, std::vector<std::string>* ref,
                                          std::vector<std::string>* alt) {
  std::ifstream f(path);
  std::string line;
  std::vector<std::vector<int>> out;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string tok;
    std::vector<std::string> cols;
    while (std::getline(ss, tok, '\t')) cols.push_back(tok);
    ref->push_back(cols[3]);
    alt->push_back(cols[4]);
    std::vector<int> row;
    for (size_t c = 9; c < cols.size(); ++c) {
      const std::string gt = cols[c].substr(0, cols[c].find(':'));
      if (gt[0] == '.' || gt[2] == '.') row.push_back(-1);
      else row.push_back((gt[0] == '1') + (gt[2] == '1'));
    }
    out.push_back(row);
  }
  return out;
}

TEST(BedReader, SharedPairsDecodeLikeTheirVcf) {
  if (plink_dir().empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  for (const char* name : {"example", "plink_sim_10s_100v_10pmiss"}) {
    SCOPED_TRACE(name);
    const std::string prefix = plink_dir() + "/" + name;
    if (!fs::exists(prefix + ".bed")) GTEST_SKIP() << prefix << ".bed absent from the shared data";
    STRATA_ASSERT_OK_AND_ASSIGN(auto bed, BedReader::open(prefix));
    std::vector<std::string> ref, alt;
    auto expect = vcf_dosages(prefix + ".vcf", &ref, &alt);
    ASSERT_EQ(bed->num_variants(), static_cast<int64_t>(expect.size()));
    STRATA_ASSERT_OK_AND_ASSIGN(auto block, read_genotype_block(*bed, 0, bed->num_variants()));
    STRATA_ASSERT_OK_AND_ASSIGN(auto info, bed->variants(0, bed->num_variants()));
    int64_t missing = 0;
    for (int64_t v = 0; v < bed->num_variants(); ++v) {
      EXPECT_EQ(info.ref[v], ref[v]) << v;  // REF = .bim column 6
      EXPECT_EQ(info.alt[v], alt[v]) << v;  // ALT = .bim column 5
      ASSERT_EQ(bed->num_samples(), static_cast<int64_t>(expect[v].size()));
      for (int64_t s = 0; s < bed->num_samples(); ++s) {
        const int c = code_at(block.row(v), s);
        EXPECT_EQ(c == kCodeMissing ? -1 : c, expect[v][s]) << "variant " << v << " sample " << s;
        missing += c == kCodeMissing;
      }
    }
    if (std::string(name) == "plink_sim_10s_100v_10pmiss") {
      EXPECT_EQ(missing, 111);
    }
  }
}

TEST(BedReader, SampleRangesMatchFullRows) {
  if (plink_dir().empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  STRATA_ASSERT_OK_AND_ASSIGN(auto bed, BedReader::open(plink_dir() + "/plink_sim_10s_100v_10pmiss.bed"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto full, read_genotype_block(*bed, 0, bed->num_variants()));
  for (int64_t s0 = 0; s0 < 10; ++s0) {
    for (int64_t ns = 0; s0 + ns <= 10; ++ns) {
      STRATA_ASSERT_OK_AND_ASSIGN(auto part, read_genotype_block(*bed, 5, 20, s0, ns));
      for (int64_t v = 0; v < 20; ++v) {
        for (int64_t s = 0; s < ns; ++s) {
          ASSERT_EQ(code_at(part.row(v), s), code_at(full.row(5 + v), s0 + s)) << s0 << "+" << ns;
        }
        for (int64_t s = ns; s < 4 * part.stride; ++s) {
          ASSERT_EQ(code_at(part.row(v), s), kCodeMissing);
        }
      }
    }
  }
}

// Every .bed byte value in rows long enough for the vector translation (and a tail past it),
// read as whole rows back to back, with a wider stride and as a sample range: each pair maps
// 00 → hom ALT, 01 → missing, 10 → het, 11 → hom REF.
TEST(BedReader, EveryByteTranslatesInLongRows) {
  TempDir tmp;
  const int64_t n = 4 * 300 + 3, row = packed_row_bytes(n), m = 5;
  std::string fam, bim, bed = "\x6c\x1b\x01";
  for (int64_t i = 0; i < n; ++i) fam += "f" + std::to_string(i) + " i" + std::to_string(i) + " 0 0 1 -9\n";
  for (int64_t v = 0; v < m; ++v) {
    bim += "1 v" + std::to_string(v) + " 0 " + std::to_string(v + 1) + " A G\n";
    for (int64_t b = 0; b < row; ++b) bed += static_cast<char>((b * 7 + v * 31) & 0xff);
  }
  write_file(tmp.str("t.fam"), fam);
  write_file(tmp.str("t.bim"), bim);
  write_file(tmp.str("t.bed"), bed);
  STRATA_ASSERT_OK_AND_ASSIGN(auto reader, BedReader::open(tmp.str("t")));
  const uint8_t want_of[4] = {kCodeHomAlt, kCodeMissing, kCodeHet, kCodeHomRef};
  auto want = [&](int64_t v, int64_t s) {
    const auto byte = static_cast<uint8_t>(bed[static_cast<size_t>(3 + v * row + s / 4)]);
    return want_of[(byte >> (2 * (s % 4))) & 3];
  };
  for (const int64_t stride : {row, row + 5}) {
    std::vector<uint8_t> out(static_cast<size_t>(m * stride), 0);
    STRATA_ASSERT_OK(reader->read_codes(0, m, 0, n, out.data(), stride));
    for (int64_t v = 0; v < m; ++v) {
      for (int64_t s = 0; s < n; ++s) ASSERT_EQ(code_at(out.data() + v * stride, s), want(v, s)) << v << " " << s;
      ASSERT_EQ(code_at(out.data() + v * stride, n), kCodeMissing);  // the padding pair
    }
  }
  std::vector<uint8_t> part(static_cast<size_t>(m * row), 0);
  STRATA_ASSERT_OK(reader->read_codes(0, m, 5, n - 9, part.data(), row));
  for (int64_t v = 0; v < m; ++v)
    for (int64_t s = 0; s < n - 9; ++s) ASSERT_EQ(code_at(part.data() + v * row, s), want(v, 5 + s));
}

TEST(BedWriter, RoundTripIsByteIdentical) {
  if (plink_dir().empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  TempDir tmp;
  std::vector<std::string> prefixes = {plink_dir() + "/example", plink_dir() + "/plink_sim_10s_100v_10pmiss"};
  const std::string hm = shared_data_dir() + "/hapmap3/HM3_thinned_autosomal_overlap";
  const bool have_hm = fs::exists(hm + ".bed");
  if (have_hm) prefixes.push_back(hm);
  for (const auto& prefix : prefixes) {
    SCOPED_TRACE(prefix);
    STRATA_ASSERT_OK_AND_ASSIGN(auto bed, BedReader::open(prefix));
    PlinkWriteOptions o;
    o.block_variants = 7;  // many small blocks
    STRATA_ASSERT_OK(write_plink(test_ctx(), *bed, tmp.str("copy"), o));
    EXPECT_EQ(read_file(tmp.str("copy.bed")), read_file(prefix + ".bed"));
    STRATA_ASSERT_OK_AND_ASSIGN(auto again, BedReader::open(tmp.str("copy")));
    STRATA_ASSERT_OK_AND_ASSIGN(auto a, bed->variants(0, bed->num_variants()));
    STRATA_ASSERT_OK_AND_ASSIGN(auto b, again->variants(0, again->num_variants()));
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.position, b.position);
    EXPECT_EQ(a.ref, b.ref);
    EXPECT_EQ(a.alt, b.alt);
    EXPECT_EQ(bed->samples().id, again->samples().id);
    EXPECT_EQ(bed->samples().family_id, again->samples().family_id);
    EXPECT_EQ(bed->samples().phenotype, again->samples().phenotype);
    for (auto& e : fs::directory_iterator(tmp.path())) {  // no temporaries left
      EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
    }
  }
  // The small files ran; say so when the large case could not.
  if (!have_hm) GTEST_SKIP() << "HapMap3 case not run: " << hm << ".bed absent";
}

TEST(BedReader, MultiallelicSkipOption) {
  TempDir tmp;
  write_file(tmp.str("m.fam"), "f a 0 0 0 -9\n");
  write_file(tmp.str("m.bim"), "1\tx\t0\t1\tC\tA\n1\ty\t0\t2\tC,G\tA\n");
  write_file(tmp.str("m.bed"), std::string("\x6c\x1b\x01\x03\x00", 5));
  GenotypeOpenOptions o;
  o.multiallelic = MultiallelicMode::Skip;
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_genotypes(tmp.str("m"), o));
  EXPECT_EQ(view->num_variants(), 1);
  STRATA_ASSERT_OK_AND_ASSIGN(auto all, open_genotypes(tmp.str("m.bed")));
  EXPECT_EQ(all->num_variants(), 2);
  STRATA_ASSERT_OK_AND_ASSIGN(auto block, read_genotype_block(*all, 0, 2));
  EXPECT_EQ(code_at(block.row(0), 0), kCodeHomRef);  // .bed 11 = hom A2 (REF)
  EXPECT_EQ(code_at(block.row(1), 0), kCodeHomAlt);  // .bed 00 = hom A1 (ALT)
}

// A small valid fileset in `dir`: 5 samples × 3 variants.
void write_small(const TempDir& dir, const std::string& name) {
  std::string fam, bim;
  for (int i = 0; i < 5; ++i) fam += "f" + std::to_string(i) + " i" + std::to_string(i) + " 0 0 1 -9\n";
  for (int v = 0; v < 3; ++v) bim += "1\tv" + std::to_string(v) + "\t0\t" + std::to_string(v + 1) + "\tA\tG\n";
  write_file(dir.str(name + ".fam"), fam);
  write_file(dir.str(name + ".bim"), bim);
  write_file(dir.str(name + ".bed"), std::string("\x6c\x1b\x01", 3) + std::string(6, '\x1b'));
}

TEST(BedReader, BadInputsNameFileAndProblem) {
  TempDir tmp;
  write_small(tmp, "ok");
  STRATA_ASSERT_OK(BedReader::open(tmp.str("ok")).status());

  write_small(tmp, "trunc");
  write_file(tmp.str("trunc.bed"), std::string("\x6c\x1b\x01", 3) + std::string(5, '\0'));
  STRATA_EXPECT_STATUS(BedReader::open(tmp.str("trunc")), StatusCode::Corrupt, "trunc\\.bed: size is 8 bytes.*truncated");

  write_small(tmp, "magic");
  write_file(tmp.str("magic.bed"), std::string("\x6c\x1c\x01", 3) + std::string(6, '\0'));
  STRATA_EXPECT_STATUS(BedReader::open(tmp.str("magic")), StatusCode::Corrupt, "magic\\.bed: not a PLINK 1 \\.bed");

  write_small(tmp, "smaj");
  write_file(tmp.str("smaj.bed"), std::string("\x6c\x1b\x00", 3) + std::string(6, '\0'));
  STRATA_EXPECT_STATUS(BedReader::open(tmp.str("smaj")), StatusCode::Unsupported, "smaj\\.bed: sample-major");

  write_small(tmp, "bimx");  // one .bim line too many
  write_file(tmp.str("bimx.bim"), read_file(tmp.str("bimx.bim")) + "1\tv3\t0\t4\tA\tG\n");
  STRATA_EXPECT_STATUS(BedReader::open(tmp.str("bimx")), StatusCode::Corrupt,
                       "bimx\\.bed: size is 9 bytes but .*bimx\\.bim lists 4 variants.*that is 3 variants");

  write_small(tmp, "famx");  // 9 samples: 3 bytes per variant instead of 2
  write_file(tmp.str("famx.fam"), read_file(tmp.str("famx.fam")) + "a b 0 0 0 -9\nc d 0 0 0 -9\ne f 0 0 0 -9\ng h 0 0 0 -9\n");
  STRATA_EXPECT_STATUS(BedReader::open(tmp.str("famx")), StatusCode::Corrupt, "famx\\.fam lists 9 samples");

  write_small(tmp, "badbim");
  write_file(tmp.str("badbim.bim"), "1\tv0\t0\t1\tA\tG\n1\tv1\t0\tx2\tA\tG\n1\tv2\t0\t3\tA\tG\n");
  STRATA_EXPECT_STATUS(BedReader::open(tmp.str("badbim")), StatusCode::Corrupt, "badbim\\.bim line 2: position 'x2'");

  write_small(tmp, "badfam");
  write_file(tmp.str("badfam.fam"), "a b 0 0 0 -9\na b 0 0\n");
  STRATA_EXPECT_STATUS(BedReader::open(tmp.str("badfam")), StatusCode::Corrupt, "badfam\\.fam line 2: expected 6 columns.*found 4");

  STRATA_EXPECT_STATUS(BedReader::open(tmp.str("absent")), StatusCode::NotFound, "absent\\.bed: no such file");
  write_small(tmp, "nofam");
  fs::remove(tmp.str("nofam.fam"));
  STRATA_EXPECT_STATUS(BedReader::open(tmp.str("nofam")), StatusCode::NotFound, "nofam\\.fam: no such file");
}

TEST(BedWriter, UnfinishedWriterLeavesNothing) {
  TempDir tmp;
  SampleInfo s;
  s.id = {"a", "b"};
  {
    STRATA_ASSERT_OK_AND_ASSIGN(auto w, BedWriter::create(tmp.str("out"), s));
    VariantInfo info;
    info.contig = {0};
    info.position = {1};
    info.id = {"v"};
    info.ref = {"A"};
    info.alt = {"C"};
    const uint8_t row = 0x06;
    STRATA_ASSERT_OK(w->append(info, {"1"}, &row, 1));
  }  // destroyed without finish()
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}


}  // namespace
}  // namespace strata::io
