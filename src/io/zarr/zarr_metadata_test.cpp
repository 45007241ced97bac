#include "io/zarr/zarr_metadata_internal.hpp"
#include "testing/testing.hpp"

namespace strata::io::detail {
namespace {

using nlohmann::json;

Result<ArrayMetadata> v2(const std::string& text) {
  auto doc = parse_json_object(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()),
                               ".zarray");
  if (!doc.ok()) return doc.status();
  return parse_v2_array(*doc);
}

Result<ArrayMetadata> v3(const json& doc) { return parse_v3_array(doc); }

json v3_doc() {
  return json::parse(R"({"zarr_format":3,"node_type":"array","shape":[5,4],"data_type":"int16",
    "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2,4]}},
    "chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},
    "fill_value":-1,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
    "attributes":{"a":1},"dimension_names":["x",null]})");
}

TEST(ZarrMetadata, V2AsPythonWritesIt) {
  STRATA_ASSERT_OK_AND_ASSIGN(
      auto m, v2(R"({"chunks":[2,2],"compressor":null,"dimension_separator":"/","dtype":">u2","fill_value":7,
                     "filters":[],"order":"F","shape":[4,3],"zarr_format":2,"unknown_key":{"x":1}})"));
  EXPECT_EQ(m.format, ZarrFormat::V2);
  EXPECT_EQ(m.shape, (Shape{4, 3}));
  EXPECT_EQ(m.chunks, (Shape{2, 2}));
  EXPECT_EQ(m.dtype, DType(ScalarType::UInt16, ByteOrder::Big));
  EXPECT_EQ(m.order, 'F');
  EXPECT_EQ(m.separator, '/');
  EXPECT_EQ(m.fill, (std::vector<uint8_t>{7, 0}));
  EXPECT_EQ(chunk_key_suffix(m, {1, 0}), "1/0");
  EXPECT_EQ(m.pipeline->describe(), "big-endian, order F");
}

TEST(ZarrMetadata, V2FillValuesAndZeroD) {
  STRATA_ASSERT_OK_AND_ASSIGN(auto m, v2(R"({"chunks":[4],"compressor":null,"dtype":"<f8","fill_value":"NaN",
                                             "filters":null,"order":"C","shape":[5],"zarr_format":2})"));
  EXPECT_EQ(m.fill_json, json("NaN"));
  EXPECT_EQ(chunk_key_suffix(m, {1}), "1");
  STRATA_ASSERT_OK_AND_ASSIGN(m, v2(R"({"chunks":[],"compressor":null,"dtype":"|b1","fill_value":null,
                                       "filters":null,"order":"C","shape":[],"zarr_format":2})"));
  EXPECT_EQ(chunk_key_suffix(m, {}), "0");
  EXPECT_EQ(m.fill, std::vector<uint8_t>{0});
}

TEST(ZarrMetadata, V2Errors) {
  STRATA_EXPECT_STATUS(v2("{not json"), StatusCode::Corrupt, "\\.zarray: malformed JSON");
  STRATA_EXPECT_STATUS(v2("[1,2]"), StatusCode::Corrupt, "expected a JSON object");
  STRATA_EXPECT_STATUS(v2(R"({"zarr_format":3})"), StatusCode::Unsupported, "zarr_format 3");
  STRATA_EXPECT_STATUS(v2(R"({"zarr_format":2,"shape":"x"})"), StatusCode::Corrupt, "\"shape\" must be a list");
  STRATA_EXPECT_STATUS(v2(R"({"zarr_format":2,"shape":[3],"chunks":[0],"dtype":"<i4"})"), StatusCode::Corrupt,
                       "\"chunks\" must hold integers >= 1");
  STRATA_EXPECT_STATUS(v2(R"({"zarr_format":2,"shape":[3],"chunks":[1,1],"dtype":"<i4"})"), StatusCode::Corrupt,
                       "do not match the rank");
  STRATA_EXPECT_STATUS(v2(R"({"zarr_format":2,"shape":[3],"chunks":[1],"dtype":"|O","compressor":null})"),
                       StatusCode::Unsupported, "dtype '\\|O'");
  STRATA_EXPECT_STATUS(v2(R"({"zarr_format":2,"shape":[3],"chunks":[1],"dtype":[["a","<i4"]]})"),
                       StatusCode::Unsupported, "structured");
  STRATA_EXPECT_STATUS(v2(R"({"zarr_format":2,"shape":[3],"chunks":[1],"dtype":"<i4","order":"X"})"),
                       StatusCode::Corrupt, "order");
  STRATA_EXPECT_STATUS(v2(R"({"zarr_format":2,"shape":[3],"chunks":[1],"dtype":"<i4","compressor":{"id":"nope"}})"),
                       StatusCode::Unsupported, "compressor: .*nope");
  STRATA_EXPECT_STATUS(v2(R"({"zarr_format":2,"shape":[3],"chunks":[1],"dtype":"<i4","filters":[{"id":"delta"}]})"),
                       StatusCode::Unsupported, "filters\\[0\\]: .*delta");
  STRATA_EXPECT_STATUS(v2(R"({"zarr_format":2,"shape":[3],"chunks":[1],"dtype":"<i4","fill_value":"x"})"),
                       StatusCode::Corrupt, "fill_value \"x\"");
  STRATA_EXPECT_STATUS(v2(R"({"zarr_format":2,"shape":[4611686018427387904,4],"chunks":[1,1],"dtype":"<i4"})"),
                       StatusCode::Corrupt, "overflow");
}

