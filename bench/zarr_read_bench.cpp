// Zarr read throughput: strata (1 and 2 threads) vs Debian's python3-zarr on the same store,
// in the same run. The store is a uint8 array of genotype-like values (0/1/2, a few 3s for
// missing) compressed with blosc zstd + bitshuffle, as genotype stores are.
//
//   strata_zarr_read_bench [--gb 1.0] [--dir /tmp/strata-zarr-bench] [--repeats 3] [--keep]
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/io/zarr.hpp"

using namespace strata;

namespace {

using strata::bench::median;
using strata::bench::now_s;

Status build_store(const std::string& dir, int64_t rows, int64_t cols, const Shape& chunks) {
  STRATA_ASSIGN_OR_RETURN(auto store, io::LocalStore::open(dir, true));
  io::ZarrCreateOptions co;
  co.shape = {rows, cols};
  co.chunks = chunks;
  co.dtype = DType(ScalarType::UInt8);
  STRATA_ASSIGN_OR_RETURN(auto codec, io::parse_codec_spec("blosc:zstd:5:bitshuffle", 1));
  co.compressor = std::shared_ptr<const io::BytesCodec>(std::move(codec));
  co.overwrite = true;
  STRATA_ASSIGN_OR_RETURN(io::ZarrArray a, io::ZarrArray::create(store, "", co));
  std::vector<uint8_t> slab(static_cast<size_t>(chunks[0] * cols));
  uint64_t s = 88172645463325252ULL;
  for (int64_t r0 = 0; r0 < rows; r0 += chunks[0]) {
    int64_t n = std::min(chunks[0], rows - r0);
    for (int64_t i = 0; i < n; ++i) {
      // Per-row allele frequency so the data compresses like real genotypes do.
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      uint32_t p = static_cast<uint32_t>(s % 1000);
      for (int64_t j = 0; j < cols; ++j) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        uint32_t a1 = (s & 1023) < p, a2 = ((s >> 10) & 1023) < p;
        uint8_t g = static_cast<uint8_t>(a1 + a2);
        if (((s >> 20) & 1023) == 0) g = 3;
        slab[static_cast<size_t>(i * cols + j)] = g;
      }
    }
    STRATA_RETURN_NOT_OK(a.write_region({r0, 0}, {n, cols}, slab.data()));
  }
  return Status::OK();
}

// Read the whole array in slabs of chunk rows; returns seconds.
Result<double> read_all(const std::string& dir, int threads, uint64_t* checksum) {
  ThreadPool pool(threads);
  STRATA_ASSIGN_OR_RETURN(auto store, io::LocalStore::open(dir));
  STRATA_ASSIGN_OR_RETURN(io::ZarrArray a, io::ZarrArray::open(store, ""));
  const int64_t rows = a.shape()[0], cols = a.shape()[1];
  const int64_t slab_rows = a.chunk_grid().chunk_shape()[0] * 8;
  STRATA_ASSIGN_OR_RETURN(Buffer buf, Buffer::allocate(slab_rows * cols));
  double t0 = now_s();
  uint64_t sum = 0;
  for (int64_t r0 = 0; r0 < rows; r0 += slab_rows) {
    int64_t n = std::min(slab_rows, rows - r0);
    STRATA_RETURN_NOT_OK(a.read_region({r0, 0}, {n, cols}, buf.data(), &pool));
    sum += buf.data()[0] + buf.data()[n * cols - 1];
  }
  *checksum = sum;
  return now_s() - t0;
}

}  // namespace

int main(int argc, char** argv) {
  double gb = 1.0;
  std::string dir = "/tmp/strata-zarr-bench";
  int repeats = 3;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--gb" && i + 1 < argc) gb = std::atof(argv[++i]);
    else if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--repeats" && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
    else if (a == "--keep") keep = true;
    else {
      std::fprintf(stderr, "usage: %s [--gb 1.0] [--dir DIR] [--repeats 3] [--keep]\n", argv[0]);
      return 2;
    }
  }
  const int64_t cols = 20000;
  const int64_t rows = std::max<int64_t>(1000, static_cast<int64_t>(gb * 1e9) / cols);
  const Shape chunks{1000, 10000};
  const double mb = static_cast<double>(rows * cols) / 1e6;
  std::string store = dir + "/genotypes.zarr";
  std::printf("building %lld x %lld uint8 store (%.0f MB, blosc zstd:5 bitshuffle, chunks 1000x10000) in %s\n",
              static_cast<long long>(rows), static_cast<long long>(cols), mb, store.c_str());
  double t0 = now_s();
  if (Status st = build_store(store, rows, cols, chunks); !st.ok()) {
    std::fprintf(stderr, "error: %s\n", st.to_string().c_str());
    return 1;
  }
  uintmax_t stored = 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(store))
    if (e.is_regular_file()) stored += e.file_size();
  std::printf("built in %.1f s; stored %.1f MB (ratio %.1fx)\n\n", now_s() - t0, stored / 1e6, mb * 1e6 / stored);

  std::printf("%-28s %10s %10s %10s\n", "reader", "median s", "MB/s", "vs python");
  std::vector<std::pair<std::string, double>> results;
  for (int threads : {1, 2}) {
    std::vector<double> times;
    uint64_t cs = 0;
    for (int r = 0; r < repeats; ++r) {
      auto t = read_all(store, threads, &cs);
      if (!t.ok()) {
        std::fprintf(stderr, "error: %s\n", t.status().to_string().c_str());
        return 1;
      }
      times.push_back(*t);
    }
    results.emplace_back("strata " + std::to_string(threads) + " thread(s)", median(times));
  }
  // python3-zarr, same store, same run: whole-array read in the same slabs, median of repeats.
  std::string py = "/usr/bin/python3 -c \"\nimport time, zarr, numpy as np\nz = zarr.open('" + store +
                   "', mode='r')\nts=[]\nfor r in range(" + std::to_string(repeats) +
                   "):\n  t=time.perf_counter()\n  for r0 in range(0, z.shape[0], 8000):\n    b = z[r0:r0+8000]\n"
                   "  ts.append(time.perf_counter()-t)\nts.sort(); print(ts[len(ts)//2])\n\"";
  FILE* p = popen(py.c_str(), "r");
  double py_s = -1;
  if (p) {
    if (std::fscanf(p, "%lf", &py_s) != 1) py_s = -1;
    pclose(p);
  }
  for (auto& [name, s] : results)
    std::printf("%-28s %10.3f %10.0f %10s\n", name.c_str(), s, mb / s,
                py_s > 0 ? (std::to_string(py_s / s).substr(0, 5) + "x").c_str() : "n/a");
  if (py_s > 0) std::printf("%-28s %10.3f %10.0f %10s\n", "python3-zarr 2.13 (numcodecs)", py_s, mb / py_s, "1.00x");
  std::printf("\n{\"bench\":\"zarr_read\",\"mb\":%.0f", mb);
  for (auto& [name, s] : results) std::printf(",\"%s MB/s\":%.0f", name.c_str(), mb / s);
  if (py_s > 0) std::printf(",\"python MB/s\":%.0f,\"ratio_2_threads\":%.2f", mb / py_s, py_s / results.back().second);
  std::printf(",\"peak_rss_mb\":%.0f}\n", peak_rss_bytes() / 1e6);
  if (!keep) std::filesystem::remove_all(store);
  return 0;
}
