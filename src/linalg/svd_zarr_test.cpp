#include "core/test_context.hpp"
#include "strata/linalg/svd_zarr.hpp"

#include <filesystem>

#include "linalg/test_util.hpp"
#include "strata/io/store.hpp"
#include "strata/io/zarr.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::linalg {
namespace {

using testutil::column_mismatch;

// Write `values` (row-major rows × cols) as a Zarr v2 array of `dtype` with `chunks`.
template <class T>
void write_array(const std::string& dir, int64_t rows, int64_t cols, const std::vector<T>& values, Shape chunks) {
  auto store = io::LocalStore::open(dir, true);
  ASSERT_TRUE(store.ok());
  io::ZarrCreateOptions co;
  co.shape = {rows, cols};
  co.chunks = std::move(chunks);
  co.dtype = dtype_of<T>();
  co.overwrite = true;
  auto a = io::ZarrArray::create(*store, "", co);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  STRATA_ASSERT_OK(a->write_region({0, 0}, {rows, cols}, values.data()));
}

std::vector<int16_t> small_ints(int64_t n, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<int16_t> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<int16_t>(static_cast<int>(g() % 7) - 3);
  return v;
}

TEST(ZarrSource, BothDimensionsChunkedExactSvd) {
  testing::TempDir tmp;
  const int64_t rows = 157, cols = 23;
  std::vector<int16_t> v = small_ints(rows * cols, 1);
  write_array(tmp.str("x.zarr"), rows, cols, v, {7, 5});
  STRATA_ASSERT_OK_AND_ASSIGN(auto src, open_zarr_source(tmp.str("x.zarr")));
  EXPECT_EQ(src->rows(), rows);
  EXPECT_EQ(src->preferred_block_rows(), 7);
  EXPECT_EQ(src->natural_type(), ScalarType::Int16);
  std::vector<double> dense(v.begin(), v.end());
  STRATA_ASSERT_OK_AND_ASSIGN(auto all, read_all(*src));
  EXPECT_EQ(all, dense);
  std::vector<float> fblock(static_cast<size_t>(10 * cols));
  STRATA_ASSERT_OK(src->read_block(20, 10, fblock.data()));
  EXPECT_EQ(fblock[3], static_cast<float>(dense[20 * cols + 3]));
  const testutil::LapackSvd ref = testutil::lapack_svd(DenseMatrix::from_row_major(dense.data(), rows, cols));
  ASSERT_EQ(ref.info, 0);
  for (int64_t br : {0, 7, 30}) {
    SvdParams o;
    o.method = SvdMethod::Exact;
    o.pass.block_rows = br;
    STRATA_ASSERT_OK_AND_ASSIGN(SvdResult r, svd(test_ctx(), src, o));
    for (int64_t i = 0; i < cols; ++i) EXPECT_NEAR(r.s[i] / ref.s[i], 1.0, 1e-10);
    EXPECT_LT(column_mismatch(r.u, ref.u), 1e-9);
  }
  // Short and fat: the transpose, read as column panels.
  STRATA_ASSERT_OK_AND_ASSIGN(auto t, src->transposed());
  EXPECT_EQ(t->rows(), cols);
  SvdParams o;
  o.method = SvdMethod::Exact;
  STRATA_ASSERT_OK_AND_ASSIGN(SvdResult rt, svd(test_ctx(), t, o));
  EXPECT_TRUE(rt.transposed);
  for (int64_t i = 0; i < cols; ++i) EXPECT_NEAR(rt.s[i] / ref.s[i], 1.0, 1e-10);
  EXPECT_LT(column_mismatch(rt.v, ref.u), 1e-9);
}

TEST(ZarrSource, RejectsNonNumericAndNonFinite) {
  testing::TempDir tmp;
  std::vector<uint8_t> b(12, 1);
  {
    auto store = io::LocalStore::open(tmp.str("b.zarr"), true);
    io::ZarrCreateOptions co;
    co.shape = {3, 4};
    co.chunks = {3, 4};
    co.dtype = DType(ScalarType::Bool);
    auto a = io::ZarrArray::create(*store, "", co);
    ASSERT_TRUE(a.ok());
    STRATA_ASSERT_OK(a->write_region({0, 0}, {3, 4}, b.data()));
  }
  STRATA_EXPECT_STATUS(open_zarr_source(tmp.str("b.zarr")), StatusCode::InvalidData, "bool is not numeric");
  std::vector<double> nan(12, 1.0);
  nan[5] = std::nan("");
  write_array(tmp.str("n.zarr"), 3, 4, nan, {2, 2});
  STRATA_ASSERT_OK_AND_ASSIGN(auto src, open_zarr_source(tmp.str("n.zarr")));
  std::vector<double> out(12);
  STRATA_EXPECT_STATUS(src->read_block(0, 3, out.data()), StatusCode::InvalidData, "non-finite value at row 1, column 1");
}

TEST(SvdToZarr, WritesUSVtAtomically) {
  testing::TempDir tmp;
  const int64_t rows = 300, cols = 40;
  std::vector<double> a = testutil::gaussian(rows, cols, 5).to_row_major();
  write_array(tmp.str("x.zarr"), rows, cols, a, {64, 16});
  SvdParams o;
  o.k = 5;
  STRATA_ASSERT_OK_AND_ASSIGN(SvdZarrSummary r, svd_to_zarr(test_ctx(), tmp.str("x.zarr"), tmp.str("out.zarr"), o, {}));
  EXPECT_EQ(r.files.size(), 1u);
  auto store = io::LocalStore::open(tmp.str("out.zarr"));
  ASSERT_TRUE(store.ok());
  STRATA_ASSERT_OK_AND_ASSIGN(auto u, io::ZarrArray::open(*store, "U"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto s, io::ZarrArray::open(*store, "S"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto vt, io::ZarrArray::open(*store, "Vt"));
  EXPECT_EQ(u.shape(), (Shape{rows, 5}));
  EXPECT_EQ(vt.shape(), (Shape{5, cols}));
  std::vector<double> uu(rows * 5), ss(5), vv(5 * cols);
  STRATA_ASSERT_OK(u.read_region({0, 0}, {rows, 5}, uu.data()));
  STRATA_ASSERT_OK(s.read_region({0}, {5}, ss.data()));
  STRATA_ASSERT_OK(vt.read_region({0, 0}, {5, cols}, vv.data()));
  const testutil::LapackSvd ref = testutil::lapack_svd(DenseMatrix::from_row_major(a.data(), rows, cols));
  ASSERT_EQ(ref.info, 0);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(ss[i] / ref.s[i], 1.0, 1e-10);
  // A·v_i = s_i·u_i from the files.
  for (int64_t i = 0; i < rows; ++i)
    for (int c = 0; c < 5; ++c) {
      double av = 0;
      for (int64_t j = 0; j < cols; ++j) av += a[i * cols + j] * vv[c * cols + j];
      ASSERT_NEAR(av, ss[c] * uu[i * 5 + c], 1e-10 * ss[0]);
    }
  // Existing output: strata's own store is replaced (a rerun); another one is refused without
  // overwrite and replaced with it.
  STRATA_ASSERT_OK(svd_to_zarr(test_ctx(), tmp.str("x.zarr"), tmp.str("out.zarr"), o, {}));
  std::filesystem::remove(tmp.path() / "out.zarr" / ".strata-output");
  STRATA_EXPECT_STATUS(svd_to_zarr(test_ctx(), tmp.str("x.zarr"), tmp.str("out.zarr"), o, {}), StatusCode::AlreadyExists,
                       "not written by strata \\(use --overwrite");
  SvdZarrOptions zo;
  zo.overwrite = true;
  o.method = SvdMethod::Randomized;
  STRATA_ASSERT_OK(svd_to_zarr(test_ctx(), tmp.str("x.zarr"), tmp.str("out.zarr"), o, zo));
  // A short-fat input streams V into Vt.
  std::vector<double> at = DenseMatrix::from_row_major(a.data(), rows, cols).transposed().to_row_major();
  write_array(tmp.str("xt.zarr"), cols, rows, at, {16, 64});
  o.method = SvdMethod::Exact;
  STRATA_ASSERT_OK_AND_ASSIGN(SvdZarrSummary rt, svd_to_zarr(test_ctx(), tmp.str("xt.zarr"), tmp.str("outt.zarr"), o, {}));
  EXPECT_TRUE(rt.result.transposed);
  auto st = io::LocalStore::open(tmp.str("outt.zarr"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto vtt, io::ZarrArray::open(*st, "Vt"));
  std::vector<double> v2(5 * rows);
  STRATA_ASSERT_OK(vtt.read_region({0, 0}, {5, rows}, v2.data()));
  for (int64_t i = 0; i < rows; ++i) EXPECT_NEAR(std::abs(v2[i]), std::abs(uu[i * 5]), 1e-10);
}

TEST(SvdToZarr, BadInputsLeaveNoOutput) {
  testing::TempDir tmp;
  std::vector<double> zeros(50 * 10, 0.0);
  write_array(tmp.str("z.zarr"), 50, 10, zeros, {10, 10});
  SvdParams o;
  o.k = 2;
  STRATA_EXPECT_STATUS(svd_to_zarr(test_ctx(), tmp.str("z.zarr"), tmp.str("o.zarr"), o, {}), StatusCode::InvalidData, "zero");
  o.k = 10;
  STRATA_EXPECT_STATUS(svd_to_zarr(test_ctx(), tmp.str("z.zarr"), tmp.str("o.zarr"), o, {}), StatusCode::InvalidData, "less than min");
  o.k = 0;
  STRATA_EXPECT_STATUS(svd_to_zarr(test_ctx(), tmp.str("z.zarr"), tmp.str("o.zarr"), o, {}), StatusCode::Invalid, "at least 1");
  STRATA_EXPECT_STATUS(svd_to_zarr(test_ctx(), tmp.str("missing.zarr"), tmp.str("o.zarr"), o, {}), StatusCode::NotFound,
                       "/missing\\.zarr: no such directory$");
  // Nothing written, no temporary left behind.
  for (const auto& e : std::filesystem::directory_iterator(tmp.path())) EXPECT_EQ(e.path().filename(), "z.zarr");
}

TEST(SvdToZarr, MatchesNumpy) {
  if (testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  testing::TempDir tmp;
  std::vector<int16_t> v = small_ints(200 * 30, 3);
  write_array(tmp.str("x.zarr"), 200, 30, v, {50, 30});
  SvdParams o;
  o.k = 4;
  STRATA_ASSERT_OK(svd_to_zarr(test_ctx(), tmp.str("x.zarr"), tmp.str("o.zarr"), o, {}));
  auto res = testing::run_python(
      "import zarr, numpy as np\n"
      "x = zarr.open('" + tmp.str("x.zarr") + "', 'r')[:].astype('f8')\n"
      "g = zarr.open_group('" + tmp.str("o.zarr") + "', 'r')\n"
      "u, s, vt = np.linalg.svd(x, full_matrices=False)\n"
      "assert np.allclose(g['S'][:], s[:4], rtol=1e-10), (g['S'][:], s[:4])\n"
      "d = np.abs(np.sum(g['Vt'][:] * vt[:4], axis=1))\n"
      "assert np.all(d > 1 - 1e-9), d\n"
      "d = np.abs(np.sum(g['U'][:] * u[:, :4], axis=0))\n"
      "assert np.all(d > 1 - 1e-9), d\n"
      "print('ok')\n");
  EXPECT_EQ(res.exit_code, 0) << res.output;
}

}  // namespace
}  // namespace strata::linalg
