// Interop with Debian's python3-zarr 2.13 as the oracle, both ways. The python work is batched
// into one script per direction.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/zarr/zarr_test_util.hpp"
#include "strata/io/zarr.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

using nlohmann::json;
using strata::testing::TempDir;
using namespace strata::io::testutil;

// Writes arrays over dtypes × compressors × order × chunkings (edge chunks) × separators × fill
// values (NaN, null, ...), leaving some chunks missing; records python's own reading of each.
constexpr const char* kPythonWriter = R"PY(
import os, numpy as np, zarr, numcodecs
from numcodecs import Blosc
store = zarr.DirectoryStore(STORE)
root = zarr.group(store=store, overwrite=True)
root.attrs['vcf_zarr_version'] = '0.4'
os.makedirs(EXP, exist_ok=True)
dtypes = ['|b1', '|i1', '|u1', '<i2', '>u2', '<i4', '>i4', '<u4', '>i8', '<u8', '<f4', '>f4', '<f8', '>f8']
comps = [None, numcodecs.Zstd(3), Blosc('zstd', 7, Blosc.BITSHUFFLE), Blosc('lz4', 5, Blosc.SHUFFLE),
         Blosc('blosclz', 3, Blosc.NOSHUFFLE), numcodecs.LZ4(1), numcodecs.Zlib(1), numcodecs.GZip(5)]
layouts = [((7, 5), (3, 2)), ((10,), (4,)), ((4, 5, 3), (3, 2, 2)), ((6, 4), (6, 4)), ((), ()), ((9, 3), (2, 3))]
rng = np.random.default_rng(0)
lines = []
i = 0
for dt in dtypes:
    for comp in comps:
        shape, chunks = layouts[i % len(layouts)]
        kind = np.dtype(dt).kind
        if kind == 'f':
            fill = [np.nan, 0.5, None, -np.inf][i % 4]
        elif kind == 'b':
            fill = [True, None][i % 2]
        else:
            fill = [7, None, 0][i % 3]
        name = ('g/a%d' if i % 5 == 0 else 'a%d') % i
        z = zarr.open_array(store, mode='w', path=name, shape=shape, chunks=chunks, dtype=dt, compressor=comp,
                            fill_value=fill, order='F' if i % 2 else 'C', dimension_separator='/' if i % 3 == 0 else '.')
        if kind == 'b':
            data = rng.integers(0, 2, size=shape).astype(bool)
        elif kind == 'f':
            data = rng.normal(size=shape).astype(dt)
        else:
            data = rng.integers(0, 100, size=shape).astype(dt)
        if fill is None or len(shape) == 0:
            z[...] = data
        else:
            # Leave chunks past the middle of the first axis unwritten (they read as fill).
            k = shape[0] // 2 + 1
            z[:k] = data[:k]
        got = z[...]
        native = got.dtype.newbyteorder('<') if got.dtype.itemsize > 1 else got.dtype
        with open(os.path.join(EXP, name.replace('/', '_')), 'wb') as f:
            f.write(np.ascontiguousarray(got).astype(native).tobytes())
        lines.append('%s %s %s' % (name, ','.join(str(s) for s in shape) or '-', native.str))
        i += 1
z = zarr.open_array(store, mode='w', path='delta', shape=(4,), chunks=(2,), dtype='<i4',
                    filters=[numcodecs.Delta(dtype='<i4')])
z[:] = [1, 2, 3, 4]
zarr.consolidate_metadata(store)
with open(os.path.join(EXP, 'manifest'), 'w') as f:
    f.write('\n'.join(lines) + '\n')
)PY";

// Reads what strata wrote and compares with the raw expected bytes strata saved beside it.
constexpr const char* kPythonReader = R"PY(
import os, json, numpy as np, zarr, numcodecs
bad = []
n = 0
for line in open(os.path.join(EXP, 'manifest')):
    name, shape, dt, dims = line.split()
    shape = () if shape == '-' else tuple(int(s) for s in shape.split(','))
    z = zarr.open_array(STORE, mode='r', path=name)
    want = np.frombuffer(open(os.path.join(EXP, name.replace('/', '_')), 'rb').read(), dtype=dt).reshape(shape)
    got = z[...]
    if got.shape != want.shape or not np.array_equal(got.astype(want.dtype), want,
                                                     equal_nan=want.dtype.kind == 'f'):
        bad.append('%s: values differ' % name)
    if dims != '-' and z.attrs.get('_ARRAY_DIMENSIONS') != dims.split(','):
        bad.append('%s: _ARRAY_DIMENSIONS %r' % (name, z.attrs.asdict()))
    n += 1
