// Interop with Debian's python3-zarr 2.13 as the oracle, over a matrix of dtypes × compressors ×
// shuffles × orders × chunk shapes (edge chunks, missing chunks, NaN fill, '/' separator).
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "strata/io/npy.hpp"
#include "strata/io/zarr.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

using strata::testing::run_python;
using strata::testing::TempDir;

// Python side: writes every combination plus the expected array (.npy) and a manifest.
const char* kWriteMatrix = R"PY(
import json, sys, itertools
import numpy as np, zarr, numcodecs
from numcodecs import Blosc, Zstd, LZ4, Zlib, GZip
out = sys.argv[1]
rng = np.random.default_rng(42)
dtypes = ['|b1', '|i1', '|u1', '<i2', '>i2', '<u2', '<i4', '>u4', '<i8', '<u8', '<f4', '>f4', '<f8', '>f8']
compressors = {
  'none': None,
  'blosc-lz4-shuffle': Blosc('lz4', 5, Blosc.SHUFFLE),
  'blosc-zstd-bitshuffle': Blosc('zstd', 7, Blosc.BITSHUFFLE),
  'blosc-zlib-noshuffle': Blosc('zlib', 3, Blosc.NOSHUFFLE),
  'blosc-blosclz-shuffle': Blosc('blosclz', 9, Blosc.SHUFFLE),
  'blosc-lz4hc-bitshuffle': Blosc('lz4hc', 4, Blosc.BITSHUFFLE),
  'blosc-auto': Blosc('lz4', 5, Blosc.AUTOSHUFFLE),
  'zstd': Zstd(level=3),
  'lz4': LZ4(acceleration=1),
  'zlib': Zlib(level=1),
  'gzip': GZip(level=5),
}
shapes = [((13, 7), (5, 3)), ((20,), (6,)), ((4, 5, 6), (3, 5, 4))]
manifest = []
i = 0
for dt, (cname, comp), order, (shape, chunks) in itertools.product(dtypes, compressors.items(), ['C', 'F'], shapes):
    # Keep the matrix full for 2-D and sample the others to bound the run time.
    if len(shape) != 2 and (i % 3) != 0:
        i += 1; continue
    kind = np.dtype(dt).kind
    if kind == 'b':
        data = rng.integers(0, 2, size=shape).astype(dt)
    elif kind == 'f':
        data = (rng.normal(0, 1e3, size=shape)).astype(dt)
    else:
        info = np.iinfo(np.dtype(dt))
        data = rng.integers(max(info.min, -10**9), min(info.max, 10**9), size=shape, endpoint=True).astype(dt)
    fill = 'NaN' if kind == 'f' else (True if kind == 'b' else 7)
    sep = '/' if i % 4 == 1 else '.'
    name = f'a{i}'
    z = zarr.open(f'{out}/{name}', mode='w', shape=shape, chunks=chunks, dtype=dt, compressor=comp,
                  order=order, fill_value=np.nan if fill == 'NaN' else fill, dimension_separator=sep)
    expected = np.full(shape, np.nan if fill == 'NaN' else fill, dtype=dt)
    if i % 5 == 2:
        # Leave the last chunk row unwritten: those chunks read as the fill value.
        rows = (shape[0] - 1) // chunks[0] * chunks[0]
        z[:rows] = data[:rows]
        expected[:rows] = data[:rows]
    else:
        z[...] = data
        expected[...] = data
    np.save(f'{out}/{name}.npy', np.ascontiguousarray(expected.astype(np.dtype(dt).newbyteorder('='))))
    manifest.append(dict(name=name, dtype=dt, compressor=cname, order=order, shape=shape, chunks=chunks, sep=sep))
    i += 1
json.dump(manifest, open(f'{out}/manifest.json', 'w'))
print(len(manifest))
)PY";

template <class T>
bool same_values(const T* a, const T* b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    }
    if (a[i] != b[i]) return false;
  }
  return true;
}

TEST(ZarrInterop, PythonWrittenMatrixReadsIdentically) {
  if (strata::testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  TempDir dir;
  strata::testing::write_file(dir.str("write.py"), kWriteMatrix);
  auto res = strata::testing::run_command(strata::testing::python_with_zarr() + " " + dir.str("write.py") + " " +
                                          dir.str("m"));
  ASSERT_EQ(res.exit_code, 0) << res.output;
  auto manifest = nlohmann::json::parse(strata::testing::read_file(dir.str("m/manifest.json")));
  ASSERT_GT(manifest.size(), 300u);
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, LocalStore::open(dir.str("m")));
  int checked = 0;
  for (const auto& entry : manifest) {
    std::string name = entry["name"];
    SCOPED_TRACE(entry.dump());
    STRATA_ASSERT_OK_AND_ASSIGN(ZarrArray a, ZarrArray::open(store, name));
    STRATA_ASSERT_OK_AND_ASSIGN(NpyReader ref, NpyReader::open(dir.str("m/" + name + ".npy")));
    ASSERT_EQ(a.shape(), ref.header().shape);
    ASSERT_EQ(a.dtype(), ref.header().dtype.native());
    int64_t n = *shape_numel(a.shape());
    int64_t bytes = n * a.dtype().itemsize();
    std::vector<uint8_t> got(bytes), want(bytes);
    STRATA_ASSERT_OK(ref.read(want.data(), n));
    STRATA_ASSERT_OK(a.read_region(Shape(a.ndim(), 0), a.shape(), got.data()));
    bool same = false;
    STRATA_ASSERT_OK(visit_scalar(a.dtype().type, [&](auto tag) {
      using T = decltype(tag);
      same = same_values(reinterpret_cast<const T*>(got.data()), reinterpret_cast<const T*>(want.data()), n);
    }));
    EXPECT_TRUE(same);
    // A box in the middle touching edge chunks must match too.
    Shape start(a.ndim()), count(a.ndim());
    for (int64_t d = 0; d < a.ndim(); ++d) {
      start[d] = a.shape()[d] / 3;
      count[d] = a.shape()[d] - start[d];
    }
    std::vector<uint8_t> box(*shape_numel(count) * a.dtype().itemsize());
    STRATA_ASSERT_OK(a.read_region(start, count, box.data()));
    std::vector<uint8_t> want_box(box.size());
    copy_box(want.data(), a.shape(), start, want_box.data(), count, Shape(a.ndim(), 0), count, a.dtype().itemsize());
    STRATA_ASSERT_OK(visit_scalar(a.dtype().type, [&](auto tag) {
      using T = decltype(tag);
      EXPECT_TRUE(same_values(reinterpret_cast<const T*>(box.data()), reinterpret_cast<const T*>(want_box.data()),
                              *shape_numel(count)));
    }));
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(manifest.size()));
}

