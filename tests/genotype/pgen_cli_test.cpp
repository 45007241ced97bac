// `.pgen` inputs end to end: freq, pca and grm give the same bytes from a plink2-written
// `.pgen` as from the `.bed` plink2 makes of it; a broken `.pgen` exits 1 naming the file.
#include <filesystem>
#include <map>

#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;

std::string cli() { return strata::testing::strata_cli_path(); }

// The output files under `dir` whose names start with `prefix`, by suffix (logs, reports and
// plots, which name the input, left out; a directory reads as "").
std::map<std::string, std::string> outputs(const TempDir& dir, const std::string& prefix) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir.path())) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || name.ends_with(".log") || name.ends_with(".json") || name.ends_with(".svg") ||
        name.ends_with(".png"))
      continue;
    out[name.substr(prefix.size())] = read_file(e.path().string());
  }
  return out;
}

TEST(PgenCli, CommandsReadPgenLikeTheBed) {
  if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
  if (!fs::exists("/usr/bin/plink2")) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  auto s = run_command(cli() + " simulate -q --samples 240 --variants 3000 --pops 3 --fst 0.1 --missing 0.02 --seed 5 --out " +
                       tmp.str("sim"));
  ASSERT_EQ(s.exit_code, 0) << s.output;
  auto p = run_command("cd " + tmp.str() + " && /usr/bin/plink2 --threads 1 --bfile sim --make-pgen --out x && "
                       "/usr/bin/plink2 --threads 1 --pfile x --make-bed --out x 2>&1");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  fs::rename(tmp.str("x.bed"), tmp.str("y.bed"));  // a prefix with both would read the .bed
  fs::rename(tmp.str("x.bim"), tmp.str("y.bim"));
  fs::rename(tmp.str("x.fam"), tmp.str("y.fam"));
  for (const std::string cmd : {"freq", "pca -k 4 --method exact", "grm"}) {
    SCOPED_TRACE(cmd);
    const std::string tag = cmd.substr(0, cmd.find(' '));
    auto a = run_command(cli() + " " + cmd + " -q " + tmp.str("x.pgen") + " --out " + tmp.str("o_pgen_" + tag));
    ASSERT_EQ(a.exit_code, 0) << a.output;
    auto b = run_command(cli() + " " + cmd + " -q " + tmp.str("y") + " --out " + tmp.str("o_bed_" + tag));
    ASSERT_EQ(b.exit_code, 0) << b.output;
    const auto from_pgen = outputs(tmp, "o_pgen_" + tag), from_bed = outputs(tmp, "o_bed_" + tag);
    EXPECT_FALSE(from_pgen.empty());
    EXPECT_EQ(from_pgen, from_bed);
  }
  // The bare prefix reaches the .pgen too.
  auto c = run_command(cli() + " freq -q " + tmp.str("x") + " --out " + tmp.str("o_prefix_freq"));
  ASSERT_EQ(c.exit_code, 0) << c.output;
  EXPECT_EQ(outputs(tmp, "o_prefix_freq"), outputs(tmp, "o_bed_freq"));
  // freq matches plink2's own reading of the .pgen.
  auto f = run_command("cd " + tmp.str() + " && /usr/bin/plink2 --threads 1 --pfile x --freq --out pf 2>&1");
  ASSERT_EQ(f.exit_code, 0) << f.output;
  EXPECT_EQ(read_file(tmp.str("o_pgen_freq.afreq")), read_file(tmp.str("pf.afreq")));

  const std::string pgen = read_file(tmp.str("x.pgen"));
  strata::testing::write_file(tmp.str("x.pgen"), pgen.substr(0, pgen.size() / 2));
  auto t = run_command(cli() + " freq -q " + tmp.str("x.pgen") + " --out " + tmp.str("o_trunc"));
  STRATA_EXPECT_CLI_ERROR(t, 1, "x.pgen: truncated");
  EXPECT_TRUE(outputs(tmp, "o_trunc").empty());
}

}  // namespace
}  // namespace strata