root = zarr.open_consolidated(STORE, mode='r')
if root.attrs['title'] != 'strata':
    bad.append('root attrs %r' % root.attrs.asdict())
listed = []
root.visitvalues(lambda v: listed.append(v.path))
if len(listed) < n:
    bad.append('consolidated listing has %d nodes for %d arrays' % (len(listed), n))
# Metadata text identical to what zarr-python writes for the same array.
ref = zarr.open_array(zarr.DirectoryStore(os.path.join(EXP, 'ref')), mode='w', path='x', shape=(5, 3), chunks=(2, 2),
                      dtype='<f8', compressor=numcodecs.Zstd(3), fill_value=np.nan, dimension_separator='/')
a = open(os.path.join(STORE, 'same/.zarray')).read()
b = open(os.path.join(EXP, 'ref', 'x', '.zarray')).read()
if a != b:
    bad.append('.zarray text differs:\n%s\n%s' % (a, b))
print('checked', n)
for b in bad:
    print('FAIL', b)
)PY";

std::string python_prelude(const TempDir& dir) {
  return "STORE = '" + dir.str("store.zarr") + "'\nEXP = '" + dir.str("expected") + "'\n";
}

TEST(ZarrInterop, PythonWritesStrataReads) {
  if (testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  TempDir dir;
  auto r = testing::run_python(python_prelude(dir) + kPythonWriter);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto store = *LocalStore::open(dir.str("store.zarr"));
  std::ifstream manifest(dir.str("expected/manifest"));
  std::string line;
  int checked = 0;
  while (std::getline(manifest, line)) {
    std::istringstream ls(line);
    std::string name, shape_text, dt;
    ls >> name >> shape_text >> dt;
    SCOPED_TRACE(line);
    STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::open(store, name));
    const Shape shape = shape_text == "-" ? Shape{} : *parse_shape(shape_text);
    ASSERT_EQ(a.shape(), shape);
    STRATA_ASSERT_OK_AND_ASSIGN(DType want_dtype, DType::from_numpy(dt));
    ASSERT_EQ(a.dtype(), want_dtype.native());
    std::string file = name;
    std::replace(file.begin(), file.end(), '/', '_');
    const std::string want = testing::read_file(dir.str("expected/" + file));
    std::string got(want.size(), '\0');
    STRATA_ASSERT_OK(a.read_region(Shape(shape.size(), 0), shape, got.data()));
    EXPECT_EQ(got, want);
    STRATA_ASSERT_OK_AND_ASSIGN(auto report, a.verify());
    EXPECT_TRUE(report.corrupt.empty());
    ++checked;
  }
  EXPECT_EQ(checked, 14 * 8);
  STRATA_EXPECT_STATUS(ZarrArray::open(store, "delta"), StatusCode::Unsupported, "delta");
  // zarr_walk follows python's .zmetadata; strata's own consolidation writes the same bytes.
  STRATA_ASSERT_OK_AND_ASSIGN(auto nodes, zarr_walk(store, ""));
  EXPECT_EQ(static_cast<int>(nodes.size()), checked + 3);  // + root, g, delta
  const std::string python_zmetadata = testing::read_file(dir.str("store.zarr/.zmetadata"));
  STRATA_ASSERT_OK(zarr_consolidate(store));
  EXPECT_EQ(testing::read_file(dir.str("store.zarr/.zmetadata")), python_zmetadata);
  EXPECT_EQ(json::parse(*zarr_group_attributes_json(store, "")), json({{"vcf_zarr_version", "0.4"}}));
}

