// String arrays (|O vlen-utf8, |S<n>, <U<n>): round trips over chunk edges, empty strings and
// non-ASCII text, hostile chunks and metadata, and interop with python3-zarr both ways.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <ostream>

#include "io/zarr/zarr_test_util.hpp"
#include "strata/io/zarr_strings.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

using strata::testing::TempDir;
using testutil::put_file;

// Seven values: chunks of 3 leave an edge chunk of 1; "" and multi-byte UTF-8 included.
const std::vector<std::string> kValues = {"", "a", "h\xc3\xa9llo", "\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\xa7\xac" "x", "", "zz"};

std::shared_ptr<Store> open_store(const TempDir& dir) { return *LocalStore::open(dir.str("s.zarr"), true); }

Status write_all(const std::shared_ptr<Store>& store, const std::string& path, ZarrStringCreateOptions o,
                 const std::vector<std::string>& values) {
  const int64_t cols = std::max<int64_t>(o.columns, 1);
  const int64_t cr = o.chunk_rows;
  STRATA_ASSIGN_OR_RETURN(auto w, ZarrStringWriter::create(store, path, std::move(o)));
  // Streamed a chunk at a time, as the VCF Zarr writer does.
  const int64_t rows = static_cast<int64_t>(values.size()) / cols;
  for (int64_t r = 0; r < rows; r += cr) {
    const int64_t n = std::min(cr, rows - r);
    std::vector<std::string> part(values.begin() + r * cols, values.begin() + (r + n) * cols);
    STRATA_RETURN_NOT_OK(w.write_rows(r, part));
  }
  return w.finish(rows);
}

// kValues as the 1-D array "v", 3 rows a chunk (so chunk "1" holds rows 3–5).
Status write_values_in_chunks_of_3(const std::shared_ptr<Store>& store) {
  ZarrStringCreateOptions o;
  o.chunk_rows = 3;
  return write_all(store, "v", o, kValues);
}

struct Case {
  std::string dtype, compressor;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.dtype << (c.compressor.empty() ? "" : " " + c.compressor); }

class StringRoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(StringRoundTrip, OneAndTwoDimensionsOverChunkEdges) {
  TempDir dir;
  auto store = open_store(dir);
  ZarrStringCreateOptions o;
  o.dtype = GetParam().dtype;
  o.chunk_rows = 3;
  if (!GetParam().compressor.empty()) o.compressor = std::shared_ptr<const BytesCodec>(*parse_codec_spec(GetParam().compressor, 1));
  o.dimension_names = {"variants"};
  STRATA_ASSERT_OK(write_all(store, "v", o, kValues));
  STRATA_ASSERT_OK_AND_ASSIGN(bool is_strings, is_zarr_string_array(store, "v"));
  EXPECT_TRUE(is_strings);
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrStringArray::open(store, "v"));
  EXPECT_EQ(a.shape(), (Shape{7}));
  EXPECT_EQ(a.columns(), 1);
  EXPECT_EQ(a.chunk_grid().num_chunks(), 3);
  STRATA_ASSERT_OK_AND_ASSIGN(auto all, a.read_rows(0, 7));
  EXPECT_EQ(all, kValues);
  // Ranges that start and end inside chunks, and an empty range.
  STRATA_ASSERT_OK_AND_ASSIGN(auto mid, a.read_rows(2, 4));
  EXPECT_EQ(mid, std::vector<std::string>(kValues.begin() + 2, kValues.begin() + 6));
  STRATA_ASSERT_OK_AND_ASSIGN(auto none, a.read_rows(7, 0));
  EXPECT_TRUE(none.empty());
  STRATA_ASSERT_OK_AND_ASSIGN(auto rep, a.verify());
  EXPECT_EQ(rep.chunks_ok, 3);
  EXPECT_EQ(rep.chunks_missing, 0);
  EXPECT_TRUE(rep.corrupt.empty());

  // 2-D: 3 rows of 2 columns in chunks of 2 rows (every column in one chunk).
  o.columns = 2;
  o.chunk_rows = 2;
  o.dimension_names = {"variants", "alleles"};
  const std::vector<std::string> six(kValues.begin(), kValues.begin() + 6);
  STRATA_ASSERT_OK(write_all(store, "g/m", o, six));
  STRATA_ASSERT_OK_AND_ASSIGN(auto m, ZarrStringArray::open(store, "g/m"));
  EXPECT_EQ(m.shape(), (Shape{3, 2}));
  EXPECT_EQ(m.columns(), 2);
  STRATA_ASSERT_OK_AND_ASSIGN(auto rows, m.read_rows(1, 2));
  EXPECT_EQ(rows, std::vector<std::string>(six.begin() + 2, six.end()));
  STRATA_ASSERT_OK_AND_ASSIGN(auto si, m.storage_info());
  EXPECT_EQ(si.stored_objects, 2);
  EXPECT_GT(si.stored_bytes, 0);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, StringRoundTrip,
                         ::testing::Values(Case{"|O", ""}, Case{"|O", "blosc:zstd:7:noshuffle"}, Case{"|S8", ""},
                                           Case{"|S8", "zstd:3"}, Case{"<U5", ""}, Case{"<U5", "lz4"}),
                         [](const auto& info) {
                           return info.param.dtype.substr(1) + (info.param.compressor.empty() ? "_raw" : "_packed");
                         });

