// `strata pca` end to end: HapMap3 against Debian's plink2 (exact and randomized), the output
// formats, and bad inputs (clear error, exit code, no output files left).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "strata/genomics/genotype_gram.hpp"
#include "strata/genomics/plot.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;
using strata::testing::write_file;

const char* kPlink2 = "/usr/bin/plink2";

std::string cli() { return strata::testing::strata_cli_path(); }

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream ss(read_file(path));
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream ss(line);
  for (std::string f; std::getline(ss, f, '\t');) out.push_back(f);
  return out;
}

std::vector<double> read_eigenval(const std::string& path) {
  std::vector<double> out;
  for (const auto& l : lines_of(path)) out.push_back(std::stod(l));
  return out;
}

// IDs ("FID IID") and values (rows × k) of an .eigenvec file.
struct Eigenvec {
  std::vector<std::string> header, ids;
  std::vector<std::vector<double>> rows;
};
Eigenvec read_eigenvec(const std::string& path) {
  Eigenvec e;
  auto ls = lines_of(path);
  if (ls.empty()) return e;
  e.header = split_tabs(ls[0]);
  for (size_t i = 1; i < ls.size(); ++i) {
    auto f = split_tabs(ls[i]);
    e.ids.push_back(f.at(0) + " " + f.at(1));
    std::vector<double> r;
    for (size_t j = 2; j < f.size(); ++j) r.push_back(std::stod(f[j]));
    e.rows.push_back(std::move(r));
  }
  return e;
}

// plink2 prints 6 significant digits: allow half a unit in the last printed place on top.
double printed_slack(double x) {
  if (x == 0) return 0;
  return 0.5 * std::pow(10.0, std::floor(std::log10(std::fabs(x))) - 5);
}

std::vector<std::string> files_with_prefix(const fs::path& dir, const std::string& stem) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(stem, 0) == 0 || name.rfind("." + stem, 0) == 0) out.push_back(name);
  }
  return out;
}

class PcaPlink2 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
  }
  TempDir dir_;
};

