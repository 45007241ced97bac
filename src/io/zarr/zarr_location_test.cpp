#include <filesystem>

#include "strata/io/zarr.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

using strata::testing::TempDir;

TEST(ZarrLocation, FindsTheOutermostHierarchyRoot) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str("store.zarr"), true);
  ZarrCreateOptions o;
  o.shape = {2};
  o.chunks = {2};
  STRATA_ASSERT_OK(ZarrArray::create(store, "a/b", o).status());
  const std::string root = dir.str("store.zarr");
  STRATA_ASSERT_OK_AND_ASSIGN(auto loc, resolve_zarr_location(root + "/a/b"));
  EXPECT_EQ(loc.store_root, root);
  EXPECT_EQ(loc.node_path, "a/b");
  STRATA_ASSERT_OK_AND_ASSIGN(loc, resolve_zarr_location(root + "/a/b/"));
  EXPECT_EQ(loc.node_path, "a/b");
  STRATA_ASSERT_OK_AND_ASSIGN(loc, resolve_zarr_location(root));
  EXPECT_EQ(loc.store_root, root);
  EXPECT_EQ(loc.node_path, "");
  // A node that does not exist yet under an existing hierarchy.
  STRATA_ASSERT_OK_AND_ASSIGN(loc, resolve_zarr_location(root + "/a/new/thing"));
  EXPECT_EQ(loc.store_root, root);
  EXPECT_EQ(loc.node_path, "a/new/thing");
  STRATA_ASSERT_OK_AND_ASSIGN(loc, resolve_zarr_location(root + "/./a//b"));
  EXPECT_EQ(loc.node_path, "a/b");
}

TEST(ZarrLocation, PlainDirectoriesAndV3) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "plain");
  STRATA_ASSERT_OK_AND_ASSIGN(auto loc, resolve_zarr_location(dir.str("plain")));
  EXPECT_EQ(loc.store_root, dir.str("plain"));
  EXPECT_EQ(loc.node_path, "");
  auto store = *LocalStore::open(dir.str("v3.zarr"), true);
  STRATA_ASSERT_OK(zarr_create_group(store, "g/h", ZarrFormat::V3));
  STRATA_ASSERT_OK_AND_ASSIGN(loc, resolve_zarr_location(dir.str("v3.zarr/g/h")));
  EXPECT_EQ(loc.store_root, dir.str("v3.zarr"));
  EXPECT_EQ(loc.node_path, "g/h");
  STRATA_EXPECT_STATUS(resolve_zarr_location(""), StatusCode::Invalid, "empty");
}

}  // namespace
}  // namespace strata::io