// strata writes a matrix of arrays; python3-zarr must read each identically to the .npy that
// strata wrote beside it.
TEST(ZarrInterop, StrataWrittenMatrixReadsIdenticallyInPython) {
  if (strata::testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  TempDir dir;
  STRATA_ASSERT_OK_AND_ASSIGN(auto store, LocalStore::open(dir.str("s"), true));
  const std::vector<std::string> specs = {"none", "zstd:3", "lz4", "zlib:1", "gzip:5",
                                          "blosc:lz4:5:shuffle", "blosc:zstd:7:bitshuffle",
                                          "blosc:zlib:3:noshuffle", "blosc:lz4hc:4:shuffle",
                                          "blosc:blosclz:9:bitshuffle"};
  const std::vector<DType> dtypes = {DType(ScalarType::Int8), DType(ScalarType::UInt8), DType(ScalarType::Int16),
                                     DType(ScalarType::UInt32), DType(ScalarType::Int64), DType(ScalarType::Float32),
                                     DType(ScalarType::Float64), DType(ScalarType::Bool)};
  const std::vector<std::pair<Shape, Shape>> shapes = {{{13, 7}, {5, 3}}, {{4, 5, 6}, {3, 5, 4}}, {{20}, {20}}};
  nlohmann::json manifest = nlohmann::json::array();
  int i = 0;
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 11;
  };
  for (const auto& spec : specs)
    for (const auto& dt : dtypes)
      for (const auto& [shape, chunks] : shapes) {
        std::string name = "b" + std::to_string(i);
        ZarrCreateOptions co;
        co.shape = shape;
        co.chunks = chunks;
        co.dtype = dt;
        co.separator = (i % 3 == 0) ? '/' : '.';
        co.fill_value = dt.is_float() ? ZarrFillValue("NaN") : (dt.is_bool() ? ZarrFillValue(false) : ZarrFillValue(3));
        STRATA_ASSERT_OK_AND_ASSIGN(auto codec, parse_codec_spec(spec, dt.itemsize()));
        co.compressor = std::shared_ptr<const BytesCodec>(std::move(codec));
        STRATA_ASSERT_OK_AND_ASSIGN(ZarrArray a, ZarrArray::create(store, name, co));
        int64_t n = *shape_numel(shape);
        std::vector<uint8_t> data(n * dt.itemsize());
        STRATA_ASSERT_OK(visit_scalar(dt.type, [&](auto tag) {
          using T = decltype(tag);
          T* p = reinterpret_cast<T*>(data.data());
          for (int64_t k = 0; k < n; ++k) {
            if constexpr (std::is_same_v<T, bool>) p[k] = next() & 1;
            else if constexpr (std::is_floating_point_v<T>) p[k] = static_cast<T>(static_cast<double>(next() % 100000) / 7.0 - 5000);
            else p[k] = static_cast<T>(next());
          }
        }));
        STRATA_ASSERT_OK(a.write_region(Shape(shape.size(), 0), shape, data.data()));
        STRATA_ASSERT_OK_AND_ASSIGN(NpyWriter w, NpyWriter::create(dir.str(name + ".npy"), dt, shape));
        STRATA_ASSERT_OK(w.write(data.data(), n));
        STRATA_ASSERT_OK(w.finish());
        manifest.push_back(name);
        ++i;
      }
  strata::testing::write_file(dir.str("manifest.json"), manifest.dump());
  auto res = run_python("import json, numpy as np, zarr\nd='" + dir.str() + "'\n"
                        "names=json.load(open(d+'/manifest.json'))\n"
                        "bad=[n for n in names if not np.array_equal(zarr.open(d+'/s/'+n,mode='r')[...], np.load(d+'/'+n+'.npy'), equal_nan=(np.load(d+'/'+n+'.npy').dtype.kind=='f'))]\n"
                        "print(len(names), 'checked;', 'mismatch:', bad)\nassert not bad\n");
  EXPECT_EQ(res.exit_code, 0) << res.output;
}

}  // namespace
}  // namespace strata::io