TEST(ZarrMetadata, V3Basics) {
  STRATA_ASSERT_OK_AND_ASSIGN(auto m, v3(v3_doc()));
  EXPECT_EQ(m.format, ZarrFormat::V3);
  EXPECT_EQ(m.chunks, (Shape{2, 4}));
  EXPECT_EQ(m.dimension_names, (std::vector<std::string>{"x", ""}));
  EXPECT_EQ(m.attributes, json({{"a", 1}}));
  EXPECT_EQ(chunk_key_suffix(m, {2, 0}), "c/2/0");
  json d = v3_doc();
  d["chunk_key_encoding"] = {{"name", "default"}, {"configuration", {{"separator", "."}}}};
  STRATA_ASSERT_OK_AND_ASSIGN(m, v3(d));
  EXPECT_EQ(chunk_key_suffix(m, {2, 0}), "c.2.0");
  d["chunk_key_encoding"] = {{"name", "v2"}};
  STRATA_ASSERT_OK_AND_ASSIGN(m, v3(d));
  EXPECT_EQ(chunk_key_suffix(m, {2, 0}), "2.0");
  d["chunk_key_encoding"] = "default";  // short-hand name
  STRATA_ASSERT_OK_AND_ASSIGN(m, v3(d));
  EXPECT_EQ(chunk_key_suffix(m, {2, 0}), "c/2/0");
  d["shape"] = json::array();
  d["chunk_grid"]["configuration"]["chunk_shape"] = json::array();
  d.erase("dimension_names");
  STRATA_ASSERT_OK_AND_ASSIGN(m, v3(d));
  EXPECT_EQ(chunk_key_suffix(m, {}), "c");
}

TEST(ZarrMetadata, V3CodecChains) {
  json d = v3_doc();
  d["codecs"] = json::parse(R"([{"name":"transpose","configuration":{"order":[1,0]}},
                               {"name":"bytes","configuration":{"endian":"big"}}, "crc32c"])");
  STRATA_ASSERT_OK_AND_ASSIGN(auto m, v3(d));
  EXPECT_EQ(m.dtype, DType(ScalarType::Int16, ByteOrder::Big));
  EXPECT_EQ(m.pipeline->describe(), "transpose[1,0], bytes(big), crc32c");
  d["codecs"] = json::parse(R"(["bytes"])");
  STRATA_EXPECT_STATUS(v3(d), StatusCode::Corrupt, "needs \"endian\" for int16");
  d["codecs"] = json::parse(R"(["crc32c", {"name":"bytes","configuration":{"endian":"little"}}])");
  STRATA_EXPECT_STATUS(v3(d), StatusCode::Corrupt, "codecs\\[0\\]: bytes→bytes codec 'crc32c' comes before");
  d["codecs"] = json::parse(R"([{"name":"transpose","configuration":{"order":[0,0]}}, "bytes"])");
  STRATA_EXPECT_STATUS(v3(d), StatusCode::Corrupt, "not a permutation");
  d["codecs"] = json::array();
  STRATA_EXPECT_STATUS(v3(d), StatusCode::Corrupt, "no array→bytes codec");
  d["codecs"] = json::parse(R"([{"name":"bytes","configuration":{"endian":"little"}}, {"name":"frobnicate"}])");
  STRATA_EXPECT_STATUS(v3(d), StatusCode::Unsupported, "codecs\\[1\\]: .*frobnicate");
  // An unknown codec that need not be understood is skipped.
  d["codecs"][1]["must_understand"] = false;
  STRATA_EXPECT_OK(v3(d));
}

TEST(ZarrMetadata, V3MustUnderstand) {
  json d = v3_doc();
  d["new_feature"] = {{"name", "x"}};
  STRATA_EXPECT_STATUS(v3(d), StatusCode::Unsupported, "unknown field 'new_feature'");
  d["new_feature"]["must_understand"] = false;
  STRATA_EXPECT_OK(v3(d));
  d = v3_doc();
  d["storage_transformers"] = json::parse(R"([{"name":"tx"}])");
  STRATA_EXPECT_STATUS(v3(d), StatusCode::Unsupported, "storage transformer 'tx'");
  d = v3_doc();
  d["chunk_grid"]["name"] = "rectangular";
  STRATA_EXPECT_STATUS(v3(d), StatusCode::Unsupported, "chunk_grid 'rectangular'");
  d = v3_doc();
  d["chunk_key_encoding"]["name"] = "other";
  STRATA_EXPECT_STATUS(v3(d), StatusCode::Unsupported, "chunk_key_encoding 'other'");
  d = v3_doc();
  d["data_type"] = "complex64";
  STRATA_EXPECT_STATUS(v3(d), StatusCode::Unsupported, "data_type 'complex64'");
  d = v3_doc();
  d["node_type"] = "group";
  STRATA_EXPECT_STATUS(v3(d), StatusCode::Corrupt, "node_type is 'group'");
  d = v3_doc();
  d.erase("fill_value");
  STRATA_EXPECT_STATUS(v3(d), StatusCode::Corrupt, "missing \"fill_value\"");
  d = v3_doc();
  d["dimension_names"] = json::array({"x"});
  STRATA_EXPECT_STATUS(v3(d), StatusCode::Corrupt, "dimension_names");
}