TEST(ZarrStrings, MetadataIsWhatNumpyWrites) {
  TempDir dir;
  auto store = open_store(dir);
  STRATA_ASSERT_OK(write_zarr_strings(store, "ids", {"x", "y"}, "samples"));
  auto z = nlohmann::json::parse(strata::testing::read_file(dir.str("s.zarr/ids/.zarray")));
  EXPECT_EQ(z["dtype"], "|O");
  EXPECT_EQ(z["filters"], nlohmann::json::parse(R"([{"id":"vlen-utf8"}])"));
  EXPECT_EQ(z["shape"], nlohmann::json::parse("[2]"));
  auto attrs = nlohmann::json::parse(strata::testing::read_file(dir.str("s.zarr/ids/.zattrs")));
  EXPECT_EQ(attrs["_ARRAY_DIMENSIONS"], nlohmann::json::parse(R"(["samples"])"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrStringArray::open(store, "ids"));
  EXPECT_EQ(a.dtype(), "|O");
  EXPECT_EQ(a.codecs_description(), "vlen-utf8");
}

TEST(ZarrStrings, MissingChunksReadAsEmptyAndAreCounted) {
  TempDir dir;
  auto store = open_store(dir);
  STRATA_ASSERT_OK(write_values_in_chunks_of_3(store));
  std::filesystem::remove(dir.str("s.zarr/v/1"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrStringArray::open(store, "v"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto all, a.read_rows(0, 7));
  EXPECT_EQ(all, (std::vector<std::string>{"", "a", "h\xc3\xa9llo", "", "", "", "zz"}));
  STRATA_ASSERT_OK_AND_ASSIGN(auto rep, a.verify());
  EXPECT_EQ(rep.chunks_total, 3);
  EXPECT_EQ(rep.chunks_ok, 2);
  EXPECT_EQ(rep.chunks_missing, 1);
  EXPECT_EQ(rep.missing, (std::vector<std::string>{"1"}));
}

TEST(ZarrStrings, BigEndianUcs4IsRead) {
  TempDir dir;
  auto store = open_store(dir);
  put_file(dir.str("s.zarr/b/.zarray"),
           R"({"zarr_format":2,"shape":[2],"chunks":[2],"dtype":">U2","compressor":null,"fill_value":null,"filters":null,"order":"C"})");
  // "é" then "ab", big-endian UCS-4, NUL-padded.
  put_file(dir.str("s.zarr/b/0"), std::string("\0\0\0\xe9\0\0\0\0\0\0\0a\0\0\0b", 16));
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrStringArray::open(store, "b"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto all, a.read_rows(0, 2));
  EXPECT_EQ(all, (std::vector<std::string>{"\xc3\xa9", "ab"}));
}

TEST(ZarrStrings, CorruptChunksNameTheChunk) {
  TempDir dir;
  auto store = open_store(dir);
  STRATA_ASSERT_OK(write_values_in_chunks_of_3(store));
  const std::string prefix = dir.str("s.zarr") + "/v: chunk '1': ";
  std::string chunk = strata::testing::read_file(dir.str("s.zarr/v/1"));
  strata::testing::write_file(dir.str("s.zarr/v/1"), chunk.substr(0, chunk.size() - 2));
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrStringArray::open(store, "v"));
  STRATA_EXPECT_STATUS(a.read_rows(0, 7), StatusCode::Corrupt, "^" + prefix + "vlen chunk truncated at item 2$");
  strata::testing::write_file(dir.str("s.zarr/v/1"), std::string("\x09\0\0\0", 4));
  STRATA_EXPECT_STATUS(a.read_rows(3, 1), StatusCode::Corrupt, "^" + prefix + "vlen chunk holds 9 items, expected 3$");
  strata::testing::write_file(dir.str("s.zarr/v/1"), chunk + "junk");
  STRATA_EXPECT_STATUS(a.read_rows(3, 1), StatusCode::Corrupt, "^" + prefix + "vlen chunk has 4 bytes after its last item$");
  STRATA_ASSERT_OK_AND_ASSIGN(auto rep, a.verify());
  ASSERT_EQ(rep.corrupt.size(), 1u);
  EXPECT_EQ(rep.corrupt[0].first, "1");
  EXPECT_EQ(rep.corrupt[0].second, "vlen chunk has 4 bytes after its last item");
  // Fixed width: the byte count must match the chunk shape.
  put_file(dir.str("s.zarr/f/.zarray"),
           R"({"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"<U2","compressor":null,"fill_value":null,"filters":null})");
  put_file(dir.str("s.zarr/f/0"), "abc");
  STRATA_ASSERT_OK_AND_ASSIGN(auto f, ZarrStringArray::open(store, "f"));
  STRATA_EXPECT_STATUS(f.read_rows(0, 2), StatusCode::Corrupt,
                       "^" + dir.str("s.zarr") + "/f: chunk '0': chunk holds 3 bytes, expected 16$");
  put_file(dir.str("s.zarr/f/0"), std::string("\0\xd8\0\0", 4) + std::string(12, '\0'));  // a lone surrogate
  STRATA_EXPECT_STATUS(f.read_rows(0, 2), StatusCode::Corrupt, "chunk '0': item 0 holds code point 55296");
}

TEST(ZarrStrings, OpenRefusesWhatIsNotAStringArray) {
  TempDir dir;
  auto store = open_store(dir);
  const std::string root = dir.str("s.zarr");
  put_file(root + "/n/.zarray", R"({"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"<i4","compressor":null,"fill_value":0,"filters":null})");
  STRATA_EXPECT_STATUS(ZarrStringArray::open(store, "n"), StatusCode::Invalid,
                       "^" + root + "/n/.zarray: expected a string array, found dtype '<i4'$");
  STRATA_ASSERT_OK_AND_ASSIGN(bool numeric_is_strings, is_zarr_string_array(store, "n"));
  EXPECT_FALSE(numeric_is_strings);
  put_file(root + "/j/.zarray", R"({"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"|O","compressor":null,"fill_value":null,"filters":[{"id":"json2"}]})");
  STRATA_EXPECT_STATUS(ZarrStringArray::open(store, "j"), StatusCode::Unsupported,
                       "^" + root + "/j/.zarray: object arrays need exactly one vlen-utf8 or vlen-bytes filter$");
  put_file(root + "/w/.zarray", R"({"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"|S0","compressor":null,"fill_value":null,"filters":null})");
  STRATA_EXPECT_STATUS(ZarrStringArray::open(store, "w"), StatusCode::Corrupt, "^" + root + "/w/.zarray: dtype '\\|S0' has no valid width$");
  // Hostile chunk shapes are refused before anything is allocated.
  put_file(root + "/h/.zarray", R"({"zarr_format":2,"shape":[4611686018427387904],"chunks":[4611686018427387904],"dtype":"|O","compressor":null,"fill_value":null,"filters":[{"id":"vlen-utf8"}]})");
  STRATA_EXPECT_STATUS(ZarrStringArray::open(store, "h"), StatusCode::Unsupported, "strings exceed the limit of 16777216$");
  put_file(root + "/s3/zarr.json", R"({"zarr_format":3,"node_type":"array","data_type":"string"})");
  STRATA_EXPECT_STATUS(ZarrStringArray::open(store, "s3"), StatusCode::Unsupported, "^" + root + "/s3: Zarr v3 string arrays are not supported$");
  STRATA_EXPECT_STATUS(ZarrStringArray::open(store, "absent"), StatusCode::NotFound, "^" + root + "/absent: no Zarr array here");
}

