// The CLI end to end at every CPU level this machine runs (STRATA_CPU pins a whole process,
// strata/core/cpu_pin.hpp): simulate, freq, KING, distances, GRM, PCA (randomized and exact),
// gwas, glm and the random sum, each run once per level on the same small cohort. Integer and
// random kernels must give the same bytes at every level; float work must stay within the
// tolerances docs/architecture.md ("CPU levels") documents. An AVX-512 machine thereby tests
// what AVX2 and portable users run.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "strata/backend/backend.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using backend::CpuIsa;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;

std::string cli() { return strata::testing::strata_cli_path(); }

// A float64 .npy vector or C-order matrix.
void write_npy(const std::string& path, const std::vector<double>& v, int64_t rows, int64_t cols) {
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(rows) +
                     (cols > 0 ? ", " + std::to_string(cols) + "), }" : ",), }");
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xFF);
  out += static_cast<char>(dict.size() >> 8);
  out += dict;
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  strata::testing::write_file(path, out);
}

// Everything the levels run, in one directory per level; inputs are written once, beside them.
struct LevelRuns {
  TempDir dir;
  std::vector<std::string> levels;  // the levels run, lowest first
  std::map<std::string, std::string> random_sum;  // level → the printed sum
  std::string failure;

  std::string at(const std::string& level, const std::string& file) const { return dir.str(level + "/" + file); }
};

// Inputs every level shares: phenotypes and covariates for gwas, X and y for glm.
void write_inputs(const TempDir& dir, const std::string& fam) {
  const auto rows = strata::testing::read_rows(fam, ' ');
  std::string pheno = "#FID\tIID\tq\tcc\n", covar = "#FID\tIID\tc1\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const double x = std::sin(0.37 * static_cast<double>(i) + 1.0);
    pheno += rows[i][0] + "\t" + rows[i][1] + "\t" + std::to_string(2.0 * x + 0.1 * static_cast<double>(i % 7)) +
             "\t" + (std::cos(1.3 * static_cast<double>(i)) > 0.1 ? "2" : "1") + "\n";
    covar += rows[i][0] + "\t" + rows[i][1] + "\t" + std::to_string(std::cos(0.11 * static_cast<double>(i))) + "\n";
  }
  strata::testing::write_file(dir.str("pheno.txt"), pheno);
  strata::testing::write_file(dir.str("covar.txt"), covar);
  const int64_t n = 400, p = 5;
  std::vector<double> x(static_cast<size_t>(n * p)), y(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    double eta = 0.2;
    for (int64_t j = 0; j < p; ++j) {
      const double v = std::sin((0.7 + 0.13 * static_cast<double>(j)) * static_cast<double>(i) + static_cast<double>(j));
      x[static_cast<size_t>(i * p + j)] = v;
      eta += (0.5 - 0.2 * static_cast<double>(j)) * v;
    }
    y[static_cast<size_t>(i)] = std::sin(12.9898 * static_cast<double>(i)) * 0.5 + 0.5 < 1.0 / (1.0 + std::exp(-eta)) ? 1.0 : 0.0;
  }
  write_npy(dir.str("x.npy"), x, n, p);
  write_npy(dir.str("y.npy"), y, n, 0);
}

