// Hostile stores: over-deep and oversize metadata, FIFOs and sparse giants where chunks should
// be, pre-planted symlinks, chunk grids of 2^62 cells, and what `zarr verify`/`info` make of
// arrays they cannot decode or that consolidated metadata leaves out.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "core/test_context.hpp"
#include "io/zarr/metadata_json_internal.hpp"
#include "io/zarr/zarr_test_util.hpp"
#include "io/zarr_tools/zarr_tools.hpp"
#include "strata/io/zarr.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::io {
namespace {

namespace fs = std::filesystem;
using strata::testing::TempDir;
using testutil::put_file;

std::string nested(int depth) { return std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']'); }

std::span<const uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

constexpr const char* kZarray = R"({"zarr_format":2,"shape":[4,4],"chunks":[2,2],"dtype":"|u1","compressor":null,"fill_value":0,"order":"C","filters":null})";

void sparse_file(const std::string& path, int64_t size) {
  put_file(path, "");
  ASSERT_EQ(::truncate(path.c_str(), size), 0);
}

// ---- 11: nesting depth and size of every metadata document ----

TEST(HostileMetadata, DepthBoundIsExactAndStringsDoNotCount) {
  STRATA_EXPECT_OK(detail::parse_metadata_json(bytes_of(nested(64)), "doc").status());
  STRATA_EXPECT_STATUS(detail::parse_metadata_json(bytes_of(nested(65)), "doc"), StatusCode::Corrupt,
                       "^doc: nested deeper than 64 levels$");
  // Brackets inside strings (and escaped quotes) are not structure.
  const std::string s = "{\"a\": \"" + nested(100) + "\\\"[[[\"}";
  STRATA_EXPECT_OK(detail::parse_metadata_json(bytes_of(s), "doc").status());
  STRATA_EXPECT_STATUS(detail::parse_metadata_json(bytes_of("{\"a\": [1,"), "doc"), StatusCode::Corrupt,
                       "doc: malformed JSON");
}

TEST(HostileMetadata, DeeplyNestedDocumentsAreCorruptNotACrash) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  const std::string deep = "{\"x\": " + nested(200000) + "}";
  put_file(dir.str("a/.zarray"), kZarray);
  put_file(dir.str("a/.zattrs"), deep);
  STRATA_EXPECT_STATUS(ZarrArray::open(store, "a"), StatusCode::Corrupt,
                       "a/\\.zattrs: nested deeper than 64 levels");
  put_file(dir.str("b/.zarray"), deep);
  STRATA_EXPECT_STATUS(ZarrArray::open(store, "b"), StatusCode::Corrupt, "b/\\.zarray: nested deeper than 64 levels");
  put_file(dir.str("c/zarr.json"), deep);
  STRATA_EXPECT_STATUS(zarr_node_info(store, "c"), StatusCode::Corrupt, "c/zarr\\.json: nested deeper than 64 levels");
  put_file(dir.str("g/.zgroup"), R"({"zarr_format":2})");
  put_file(dir.str("g/.zattrs"), deep);
  STRATA_EXPECT_STATUS(zarr_group_attributes_json(store, "g"), StatusCode::Corrupt, "g/\\.zattrs: nested deeper than 64 levels");
  // An over-deep .zmetadata is ignored (with a warning): the walk lists the store instead.
  put_file(dir.str("g/.zmetadata"), deep);
  put_file(dir.str("g/arr/.zarray"), kZarray);
  STRATA_ASSERT_OK_AND_ASSIGN(auto nodes, zarr_walk(store, "g"));
  EXPECT_EQ(testutil::node_paths(nodes), (std::vector<std::string>{"g[g]", "g/arr[a]"}));
}

TEST(HostileMetadata, OversizeDocumentsAreRefusedBeforeReading) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  sparse_file(dir.str("a/.zarray"), detail::kMaxMetadataBytes + 1);
  STRATA_EXPECT_STATUS(ZarrArray::open(store, "a"), StatusCode::Corrupt,
                       "a/\\.zarray: object of 67108865 bytes exceeds the 67108864-byte limit");
  STRATA_EXPECT_STATUS(detail::check_metadata_bounds(std::span<const uint8_t>(static_cast<const uint8_t*>(nullptr),
                                                                                 detail::kMaxMetadataBytes + 1),
                                                     "doc"),
                       StatusCode::Corrupt, "^doc: metadata document of 67108865 bytes exceeds the limit");
}

