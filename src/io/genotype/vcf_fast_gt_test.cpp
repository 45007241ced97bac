// The fast text GT path against htslib's vcf_parse (STRATA_VCF_GT_PARSER=htslib): the same
// codes, variants, contigs, counts and errors on every shared VCF and on a VCF of every odd GT
// shape, on one and several threads; BGZF files (whose blocks the fast path inflates and splits
// into lines itself) with lines across block ends, longer than a block, CRLF, damaged blocks.
#include <cstdlib>
#include <filesystem>

#include "core/test_context.hpp"
#include "io/genotype/bgzf_test_writer.hpp"
#include "io/genotype/vcf_fast_gt_internal.hpp"
#include "strata/core/config.hpp"
#include "strata/io/genotype_convert.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

namespace fs = std::filesystem;
using strata::testing::shared_data_dir;
using strata::testing::TempDir;
using strata::testing::write_file;

// Opens with the htslib path while alive.
struct ForceHtslib {
  ForceHtslib() { setenv(detail::kVcfGtParserEnv, "htslib", 1); }
  ~ForceHtslib() { unsetenv(detail::kVcfGtParserEnv); }
};

struct Opened {
  Status status;
  GenotypeViewPtr view;
};

Opened open_with(const std::string& path, MultiallelicMode mode, int threads, bool htslib) {
  GenotypeOpenOptions o;
  o.multiallelic = mode;
  o.threads = threads;
  std::unique_ptr<ForceHtslib> force;
  if (htslib) force = std::make_unique<ForceHtslib>();
  auto r = open_genotypes(path, o);
  if (!r.ok()) return {r.status(), nullptr};
  return {Status::OK(), *r};
}

// Every code, variant field, contig and count of the two opens is the same (or both fail alike).
void expect_identical(const Opened& fast, const Opened& hts) {
  ASSERT_EQ(fast.status.to_string(), hts.status.to_string());
  if (!fast.view) return;
  const GenotypeView& a = *fast.view;
  const GenotypeView& b = *hts.view;
  ASSERT_EQ(a.num_variants(), b.num_variants());
  ASSERT_EQ(a.num_samples(), b.num_samples());
  EXPECT_EQ(a.samples().id, b.samples().id);
  EXPECT_EQ(a.contigs(), b.contigs());
  EXPECT_EQ(a.report().multiallelic_sites, b.report().multiallelic_sites);
  EXPECT_EQ(a.report().skipped_sites, b.report().skipped_sites);
  EXPECT_EQ(a.report().polyploid_calls, b.report().polyploid_calls);
  const int64_t nv = a.num_variants(), row = packed_row_bytes(a.num_samples());
  if (nv == 0) return;
  std::vector<uint8_t> ca(static_cast<size_t>(nv * row)), cb(ca.size());
  STRATA_ASSERT_OK(a.read_codes(0, nv, 0, a.num_samples(), ca.data(), row));
  STRATA_ASSERT_OK(b.read_codes(0, nv, 0, b.num_samples(), cb.data(), row));
  EXPECT_EQ(ca, cb);
  STRATA_ASSERT_OK_AND_ASSIGN(VariantInfo va, a.variants(0, nv));
  STRATA_ASSERT_OK_AND_ASSIGN(VariantInfo vb, b.variants(0, nv));
  EXPECT_EQ(va.contig, vb.contig);
  EXPECT_EQ(va.position, vb.position);
  EXPECT_EQ(va.id, vb.id);
  EXPECT_EQ(va.ref, vb.ref);
  EXPECT_EQ(va.alt, vb.alt);
}

void expect_paths_agree(const std::string& path) {
  for (MultiallelicMode mode : {MultiallelicMode::Skip, MultiallelicMode::NonRefDosage})
    for (int threads : {1, 3}) {
      SCOPED_TRACE(path + " " + multiallelic_mode_name(mode) + " threads " + std::to_string(threads));
      expect_identical(open_with(path, mode, threads, false), open_with(path, mode, threads, true));
    }
}

class VcfFastGtTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!STRATA_HAVE_HTSLIB) GTEST_SKIP() << "built without htslib";
  }
};

TEST_F(VcfFastGtTest, EverySharedVcfReadsAsWithHtslib) {
  const std::string dir = shared_data_dir().empty() ? "" : shared_data_dir() + "/vcf";
  if (dir.empty() || !fs::is_directory(dir)) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  int compared = 0;
  for (auto& e : fs::directory_iterator(dir))
    if (is_vcf_path(e.path().string())) {
      expect_paths_agree(e.path().string());
      ++compared;
    }
  EXPECT_GT(compared, 5);
}