// Runs every level once; a failure is kept in `failure` (every test reports it).
LevelRuns* make_runs() {
  auto* made = new LevelRuns;
  if (!fs::exists(cli())) return made;
  for (CpuIsa isa : {CpuIsa::Portable, CpuIsa::Avx2, CpuIsa::Avx2Vnni, CpuIsa::Avx512, CpuIsa::Avx512Vnni,
                     CpuIsa::Avx512Amx, CpuIsa::Neon})
    if (backend::cpu_isa_available(isa)) made->levels.push_back(backend::cpu_isa_name(isa));
  const std::string d = made->dir.str();
  const auto sim = run_command(cli() + " simulate -q --samples 240 --variants 3000 --pops 3 --fst 0.05 --missing 0.01"
                                       " --out " + d + "/c");
  if (sim.exit_code != 0) {
    made->failure = "simulate: " + sim.output;
    return made;
  }
  write_inputs(made->dir, d + "/c.fam");
  const auto imp = run_command(cli() + " zarr import " + d + "/x.npy " + d + "/x.zarr --chunks 100,5");
  if (imp.exit_code != 0) {
    made->failure = "zarr import: " + imp.output;
    return made;
  }
  for (const std::string& level : made->levels) {
    const std::string o = d + "/" + level + "/", c = d + "/c";
    fs::create_directories(o);
    // Every command at this level; the first failure stops the script with its output.
    const std::string script =
        "set -e; export STRATA_CPU=" + level + "; S='" + cli() + " ';" +
        "$S simulate -q --samples 240 --variants 3000 --pops 3 --fst 0.05 --missing 0.01 --out " + o + "sim;" +
        "$S freq " + c + " -q --out " + o + "f;" +
        "$S king " + c + " -q --out " + o + "k; $S king " + c + " -q --table --out " + o + "kt;" +
        "$S distance " + c + " -q --metric ibs --out " + o + "di;" +
        "$S distance " + c + " -q --metric euclidean --out " + o + "de;" +
        "$S grm " + c + " -q --out " + o + "g;" + "$S prune " + c + " -q --indep-pairwise 20 5 0.02 --out " + o + "pr;" +
        "$S pca " + c + " -q -k 4 --method randomized --out " + o + "p;" +
        "$S pca " + c + " -q -k 4 --method exact --out " + o + "pe;" +
        "$S gwas " + c + " -q --pheno " + d + "/pheno.txt --pheno-name q --covar " + d + "/covar.txt --out " + o +
        "gw;" + "$S gwas " + c + " -q --pheno " + d + "/pheno.txt --pheno-name cc --covar " + d +
        "/covar.txt --out " + o + "gl;" + "$S glm --x " + d + "/x.zarr --y " + d +
        "/y.npy --family logistic --solver newton --intercept -q --out " + o + "glm;" +
        "$S bench random-sum --shape 3000,2000 --chunks 700,900 --threads 2 --json";
    const auto res = run_command(script);
    if (res.exit_code != 0) {
      made->failure = level + ": " + res.output;
      return made;
    }
    made->random_sum[level] = res.output;
  }
  return made;
}

// Made once for every test of the suite; the directory goes when the process exits.
const LevelRuns& runs() {
  static const std::unique_ptr<LevelRuns> r(make_runs());
  return *r;
}

class CpuLevels : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    ASSERT_TRUE(runs().failure.empty()) << runs().failure;
    if (runs().levels.size() < 2) GTEST_SKIP() << "this CPU runs one level only (portable)";
  }
  // Each level's file against the lowest level's (portable: the reference every level equals).
  void expect_same_bytes(const std::string& file) {
    const std::string ref = read_file(runs().at(runs().levels[0], file));
    ASSERT_FALSE(ref.empty()) << file;
    for (size_t i = 1; i < runs().levels.size(); ++i)
      EXPECT_TRUE(read_file(runs().at(runs().levels[i], file)) == ref)
          << file << " differs between " << runs().levels[0] << " and " << runs().levels[i];
  }
  // Levels [from, to) against level `from` for one file (largest relative difference).
  double worst_between(const std::string& file, const std::string& a, const std::string& b, char sep = '\t') {
    const auto x = strata::testing::read_rows(runs().at(a, file), sep), y = strata::testing::read_rows(runs().at(b, file), sep);
    if (x.size() != y.size() || x.empty()) return 1e300;
    double worst = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].size() != y[i].size()) return 1e300;
      for (size_t j = 0; j < x[i].size(); ++j) {
        char* end = nullptr;
        const double u = std::strtod(x[i][j].c_str(), &end);
        if (end == x[i][j].c_str() || *end != '\0' || !std::isfinite(u)) {
          if (x[i][j] != y[i][j]) return 1e300;
          continue;
        }
        worst = std::max(worst, std::fabs(u - std::strtod(y[i][j].c_str(), nullptr)) / std::max(1.0, std::fabs(u)));
      }
    }
    return worst;
  }
  // Numeric fields within `rel` of the reference's (relative to max(1, |ref|)); text fields equal.
  void expect_close(const std::string& file, double rel, char sep = '\t') {
    const auto ref = strata::testing::read_rows(runs().at(runs().levels[0], file), sep);
    ASSERT_FALSE(ref.empty()) << file;
    for (size_t l = 1; l < runs().levels.size(); ++l) {
      const auto got = strata::testing::read_rows(runs().at(runs().levels[l], file), sep);
      ASSERT_EQ(got.size(), ref.size()) << file << " at " << runs().levels[l];
      double worst = 0.0;
      for (size_t i = 0; i < ref.size(); ++i) {
        ASSERT_EQ(got[i].size(), ref[i].size()) << file << " line " << i;
        for (size_t j = 0; j < ref[i].size(); ++j) {
          char* end = nullptr;
          const double a = std::strtod(ref[i][j].c_str(), &end);
          if (end == ref[i][j].c_str() || *end != '\0' || !std::isfinite(a)) {
            EXPECT_EQ(got[i][j], ref[i][j]) << file << " line " << i << " field " << j << " at " << runs().levels[l];
            continue;
          }
          const double b = std::strtod(got[i][j].c_str(), nullptr);
          worst = std::max(worst, std::fabs(a - b) / std::max(1.0, std::fabs(a)));
        }
      }
      std::printf("%-28s %-12s vs %s: largest relative difference %.3g (bound %.3g)\n", file.c_str(),
                  runs().levels[l].c_str(), runs().levels[0].c_str(), worst, rel);
      EXPECT_LE(worst, rel) << file << ": " << runs().levels[l] << " vs " << runs().levels[0];
    }
  }
};