TEST_F(PcaPlink2, HapMap3MatchesPlink2ExactAndRandomized) {
  const std::string data = strata::testing::shared_data_dir();
  const std::string bfile = data + "/hapmap3/HM3_thinned_autosomal_overlap";
  if (data.empty() || !fs::exists(bfile + ".bed")) GTEST_SKIP() << "HapMap3 absent (" << bfile << ".bed); " << strata::testing::kSkipNoSharedData;
  if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  // HapMap3 has missing calls: plink2's default PCA corrects for them per pair, so the
  // mean-imputing mode is the one strata matches.
  auto r = run_command(std::string(kPlink2) + " --bfile " + bfile + " --pca 10 meanimpute --threads 2 --out " +
                       dir_.str("plink"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(cli() + " pca --bfile " + bfile + " -k 10 --method exact -q --out " + dir_.str("exact"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(cli() + " pca " + bfile + " -k 10 --method randomized -q --out " + dir_.str("rand"));
  ASSERT_EQ(r.exit_code, 0) << r.output;

  const auto ref = read_eigenval(dir_.str("plink.eigenval"));
  const auto ex = read_eigenval(dir_.str("exact.eigenval"));
  const auto rd = read_eigenval(dir_.str("rand.eigenval"));
  ASSERT_EQ(ref.size(), 10u);
  ASSERT_EQ(ex.size(), 10u);
  ASSERT_EQ(rd.size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_NEAR(ex[i], ref[i], 1e-6 * ref[i] + printed_slack(ref[i])) << "PC" << i + 1;
    EXPECT_NEAR(rd[i], ref[i], 1e-3 * ref[i]) << "randomized PC" << i + 1;
  }

  const Eigenvec pv = read_eigenvec(dir_.str("plink.eigenvec"));
  const Eigenvec sv = read_eigenvec(dir_.str("exact.eigenvec"));
  ASSERT_EQ(pv.ids, sv.ids);
  ASSERT_EQ(sv.header, pv.header);
  for (size_t j = 0; j < 10; ++j) {
    double dot = 0, max_diff = 0;
    for (size_t i = 0; i < pv.rows.size(); ++i) dot += pv.rows[i][j] * sv.rows[i][j];
    const double sign = dot < 0 ? -1.0 : 1.0;
    for (size_t i = 0; i < pv.rows.size(); ++i)
      max_diff = std::max(max_diff, std::fabs(pv.rows[i][j] - sign * sv.rows[i][j]));
    EXPECT_LT(max_diff, 1e-5) << "PC" << j + 1;
  }
}

TEST_F(PcaPlink2, OutputFormatsAndReport) {
  auto r = run_command(cli() + " simulate --samples 120 --variants 1500 --pops 3 --fst 0.1 --out " + dir_.str("sim") +
                       " -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Missing parent directories are created (the rule for every output).
  r = run_command(cli() + " pca " + dir_.str("sim") + " -k 4 -q --report " + dir_.str("run.json") + " --out " +
                  dir_.str("out/p"));
  ASSERT_EQ(r.exit_code, 0) << r.output;

  const Eigenvec ev = read_eigenvec(dir_.str("out/p.eigenvec"));
  EXPECT_EQ(ev.header, (std::vector<std::string>{"#FID", "IID", "PC1", "PC2", "PC3", "PC4"}));
  ASSERT_EQ(ev.rows.size(), 120u);
  for (size_t j = 0; j < 4; ++j) {
    double ss = 0;
    for (const auto& row : ev.rows) ss += row.at(j) * row.at(j);
    EXPECT_NEAR(ss, 1.0, 1e-6) << "PC" << j + 1 << " unit norm";
  }
  const auto vals = read_eigenval(dir_.str("out/p.eigenval"));
  ASSERT_EQ(vals.size(), 4u);
  for (size_t i = 1; i < vals.size(); ++i) EXPECT_GE(vals[i - 1], vals[i]);

  const auto var = lines_of(dir_.str("out/p.eigenvec.var"));
  ASSERT_GT(var.size(), 1u);
  EXPECT_EQ(split_tabs(var[0]), (std::vector<std::string>{"#CHROM", "ID", "REF", "ALT", "PC1", "PC2", "PC3", "PC4"}));
  EXPECT_EQ(split_tabs(var[1]).size(), 8u);

  EXPECT_TRUE(fs::exists(dir_.str("out/p.zarr/.zmetadata")));
  EXPECT_TRUE(fs::exists(dir_.str("out/p.zarr/eigenvectors/.zarray")));
  EXPECT_TRUE(fs::exists(dir_.str("out/p.zarr/loadings/.zarray")));
  EXPECT_TRUE(fs::exists(dir_.str("out/p.zarr/sample_id/.zarray")));
  EXPECT_TRUE(fs::exists(dir_.str("out/p.zarr/variant_id/.zarray")));
  const std::string svg = read_file(dir_.str("out/p.svg"));
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("PC1 ("), std::string::npos) << "variance on the axes";
  EXPECT_NE(svg.find("%)"), std::string::npos) << "variance on the axes";
  // Only the outputs (.afreq for strata project, the PNG where libcairo is found) and the log:
  // no temporaries left behind.
  auto names = files_with_prefix(dir_.str("out"), "p");
  std::sort(names.begin(), names.end());
  std::vector<std::string> expected{"p.afreq",        "p.eigenval", "p.eigenvec",
                                    "p.eigenvec.var", "p.log",      "p.svg",      "p.zarr"};
  if (genomics::png_supported()) expected.insert(expected.begin() + 5, "p.png");
  EXPECT_EQ(names, expected);

  // --pop-file labels the plot; a malformed one fails before any output is written.
  std::string pops;
  for (const auto& id : ev.ids) pops += id.substr(id.find(' ') + 1) + " popname_" + id.substr(0, 1) + "\n";
  write_file(dir_.str("pops.txt"), pops);
  r = run_command(cli() + " pca " + dir_.str("sim") + " -k 2 -q --pop-file " + dir_.str("pops.txt") + " --out " +
                  dir_.str("out/q"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read_file(dir_.str("out/q.svg")).find("popname_"), std::string::npos);
  write_file(dir_.str("badpops.txt"), "onlyonecolumn\n");
  r = run_command(cli() + " pca " + dir_.str("sim") + " -k 2 -q --pop-file " + dir_.str("badpops.txt") + " --out " +
                  dir_.str("out/z"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "badpops.txt:1: 1 columns, expected 2 (IID POP");
  // Only the log, which says why.
  EXPECT_EQ(files_with_prefix(dir_.str("out"), "z"), std::vector<std::string>{"z.log"});
  EXPECT_NE(read_file(dir_.str("out/z.log")).find("Error: "), std::string::npos);

  const auto rep = nlohmann::json::parse(read_file(dir_.str("run.json")));
  EXPECT_EQ(rep.at("command"), "pca");
  EXPECT_GT(rep.at("peak_rss_bytes").get<int64_t>(), 0);
  // Every computing command's report: parameters, phases with seconds, passes, bytes read,
  // peaks, backend and threads.
  EXPECT_EQ(rep.at("parameters").at("-k"), "4");
  bool svd_phase = false;
  for (const auto& ph : rep.at("phases")) svd_phase |= ph.at("name") == "svd" && ph.at("seconds").get<double>() >= 0;
  EXPECT_TRUE(svd_phase) << rep.dump();
  EXPECT_GT(rep.at("engine").at("passes").get<int64_t>(), 0);
  EXPECT_GT(rep.at("bytes_read").get<int64_t>(), 0);
  EXPECT_GT(rep.at("peak_tracked_bytes").get<int64_t>(), 0);
  EXPECT_EQ(rep.at("backend").get<std::string>().rfind("cpu", 0), 0u) << rep.at("backend");
  EXPECT_GT(rep.at("threads").get<int64_t>(), 0);
  // Variance ratios are fractions of the GRM trace (≈ N for binom2).
  double total = 0;
  for (double x : rep.at("variance_ratio")) total += x;
  EXPECT_GT(total, 0.0);
  EXPECT_LT(total, 1.0);

  // Randomized products: int16 by default (where vectorized), float32 on request; the same eigenvalues to well
  // within the randomized error; an unknown precision is a usage error.
  std::vector<double> by_precision[2];
  const char* precisions[2] = {"auto", "float32"};
  for (int i = 0; i < 2; ++i) {
    r = run_command(cli() + " pca " + dir_.str("sim") + " -k 4 -q --method randomized --precision " + precisions[i] +
                    " --report " + dir_.str("rand.json") + " --overwrite --out " + dir_.str("out/r"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto rj = nlohmann::json::parse(read_file(dir_.str("rand.json")));
    EXPECT_EQ(rj.at("arithmetic"), i == 0 && genomics::int16_kernels_vectorized() ? "int16" : "float32");
    by_precision[i] = rj.at("eigenvalues").get<std::vector<double>>();
  }
  for (size_t j = 0; j < by_precision[0].size(); ++j)
    EXPECT_NEAR(by_precision[0][j], by_precision[1][j], 1e-4 * by_precision[1][j]) << "PC" << j + 1;
  r = run_command(cli() + " pca " + dir_.str("sim") + " -k 4 -q --precision int8 --out " + dir_.str("out/x"));
  STRATA_EXPECT_CLI_ERROR(r, 2, "--precision: int8 not in {auto,int16,mixed,float32,float64}");

  // The converged route: --tolerance picks mixed arithmetic where vectorized (its rounded basis
  // loses nothing), and lands on the exact method's eigenvalues.
  r = run_command(cli() + " pca " + dir_.str("sim") + " -k 4 -q --method randomized --tolerance 1e-10 --report " +
                  dir_.str("conv.json") + " --out " + dir_.str("out/c"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto cj = nlohmann::json::parse(read_file(dir_.str("conv.json")));
  EXPECT_EQ(cj.at("arithmetic"), genomics::int16_kernels_vectorized() ? "mixed" : "float32");
  const auto exact = rep.at("eigenvalues").get<std::vector<double>>();
  const auto conv = cj.at("eigenvalues").get<std::vector<double>>();
  ASSERT_EQ(conv.size(), exact.size());
  for (size_t j = 0; j < exact.size(); ++j) EXPECT_NEAR(conv[j], exact[j], 2e-6 * exact[j]) << "PC" << j + 1;
}

// A tiny PLINK fileset: 8 samples, `rows` variants given as 2 bytes each.
void write_tiny_bed(const std::string& prefix, const std::vector<std::array<uint8_t, 2>>& rows) {
  std::string bed = {'\x6c', '\x1b', '\x01'};
  std::string bim, fam;
  for (size_t v = 0; v < rows.size(); ++v) {
    bed.push_back(static_cast<char>(rows[v][0]));
    bed.push_back(static_cast<char>(rows[v][1]));
    bim += "1\tv" + std::to_string(v) + "\t0\t" + std::to_string(100 + v) + "\tA\tC\n";
  }
  for (int i = 0; i < 8; ++i) fam += "f" + std::to_string(i) + " s" + std::to_string(i) + " 0 0 0 -9\n";
  write_file(prefix + ".bed", bed);
  write_file(prefix + ".bim", bim);
  write_file(prefix + ".fam", fam);
}

TEST_F(PcaPlink2, BadInputsFailCleanly) {
  // Constant genotypes (all hom A2), and variants with one missing call each.
  write_tiny_bed(dir_.str("const"), {{0xFF, 0xFF}, {0xFF, 0xFF}, {0xFF, 0xFF}});
  write_tiny_bed(dir_.str("miss"), {{0xFD, 0xF8}, {0xF1, 0x8F}, {0xE5, 0x3F}});
  fs::create_directories(dir_.str("bad.zarr"));
  write_file(dir_.str("bad.zarr/.zarray"),
             R"({"zarr_format":2,"shape":[4,8],"chunks":[4,8],"dtype":"|S4","compressor":null,)"
             R"("fill_value":null,"order":"C","filters":null})");
  struct Case {
    std::string args, expect;
    int code;
  };
  const std::vector<Case> cases = {
      {dir_.str("miss") + " -k 8", "must be less than", 1},
      {dir_.str("const") + " -k 1", "filtered out", 1},
      {dir_.str("miss") + " -k 1 --geno 0", "no variants left after --geno", 1},
      {dir_.str("bad.zarr") + " -k 1", "bad.zarr", 1},
      {dir_.str("nonexistent") + " -k 1", "nonexistent", 1},
      {dir_.str("miss") + " -k 0", "-k", 2},
      {dir_.str("miss"), "-k", 2},
      {dir_.str("miss") + " -k 1 --maf 0.7", "maf", 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    auto r = run_command(cli() + " pca " + c.args + " -q --out " + dir_.str("o"));
    STRATA_EXPECT_CLI_ERROR(r, c.code, c.expect);
    auto left = files_with_prefix(dir_.path(), "o");  // the log alone, which says why
    std::erase(left, std::string("o.log"));
    EXPECT_TRUE(left.empty()) << "outputs left behind";
    if (fs::exists(dir_.str("o.log"))) EXPECT_NE(read_file(dir_.str("o.log")).find("Error: "), std::string::npos);
  }
}

}  // namespace
}  // namespace strata
