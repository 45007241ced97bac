// `strata distance` against scipy.spatial.distance (complete data: pdist; with missing calls:
// each pair's metric on the variants both observed), plink 1.9 `--distance ibs 1-ibs`
// (.mibs / .mdist), python3-zarr reading the Zarr output, and the CLI's usage and data errors.
// Genotypes come from `strata simulate`; numpy decodes the .bed itself.
#include <filesystem>
#include <string>

#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;

std::string cli() { return strata::testing::strata_cli_path(); }

// numpy dosages (variants x samples, -1 missing) of a .bed fileset, as python source.
std::string read_bed_py(const std::string& prefix) {
  return R"(
import numpy as np
def dosages(p):
    n = sum(1 for _ in open(p + '.fam')); rb = (n + 3) // 4
    b = np.fromfile(p + '.bed', dtype=np.uint8)[3:].reshape(-1, rb)
    c = np.stack([(b >> (2 * k)) & 3 for k in range(4)], axis=2).reshape(b.shape[0], -1)[:, :n]
    return np.array([2, -1, 1, 0])[c]
G = dosages(')" + prefix + R"(')
)";
}

class DistanceOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    const auto r = strata::testing::run_python("import scipy.spatial.distance, numpy");
    if (r.exit_code != 0) GTEST_SKIP() << "no oracle: /usr/bin/python3 with scipy and numpy: " << r.output;
  }
  std::string simulate(int64_t samples, int64_t variants, double missing, int seed) {
    const std::string p = dir_.str("sim" + std::to_string(samples) + "_" + std::to_string(seed));
    const auto r = run_command(cli() + " simulate -q --samples " + std::to_string(samples) + " --variants " +
                               std::to_string(variants) + " --missing " + std::to_string(missing) + " --seed " +
                               std::to_string(seed) + " --pops " + (samples < 3 ? "1" : "3") + " --out " + p);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return p;
  }
  // ibs and allele-sharing of `in`, square and triangle, against plink 1.9's .mibs/.mdist
  // (`--distance SHAPE ibs 1-ibs` + `flat`), value by value (nan only where plink's is nan).
  void expect_plink19(const std::string& in, const std::string& flat, const std::string& what) {
    for (const char* shape : {"square", "triangle"}) {
      const auto p = run_command("/usr/bin/plink1.9 --bfile " + in + " --distance " + shape + " ibs 1-ibs" + flat +
                                 " --out " + dir_.str("p") + " > /dev/null");
      ASSERT_EQ(p.exit_code, 0) << p.output;
      for (const char* metric : {"ibs", "allele-sharing"}) {
        const auto s = run_command(cli() + " distance " + in + " -q --metric " + metric + " --format " + shape +
                                   " --out " + dir_.str(metric));
        ASSERT_EQ(s.exit_code, 0) << s.output;
        const std::string plink = dir_.str(std::string("p.") + (std::string(metric) == "ibs" ? "mibs" : "mdist"));
        const auto r = strata::testing::run_python(
            "import numpy as np\n"
            "a = [np.array(l.split(), dtype=float) for l in open('" + dir_.str(metric) + ".dist')]\n"
            "b = [np.array(l.split(), dtype=float) for l in open('" + plink + "')]\n"
            "ok = len(a) == len(b) and all(len(x) == len(y) and np.allclose(x, y, rtol=0, atol=1e-6, equal_nan=True) "
            "for x, y in zip(a, b))\n"
            "print('same' if ok else 'differ', len(a), len(b))\n");
        EXPECT_NE(r.output.find("same"), std::string::npos) << metric << " " << shape << " " << what << ": " << r.output;
      }
    }
  }
  TempDir dir_;
};

const char* kMetrics[] = {"euclidean", "sqeuclidean", "cityblock", "chebyshev", "minkowski:3",
                          "cosine",    "correlation", "hamming"};