// Integer kernels and the random module: the same bytes at every level.
TEST_F(CpuLevels, SimulateIsTheSameBytes) {
  for (const char* f : {"sim.bed", "sim.bim", "sim.fam"}) expect_same_bytes(f);
}
TEST_F(CpuLevels, FreqIsTheSameBytes) { expect_same_bytes("f.afreq"); }
TEST_F(CpuLevels, KingIsTheSameBytes) {
  for (const char* f : {"k.king", "k.king.id", "kt.kin0"}) expect_same_bytes(f);
}
TEST_F(CpuLevels, DistancesAreTheSameBytes) {
  for (const char* f : {"di.dist", "di.dist.id", "de.dist"}) expect_same_bytes(f);
}
TEST_F(CpuLevels, PruneIsTheSameBytes) {
  for (const char* f : {"pr.prune.in", "pr.prune.out"}) expect_same_bytes(f);
}
TEST_F(CpuLevels, RandomSumIsTheSameBits) {
  const auto& sums = runs().random_sum;
  const std::string& ref = sums.at(runs().levels[0]);
  const auto value = [](const std::string& json) {
    const size_t at = json.find("\"result\"");
    return at == std::string::npos ? std::string() : json.substr(at, json.find_first_of(",}", at) - at);
  };
  ASSERT_FALSE(value(ref).empty()) << ref;
  for (const auto& [level, out] : sums) EXPECT_EQ(value(out), value(ref)) << level;
}

// Float work: within the documented tolerances (docs/architecture.md, "CPU levels").
TEST_F(CpuLevels, GrmWithinTolerance) { expect_close("g.rel", 2e-6, '\t'); }
TEST_F(CpuLevels, PcaWithinTolerance) {
  expect_close("p.eigenval", 2e-5);
  expect_close("p.eigenvec", 5e-4);
  expect_close("pe.eigenval", 1e-6);
  expect_close("pe.eigenvec", 1e-5);
}
// The randomized PCA's products are int16 (exact integer sums) at every level whose backend says
// fast_int16 (portable on x86-64 too), float32 elsewhere: the int16 levels agree with each other far closer than with
// the float32 ones (only their dense steps differ).
TEST_F(CpuLevels, RandomizedPcaInt16LevelsAgree) {
  std::vector<std::string> int16;
  for (CpuIsa isa : {CpuIsa::Portable, CpuIsa::Avx2, CpuIsa::Avx2Vnni, CpuIsa::Avx512, CpuIsa::Avx512Vnni,
                     CpuIsa::Avx512Amx, CpuIsa::Neon})
    if (backend::cpu_isa_available(isa) && (*backend::make_cpu_backend(isa))->fast_int16())
      int16.push_back(backend::cpu_isa_name(isa));
  if (int16.size() < 2) GTEST_SKIP() << "fewer than two int16 levels on this CPU";
  for (size_t i = 1; i < int16.size(); ++i) {
    for (const char* f : {"p.eigenval", "p.eigenvec"}) {
      const double w = worst_between(f, int16[0], int16[i]);
      std::printf("%-28s %-12s vs %s: largest relative difference %.3g (bound 1e-7)\n", f, int16[i].c_str(),
                  int16[0].c_str(), w);
      EXPECT_LE(w, 1e-7) << f << " " << int16[i] << " vs " << int16[0];
    }
  }
}

TEST_F(CpuLevels, GwasWithinTolerance) {
  expect_close("gw.q.glm.linear", 1e-6);
  expect_close("gl.cc.glm.logistic.hybrid", 1e-6);
}
TEST_F(CpuLevels, GlmWithinTolerance) { expect_close("glm.coef.tsv", 1e-9); }

}  // namespace
}  // namespace strata
