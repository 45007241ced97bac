// `strata distance` on a 2-D numeric Zarr array (rows = observations) against
// scipy.spatial.distance.pdist (complete data) and a numpy reference that skips the
// coordinates either row is missing (NaN), the same bytes for any thread count and band size,
// and the errors for inputs that are not such an array.
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

class RowDistanceOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    if (strata::testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
    const auto r = strata::testing::run_python("import scipy.spatial.distance");
    if (r.exit_code != 0) GTEST_SKIP() << "no oracle: /usr/bin/python3 with scipy: " << r.output;
  }
  // Runs python that defines X (the matrix) and writes it to `path` as a Zarr array of `dtype`
  // with odd chunks.
  void write_array(const std::string& path, const std::string& make_x, const std::string& dtype) {
    const auto r = strata::testing::run_python("import numpy as np, zarr\nrng = np.random.default_rng(5)\n" + make_x +
                                               "\nz = zarr.open_array('" + path + "', mode='w', shape=X.shape, "
                                               "chunks=(13, 17), dtype='" + dtype + "')\nz[:] = X\nprint('ok')\n");
    ASSERT_NE(r.output.find("ok"), std::string::npos) << r.output;
  }
  TempDir dir_;
};

const char* kMetrics[] = {"euclidean", "sqeuclidean", "cityblock",   "chebyshev",
                          "minkowski:3", "cosine",    "correlation", "hamming"};

// The python reference: pdist on complete data, else each pair on its common coordinates.
std::string reference_py(const std::string& array, const std::string& metric, const std::string& out,
                         const std::string& format) {
  std::string scipy_metric = metric, kw;
  if (metric == "minkowski:3") scipy_metric = "minkowski", kw = ", p=3";
  return "X = zarr.open_array('" + array + "', mode='r')[:].astype(np.float64)\n"
         "if '" + format + "' == 'zarr':\n"
         "    D = zarr.open_group('" + out + ".dist.zarr', mode='r')['distance'][:]\n"
         "elif '" + format + "' == 'triangle':\n"
         "    lines = open('" + out + ".dist').read().split('\\n')[:-1]\n"
         "    D = np.zeros((len(X), len(X)))\n"
         "    for i, l in enumerate(lines):\n"
         "        v = [float(t) for t in l.split('\\t')]\n"
         "        D[i + 1, :i + 1] = v; D[:i + 1, i + 1] = v\n"
         "else:\n"
         "    D = np.loadtxt('" + out + ".dist', ndmin=2)\n"
         "if not np.isnan(X).any():\n"
         "    R = distance.squareform(distance.pdist(X, '" + scipy_metric + "'" + kw + "))\n"
         "else:\n"
         "    R = np.zeros((len(X), len(X)))\n"
         "    for i in range(len(X)):\n"
         "        for j in range(i):\n"
         "            m = ~np.isnan(X[i]) & ~np.isnan(X[j])\n"
         "            R[i, j] = R[j, i] = distance.pdist(np.stack([X[i][m], X[j][m]]), '" + scipy_metric + "'" +
         kw + ")[0] if m.any() else np.nan\n"
         "np.fill_diagonal(R, 0)\n"
         "if D.shape != R.shape or not np.allclose(D, R, rtol=1e-9, atol=1e-12, equal_nan=True):\n"
         "    bad.append(('" + metric + "', float(np.nanmax(np.abs(D - R) / np.maximum(np.abs(R), 1e-300)))))\n";
}