TEST(ZarrInterop, StrataWritesPythonReads) {
  if (testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  TempDir dir;
  auto store = *LocalStore::open(dir.str("store.zarr"), true);
  STRATA_ASSERT_OK(zarr_create_group(store, "", ZarrFormat::V2, json({{"title", "strata"}}).dump()));
  const std::vector<DType> dtypes = {DType(ScalarType::Bool),    DType(ScalarType::Int8),
                                     DType(ScalarType::UInt16),  DType(ScalarType::Int32, ByteOrder::Big),
                                     DType(ScalarType::Int64),   DType(ScalarType::Float32),
                                     DType(ScalarType::Float64), DType(ScalarType::UInt64, ByteOrder::Big)};
  const std::vector<std::string> codecs = {"",   "zstd:3", "blosc:zstd:7:bitshuffle", "blosc:lz4:5:shuffle",
                                           "lz4", "zlib:1", "gzip:5"};
  const std::vector<std::pair<Shape, Shape>> layouts = {
      {{7, 5}, {3, 2}}, {{10}, {4}}, {{4, 5, 3}, {3, 2, 2}}, {{6, 4}, {6, 4}}, {{}, {}}, {{9, 3}, {2, 3}}};
  std::mt19937_64 rng(42);
  std::ostringstream manifest;
  int i = 0;
  for (const DType& dt : dtypes) {
    for (const std::string& c : codecs) {
      const auto& [shape, chunks] = layouts[i % layouts.size()];
      ZarrCreateOptions o;
      o.shape = shape;
      o.chunks = chunks;
      o.dtype = dt;
      o.separator = i % 3 == 0 ? '/' : '.';
      if (dt.is_float()) o.fill_value = std::vector<ZarrFillValue>{"NaN", 0.5, nullptr, "-Infinity"}[i % 4];
      else if (dt.is_bool()) o.fill_value = i % 2 ? ZarrFillValue(true) : ZarrFillValue(nullptr);
      else o.fill_value = std::vector<ZarrFillValue>{7, nullptr, 0}[i % 3];
      if (!c.empty()) o.compressor = std::shared_ptr<const BytesCodec>(*parse_codec_spec(c, dt.itemsize()));
      if (i % 4 == 0) {
        o.dimension_names.clear();
        for (size_t d = 0; d < shape.size(); ++d) o.dimension_names.push_back("dim" + std::to_string(d));
      }
      const std::string name = (i % 5 == 0 ? "g/s" : "s") + std::to_string(i);
      STRATA_ASSERT_OK_AND_ASSIGN(auto a, ZarrArray::create(store, name, o));
      const int64_t n = *shape_numel(shape), isz = dt.itemsize();
      std::vector<uint8_t> ref(static_cast<size_t>(n * isz));
      fill_with(ref, a.fill_value_bytes());
      // Null fill: write everything (unwritten chunks are undefined); else a few random boxes.
      const int boxes = o.fill_value.is_null() || shape.empty() ? 1 : 3;
      for (int b = 0; b < boxes; ++b) {
        Shape start(shape.size(), 0), count = shape;
        if (boxes > 1) random_box(shape, rng, start, count);
        auto data = random_elements(*shape_numel(count), dt.native(), rng);
        STRATA_ASSERT_OK(a.write_region(start, count, data.data()));
        insert(ref, shape, start, count, data, isz);
      }
      std::string shape_text;
      for (size_t d = 0; d < shape.size(); ++d) shape_text += (d ? "," : "") + std::to_string(shape[d]);
      std::string dims;
      for (size_t d = 0; d < o.dimension_names.size(); ++d) dims += (d ? "," : "") + o.dimension_names[d];
      std::string file = name;
      std::replace(file.begin(), file.end(), '/', '_');
      testutil::put_file(dir.str("expected/" + file), std::string(ref.begin(), ref.end()));
      manifest << name << ' ' << (shape_text.empty() ? "-" : shape_text) << ' ' << dt.native().numpy_str() << ' '
               << (dims.empty() ? "-" : dims) << '\n';
      ++i;
    }
  }
  testutil::put_file(dir.str("expected/manifest"), manifest.str());
  ZarrCreateOptions same;
  same.shape = {5, 3};
  same.chunks = {2, 2};
  same.fill_value = "NaN";
  same.separator = '/';
  same.compressor = std::shared_ptr<const BytesCodec>(*parse_codec_spec("zstd:3", 8));
  STRATA_ASSERT_OK(ZarrArray::create(store, "same", same).status());
  STRATA_ASSERT_OK(zarr_consolidate(store));
  auto r = testing::run_python(python_prelude(dir) + kPythonReader);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("checked " + std::to_string(i)));
  EXPECT_THAT(r.output, ::testing::Not(::testing::HasSubstr("FAIL"))) << r.output;
}

}  // namespace
}  // namespace strata::io
