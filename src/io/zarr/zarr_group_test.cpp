#include <nlohmann/json.hpp>

#include <filesystem>

#include "strata/io/zarr.hpp"
#include "io/zarr/zarr_test_util.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

using nlohmann::json;
using strata::testing::TempDir;

using testutil::node_paths;

ZarrCreateOptions small(ZarrFormat fmt) { return testutil::create_options(fmt, {2}, {2}); }

TEST(ZarrGroup, CreateAttributesNodeInfo) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  STRATA_ASSERT_OK(zarr_create_group(store, "a/b", ZarrFormat::V2, json({{"x", 1}}).dump()));
  EXPECT_EQ(json::parse(testing::read_file(dir.str("a/b/.zgroup"))), json({{"zarr_format", 2}}));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "a" / ".zgroup"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / ".zgroup"));
  STRATA_ASSERT_OK_AND_ASSIGN(std::string attrs, zarr_group_attributes_json(store, "a/b"));
  EXPECT_EQ(json::parse(attrs), json({{"x", 1}}));
  STRATA_ASSERT_OK_AND_ASSIGN(attrs, zarr_group_attributes_json(store, "a"));
  EXPECT_EQ(attrs, "{}");
  // Re-creating keeps attributes unless new ones are given.
  STRATA_ASSERT_OK(zarr_create_group(store, "a/b", ZarrFormat::V2));
  EXPECT_EQ(json::parse(*zarr_group_attributes_json(store, "a/b")), json({{"x", 1}}));
  STRATA_ASSERT_OK(zarr_create_group(store, "a/b", ZarrFormat::V2, json({{"y", 2}}).dump()));
  EXPECT_EQ(json::parse(*zarr_group_attributes_json(store, "a/b")), json({{"y", 2}}));

  STRATA_ASSERT_OK_AND_ASSIGN(auto info, zarr_node_info(store, "a/b"));
  EXPECT_EQ(info.kind, NodeKind::Group);
  EXPECT_EQ(info.format, ZarrFormat::V2);
  STRATA_ASSERT_OK_AND_ASSIGN(info, zarr_node_info(store, "nope"));
  EXPECT_EQ(info.kind, NodeKind::Missing);
  STRATA_EXPECT_STATUS(zarr_group_attributes_json(store, "nope"), StatusCode::NotFound, "nope: no Zarr group");
  STRATA_ASSERT_OK(ZarrArray::create(store, "a/arr", small(ZarrFormat::V2)).status());
  STRATA_EXPECT_STATUS(zarr_create_group(store, "a/arr", ZarrFormat::V2), StatusCode::AlreadyExists, "an array exists");
  STRATA_EXPECT_STATUS(zarr_create_group(store, "a/arr/sub", ZarrFormat::V2), StatusCode::Invalid,
                       "inside the array");
  STRATA_EXPECT_STATUS(zarr_create_group(store, "a", ZarrFormat::V3), StatusCode::AlreadyExists, "v2 group");
  STRATA_EXPECT_STATUS(zarr_create_group(store, "g", ZarrFormat::V2, json::array().dump()), StatusCode::Invalid,
                       "must be a JSON object");
}

TEST(ZarrGroup, V3Groups) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  STRATA_ASSERT_OK(zarr_create_group(store, "g/h", ZarrFormat::V3, json({{"k", "v"}}).dump()));
  json doc = json::parse(testing::read_file(dir.str("g/h/zarr.json")));
  EXPECT_EQ(doc, json({{"zarr_format", 3}, {"node_type", "group"}, {"attributes", {{"k", "v"}}}}));
  EXPECT_EQ(json::parse(*zarr_group_attributes_json(store, "g/h")), json({{"k", "v"}}));
  STRATA_ASSERT_OK(zarr_create_group(store, "g/h", ZarrFormat::V3, json({{"k", "w"}}).dump()));
  EXPECT_EQ(json::parse(*zarr_group_attributes_json(store, "g/h")), json({{"k", "w"}}));
  STRATA_ASSERT_OK_AND_ASSIGN(auto info, zarr_node_info(store, "g"));
  EXPECT_EQ(info.kind, NodeKind::Group);
  EXPECT_EQ(info.format, ZarrFormat::V3);
  testutil::put_file(dir.str("bad/zarr.json"), R"({"zarr_format":3,"node_type":"table"})");
  STRATA_EXPECT_STATUS(zarr_node_info(store, "bad"), StatusCode::Corrupt, "bad/zarr.json: node_type");
  testutil::put_file(dir.str("bad/zarr.json"), "{");
  STRATA_EXPECT_STATUS(zarr_node_info(store, "bad"), StatusCode::Corrupt, "bad/zarr.json: malformed JSON");
}

TEST(ZarrGroup, WalkByListing) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  STRATA_ASSERT_OK(zarr_create_group(store, "", ZarrFormat::V2));
  STRATA_ASSERT_OK(ZarrArray::create(store, "b/x", small(ZarrFormat::V2)).status());
  STRATA_ASSERT_OK(ZarrArray::create(store, "a", small(ZarrFormat::V2)).status());
  STRATA_ASSERT_OK(ZarrArray::create(store, "b/c/y", small(ZarrFormat::V2)).status());
  STRATA_ASSERT_OK(ZarrArray::create(store, "b-2", small(ZarrFormat::V2)).status());
  auto a = *ZarrArray::open(store, "a");
  int64_t v[2] = {};
  STRATA_ASSERT_OK(a.write_region({0}, {2}, v));  // chunks are not nodes
  std::filesystem::create_directories(dir.path() / "plain" / "deeper");
  STRATA_ASSERT_OK_AND_ASSIGN(auto nodes, zarr_walk(store, ""));
  EXPECT_EQ(node_paths(nodes), (std::vector<std::string>{"[g]", "a[a]", "b[g]", "b/c[g]", "b/c/y[a]", "b/x[a]", "b-2[a]"}));
  STRATA_ASSERT_OK_AND_ASSIGN(nodes, zarr_walk(store, "b"));
  EXPECT_EQ(node_paths(nodes), (std::vector<std::string>{"b[g]", "b/c[g]", "b/c/y[a]", "b/x[a]"}));
  STRATA_ASSERT_OK_AND_ASSIGN(nodes, zarr_walk(store, "a"));
  EXPECT_EQ(node_paths(nodes), std::vector<std::string>{"a[a]"});
  STRATA_EXPECT_STATUS(zarr_walk(store, "plain"), StatusCode::NotFound, "no Zarr arrays or groups");
}

TEST(ZarrGroup, WalkFindsArraysUnderPlainDirectories) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  testutil::put_file(dir.str("x/.zarray"), R"({"zarr_format":2,"shape":[1],"chunks":[1],"dtype":"|i1"})");
  STRATA_ASSERT_OK_AND_ASSIGN(auto nodes, zarr_walk(store, ""));
  EXPECT_EQ(node_paths(nodes), std::vector<std::string>{"x[a]"});
}

}  // namespace
}  // namespace strata::io