// Complete float64, float32 and int32 arrays (row counts around the 64-row block and the
// kernels' widths; nearly equal rows far from the origin, where the Gram form of euclidean
// cancels and the pair is recomputed directly), every metric, every output format.
TEST_F(RowDistanceOracle, EveryMetricEqualsScipy) {
  struct Case {
    const char* name;
    const char* make_x;
    const char* dtype;
  };
  const Case cases[] = {
      {"f64", "X = rng.normal(3.0, 2.0, (70, 45)); X[1] = X[0] + 1e-7 * rng.normal(size=45); X[5] += 1e3", "f8"},
      {"f32", "X = rng.normal(0.0, 1.0, (9, 130)).astype(np.float32)", "f4"},
      {"i32", "X = rng.integers(-50, 50, (131, 20))", "i4"},
      {"two", "X = rng.normal(0.0, 1.0, (2, 3))", "f8"},
  };
  for (const Case& c : cases) {
    const std::string array = dir_.str(std::string(c.name) + ".zarr");
    write_array(array, c.make_x, c.dtype);
    std::string py = "import numpy as np, zarr\nfrom scipy.spatial import distance\nbad = []\n";
    int k = 0;
    for (const char* metric : kMetrics) {
      const std::string format = k % 3 == 0 ? "square" : k % 3 == 1 ? "triangle" : "zarr";
      ++k;
      const std::string out = dir_.str(std::string(c.name) + "_" + metric);
      const auto r = run_command(cli() + " distance " + array + " -q --metric " + metric + " --format " + format +
                                 " --out " + out);
      ASSERT_EQ(r.exit_code, 0) << c.name << " " << metric << ": " << r.output;
      py += reference_py(array, metric, out, format);
    }
    py += "print('bad', bad)\n";
    const auto r = strata::testing::run_python(py);
    EXPECT_NE(r.output.find("bad []"), std::string::npos) << c.name << ": " << r.output;
  }
  // The ID file numbers the rows.
  EXPECT_EQ(read_file(dir_.str("two_euclidean.dist.id")), "0\t0\n1\t1\n");
}

// NaN coordinates: each pair on the coordinates both rows have; a row with none in common with
// another gives nan for that pair. The array sits inside a group (STORE/x).
TEST_F(RowDistanceOracle, MissingValuesSkippedPairwise) {
  const std::string store = dir_.str("nan.zarr");
  const auto made = strata::testing::run_python(
      "import numpy as np, zarr\nrng = np.random.default_rng(8)\n"
      "X = rng.normal(1.0, 2.0, (75, 40)); X[rng.random(X.shape) < 0.15] = np.nan\n"
      "X[3, :20] = np.nan; X[4, 20:] = np.nan\n"  // rows 3 and 4 share no coordinate
      "X[7] = np.nan\n"                            // a row with nothing
      "g = zarr.open_group('" + store + "', mode='w')\n"
      "g.create_dataset('x', data=X, chunks=(16, 16))\nprint('ok')\n");
  ASSERT_NE(made.output.find("ok"), std::string::npos) << made.output;
  std::string py = "import numpy as np, zarr\nfrom scipy.spatial import distance\nbad = []\n";
  for (const char* metric : kMetrics) {
    const std::string out = dir_.str(std::string("nan_") + metric);
    const auto r = run_command(cli() + " distance " + store + "/x -q --metric " + metric + " --out " + out);
    ASSERT_EQ(r.exit_code, 0) << metric << ": " << r.output;
    py += reference_py(store + "/x", metric, out, "square");
  }
  py += "print('bad', bad)\n";
  const auto r = strata::testing::run_python(py);
  EXPECT_NE(r.output.find("bad []"), std::string::npos) << r.output;
}

// Threads and bands (the memory budget sets how many rows a band holds: 64, 128 or all 300)
// do not change a byte, with and without NaN. 1M does not hold one 64-row block.
TEST_F(RowDistanceOracle, SameBytesForAnyThreadCountAndBand) {
  const std::string array = dir_.str("big.zarr");
  write_array(array, "X = rng.normal(0.0, 1.0, (300, 200)); X[rng.random(X.shape) < 0.01] = np.nan", "f8");
  for (const char* metric : {"euclidean", "correlation", "cityblock"}) {
    std::string first;
    for (const char* memory : {"", " --memory 2M", " --memory 4M"}) {
      for (int threads : {1, 2, 3}) {
        const auto r = run_command(cli() + " distance " + array + " -q --metric " + metric + memory + " --threads " +
                                   std::to_string(threads) + " --out " + dir_.str("t"));
        ASSERT_EQ(r.exit_code, 0) << metric << memory << ": " << r.output;
        const std::string text = read_file(dir_.str("t.dist"));
        if (first.empty()) first = text;
        EXPECT_EQ(text, first) << metric << memory << ", " << threads << " threads";
      }
    }
  }
  STRATA_EXPECT_CLI_ERROR(run_command(cli() + " distance " + array + " -q --metric euclidean --memory 1M --out " +
                                      dir_.str("t")),
                          1, "more than the memory budget");
}

