// persist (raw, 2-bit, blosc) and Zarr round trips, chunk-read counts of sliced Zarr sources,
// and run report JSON.
#include <nlohmann/json.hpp>

#include "core/test_context.hpp"
#include "array/array_test_util.hpp"
#include "strata/io/store.hpp"

using strata::testing::test_ctx;

namespace strata {
namespace {

using testing::host;
using testing::values;

TEST(Persist, RoundTripsAllEncodings) {
  const Array g = Array::random_integers({37, 23}, {8, 5}, 0, 4, 3).astype(DType(ScalarType::Int8));
  const auto ref = values<int64_t>(g);
  for (auto enc : {PersistEncoding::Raw, PersistEncoding::Packed2Bit, PersistEncoding::Codec}) {
    PersistOptions po;
    po.encoding = enc;
    auto p = persist(test_ctx(), g, po);
    STRATA_ASSERT_OK(p);
    EXPECT_EQ(values<int64_t>(*p), ref);
    RunReport rep;
    const auto s = values<int64_t>(p->slice({Slice::range(9, 16)}) * 2, 2, &rep);
    EXPECT_EQ(s[0], 2 * ref[9 * 23]);
    EXPECT_EQ(rep.chunks_read, 5);  // rows 9..15 lie in chunk row 1 (rows 8..15); 5 chunk columns
    if (enc == PersistEncoding::Packed2Bit) {
      EXPECT_LE(persisted_bytes(*p), 8 * 5 * 5 * 2);  // 40 values / 4 per byte, per chunk
    }
  }
  PersistOptions bad;
  bad.encoding = PersistEncoding::Packed2Bit;
  STRATA_EXPECT_STATUS(persist(test_ctx(), g + 1, bad).status(), StatusCode::Invalid, "0\\.\\.3");
}

TEST(Zarr, ToZarrAndBackReadsOnlyNeededChunks) {
  testing::TempDir dir;
  auto store = io::LocalStore::open(dir.str("a.zarr"), true);
  STRATA_ASSERT_OK(store);
  const Array x = Array::random_normal({50, 40}, {10, 10}, 0, 1, 21);
  io::ZarrCreateOptions zo;
  zo.compressor = nullptr;
  STRATA_ASSERT_OK(to_zarr(test_ctx(), x, *store, "x", zo));
  auto z = io::ZarrArray::open(*store, "x");
  STRATA_ASSERT_OK(z);
  const Array back = Array::from_zarr(*z);
  EXPECT_TRUE(testing::same_bits(values<double>(back), values<double>(x)));
  RunReport rep;
  const auto s = values<double>(sum(back.slice({Slice::range(12, 18), Slice::every(20)}) + 1), 1, &rep);
  EXPECT_EQ(rep.chunks_read, 2);  // chunk row 1, chunk columns 0 and 2
  EXPECT_GT(rep.bytes_read, 0);
  const nlohmann::json j = nlohmann::json::parse(rep.to_json());
  EXPECT_EQ(j["chunks_read"], 2);
  EXPECT_TRUE(j.contains("phases"));
  STRATA_ASSERT_OK(rep.write_json(dir.str("run.json")));
  EXPECT_NE(testing::read_file(dir.str("run.json")).find("\"chunks_read\": 2"), std::string::npos);
}

// A sample of operations against numpy (one python call).
TEST(Numpy, SampleOfOperationsAgree) {
  if (testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  const Array a = host<double>({5, 6}, {2, 4}, [](int64_t i) { return (i % 7) - 2.5; });
  const Array b = host<int32_t>({6}, {4}, [](int64_t i) { return int32_t(i * 3 - 5); });
  const std::vector<Array> exprs = {
      sum(a * b + 1, {0}), mean(a, {1}), var(a * a, {}, 1), max(where(a > 0.0, a, b), {1}),
      a.slice({Slice::every(-2), Slice::range(1, 6, 2)}) / 3, transpose(a).slice({Slice::every(2)}) - b.slice({Slice::range(0, 5)}),
      clip(exp(a * 0.3), 0.5, 2.0), sum(a.astype(DType(ScalarType::Int64)) * b, {1})};
  std::string code =
      "import numpy as np\n"
      "a = (np.arange(30) % 7 - 2.5).reshape(5, 6)\n"
      "b = (np.arange(6) * 3 - 5).astype(np.int32)\n"
      "for e in [(a*b+1).sum(0), a.mean(1), np.var(a*a, ddof=1), np.where(a>0, a, b).max(1),\n"
      "          a[::-2, 1:6:2]/3, a.T[::2] - b[0:5], np.clip(np.exp(a*0.3), 0.5, 2.0), (a.astype(np.int64)*b).sum(1)]:\n"
      "    print(' '.join(repr(float(v)) for v in np.ravel(e)))\n";
  const auto out = testing::run_python(code);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  std::istringstream lines(out.output);
  for (const Array& e : exprs) {
    std::string line;
    ASSERT_TRUE(std::getline(lines, line));
    std::istringstream vals(line);
    const auto got = values<double>(e.astype(DType(ScalarType::Float64)));
    for (double g : got) {
      double r;
      ASSERT_TRUE(vals >> r) << line;
      EXPECT_NEAR(g, r, 1e-12 * (1 + std::fabs(r))) << e.describe();
    }
  }
}

}  // namespace
}  // namespace strata