// 37 samples (a part-filled last code byte); each record cycles one list of sample fields.
std::string odd_shapes_vcf(const std::vector<std::string>& extra_records = {}) {
  std::string t =
      "##fileformat=VCFv4.2\n##contig=<ID=1>\n##contig=<ID=2>\n##FILTER=<ID=q10,Description=\"q\">\n"
      "##INFO=<ID=DP,Number=1,Type=Integer,Description=\"d\">\n##INFO=<ID=DB,Number=0,Type=Flag,Description=\"f\">\n"
      "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"g\">\n"
      "##FORMAT=<ID=DP,Number=1,Type=Integer,Description=\"d\">\n"
      "##FORMAT=<ID=GQ,Number=1,Type=Integer,Description=\"q\">\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT";
  const int n = 37;
  for (int s = 0; s < n; ++s) t += "\ts" + std::to_string(s);
  t += "\n";
  struct Rec {
    std::string chrom, alt, filter, info, format;
    std::vector<std::string> calls;
  };
  const std::vector<Rec> recs = {
      {"1", "C", ".", ".", "GT", {"0/1", "1|0", "0|0", "1/1", "0|1", "1|1", "0/0"}},  // the word path
      {"1", "C", "PASS", "DP=3", "GT", {"0|1", "0|1", "./.", "0|1", ".|.", "1/1"}},  // word path broken by missing
      {"1", "C", ".", ".", "GT", {"./.", "0/1", "1/1", "0|1", "1|0", "1/1", "0/0", "1/1", "1|1", "0/1", "1/1"}},  // runs of 8 at every offset
      {"1", "C", "q10", "DB", "GT", {"0", "1", ".", "1", "0"}},                        // haploid
      {"1", "C", ".", "DP=4;DB", "GT", {"0", "0/1", "1", "./1", "1/.", ".", "0/."}},  // mixed ploidy, missing halves
      {"1", "C", ".", ".", "GT", {"0/1/1", "0/1", "1|1|1", "0"}},                     // triploid
      {"1", "C,G,T,A,CC,GG,TT,AA,CA,GA", ".", ".", "GT", {"10/1", "0/10", "2/9", "1|0", "10"}},  // multi-digit
      {"1", "C,G", ".", ".", "GT", {"2/1", "0|2", "2", "./2", "1/1"}},               // multi-allelic
      {"1", "C", ".", ".", "DP:GT", {"3:0/1", "4:1/1", "5:0|0"}},                    // GT not first
      {"1", "C", ".", ".", "GT:DP:GQ", {"0/1:12:99", "1|1:3", "./.:.:.", "0:7:2", "1/0"}},  // extra fields
      {"1", ".", ".", ".", "GT", {"0/0", "0", "./.", "0|0"}},                         // no ALT
      {"1", "C", "lowq", ".", "GT", {"0/1", "1/1"}},                                  // undefined FILTER
      {"1", "C", ".", "NEW=1", "GT", {"0/1", "1/1"}},                                 // undefined INFO
      {"1", "C", ".", ".", "GT:XX", {"0/1:1", "1/1:2"}},                              // undefined FORMAT
      {"3", "C", ".", ".", "GT", {"0|1", "1|0"}},                                     // undefined contig
      {"3", "C", ".", ".", "GT", {"1|1", "0|0", "0|1"}},                              // now defined (htslib added it)
      {"3", "C", ".", "DP", "GT", {"0/1"}},                                           // Integer INFO without value
  };
  int pos = 100;
  for (const Rec& r : recs) {
    for (int copy = 0; copy < 3; ++copy) {
      ++pos;
      t += r.chrom + "\t" + std::to_string(pos) + "\trs" + std::to_string(pos) + "\tA\t" + r.alt + "\t50\t" + r.filter +
           "\t" + r.info + "\t" + r.format;
      for (int s = 0; s < n; ++s) t += "\t" + r.calls[static_cast<size_t>((s * (copy + 1) + copy) % r.calls.size())];
      t += "\n";
    }
  }
  for (const std::string& e : extra_records) t += e + "\n";
  return t;
}

TEST_F(VcfFastGtTest, OddGtShapesReadAsWithHtslib) {
  TempDir tmp;
  const std::string vcf = tmp.str("odd.vcf");
  write_file(vcf, odd_shapes_vcf());
  expect_paths_agree(vcf);
  // The fast path did decode the first record: 0/1 1|0 0|0 1/1 ... as het, het, hom-ref, hom-alt.
  const Opened fast = open_with(vcf, MultiallelicMode::NonRefDosage, 1, false);
  ASSERT_TRUE(fast.status.ok()) << fast.status.to_string();
  uint8_t row[10];
  STRATA_ASSERT_OK(fast.view->read_codes(0, 1, 0, 4, row, 10));
  EXPECT_EQ(row[0], kCodeHet | (kCodeHet << 2) | (kCodeHomRef << 4) | (kCodeHomAlt << 6));
}