// ---- metadata errors are Corrupt (exit 1), never Invalid (exit 2, usage) ----

TEST(HostileMetadata, MalformedMetadataIsCorruptNamingArrayAndField) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  put_file(dir.str("m/.zarray"), R"({"zarr_format":2,"shape":[4],"chunks":["x"],"dtype":"|u1"})");
  STRATA_EXPECT_STATUS(ZarrArray::open(store, "m"), StatusCode::Corrupt, "m/\\.zarray: \"chunks\" must hold integers");
  put_file(dir.str("z/.zarray"), R"({"zarr_format":2,"shape":[4],"chunks":[2],"dtype":"|u1","compressor":{"id":"zstd","level":"x"}})");
  STRATA_EXPECT_STATUS(ZarrArray::open(store, "z"), StatusCode::Corrupt,
                       "/z/\\.zarray: compressor: zstd: field 'level' must be an integer, got \"x\"$");
  put_file(dir.str("v3/zarr.json"), R"({"zarr_format":3,"node_type":"array","shape":[4],"data_type":"uint8",
      "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},
      "chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"transpose","configuration":{"order":[1]}},{"name":"bytes"}]})");
  STRATA_EXPECT_STATUS(ZarrArray::open(store, "v3"), StatusCode::Corrupt, "v3/zarr\\.json: codecs\\[0\\]: transpose order");
}

// ---- 14: grid-size overflow ----

TEST(HostileMetadata, GridProductsOverflowingInt64AreCorrupt) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  put_file(dir.str("s/.zarray"), R"({"zarr_format":2,"shape":[4611686018427387904,4],"chunks":[1,1],"dtype":"|u1"})");
  STRATA_EXPECT_STATUS(ZarrArray::open(store, "s"), StatusCode::Corrupt,
                       "s/\\.zarray: \"shape\" \\[4611686018427387904, 4\\]: the element count overflows 64 bits");
  put_file(dir.str("b/.zarray"), R"({"zarr_format":2,"shape":[2147483648,2147483648],"chunks":[1,1],"dtype":"<f8"})");
  STRATA_EXPECT_STATUS(ZarrArray::open(store, "b"), StatusCode::Corrupt,
                       "b/\\.zarray: \"shape\" .*: the size in bytes overflows 64 bits");
  put_file(dir.str("c/.zarray"), R"({"zarr_format":2,"shape":[1,1],"chunks":[4294967296,4294967296],"dtype":"|u1"})");
  STRATA_EXPECT_STATUS(ZarrArray::open(store, "c"), StatusCode::Corrupt,
                       "c/\\.zarray: \"chunks\" \\[4294967296, 4294967296\\]: the element count of one chunk overflows");
  put_file(dir.str("v/zarr.json"), R"({"zarr_format":3,"node_type":"array","shape":[1,1],"data_type":"uint8",
      "chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4294967296,4294967296]}},
      "chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"bytes"}]})");
  STRATA_EXPECT_STATUS(ZarrArray::open(store, "v"), StatusCode::Corrupt,
                       "v/zarr\\.json: \"chunk_grid\\.chunk_shape\" .*overflows");
}

// ---- 14: a 2^31 x 2^31 chunk grid: info and verify follow what is stored ----

TEST(HostileMetadata, HugeGridVerifiesStoredChunksAndCountsMissing) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  put_file(dir.str("h/.zarray"), R"({"zarr_format":2,"shape":[2147483648,2147483648],"chunks":[1,1],"dtype":"|u1","compressor":null,"fill_value":0})");
  put_file(dir.str("h/0.0"), std::string(1, '\x07'));
  put_file(dir.str("h/5.2147483647"), std::string(1, '\x09'));
  put_file(dir.str("h/3.3"), "too long");
  put_file(dir.str("h/2147483648.0"), "x");  // outside the grid: not a chunk key
  put_file(dir.str("h/01.0"), "x");          // not a canonical key
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::open(store, "h"));
  const auto t0 = std::chrono::steady_clock::now();
  STRATA_ASSERT_OK_AND_ASSIGN(auto info, a.storage_info());
  EXPECT_EQ(info.stored_objects, 3);
  EXPECT_EQ(info.stored_bytes, 10);
  STRATA_ASSERT_OK_AND_ASSIGN(auto rep, a.verify());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(rep.chunks_total, int64_t{1} << 62);
  EXPECT_EQ(rep.chunks_ok, 2);
  EXPECT_EQ(rep.chunks_missing, (int64_t{1} << 62) - 3);
  EXPECT_TRUE(rep.missing.empty());  // far too many to name
  testutil::expect_one_corrupt(rep, "3.3", "object of 8 bytes exceeds the 1-byte limit");
}