TEST(ZarrMetadata, V3Sharding) {
  json d = v3_doc();
  d["chunk_grid"]["configuration"]["chunk_shape"] = {4, 4};
  d["codecs"] = json::parse(R"([{"name":"sharding_indexed","configuration":{"chunk_shape":[2,2],
      "codecs":[{"name":"bytes","configuration":{"endian":"little"}}],
      "index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}}])");
  STRATA_ASSERT_OK_AND_ASSIGN(auto m, v3(d));
  ASSERT_TRUE(m.sharding);
  EXPECT_EQ(m.chunks, (Shape{2, 2}));
  EXPECT_EQ(m.outer_chunks, (Shape{4, 4}));
  EXPECT_EQ(m.sharding->index_nbytes, 4 * 16 + 4);
  EXPECT_TRUE(m.sharding->index_at_end);
  EXPECT_EQ(m.sharding->slot_of({3, 3}), 3);
  EXPECT_EQ(m.sharding->slot_of({3, 2}), 2);
  EXPECT_EQ(m.sharding->slot_of({0, 1}), 1);
  json bad = d;
  bad["codecs"][0]["configuration"]["chunk_shape"] = {3, 2};
  STRATA_EXPECT_STATUS(v3(bad), StatusCode::Corrupt, "not a multiple of inner chunk_shape");
  bad = d;
  bad["codecs"][0]["configuration"]["index_codecs"] = json::parse(R"(["bytes", {"name":"zstd"}])");
  STRATA_EXPECT_STATUS(v3(bad), StatusCode::Unsupported, "index_codecs\\[1\\]: 'zstd'");
  bad = d;
  bad["codecs"][0]["configuration"]["index_location"] = "middle";
  STRATA_EXPECT_STATUS(v3(bad), StatusCode::Corrupt, "index_location");
  bad = d;
  bad["codecs"][0]["configuration"]["codecs"] = d["codecs"];
  STRATA_EXPECT_STATUS(v3(bad), StatusCode::Unsupported, "nested sharding");
  bad = d;
  bad["codecs"].push_back("crc32c");
  STRATA_EXPECT_STATUS(v3(bad), StatusCode::Unsupported, "after sharding_indexed");
}

TEST(ZarrMetadata, BuildV2AsZarrPython) {
  ZarrCreateOptions o;
  o.shape = {5, 3};
  o.chunks = {2, 2};
  o.dtype = DType(ScalarType::Float64);
  o.fill_value = "NaN";
  o.separator = '/';
  STRATA_ASSERT_OK_AND_ASSIGN(json doc, build_v2_zarray(o));
  EXPECT_EQ(dump_metadata(doc),
            "{\n    \"chunks\": [\n        2,\n        2\n    ],\n    \"compressor\": null,\n"
            "    \"dimension_separator\": \"/\",\n    \"dtype\": \"<f8\",\n    \"fill_value\": \"NaN\",\n"
            "    \"filters\": null,\n    \"order\": \"C\",\n    \"shape\": [\n        5,\n        3\n    ],\n"
            "    \"zarr_format\": 2\n}");
  o.dimension_names = {"variants", "samples"};
  STRATA_ASSERT_OK_AND_ASSIGN(json attrs, build_v2_zattrs(o));
  EXPECT_EQ(attrs["_ARRAY_DIMENSIONS"], json({"variants", "samples"}));
  o.shard_shape = {4, 4};
  STRATA_EXPECT_STATUS(build_v2_zarray(o), StatusCode::Invalid, "sharding needs Zarr v3");
  o.shard_shape = {};
  o.chunks = {2};
  STRATA_EXPECT_STATUS(build_v2_zarray(o), StatusCode::Invalid, "do not match the rank");
}

TEST(ZarrMetadata, PathHelpers) {
  EXPECT_EQ(*normalize_node_path("/a//b/"), "a/b");
  EXPECT_EQ(*normalize_node_path(""), "");
  STRATA_EXPECT_STATUS(normalize_node_path("a/../b"), StatusCode::Invalid, "'\\.\\.'");
  EXPECT_EQ(join_key("", ".zarray"), ".zarray");
  EXPECT_EQ(join_key("a/b", "0.0"), "a/b/0.0");
  EXPECT_EQ(parent_path("a/b/c"), "a/b");
  EXPECT_EQ(parent_path("a"), "");
}

}  // namespace
}  // namespace strata::io::detail