// Sample counts around the kernels' width of 8, complete and with 5 % missing calls.
TEST_F(DistanceOracle, EveryMetricEqualsScipy) {
  for (int64_t n : {2, 7, 65, 130}) {
    for (double missing : {0.0, 0.05}) {
      if (missing > 0 && n == 130) continue;  // the per-pair python loop is slow; 65 covers it
      const std::string in = simulate(n, 300, missing, static_cast<int>(n));
      std::string py = read_bed_py(in) + R"(
from scipy.spatial import distance
X = G.T.astype(np.float64)
bad = []
)";
      for (const char* metric : kMetrics) {
        const std::string out = dir_.str(std::string("d_") + metric);
        const auto r = run_command(cli() + " distance " + in + " -q --metric " + metric + " --out " + out);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        std::string scipy_metric = metric, kw;
        if (scipy_metric == "minkowski:3") scipy_metric = "minkowski", kw = ", p=3";
        py += "D = np.loadtxt('" + out + ".dist', ndmin=2)\n";
        if (missing == 0) {
          py += "R = distance.squareform(distance.pdist(X, '" + scipy_metric + "'" + kw + "))\n";
        } else {
          py += "R = np.zeros_like(D)\n"
                "for i in range(len(X)):\n"
                "    for j in range(i):\n"
                "        m = (X[i] >= 0) & (X[j] >= 0)\n"
                "        R[i, j] = R[j, i] = distance.pdist(np.stack([X[i][m], X[j][m]]), '" +
                scipy_metric + "'" + kw + ")[0]\n";
        }
        py += "np.fill_diagonal(R, 0)\n"
              "if D.shape != R.shape or not np.allclose(D, R, rtol=1e-9, atol=1e-12):\n"
              "    bad.append(('" + std::string(metric) + "', float(np.max(np.abs(D - R)))))\n";
      }
      py += "print('bad', bad)\n";
      const auto r = strata::testing::run_python(py);
      EXPECT_NE(r.output.find("bad []"), std::string::npos) << "n " << n << " missing " << missing << ": " << r.output;
    }
  }
}

// ibs / allele-sharing are plink 1.9's .mibs / .mdist: with flat-missing on data with missing
// calls, and with its default missing correction on complete data (where the two agree).
// plink prints 6 significant digits (an exact tie such as 0.2890625 prints as 0.289062).
TEST_F(DistanceOracle, IbsEqualsPlink19) {
  if (!fs::exists("/usr/bin/plink1.9")) GTEST_SKIP() << "no oracle: plink1.9 not installed (Debian plink1.9)";
  for (double missing : {0.0, 0.05}) {
    const std::string in = simulate(37, 500, missing, 3);
    expect_plink19(in, missing > 0 ? " flat-missing" : "", "missing " + std::to_string(missing));
    // The ID file: FID and IID per line, as plink 1.9's.
    EXPECT_EQ(read_file(dir_.str("ibs.dist.id")), read_file(dir_.str("p.mibs.id")));
  }
}

// A sample with no call: its diagonal is plink 1.9's (ibs 1, allele-sharing 0; nan before), its
// pairs have no common variant (nan in both).
TEST_F(DistanceOracle, AllMissingSampleDiagonalEqualsPlink19) {
  if (!fs::exists("/usr/bin/plink1.9")) GTEST_SKIP() << "no oracle: plink1.9 not installed (Debian plink1.9)";
  const std::string in = simulate(9, 200, 0.02, 4);
  const auto w = strata::testing::run_python(
      "import numpy as np\n"
      "b = np.fromfile('" + in + ".bed', dtype=np.uint8)\n"
      "rows = b[3:].reshape(200, -1)\n"
      "rows[:, 1] = (rows[:, 1] & 0xF3) | 0x04\n"  // sample 5 (byte 1, bits 2-3) missing everywhere
      "b[3:] = rows.ravel(); b.tofile('" + in + ".bed'); print('ok')\n");
  ASSERT_NE(w.output.find("ok"), std::string::npos) << w.output;
  expect_plink19(in, " flat-missing", "all-missing sample");
}

