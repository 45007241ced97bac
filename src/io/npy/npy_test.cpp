#include "strata/io/npy.hpp"

#include <numeric>
#include <vector>

#include "testing/testing.hpp"

namespace strata::io {
namespace {

using strata::testing::run_python;
using strata::testing::TempDir;

TEST(Npy, RoundTripAndNumpyReadsIt) {
  TempDir dir;
  std::vector<int32_t> data(3 * 5);
  std::iota(data.begin(), data.end(), -7);
  {
    STRATA_ASSERT_OK_AND_ASSIGN(auto w, NpyWriter::create(dir.str("a.npy"), dtype_of<int32_t>(), {3, 5}));
    STRATA_ASSERT_OK(w.write(data.data(), 6));
    STRATA_ASSERT_OK(w.write(data.data() + 6, 9));
    STRATA_ASSERT_OK(w.finish());
  }
  STRATA_ASSERT_OK_AND_ASSIGN(auto r, NpyReader::open(dir.str("a.npy")));
  EXPECT_EQ(r.header().shape, (Shape{3, 5}));
  EXPECT_EQ(r.header().data_offset % 64, 0);
  std::vector<int32_t> back(15);
  STRATA_ASSERT_OK(r.read(back.data(), 15));
  EXPECT_EQ(back, data);
  if (strata::testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  auto res = run_python("import numpy as np\na=np.load('" + dir.str("a.npy") +
                        "')\nassert a.dtype==np.int32 and a.shape==(3,5), (a.dtype,a.shape)\n"
                        "assert (a.ravel()==np.arange(-7,8)).all()\nprint('ok')\n");
  EXPECT_EQ(res.exit_code, 0) << res.output;
}

TEST(Npy, ReadsNumpyFilesOfManyDtypes) {
  if (strata::testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  TempDir dir;
  auto res = run_python("import numpy as np\n"
                        "d='" + dir.str() + "'\n"
                        "np.save(d+'/f8.npy', np.arange(12, dtype='<f8').reshape(3,4)/3)\n"
                        "np.save(d+'/be.npy', (np.arange(6).reshape(2,3)*1000).astype('>u2'))\n"
                        "np.save(d+'/b1.npy', np.array([True,False,True]))\n"
                        "np.save(d+'/scalar.npy', np.float32(2.5))\n"
                        "np.save(d+'/fortran.npy', np.asfortranarray(np.ones((2,3))))\n");
  ASSERT_EQ(res.exit_code, 0) << res.output;
  {
    STRATA_ASSERT_OK_AND_ASSIGN(auto r, NpyReader::open(dir.str("f8.npy")));
    std::vector<double> v(12);
    STRATA_ASSERT_OK(r.read(v.data(), 12));
    for (int i = 0; i < 12; ++i) EXPECT_DOUBLE_EQ(v[i], i / 3.0);
  }
  {
    STRATA_ASSERT_OK_AND_ASSIGN(auto r, NpyReader::open(dir.str("be.npy")));
    EXPECT_TRUE(r.header().dtype.needs_swap());
    std::vector<uint16_t> v(6);
    STRATA_ASSERT_OK(r.read(v.data(), 6));
    for (int i = 0; i < 6; ++i) EXPECT_EQ(v[i], i * 1000);
  }
  {
    STRATA_ASSERT_OK_AND_ASSIGN(auto r, NpyReader::open(dir.str("b1.npy")));
    EXPECT_EQ(r.header().dtype.type, ScalarType::Bool);
  }
  {
    STRATA_ASSERT_OK_AND_ASSIGN(auto r, NpyReader::open(dir.str("scalar.npy")));
    EXPECT_TRUE(r.header().shape.empty());
    float f;
    STRATA_ASSERT_OK(r.read(&f, 1));
    EXPECT_EQ(f, 2.5f);
  }
  STRATA_EXPECT_STATUS(NpyReader::open(dir.str("fortran.npy")), StatusCode::Unsupported, "Fortran");
}

TEST(Npy, BadFilesGiveClearErrors) {
  TempDir dir;
  strata::testing::write_file(dir.str("junk.npy"), "not numpy at all");
  STRATA_EXPECT_STATUS(NpyReader::open(dir.str("junk.npy")), StatusCode::Corrupt, "junk.npy.*magic");
  STRATA_EXPECT_STATUS(NpyReader::open(dir.str("absent.npy")), StatusCode::IOError, "absent.npy");
  {
    STRATA_ASSERT_OK_AND_ASSIGN(auto w, NpyWriter::create(dir.str("t.npy"), dtype_of<double>(), {100}));
    std::vector<double> v(100, 1.0);
    STRATA_ASSERT_OK(w.write(v.data(), 100));
    STRATA_ASSERT_OK(w.finish());
  }
  std::string full = strata::testing::read_file(dir.str("t.npy"));
  strata::testing::write_file(dir.str("trunc.npy"), full.substr(0, full.size() - 8));
  STRATA_EXPECT_STATUS(NpyReader::open(dir.str("trunc.npy")), StatusCode::Corrupt, "truncated");
  {
    // An unfinished writer leaves nothing behind.
    STRATA_ASSERT_OK_AND_ASSIGN(auto w, NpyWriter::create(dir.str("partial.npy"), dtype_of<double>(), {100}));
    std::vector<double> v(10, 1.0);
    STRATA_ASSERT_OK(w.write(v.data(), 10));
  }
  EXPECT_FALSE(std::filesystem::exists(dir.str("partial.npy")));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 3);
}

}  // namespace
}  // namespace strata::io
