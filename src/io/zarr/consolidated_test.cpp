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

ZarrCreateOptions small(ZarrFormat fmt) { return testutil::create_options(fmt, {3}, {2}, DType(ScalarType::Int8)); }

TEST(ZarrConsolidated, V2WritesZarrPythonLayout) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  STRATA_ASSERT_OK(zarr_create_group(store, "", ZarrFormat::V2, json({{"vcf_zarr_version", "0.4"}}).dump()));
  auto o = small(ZarrFormat::V2);
  o.dimension_names = {"variants"};
  STRATA_ASSERT_OK(ZarrArray::create(store, "call_genotype", o).status());
  STRATA_ASSERT_OK(ZarrArray::create(store, "sub/pos", small(ZarrFormat::V2)).status());
  STRATA_ASSERT_OK(zarr_consolidate(store));
  const std::string text = testing::read_file(dir.str(".zmetadata"));
  json doc = json::parse(text);
  EXPECT_EQ(doc["zarr_consolidated_format"], 1);
  std::vector<std::string> keys;
  for (auto it = doc["metadata"].begin(); it != doc["metadata"].end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{".zattrs", ".zgroup", "call_genotype/.zarray", "call_genotype/.zattrs",
                                            "sub/.zgroup", "sub/pos/.zarray"}));
  EXPECT_EQ(doc["metadata"][".zattrs"]["vcf_zarr_version"], "0.4");
  EXPECT_EQ(doc["metadata"]["call_genotype/.zattrs"]["_ARRAY_DIMENSIONS"], json({"variants"}));
  EXPECT_TRUE(doc["metadata"]["call_genotype/.zarray"].is_object());  // objects, not strings
  EXPECT_EQ(text.substr(0, 20), "{\n    \"metadata\": {\n");

  // The walk now follows .zmetadata, even where it is stale.
  std::filesystem::create_directories(dir.path() / "late");
  testutil::put_file(dir.str("late/.zgroup"), R"({"zarr_format":2})");
  STRATA_ASSERT_OK_AND_ASSIGN(auto nodes, zarr_walk(store, ""));
  EXPECT_EQ(node_paths(nodes), (std::vector<std::string>{"[g]", "call_genotype[a]", "sub[g]", "sub/pos[a]"}));
  // Unusable consolidated metadata falls back to listing.
  testutil::put_file(dir.str(".zmetadata"), "{broken");
  STRATA_ASSERT_OK_AND_ASSIGN(nodes, zarr_walk(store, ""));
  EXPECT_EQ(node_paths(nodes), (std::vector<std::string>{"[g]", "call_genotype[a]", "late[g]", "sub[g]", "sub/pos[a]"}));
}

TEST(ZarrConsolidated, V3Inline) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  STRATA_ASSERT_OK(zarr_create_group(store, "", ZarrFormat::V3, json({{"k", 1}}).dump()));
  STRATA_ASSERT_OK(ZarrArray::create(store, "g/x", small(ZarrFormat::V3)).status());
  STRATA_ASSERT_OK(ZarrArray::create(store, "y", small(ZarrFormat::V3)).status());
  STRATA_ASSERT_OK(zarr_consolidate(store, ""));
  json root = json::parse(testing::read_file(dir.str("zarr.json")));
  const json& cm = root["consolidated_metadata"];
  EXPECT_EQ(cm["kind"], "inline");
  EXPECT_EQ(cm["must_understand"], false);
  EXPECT_EQ(cm["metadata"]["g/x"]["node_type"], "array");
  EXPECT_EQ(cm["metadata"]["g"]["node_type"], "group");
  EXPECT_EQ(root["attributes"]["k"], 1);
  // The group still opens and reads its attributes; the walk uses the inline listing.
  EXPECT_EQ(json::parse(*zarr_group_attributes_json(store, "")), json({{"k", 1}}));
  std::filesystem::remove_all(dir.path() / "y");  // stale entry stays listed
  STRATA_ASSERT_OK_AND_ASSIGN(auto nodes, zarr_walk(store, ""));
  EXPECT_EQ(node_paths(nodes), (std::vector<std::string>{"[g]", "g[g]", "g/x[a]", "y[a]"}));
  // Arrays are not consolidation roots.
  STRATA_EXPECT_STATUS(zarr_consolidate(store, "g/x"), StatusCode::Invalid, "belongs to a group");
}

TEST(ZarrConsolidated, EmptyStoreHasNothingToConsolidate) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  STRATA_EXPECT_STATUS(zarr_consolidate(store), StatusCode::NotFound, "no Zarr v2 nodes");
}

}  // namespace
}  // namespace strata::io