TEST(ZarrStrings, WriterRefusesBadInput) {
  TempDir dir;
  auto store = open_store(dir);
  const std::string root = dir.str("s.zarr");
  ZarrStringCreateOptions o;
  o.dtype = "<i4";
  STRATA_EXPECT_STATUS(ZarrStringWriter::create(store, "x", o), StatusCode::Invalid,
                       "^" + root + "/x: dtype '<i4' is not \\|O, \\|S<n> or <U<n>$");
  o.dtype = "|S2";
  o.chunk_rows = 0;
  STRATA_EXPECT_STATUS(ZarrStringWriter::create(store, "x", o), StatusCode::Invalid, "chunk length must be positive");
  o.chunk_rows = 2;
  STRATA_ASSERT_OK_AND_ASSIGN(auto w, ZarrStringWriter::create(store, "x", o));
  STRATA_EXPECT_STATUS(w.write_rows(0, {"ok", "long"}), StatusCode::Invalid,
                       "^" + root + "/x: chunk '0': string of 4 bytes does not fit dtype \\|S2$");
  STRATA_EXPECT_STATUS(w.write_rows(1, {"a"}), StatusCode::Invalid, "^" + root + "/x: write at row 1 is not aligned to chunks of 2$");
  o.dtype = "<U2";
  STRATA_ASSERT_OK_AND_ASSIGN(auto u, ZarrStringWriter::create(store, "u", o));
  STRATA_EXPECT_STATUS(u.write_rows(0, {"\xff"}), StatusCode::Invalid, "chunk '0': string 0 is not valid UTF-8$");
  STRATA_EXPECT_STATUS(u.write_rows(0, {"\xc3\xa9\xc3\xa9\xc3\xa9"}), StatusCode::Invalid,
                       "string of 3 characters does not fit dtype <U2$");
}