TEST_F(DistanceOracle, ZarrOutputReadByPythonZarr) {
  if (strata::testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  const std::string in = simulate(70, 200, 0.02, 9);
  ASSERT_EQ(run_command(cli() + " distance " + in + " -q --metric cityblock --out " + dir_.str("sq")).exit_code, 0);
  const auto z = run_command(cli() + " distance " + in + " -q --metric cityblock --format zarr --out " + dir_.str("z"));
  ASSERT_EQ(z.exit_code, 0) << z.output;
  const auto r = strata::testing::run_python(
      "import zarr, numpy as np\n"
      "g = zarr.open_group('" + dir_.str("z.dist.zarr") + "', mode='r')\n"
      "D = g['distance'][:]\n"
      "ids = list(g['sample_id'][:])\n"
      "S = np.loadtxt('" + dir_.str("sq.dist") + "')\n"
      "fam = [l.split()[1] for l in open('" + in + ".fam')]\n"
      "print('equal' if D.shape == (70, 70) and np.array_equal(D, S) and ids == fam else 'differ', D.shape, g.attrs['metric'])\n");
  EXPECT_NE(r.output.find("equal (70, 70) cityblock"), std::string::npos) << r.output;
  // A rerun replaces its own store; one strata did not write is replaced only with --overwrite.
  EXPECT_EQ(run_command(cli() + " distance " + in + " -q --metric cityblock --format zarr --out " + dir_.str("z")).exit_code, 0);
  std::filesystem::remove(dir_.path() / "z.dist.zarr" / ".strata-output");
  STRATA_EXPECT_CLI_ERROR(
      run_command(cli() + " distance " + in + " -q --metric cityblock --format zarr --out " + dir_.str("z")), 1,
      "exists");
  EXPECT_EQ(run_command(cli() + " distance " + in + " -q --metric euclidean --format zarr --overwrite --out " +
                        dir_.str("z")).exit_code, 0);
}

TEST_F(DistanceOracle, BadInputFailsClearlyWithNoOutput) {
  const std::string in = simulate(5, 20, 0.0, 1);
  const std::string out = dir_.str("bad");
  auto run = [&](const std::string& args) { return run_command(cli() + " distance " + in + " -q --out " + out + " " + args); };
  STRATA_EXPECT_CLI_ERROR(run("--metric eucldean"), 2,
                          "--metric must be one of euclidean, sqeuclidean, cityblock, chebyshev, minkowski:P, "
                          "cosine, correlation, hamming, ibs, allele-sharing; got 'eucldean'");
  STRATA_EXPECT_CLI_ERROR(run("--metric minkowski:0"), 2, "--metric minkowski:P needs a number P > 0, got '0'");
  STRATA_EXPECT_CLI_ERROR(run("--metric minkowski:abc"), 2, "--metric minkowski:P needs a number P > 0, got 'abc'");
  STRATA_EXPECT_CLI_ERROR(run("--metric euclidean --format csv"), 2,
                          "--format must be square, triangle or zarr; got 'csv'");
  STRATA_EXPECT_CLI_ERROR(run_command(cli() + " king " + in + " -q --out " + out + " --cutoff -0.5"), 2,
                          "--cutoff: must be a kinship of 0 or more, got -0.5");
  const std::string one = simulate(1, 20, 0.0, 2);
  STRATA_EXPECT_CLI_ERROR(run_command(cli() + " distance " + one + " -q --metric euclidean --out " + out), 1,
                          "1 sample: distances need at least two samples (there is no pair)");
  STRATA_EXPECT_CLI_ERROR(run_command(cli() + " king " + one + " -q --out " + out), 1,
                          "1 sample: kinship needs at least two samples (there is no pair)");
  for (const auto& e : fs::directory_iterator(dir_.path()))  // the failed runs' logs alone
    if (e.path().extension() != ".log")
      EXPECT_EQ(e.path().filename().string().rfind("bad", 0), std::string::npos) << "left behind: " << e.path();
  for (const auto& e : fs::directory_iterator(dir_.path()))
    EXPECT_EQ(e.path().filename().string().rfind(".strata-stage", 0), std::string::npos) << "left behind: " << e.path();
}

// Threads and tiles do not change a byte of the output.
TEST_F(DistanceOracle, SameBytesForAnyThreadCount) {
  const std::string in = simulate(150, 400, 0.03, 4);
  std::string first;
  for (int threads : {1, 2, 3}) {
    const auto r = run_command(cli() + " distance " + in + " -q --metric correlation --threads " +
                               std::to_string(threads) + " --out " + dir_.str("t"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string text = read_file(dir_.str("t.dist"));
    if (first.empty()) first = text;
    EXPECT_EQ(text, first) << threads << " threads";
  }
}

}  // namespace
}  // namespace strata