TEST(HostileMetadata, ListedKeysCoverEveryKeyEncoding) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  for (auto [fmt, sep] : {std::pair{ZarrFormat::V2, '.'}, {ZarrFormat::V2, '/'}, {ZarrFormat::V3, '/'}}) {
    auto o = testutil::create_options(fmt, {5, 4}, {2, 2}, DType(ScalarType::UInt8));
    o.separator = sep;
    const std::string name = str_cat("a", static_cast<int>(fmt), sep == '/' ? "n" : "f");
    STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::create(store, name, o));
    std::vector<uint8_t> chunk(4, 1);
    STRATA_ASSERT_OK(a.write_chunk({0, 1}, chunk));
    STRATA_ASSERT_OK(a.write_chunk({2, 0}, chunk));
    STRATA_ASSERT_OK_AND_ASSIGN(auto rep, a.verify());
    EXPECT_EQ(rep.chunks_ok, 2) << name;
    EXPECT_EQ(rep.chunks_missing, 4) << name;
    EXPECT_EQ(rep.missing.size(), 4u) << name;
    STRATA_ASSERT_OK_AND_ASSIGN(auto info, a.storage_info());
    EXPECT_EQ(info.stored_objects, 2) << name;
  }
}

// ---- 12: non-regular files, sparse giants, planted symlinks ----

TEST(HostileStore, FifoChunkAndMetadataAreRefusedWithoutBlocking) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  put_file(dir.str("a/.zarray"), kZarray);
  ASSERT_EQ(::mkfifo(dir.str("a/0.0").c_str(), 0600), 0);
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::open(store, "a"));
  std::vector<uint8_t> v(16);
  STRATA_EXPECT_STATUS(a.read_region({0, 0}, {4, 4}, v.data()), StatusCode::Corrupt,
                       "chunk '0\\.0': .*a/0\\.0: is a FIFO, not a regular file");
  STRATA_EXPECT_STATUS(store->get("a/0.0"), StatusCode::Corrupt, "is a FIFO");
  STRATA_EXPECT_STATUS(store->size("a/0.0"), StatusCode::Corrupt, "is a FIFO");
  STRATA_ASSERT_OK_AND_ASSIGN(auto rep, a.verify());
  ASSERT_EQ(rep.corrupt.size(), 1u);
  EXPECT_THAT(rep.corrupt[0].second, ::testing::HasSubstr("is a FIFO"));
  // A FIFO .zmetadata is ignored; the walk lists the store.
  ASSERT_EQ(::mkfifo(dir.str(".zmetadata").c_str(), 0600), 0);
  put_file(dir.str(".zgroup"), R"({"zarr_format":2})");
  STRATA_ASSERT_OK_AND_ASSIGN(auto nodes, zarr_walk(store, ""));
  EXPECT_EQ(testutil::node_paths(nodes), (std::vector<std::string>{"[g]", "a[a]"}));
  // A FIFO .zarray makes the node unreadable, not a hang.
  fs::create_directories(dir.str("f"));
  ASSERT_EQ(::mkfifo(dir.str("f/.zarray").c_str(), 0600), 0);
  STRATA_EXPECT_STATUS(ZarrArray::open(store, "f"), StatusCode::Corrupt, "f/\\.zarray: is a FIFO");
}

TEST(HostileStore, SparseGiantChunkIsRefusedBeforeReading) {
  TempDir dir;
  auto store = *LocalStore::open(dir.str());
  put_file(dir.str("a/.zarray"),
           R"({"zarr_format":2,"shape":[4,4],"chunks":[2,2],"dtype":"|u1","compressor":{"id":"zstd","level":1},"fill_value":0})");
  sparse_file(dir.str("a/1.1"), int64_t{1} << 30);
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::open(store, "a"));
  std::vector<uint8_t> v(16);
  const auto t0 = std::chrono::steady_clock::now();
  STRATA_EXPECT_STATUS(a.read_region({0, 0}, {4, 4}, v.data()), StatusCode::Corrupt,
                       "chunk '1\\.1': .*object of 1073741824 bytes exceeds the 4100-byte limit for it");
  STRATA_ASSERT_OK_AND_ASSIGN(auto rep, a.verify());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  ASSERT_EQ(rep.corrupt.size(), 1u);
  EXPECT_EQ(rep.corrupt[0].first, "1.1");
}

