// write_zarr(): a new store at a path through the outputs' staging (Array.to_zarr in Python).
#include <filesystem>

#include "core/test_context.hpp"
#include "array/array_test_util.hpp"
#include "strata/io/store.hpp"

using strata::testing::test_ctx;

namespace strata {
namespace {

using testing::values;

Result<Array> open_store(const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(auto store, io::LocalStore::open(path));
  STRATA_ASSIGN_OR_RETURN(io::ZarrArray z, io::ZarrArray::open(store, ""));
  return Array::from_zarr(z);
}

TEST(WriteZarr, BothFormatsRoundTripWithTheirChunks) {
  testing::TempDir dir;
  const Array a = (Array::random_normal({53, 31}, {16, 16}, 0, 1, 5) + 1.0).slice({Slice::every(2)});
  const auto want = values<double>(a);
  for (auto fmt : {io::ZarrFormat::V2, io::ZarrFormat::V3}) {
    ZarrWriteOptions o;
    o.format = fmt;
    o.chunks = {7, 10};
    const std::string path = dir.str(fmt == io::ZarrFormat::V2 ? "a2.zarr" : "a3.zarr");
    STRATA_ASSERT_OK(write_zarr(test_ctx(), a, path, o));
    auto back = open_store(path);
    STRATA_ASSERT_OK(back);
    EXPECT_EQ(back->chunks(), (Shape{7, 10}));
    EXPECT_EQ(values<double>(*back), want);
  }
}

TEST(WriteZarr, ExistingStoresNeedOverwriteAndInputsAreNeverReplaced) {
  testing::TempDir dir;
  const std::string path = dir.str("s.zarr");
  const Array ones = Array::full({6, 4}, {3, 4}, 1.0);
  STRATA_ASSERT_OK(write_zarr(test_ctx(), ones, path));
  const Status exists = write_zarr(test_ctx(), ones * 2.0, path);
  EXPECT_FALSE(exists.ok());
  EXPECT_THAT(exists.message(), ::testing::ContainsRegex("exist|overwrite"));
  ZarrWriteOptions o;
  o.overwrite = true;
  STRATA_ASSERT_OK(write_zarr(test_ctx(), ones * 3.0, path, o));
  auto back = open_store(path);
  STRATA_ASSERT_OK(back);
  EXPECT_EQ(values<double>(*back)[0], 3.0);
  EXPECT_FALSE(write_zarr(test_ctx(), *back + 1.0, path, o).ok());  // the array reads that store
  EXPECT_EQ(values<double>(*open_store(path))[0], 3.0);
  o.codec = "nonsense";
  EXPECT_FALSE(write_zarr(test_ctx(), ones, dir.str("t.zarr"), o).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.str("t.zarr")));
}

}  // namespace
}  // namespace strata