// Records htslib rejects (or whose GT names a missing allele) fail with the same message.
TEST_F(VcfFastGtTest, BadRecordsFailAsWithHtslib) {
  TempDir tmp;
  const std::string all37 = [] {
    std::string s;
    for (int i = 0; i < 37; ++i) s += i ? "\t0/1" : "0/1";
    return s;
  }();
  const std::vector<std::string> bad = {
      "2\t900\tx\tA\tC\t.\t.\t.\tGT\t" + all37.substr(0, all37.size() - 3) + "0/2",  // allele 2 of 2
      "2\t900\tx\tA\tC\t.\t.\t.\tGT\t" + all37.substr(0, all37.size() - 3) + "0/x",  // not a number
      "2\t900\tx\tA\tC\t.\t.\t.\tGT\t" + all37.substr(4),                              // a sample short
      "2\t900\tx\tA\tC\t.\t.\t.\tGT\t" + all37 + "\t0/1",                              // a sample more
      "2\t900\tx\tA\tC\t.\t.\t.\tGT:DP\t" + all37 + ":1:2",                            // too many fields
      "2\t0\tx\tA\tC\t.\t.\t.\tGT\t" + all37,                                          // POS 0
      "1\t900\tx\tA\tC\t.\t.\t.\tGT\t" + all37,                                        // contig 1 again
  };
  for (size_t k = 0; k < bad.size(); ++k) {
    SCOPED_TRACE(bad[k].substr(0, 40));
    const std::string vcf = tmp.str("bad" + std::to_string(k) + ".vcf");
    write_file(vcf, odd_shapes_vcf({"2\t800\tok\tA\tC\t.\t.\t.\tGT\t" + all37, bad[k]}));
    expect_paths_agree(vcf);
    EXPECT_FALSE(open_with(vcf, MultiallelicMode::NonRefDosage, 3, false).status.ok() && k < 3);
  }
}

// The odd shapes as BGZF with blocks of a few bytes (every line crosses block ends), of 1000
// bytes and of 64 KiB; LF and CRLF line ends; a record line of 80 KB (longer than a block).
TEST_F(VcfFastGtTest, BgzfBlocksAndLineEndsReadAsWithHtslib) {
  TempDir tmp;
  std::string long_line = "2\t1000\tlong\tA\tC\t.\t.\t.\tGT:DP";
  for (int s = 0; s < 37; ++s) long_line += "\t0/1:" + std::string(2000, '7');
  const std::string lf = odd_shapes_vcf({long_line, "2\t1001\tlast\tA\tC\t.\t.\t.\tGT" + std::string(37, 'x')});
  std::string crlf;
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  int k = 0;
  for (const std::string* text : std::initializer_list<const std::string*>{&lf, &crlf})
    for (size_t block : {size_t{7}, size_t{1000}, size_t{65536}}) {
      // Without the last (malformed) line, and with it: the error comes from htslib alike.
      for (bool bad_last : {false, true}) {
        std::string t = *text;
        if (!bad_last) t = t.substr(0, t.rfind("2\t1001"));
        const std::string vcf = tmp.str(std::to_string(k++) + ".vcf.gz");
        detail::write_bgzf(vcf, t, block, /*first_block=*/t.find("\n#CHROM") + 3);  // "##fileformat" in it
        SCOPED_TRACE(vcf + (text == &crlf ? " CRLF" : " LF") + ", blocks of " + std::to_string(block));
        expect_paths_agree(vcf);
        const Opened fast = open_with(vcf, MultiallelicMode::NonRefDosage, 2, false);
        EXPECT_EQ(fast.status.ok(), !bad_last) << fast.status.to_string();
      }
    }
}

// A damaged block: the same record is named by both paths; the fast path adds the block.
TEST_F(VcfFastGtTest, DamagedBgzfBlockNamesTheSameRecord) {
  TempDir tmp;
  const std::string vcf = tmp.str("d.vcf.gz");
  detail::write_bgzf(vcf, odd_shapes_vcf(), 500);
  std::string bytes = strata::testing::read_file(vcf);
  size_t at = 0;
  for (int b = 0; b < 12; ++b) at += static_cast<uint8_t>(bytes[at + 16]) + 256u * static_cast<uint8_t>(bytes[at + 17]) + 1;
  const size_t next = at + static_cast<uint8_t>(bytes[at + 16]) + 256u * static_cast<uint8_t>(bytes[at + 17]) + 1;
  bytes[next - 8] = static_cast<char>(bytes[next - 8] ^ 1);  // its CRC
  write_file(vcf, bytes);
  for (int threads : {1, 3}) {
    const Opened fast = open_with(vcf, MultiallelicMode::NonRefDosage, threads, false);
    const Opened hts = open_with(vcf, MultiallelicMode::NonRefDosage, threads, true);
    ASSERT_FALSE(hts.status.ok());
    ASSERT_FALSE(fast.status.ok());
    EXPECT_EQ(fast.status.code(), StatusCode::Corrupt);
    EXPECT_THAT(hts.status.message(), ::testing::HasSubstr("truncated or malformed BGZF block near record"));
    EXPECT_EQ(fast.status.message().substr(0, hts.status.message().size()), hts.status.message());
    EXPECT_THAT(fast.status.message(), ::testing::HasSubstr("BGZF block at byte " + std::to_string(at) + ": CRC-32 mismatch"));
  }
}

}  // namespace
}  // namespace strata::io
