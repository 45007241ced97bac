// `strata project` against plink2 --score (the .sscore byte for byte), the reference samples
// reproducing their own .eigenvec rows, the held-aside property of OADP (projected samples land
// on their in-sample PCs, unshrunk) on a simulated cohort and HapMap3, and the CLI's errors.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "testing/testing.hpp"

namespace strata::testing {
namespace {

namespace fs = std::filesystem;

void run_ok(const std::string& cmd) {
  auto r = run_command(cmd);
  ASSERT_EQ(r.exit_code, 0) << cmd << "\n" << r.output;
}

// IID → PC values of an .eigenvec.
std::map<std::string, std::vector<double>> read_eigenvec(const std::string& path) {
  std::map<std::string, std::vector<double>> out;
  auto rows = read_rows(path);
  for (size_t i = 1; i < rows.size(); ++i) {
    std::vector<double> v;
    for (size_t j = 2; j < rows[i].size(); ++j) v.push_back(std::stod(rows[i][j]));
    out[rows[i][1]] = v;
  }
  return out;
}

std::vector<double> read_values(const std::string& path) {
  std::vector<double> v;
  for (const auto& row : read_rows(path)) v.push_back(std::stod(row[0]));
  return v;
}

int64_t data_lines(const std::string& path) { return static_cast<int64_t>(read_rows(path).size()) - 1; }

TEST(ProjectCli, SscoreEqualsPlink2AndReferenceReproducesItsPcs) {
  if (!fs::exists("/usr/bin/plink2")) GTEST_SKIP() << kSkipNoPlink2;
  TempDir tmp;
  const std::string s = strata_cli_path();
  run_ok(s + " simulate --samples 300 --variants 3000 --missing 0.02 --out " + tmp.str("c") + " -q");
  run_ok(s + " pca " + tmp.str("c") + " -k 4 --out " + tmp.str("p") + " -q");
  run_ok("cd " + tmp.str() + " && /usr/bin/plink2 --bfile c --read-freq p.afreq --score p.eigenvec.var 2 3 "
         "header-read no-mean-imputation variance-standardize --score-col-nums 5-8 --out p2 --threads 2");
  // The .afreq is plink2's --freq of the same samples.
  run_ok("cd " + tmp.str() + " && /usr/bin/plink2 --bfile c --freq --out f --threads 2");
  EXPECT_EQ(read_file(tmp.str("p.afreq")), read_file(tmp.str("f.afreq")));
  for (const char* threads : {"1", "3"}) {
    run_ok(s + " project " + tmp.str("c") + " --ref " + tmp.str("p") + " --out " + tmp.str("q") + " --threads " +
           threads + " -q");
    const std::string want = read_file(tmp.str("p2.sscore"));
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(read_file(tmp.str("q.sscore")), want) << threads << " threads";
  }
  const auto ref = read_eigenvec(tmp.str("p.eigenvec")), proj = read_eigenvec(tmp.str("q.eigenvec"));
  ASSERT_EQ(ref.size(), 300u);
  double worst = 0;
  for (const auto& [iid, v] : ref)
    for (size_t j = 0; j < v.size(); ++j) worst = std::max(worst, std::abs(v[j] - proj.at(iid)[j]));
  EXPECT_LT(worst, 1e-6);  // the 6 digits of .afreq
  // -k 2 projects the first two PCs only.
  run_ok(s + " project " + tmp.str("c") + " --ref " + tmp.str("p") + " -k 2 --out " + tmp.str("k2") + " -q");
  EXPECT_EQ(read_rows(tmp.str("k2.eigenvec"))[0].size(), 4u);
}

// Relative error ‖projection − in-sample scores‖ / ‖in-sample scores‖ of each PC over held-aside
// samples, on the score scale (eigenvec · √(λ·M)), signs aligned on the reference samples.
struct HoldAside {
  std::vector<double> simple, oadp;
};

HoldAside hold_aside(const std::string& input, int k) {
  TempDir tmp;
  const std::string s = strata_cli_path();
  auto fam = read_rows(input + ".fam", ' ');
  std::string hold;
  for (size_t i = 0; i < fam.size(); i += 10) hold += fam[i][0] + "\t" + fam[i][1] + "\n";
  write_file(tmp.str("hold.txt"), hold);
  const std::string kk = " -k " + std::to_string(k);
  run_ok(s + " pca " + input + kk + " --out " + tmp.str("all") + " -q");
  run_ok(s + " pca " + input + kk + " --remove " + tmp.str("hold.txt") + " --out " + tmp.str("ref") + " -q");
  for (const char* c : {"none", "oadp"})
    run_ok(s + " project " + input + " --ref " + tmp.str("ref") + " --keep " + tmp.str("hold.txt") +
           " --correction " + c + " --out " + tmp.str(std::string("q_") + c) + " -q");
  const auto all = read_eigenvec(tmp.str("all.eigenvec")), ref = read_eigenvec(tmp.str("ref.eigenvec"));
  const auto la = read_values(tmp.str("all.eigenval")), lr = read_values(tmp.str("ref.eigenval"));
  const double ma = double(data_lines(tmp.str("all.afreq"))), mr = double(data_lines(tmp.str("ref.afreq")));
  HoldAside out;
  for (const char* c : {"none", "oadp"}) {
    const auto q = read_eigenvec(tmp.str(std::string("q_") + c + ".eigenvec"));
    EXPECT_EQ(q.size(), (fam.size() + 9) / 10);
    for (int j = 0; j < k; ++j) {
      double dot = 0;
      for (const auto& [iid, v] : ref) dot += v[static_cast<size_t>(j)] * all.at(iid)[static_cast<size_t>(j)];
      const double sign = dot < 0 ? -1.0 : 1.0;
      double err = 0, norm = 0;
      for (const auto& [iid, v] : q) {
        const double truth = all.at(iid)[static_cast<size_t>(j)] * std::sqrt(la[static_cast<size_t>(j)] * ma);
        const double est = sign * v[static_cast<size_t>(j)] * std::sqrt(lr[static_cast<size_t>(j)] * mr);
        err += (est - truth) * (est - truth);
        norm += truth * truth;
      }
      (std::string(c) == "none" ? out.simple : out.oadp).push_back(std::sqrt(err / norm));
    }
  }
  return out;
}

// 4 populations, weak structure, M ≫ N: the simple projection of held-aside samples is shrunk
// (~0.7) on the three population PCs; OADP puts them back (relative error ~0.1 vs ~0.3).
TEST(ProjectCli, OadpHeldAsideSamplesLandOnTheirInSamplePcs) {
  TempDir tmp;
  run_ok(strata_cli_path() + " simulate --samples 1000 --variants 50000 --pops 4 --fst 0.005 --out " +
         tmp.str("c") + " -q");
  const HoldAside h = hold_aside(tmp.str("c"), 3);
  for (int j = 0; j < 3; ++j) {
    EXPECT_LT(h.oadp[static_cast<size_t>(j)], 0.15) << "PC" << j + 1;
    EXPECT_GT(h.simple[static_cast<size_t>(j)], 2 * h.oadp[static_cast<size_t>(j)]) << "PC" << j + 1;
  }
}

TEST(ProjectCli, OadpHeldAsideOnHapMap3) {
  const std::string data = shared_data_dir(), input = data + "/hapmap3/HM3_thinned_autosomal_overlap";
  if (data.empty() || !fs::exists(input + ".bed")) GTEST_SKIP() << kSkipNoSharedData;
  const HoldAside h = hold_aside(input, 6);
  // PC1–2 (continental) barely shrink; PC3–6 shrink 0.6–0.85 and OADP fixes them.
  for (int j = 2; j < 6; ++j) {
    EXPECT_LT(h.oadp[static_cast<size_t>(j)], 0.12) << "PC" << j + 1;
    EXPECT_GT(h.simple[static_cast<size_t>(j)], 2 * h.oadp[static_cast<size_t>(j)]) << "PC" << j + 1;
  }
}

TEST(ProjectCli, Errors) {
  TempDir tmp;
  const std::string s = strata_cli_path();
  run_ok(s + " simulate --samples 50 --variants 200 --out " + tmp.str("c") + " -q");
  run_ok(s + " pca " + tmp.str("c") + " -k 3 --out " + tmp.str("p") + " -q");
  const std::string base = s + " project " + tmp.str("c") + " --out " + tmp.str("q") + " --ref ";
  STRATA_EXPECT_CLI_ERROR(run_command(base + tmp.str("p") + " -k 4"), 2, "has 3 PCs");
  fs::rename(tmp.str("p.afreq"), tmp.str("p.afreq.bak"));
  STRATA_EXPECT_CLI_ERROR(run_command(base + tmp.str("p")), 1, tmp.str("p.afreq"));
  fs::rename(tmp.str("p.afreq.bak"), tmp.str("p.afreq"));
  fs::rename(tmp.str("p.eigenvec.var"), tmp.str("p.var.bak"));
  STRATA_EXPECT_CLI_ERROR(run_command(base + tmp.str("p")), 1, tmp.str("p.eigenvec.var"));
  fs::rename(tmp.str("p.var.bak"), tmp.str("p.eigenvec.var"));
  // A reference cut short mid-line, or with a garbled field: exit 1 naming the file, line and
  // field, and no output.
  const std::string var = read_file(tmp.str("p.eigenvec.var")), afreq = read_file(tmp.str("p.afreq"));
  const std::string cut = var.substr(0, var.rfind('\t', var.size() / 2));  // ends after a whole field
  auto lines = [](const std::string& t) { return std::to_string(std::count(t.begin(), t.end(), '\n') + 1); };
  write_file(tmp.str("p.eigenvec.var"), cut);
  STRATA_EXPECT_CLI_ERROR(run_command(base + tmp.str("p")), 1,
                          tmp.str("p.eigenvec.var") + " line " + lines(cut) + ": ");
  write_file(tmp.str("p.eigenvec.var"), cut.substr(0, cut.rfind('\n') + 2));  // a line of its first field alone
  STRATA_EXPECT_CLI_ERROR(run_command(base + tmp.str("p")), 1,
                          tmp.str("p.eigenvec.var") + " line " + lines(cut) + ": 1 fields, the header has 7");
  EXPECT_FALSE(fs::exists(tmp.str("q.sscore")));
  write_file(tmp.str("p.eigenvec.var"), var);
  std::string garbled = afreq;
  garbled[garbled.rfind('\t', garbled.rfind('\t') - 1) + 2] = '#';  // the last row's ALT_FREQS
  write_file(tmp.str("p.afreq"), garbled);
  STRATA_EXPECT_CLI_ERROR(run_command(base + tmp.str("p")), 1, tmp.str("p.afreq") + " line " + lines(afreq.substr(0, afreq.size() - 1)) + ": ALT_FREQS '0#");
  EXPECT_FALSE(fs::exists(tmp.str("q.sscore")));
  write_file(tmp.str("p.afreq"), afreq);
  // A target none of whose variants the reference has.
  std::string bim = read_file(tmp.str("c.bim"));
  for (size_t at = bim.find("\tv"); at != std::string::npos; at = bim.find("\tv", at + 2)) bim[at + 1] = 'x';
  for (const char* ext : {".bed", ".fam"}) fs::copy_file(tmp.str("c") + ext, tmp.str("o") + ext);
  write_file(tmp.str("o.bim"), bim);
  STRATA_EXPECT_CLI_ERROR(run_command(s + " project " + tmp.str("o") + " --ref " + tmp.str("p") + " --out " +
                                      tmp.str("q")),
                          1, "no variant of");
  EXPECT_FALSE(fs::exists(tmp.str("q.sscore")));
  EXPECT_FALSE(fs::exists(tmp.str("q.eigenvec")));
}

}  // namespace
}  // namespace strata::testing
