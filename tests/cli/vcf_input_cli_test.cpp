// VCF/BCF straight into the commands: freq, pca, king and grm write the same bytes from a .vcf.gz
// (and its .bcf) as from the .bed `strata convert` makes of it; --chr through the index equals
// --chr without one; bad VCF inputs exit 1 with no output.
#include <filesystem>

#include "strata/core/config.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::shared_data_dir;
using strata::testing::TempDir;
using strata::testing::write_file;

std::string cli() { return strata::testing::strata_cli_path(); }

// A table without its family-ID columns: a VCF has none (plink2 writes the IID alone, or the IID
// twice), a .fam written from it has "0". Everything else must match byte for byte.
std::string without_fid(const std::string& text) {
  const auto rows = strata::testing::split_rows(text);
  if (rows.empty()) return text;
  std::vector<bool> drop;
  for (std::string name : rows[0]) {
    if (!name.empty() && name[0] == '#') name = name.substr(1);
    drop.push_back(name == "FID" || name == "FID1" || name == "FID2");
  }
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    bool first = true;
    for (size_t c = 0; c < rows[r].size(); ++c) {
      if (c < drop.size() && drop[c]) continue;
      std::string cell = rows[r][c];
      if (r == 0 && first && !cell.empty() && cell[0] != '#') cell = "#" + cell;
      out += (first ? "" : "\t") + cell;
      first = false;
    }
    out += '\n';
  }
  return out;
}

class VcfInput : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!STRATA_HAVE_HTSLIB) GTEST_SKIP() << "built without htslib";
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    if (shared_data_dir().empty() || !fs::exists(shared_data_dir() + "/vcf/chr22.vcf.gz"))
      GTEST_SKIP() << strata::testing::kSkipNoSharedData;
    vcf_ = shared_data_dir() + "/vcf/chr22.vcf.gz";
  }
  void run_ok(const std::string& args) {
    auto r = run_command(cli() + " " + args);
    ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.output;
  }
  std::string vcf_;
  TempDir tmp_;
};

TEST_F(VcfInput, CommandsWriteTheSameBytesAsFromTheConvertedBed) {
  // Multi-allelic sites kept as non-reference dosage, as the commands read the VCF by default.
  const std::string bed = tmp_.str("conv.bed");
  run_ok("convert -q " + vcf_ + " " + bed + " --multiallelic nonref");
  // Each command, its options and the files it writes.
  struct Case {
    std::string cmd, opts;
    std::vector<std::string> files;
  };
  const std::vector<Case> cases = {
      {"freq", "", {".afreq", ".vmiss"}},
      {"pca", "-k 3 --threads 2", {".eigenvec", ".eigenval", ".eigenvec.var"}},
      {"king", "", {".king", ".king.id"}},
      {"king", "--table", {".kin0"}},
      {"grm", "", {".rel", ".rel.id"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.cmd);
    run_ok(c.cmd + " -q " + vcf_ + " " + c.opts + " --out " + tmp_.str("v_" + c.cmd));
    run_ok(c.cmd + " -q " + tmp_.str("conv") + " " + c.opts + " --out " + tmp_.str("b_" + c.cmd));
    for (const std::string& ext : c.files) {
      SCOPED_TRACE(ext);
      const std::string v = read_file(tmp_.str("v_" + c.cmd + ext)), b = read_file(tmp_.str("b_" + c.cmd + ext));
      EXPECT_FALSE(v.empty());
      const bool ids = ext == ".eigenvec" || ext == ".king.id" || ext == ".kin0" || ext == ".rel.id";
      if (ids) {
        EXPECT_EQ(without_fid(v), without_fid(b));
      } else {
        EXPECT_EQ(v, b);
      }
    }
  }
}

TEST_F(VcfInput, BcfEqualsVcfAndIndexedChrEqualsUnindexed) {
  const std::string dir = shared_data_dir() + "/vcf/";
  run_ok("freq -q " + dir + "sample.vcf.gz --out " + tmp_.str("v"));
  run_ok("freq -q " + dir + "sample.bcf --out " + tmp_.str("b"));
  EXPECT_EQ(read_file(tmp_.str("v.afreq")), read_file(tmp_.str("b.afreq")));
  // The same file without its index (a copy): --chr filters after reading.
  fs::copy_file(dir + "sample.vcf.gz", tmp_.str("noidx.vcf.gz"));
  for (const std::string sel : {"--chr 20", "--chr 20 --from-bp 15000 --to-bp 1240000"}) {
    SCOPED_TRACE(sel);
    run_ok("freq -q " + dir + "sample.vcf.gz " + sel + " --out " + tmp_.str("i"));
    run_ok("freq -q " + tmp_.str("noidx.vcf.gz") + " " + sel + " --out " + tmp_.str("n"));
    const std::string a = read_file(tmp_.str("i.afreq"));
    EXPECT_EQ(a, read_file(tmp_.str("n.afreq")));
    EXPECT_NE(a, read_file(tmp_.str("v.afreq")));  // the selection did select
  }
}

TEST_F(VcfInput, BadVcfExits1WithNoOutput) {
  const std::string bytes = read_file(vcf_);
  write_file(tmp_.str("cut.vcf.gz"), bytes.substr(0, bytes.size() / 2));
  auto r = run_command(cli() + " pca -q " + tmp_.str("cut.vcf.gz") + " -k 2 --out " + tmp_.str("p"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "truncated");
  EXPECT_FALSE(fs::exists(tmp_.str("p.eigenvec")));
  write_file(tmp_.str("ds.vcf"),
             "##fileformat=VCFv4.2\n##contig=<ID=1>\n##FORMAT=<ID=DS,Number=A,Type=Float,Description=\"d\">\n"
             "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ts1\ts2\n1\t20\tv2\tC\tT\t.\t.\t.\tDS\t0.5\t2.5\n");
  r = run_command(cli() + " freq -q " + tmp_.str("ds.vcf") + " --vcf-dosage DS --out " + tmp_.str("f"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "variant 1:20 v2, sample s2: DS 2.5 is outside [0, 2]");
  EXPECT_FALSE(fs::exists(tmp_.str("f.afreq")));
}

}  // namespace
}  // namespace strata