TEST(HostileStore, WritesReplacePlantedSymlinksInsteadOfFollowingThem) {
  TempDir dir;
  fs::create_directories(dir.str("store/a"));
  put_file(dir.str("outside"), "precious");
  fs::create_symlink(dir.str("outside"), dir.str("store/a/key"));
  auto store = *LocalStore::open(dir.str("store"));
  STRATA_ASSERT_OK(store->set("a/key", bytes_of("new")));
  EXPECT_EQ(strata::testing::read_file(dir.str("outside")), "precious");
  EXPECT_FALSE(fs::is_symlink(dir.str("store/a/key")));
  EXPECT_EQ(strata::testing::read_file(dir.str("store/a/key")), "new");
  // Temporary names are random and never left behind.
  for (int i = 0; i < 20; ++i) STRATA_ASSERT_OK(store->set("a/k" + std::to_string(i), bytes_of("v")));
  for (const auto& e : fs::directory_iterator(dir.str("store/a")))
    EXPECT_EQ(e.path().filename().string().find(".strata-tmp."), std::string::npos) << e.path();
  // Reads still follow symlinks to regular files inside the store.
  fs::create_symlink(dir.str("store/a/key"), dir.str("store/a/link"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto v, store->get("a/link"));
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(std::string(v->begin(), v->end()), "new");
}

// ---- 10: verify and info walk the real tree and report what they could not check ----

TEST(HostileTools, VerifyAndInfoSeeArraysMissingFromZmetadataAndNameUnverified) {
  TempDir dir;
  const std::string root = dir.str("s.zarr");
  put_file(root + "/.zgroup", R"({"zarr_format":2})");
  put_file(root + "/listed/.zarray", kZarray);
  put_file(root + "/.zmetadata", std::string(R"({"zarr_consolidated_format":1,"metadata":{".zgroup":{"zarr_format":2},"listed/.zarray":)") +
                                     kZarray + "}}");
  put_file(root + "/hidden/.zarray", kZarray);  // not in .zmetadata
  put_file(root + "/hidden/0.0", "xx");         // 2 bytes for a 4-byte chunk: corrupt
  // vlen-utf8 strings are verified; an object array with a json codec is not decoded.
  put_file(root + "/strings/.zarray",
           R"({"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"|O","compressor":null,"fill_value":null,"filters":[{"id":"vlen-utf8"}]})");
  put_file(root + "/objects/.zarray",
           R"({"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"|O","compressor":null,"fill_value":null,"filters":[{"id":"json2"}]})");
  STRATA_ASSERT_OK_AND_ASSIGN(auto result, zarr_verify(test_ctx(), root));
  ASSERT_EQ(result.arrays.size(), 3u);
  EXPECT_EQ(result.arrays[0].first, "hidden");
  ASSERT_EQ(result.arrays[0].second.corrupt.size(), 1u);
  EXPECT_EQ(result.arrays[1].first, "listed");
  EXPECT_EQ(result.arrays[2].first, "strings");
  EXPECT_EQ(result.arrays[2].second.chunks_missing, 1);
  ASSERT_EQ(result.unverified.size(), 1u);
  EXPECT_EQ(result.unverified[0].first, "objects");
  EXPECT_THAT(result.unverified[0].second, ::testing::HasSubstr("exactly one vlen-utf8 or vlen-bytes filter"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto info, zarr_info(root));
  std::vector<std::string> paths;
  for (const auto& e : info) paths.push_back(e.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"", "hidden", "listed", "objects", "strings"}));
  // Unreadable metadata is reported for its node; the rest of the tree is still verified.
  put_file(root + "/bad/.zarray", "{\"zarr_format\": " + nested(1000) + "}");
  STRATA_ASSERT_OK_AND_ASSIGN(result, zarr_verify(test_ctx(), root));
  ASSERT_EQ(result.arrays.size(), 4u);
  EXPECT_EQ(result.arrays[0].first, "bad");
  testutil::expect_one_corrupt(result.arrays[0].second, "bad/<metadata>", "nested deeper than 64 levels");
}

}  // namespace
}  // namespace strata::io