TEST_F(RowDistanceOracle, BadArraysFailClearlyWithNoOutput) {
  const std::string out = dir_.str("bad");
  const auto made = strata::testing::run_python(
      "import numpy as np, zarr\n"
      "zarr.open_array('" + dir_.str("one_d.zarr") + "', mode='w', shape=(10,), dtype='f8')[:] = 1.0\n"
      "zarr.open_array('" + dir_.str("one_row.zarr") + "', mode='w', shape=(1, 5), dtype='f8')[:] = 1.0\n"
      "zarr.open_array('" + dir_.str("flags.zarr") + "', mode='w', shape=(4, 5), dtype='bool')[:] = True\n"
      "zarr.open_array('" + dir_.str("text.zarr") + "', mode='w', shape=(4, 2), dtype='U3')[:] = 'ab'\n"
      "zarr.open_array('" + dir_.str("ok.zarr") + "', mode='w', shape=(4, 3), dtype='f8')[:] = 1.0\n"
      "X = np.ones((4, 3)); X[2, 1] = np.inf\n"
      "zarr.open_array('" + dir_.str("inf.zarr") + "', mode='w', shape=(4, 3), dtype='f8')[:] = X\n"
      "X[2, 1] = -np.inf\n"
      "zarr.open_array('" + dir_.str("ninf.zarr") + "', mode='w', shape=(4, 3), dtype='f4')[:] = X\n"
      "print('ok')\n");
  ASSERT_NE(made.output.find("ok"), std::string::npos) << made.output;
  auto run = [&](const std::string& array, const std::string& metric) {
    return run_command(cli() + " distance " + dir_.str(array) + " -q --metric " + metric + " --out " + out);
  };
  STRATA_EXPECT_CLI_ERROR(run("one_d.zarr", "euclidean"), 1,
                          "one_d.zarr: a 1-D array: distances need a 2-D numeric array with one observation per row");
  STRATA_EXPECT_CLI_ERROR(run("one_row.zarr", "euclidean"), 1,
                          "one_row.zarr: 1 row: distances need at least two rows (there is no pair)");
  STRATA_EXPECT_CLI_ERROR(run("flags.zarr", "euclidean"), 1,
                          "flags.zarr: dtype bool is not numeric: distances need an integer or float array");
  STRATA_EXPECT_CLI_ERROR(run("text.zarr", "euclidean"), 1, "text.zarr");
  // Before, an infinity gave a row of inf and nan with exit 0.
  STRATA_EXPECT_CLI_ERROR(run("inf.zarr", "euclidean"), 1, "inf.zarr: row 2, column 1 is inf (values must be finite");
  STRATA_EXPECT_CLI_ERROR(run("ninf.zarr", "correlation"), 1, "row 2, column 1 is -inf");
  EXPECT_NE(run("text.zarr", "euclidean").output.find("numeric"), std::string::npos);
  STRATA_EXPECT_CLI_ERROR(run("ok.zarr", "ibs"), 2,
                          "--metric ibs needs genotype input; ");
  STRATA_EXPECT_CLI_ERROR(run("ok.zarr", "allele-sharing"), 2,
                          "is a numeric array (rows are observations): use euclidean, sqeuclidean, cityblock, "
                          "chebyshev, minkowski:P, cosine, correlation or hamming");
  for (const auto& e : fs::directory_iterator(dir_.path())) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".log")  // the failed runs' logs alone
      EXPECT_EQ(name.rfind("bad", 0), std::string::npos) << "left behind: " << e.path();
    EXPECT_EQ(name.rfind(".strata-stage", 0), std::string::npos) << "left behind: " << e.path();
  }
}

}  // namespace
}  // namespace strata