// ---- interop with python3-zarr ----

std::string values_literal() {
  return "VALS = json.loads(r'''" + nlohmann::json(kValues).dump() + "''')\n";
}

TEST(ZarrStringsInterop, PythonWritesStrataReads) {
  if (strata::testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  TempDir dir;
  auto r = strata::testing::run_python(
      "import json, numpy as np, zarr, numcodecs\n" + values_literal() + "STORE = '" + dir.str("s.zarr") + "'\n" +
      R"PY(
g = zarr.open_group(STORE, mode='w')
g.array('o', np.array(VALS, dtype=object), chunks=(3,), object_codec=numcodecs.VLenUTF8())
g.array('s', np.array([v.encode() for v in VALS], dtype='S8'), chunks=(3,), compressor=numcodecs.Zstd(3))
g.array('u', np.array(VALS, dtype='<U5'), chunks=(3,))
g.array('ub', np.array(VALS, dtype='>U5'), chunks=(3,))
g.array('o2', np.array(VALS[:6], dtype=object).reshape(3, 2), chunks=(2, 1), object_codec=numcodecs.VLenUTF8(),
        dimension_separator='/')
)PY");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto store = *LocalStore::open(dir.str("s.zarr"));
  for (const char* name : {"o", "s", "u", "ub"}) {
    SCOPED_TRACE(name);
    STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrStringArray::open(store, name));
    STRATA_ASSERT_OK_AND_ASSIGN(auto all, a.read_rows(0, 7));
    EXPECT_EQ(all, kValues);
    STRATA_ASSERT_OK_AND_ASSIGN(auto rep, a.verify());
    EXPECT_EQ(rep.chunks_ok, 3);
  }
  STRATA_ASSERT_OK_AND_ASSIGN(auto o2, ZarrStringArray::open(store, "o2"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto rows, o2.read_rows(0, 3));
  EXPECT_EQ(rows, std::vector<std::string>(kValues.begin(), kValues.begin() + 6));
  STRATA_ASSERT_OK_AND_ASSIGN(auto rep, o2.verify());
  EXPECT_EQ(rep.chunks_ok, 4);
}

TEST(ZarrStringsInterop, StrataWritesPythonReads) {
  if (strata::testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  TempDir dir;
  auto store = open_store(dir);
  for (const char* dtype : {"|O", "|S8", "<U5"}) {
    ZarrStringCreateOptions o;
    o.dtype = dtype;
    o.chunk_rows = 3;
    o.compressor = std::shared_ptr<const BytesCodec>(*parse_codec_spec("blosc:lz4:5:noshuffle", 1));
    STRATA_ASSERT_OK(write_all(store, std::string(1, dtype[1]), o, kValues));
  }
  ZarrStringCreateOptions o;
  o.chunk_rows = 2;
  o.columns = 2;
  STRATA_ASSERT_OK(write_all(store, "m", o, std::vector<std::string>(kValues.begin(), kValues.begin() + 6)));
  auto r = strata::testing::run_python(
      "import json, numpy as np, zarr\n" + values_literal() + "STORE = '" + dir.str("s.zarr") + "'\n" +
      R"PY(
bad = []
for name, decode in (('O', False), ('S', True), ('U', False)):
    got = [v.decode() if decode else v for v in zarr.open_array(STORE, mode='r', path=name)[:]]
    if got != VALS:
        bad.append('%s: %r' % (name, got))
m = zarr.open_array(STORE, mode='r', path='m')[:].tolist()
if m != [VALS[0:2], VALS[2:4], VALS[4:6]]:
    bad.append('m: %r' % (m,))
for b in bad:
    print('FAIL', b)
print('checked')
)PY");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("checked"));
  EXPECT_THAT(r.output, ::testing::Not(::testing::HasSubstr("FAIL"))) << r.output;
}

}  // namespace
}  // namespace strata::io
