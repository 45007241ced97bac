#include <cstring>
#include <functional>
#include <numeric>
#include <random>

#include "core/large_alloc.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/context.hpp"
#include "strata/core/dtype.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/thread_pool.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

Result<int> half(int x) {
  if (x % 2) return Status::Invalid("odd value ", x);
  return x / 2;
}

Result<int> quarter(int x) {
  STRATA_ASSIGN_OR_RETURN(int h, half(x));
  STRATA_ASSIGN_OR_RETURN(int q, half(h));
  return q;
}

TEST(Status, CarriesCodeAndMessage) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  Status st = Status::Corrupt("chunk ", 3, " truncated");
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::Corrupt);
  EXPECT_EQ(st.message(), "chunk 3 truncated");
  EXPECT_EQ(st.to_string(), "Corrupt: chunk 3 truncated");
  EXPECT_EQ(st.with_context("a.zarr/x").message(), "a.zarr/x: chunk 3 truncated");
}

TEST(Result, PropagatesThroughMacros) {
  auto r = quarter(12);
  STRATA_ASSERT_OK(r);
  EXPECT_EQ(*r, 3);
  STRATA_EXPECT_STATUS(quarter(6), StatusCode::Invalid, "odd value 3");
  Result<int> from_ok = Status::OK();
  STRATA_EXPECT_STATUS(from_ok, StatusCode::Internal, "^Result constructed from an OK Status$");
}

TEST(Context, UserLimitsHaveOneCheck) {
  // The CLI's --threads/--memory and Python's threads=/memory= call these (one message).
  STRATA_EXPECT_OK(check_thread_count(0));
  STRATA_EXPECT_OK(check_thread_count(kMaxThreads));
  STRATA_EXPECT_STATUS(check_thread_count(9999), StatusCode::Invalid, "^threads must be 0 \\(all cores\\) or 1–1024, got 9999$");
  ContextOptions o;
  o.threads = 9999;
  STRATA_EXPECT_STATUS(Context::make(o), StatusCode::Invalid, "got 9999");
  STRATA_EXPECT_STATUS(parse_memory_budget("0"), StatusCode::Invalid, "at least 1M, got '0'$");
  STRATA_EXPECT_STATUS(parse_memory_budget("1K"), StatusCode::Invalid, "at least 1M, got '1K'$");
  // plink2's --memory: a bare number below 1 MiB counts MiB; larger ones stay bytes.
  EXPECT_EQ(*parse_memory_budget("1"), int64_t{1} << 20);
  EXPECT_EQ(*parse_memory_budget("4000"), int64_t{4000} << 20);
  EXPECT_EQ(*parse_memory_budget("1048575"), int64_t{1048575} << 20);
  EXPECT_EQ(*parse_memory_budget("1048576"), int64_t{1048576});
  EXPECT_EQ(*parse_memory_budget("1500000000"), int64_t{1500000000});
  STRATA_EXPECT_STATUS(parse_memory_budget("2X"), StatusCode::Invalid, "got '2X'$");
  EXPECT_EQ(*parse_memory_budget("2G"), int64_t{2} << 30);
  STRATA_EXPECT_STATUS(check_memory_budget(1000), StatusCode::Invalid, "at least 1M");
  STRATA_EXPECT_OK(check_memory_budget(int64_t{1} << 20));
}

TEST(DType, NumpyStrings) {
  for (const char* s : {"|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8",
                        ">i2", ">u4", ">f8"}) {
    STRATA_ASSERT_OK_AND_ASSIGN(DType d, DType::from_numpy(s));
    EXPECT_EQ(d.numpy_str(), s);
  }
  STRATA_ASSERT_OK_AND_ASSIGN(DType be, DType::from_numpy(">f8"));
  EXPECT_TRUE(be.needs_swap());
  EXPECT_EQ(be.itemsize(), 8);
  STRATA_EXPECT_STATUS(DType::from_numpy("|O"), StatusCode::Unsupported, "O");  // an object array: data, exit 1
  STRATA_EXPECT_STATUS(DType::from_numpy("<U8"), StatusCode::Unsupported, "U8");
  STRATA_EXPECT_STATUS(DType::from_numpy("<c16"), StatusCode::Unsupported, "c16");
  STRATA_ASSERT_OK_AND_ASSIGN(DType v3, DType::from_v3("uint16"));
  EXPECT_EQ(v3, DType(ScalarType::UInt16));
  STRATA_EXPECT_STATUS(DType::from_v3("complex64"), StatusCode::Unsupported, "complex64");
  STRATA_ASSERT_OK_AND_ASSIGN(DType alias, DType::parse("f4"));
  EXPECT_EQ(alias, DType(ScalarType::Float32));
}

TEST(DType, Byteswap) {
  uint32_t v[2] = {0x01020304u, 0xA0B0C0D0u};
  byteswap_inplace(v, 2, 4);
  EXPECT_EQ(v[0], 0x04030201u);
  EXPECT_EQ(v[1], 0xD0C0B0A0u);
}

TEST(Shape, CheckedArithmetic) {
  EXPECT_EQ(*checked_mul(1 << 20, 1 << 20), int64_t{1} << 40);
  STRATA_EXPECT_STATUS(checked_mul(int64_t{1} << 40, int64_t{1} << 40), StatusCode::Invalid,
                       "^size overflow: 1099511627776 \\* 1099511627776 does not fit in 64 bits$");
  STRATA_EXPECT_STATUS(checked_mul(-1, 2), StatusCode::Invalid, "^negative size in product -1 \\* 2$");
  STRATA_EXPECT_STATUS(shape_numel({int64_t{1} << 32, int64_t{1} << 32}), StatusCode::Invalid,
                       "^size overflow: 4294967296 \\* 4294967296 does not fit in 64 bits$");
  EXPECT_EQ(*shape_numel({}), 1);
  EXPECT_EQ(*parse_shape("1000,20"), (Shape{1000, 20}));
  for (const char* bad : {"10,,2", "10,-2", "abc", "10,"}) {
    STRATA_EXPECT_STATUS(parse_shape(bad), StatusCode::Invalid,
                         "^bad shape '" + std::string(bad) + "': expected positive integers separated by commas$");
  }
  STRATA_EXPECT_STATUS(parse_shape(""), StatusCode::Invalid, "^empty shape$");
}

TEST(ChunkGrid, EdgeChunksAndRegions) {
  STRATA_ASSERT_OK_AND_ASSIGN(ChunkGrid g, ChunkGrid::make({10, 7}, {4, 3}));
  EXPECT_EQ(g.grid_shape(), (Shape{3, 3}));
  EXPECT_EQ(g.num_chunks(), 9);
  EXPECT_EQ(g.chunk_extent({2, 2}), (Shape{2, 1}));
  EXPECT_EQ(g.chunk_origin({2, 1}), (Shape{8, 3}));
  for (int64_t i = 0; i < g.num_chunks(); ++i) EXPECT_EQ(g.ravel(g.unravel(i)), i);
  auto chunks = g.chunks_in({3, 2}, {2, 2});  // rows 3..4, cols 2..3
  EXPECT_EQ(chunks, (std::vector<Shape>{{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
  EXPECT_TRUE(g.chunks_in({0, 0}, {0, 5}).empty());
  STRATA_EXPECT_STATUS(ChunkGrid::make({10}, {0}), StatusCode::Invalid, "^chunk extents must be >= 1, got \\[0\\]$");
  STRATA_EXPECT_STATUS(ChunkGrid::make({10, 2}, {3}), StatusCode::Invalid,
                       "^chunk shape \\[3\\] has a different rank than shape \\[10, 2\\]");
  STRATA_ASSERT_OK_AND_ASSIGN(ChunkGrid empty, ChunkGrid::make({0, 5}, {4, 4}));
  EXPECT_EQ(empty.num_chunks(), 0);
}

TEST(CopyBox, MatchesElementLoop) {
  Shape src_shape{5, 6, 7}, dst_shape{4, 4, 4};
  std::vector<int32_t> src(5 * 6 * 7);
  std::iota(src.begin(), src.end(), 0);
  std::vector<int32_t> dst(64, -1);
  copy_box(src.data(), src_shape, {1, 2, 3}, dst.data(), dst_shape, {0, 1, 1}, {3, 2, 3}, 4);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 4; ++c) {
        bool inside = a < 3 && b >= 1 && b < 3 && c >= 1 && c < 4;
        int32_t expect = inside ? src[((1 + a) * 6 + (2 + b - 1)) * 7 + (3 + c - 1)] : -1;
        EXPECT_EQ(dst[(a * 4 + b) * 4 + c], expect) << a << "," << b << "," << c;
      }
}

// Reference: copy element by element through an odometer over `count`.
void copy_box_elementwise(const std::vector<int16_t>& src, const Shape& src_shape, const Shape& src_start,
                          std::vector<int16_t>& dst, const Shape& dst_shape, const Shape& dst_start,
                          const Shape& count) {
  const size_t nd = count.size();
  for (int64_t c : count)
    if (c <= 0) return;
  const Shape ss = c_strides(src_shape), ds = c_strides(dst_shape);
  Shape idx(nd, 0);
  while (true) {
    int64_t so = 0, doff = 0;
    for (size_t i = 0; i < nd; ++i) {
      so += (src_start[i] + idx[i]) * ss[i];
      doff += (dst_start[i] + idx[i]) * ds[i];
    }
    dst[doff] = src[so];
    int64_t k = static_cast<int64_t>(nd) - 1;
    for (; k >= 0; --k) {
      if (++idx[k] < count[k]) break;
      idx[k] = 0;
    }
    if (k < 0) break;
  }
}

TEST(CopyBox, RandomBoxesMatchElementLoop) {
  std::mt19937_64 rng(12345);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int merged_cases = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int64_t nd = pick(0, 4);
    Shape src_shape(nd), dst_shape(nd), src_start(nd), dst_start(nd), count(nd);
    // Bias towards boxes covering whole trailing axes so the merged paths are exercised.
    const int64_t full_from = pick(0, nd);
    for (int64_t i = 0; i < nd; ++i) {
      if (i >= full_from) {
        src_shape[i] = dst_shape[i] = count[i] = pick(1, 5);
        src_start[i] = dst_start[i] = 0;
      } else {
        count[i] = pick(1, 4);
        src_shape[i] = count[i] + pick(0, 3);
        dst_shape[i] = count[i] + pick(0, 3);
        src_start[i] = pick(0, src_shape[i] - count[i]);
        dst_start[i] = pick(0, dst_shape[i] - count[i]);
      }
    }
    if (full_from < nd - 1) ++merged_cases;
    const int64_t sn = std::accumulate(src_shape.begin(), src_shape.end(), int64_t{1}, std::multiplies<>());
    const int64_t dn = std::accumulate(dst_shape.begin(), dst_shape.end(), int64_t{1}, std::multiplies<>());
    std::vector<int16_t> src(sn), want(dn, -1), got(dn, -1);
    std::iota(src.begin(), src.end(), int16_t{0});
    copy_box_elementwise(src, src_shape, src_start, want, dst_shape, dst_start, count);
    copy_box(src.data(), src_shape, src_start, got.data(), dst_shape, dst_start, count, 2);
    ASSERT_EQ(got, want) << "trial " << trial << " count " << shape_to_string(count) << " src "
                         << shape_to_string(src_shape) << " dst " << shape_to_string(dst_shape);
  }
  EXPECT_GT(merged_cases, 500);
}

TEST(CopyBox, FullArrayAndDegenerateShapes) {
  // Full 3-d array: one run.
  std::vector<int32_t> src(2 * 3 * 4), dst(2 * 3 * 4, -1);
  std::iota(src.begin(), src.end(), 0);
  copy_box(src.data(), {2, 3, 4}, {0, 0, 0}, dst.data(), {2, 3, 4}, {0, 0, 0}, {2, 3, 4}, 4);
  EXPECT_EQ(dst, src);
  // 0-d: a single element.
  int64_t a = 42, b = 0;
  copy_box(&a, {}, {}, &b, {}, {}, {}, 8);
  EXPECT_EQ(b, 42);
  // 1-d slice into the middle of a longer array.
  std::vector<int32_t> one(5, -1);
  copy_box(src.data(), {24}, {10}, one.data(), {5}, {1}, {3}, 4);
  EXPECT_EQ(one, (std::vector<int32_t>{-1, 10, 11, 12, -1}));
  // Empty box copies nothing.
  std::fill(dst.begin(), dst.end(), -1);
  copy_box(src.data(), {2, 3, 4}, {0, 0, 0}, dst.data(), {2, 3, 4}, {0, 0, 0}, {2, 0, 4}, 4);
  EXPECT_EQ(dst, std::vector<int32_t>(24, -1));
  // Whole rows of a 2-d array with a different row count: rows 1..2 of src into rows 0..1.
  std::vector<int32_t> rows(2 * 4, -1);
  copy_box(src.data(), {6, 4}, {1, 0}, rows.data(), {2, 4}, {0, 0}, {2, 4}, 4);
  EXPECT_EQ(rows, (std::vector<int32_t>{4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST(Buffer, AlignedAndTracked) {
  int64_t before = memory_stats().current_bytes;
  {
    STRATA_ASSERT_OK_AND_ASSIGN(Buffer b, Buffer::zeros(1000));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % Buffer::kAlignment, 0u);
    EXPECT_EQ(b.size(), 1000);
    EXPECT_EQ(b.data()[999], 0);
    EXPECT_EQ(memory_stats().current_bytes, before + 1000);
    Buffer moved = std::move(b);
    EXPECT_EQ(moved.size(), 1000);
    EXPECT_EQ(b.size(), 0);  // NOLINT(bugprone-use-after-move)
  }
  EXPECT_EQ(memory_stats().current_bytes, before);
  EXPECT_GE(memory_stats().peak_bytes, before + 1000);
  EXPECT_EQ(*parse_memory_size("2G"), int64_t{2} << 30);
  EXPECT_EQ(*parse_memory_size("512MiB"), int64_t{512} << 20);
  EXPECT_EQ(*parse_memory_size("1000"), 1000);
  for (const char* bad : {"lots", "1.2.3G", ".G"}) {
    STRATA_EXPECT_STATUS(parse_memory_size(bad), StatusCode::Invalid,
                         "^bad memory size '" + std::string(bad) + "': expected e.g. 2G, 512M, 1000000$");
  }
  STRATA_EXPECT_STATUS(parse_memory_size("3X"), StatusCode::Invalid, "^bad memory size '3X': unknown unit 'X'$");
  STRATA_EXPECT_STATUS(parse_memory_size(" "), StatusCode::Invalid, "^empty memory size$");
  STRATA_EXPECT_STATUS(parse_memory_size("0.1"), StatusCode::Invalid, "^memory size '0.1' out of range$");
}

// Large blocks sit on 2 MiB boundaries (huge pages); zeros() still zeroes them; the vector
// allocator on the same blocks leaves elements unset and frees with std::free.
TEST(Buffer, LargeBlocksOnHugePageBoundaries) {
  const int64_t before = memory_stats().current_bytes;
  for (const int64_t size : {int64_t{7} << 18, int64_t{8000000}, int64_t{(8 << 20) + 1}}) {
    STRATA_ASSERT_OK_AND_ASSIGN(Buffer b, Buffer::zeros(size));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % (uintptr_t{2} << 20), 0u) << size;
    EXPECT_EQ(b.data()[0], 0);
    EXPECT_EQ(b.data()[size - 1], 0);
    EXPECT_EQ(memory_stats().current_bytes, before + size);
  }
  STRATA_ASSERT_OK_AND_ASSIGN(Buffer small, Buffer::allocate((7 << 18) - 64));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small.data()) % Buffer::kAlignment, 0u);
  std::vector<float, detail::LargeBlockAllocator<float>> v;
  v.resize(1 << 20);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % (uintptr_t{2} << 20), 0u);
  v.assign(16, 1.5f);
  EXPECT_EQ(v[15], 1.5f);
}

TEST(ThreadPool, ParallelForRunsEveryIndexAndReportsLowestError) {
  ThreadPool pool(3);
  std::vector<int> hits(1000, 0);
  STRATA_ASSERT_OK(pool.parallel_for(1000, [&](int64_t i) {
    hits[i]++;
    return Status::OK();
  }));
  for (int h : hits) EXPECT_EQ(h, 1);
  for (int rep = 0; rep < 20; ++rep) {
    Status st = pool.parallel_for(200, [&](int64_t i) {
      if (i == 50 || i == 120) return Status::Invalid("fail ", i);
      return Status::OK();
    });
    EXPECT_EQ(st.message(), "fail 50");
  }
  Status ex = pool.parallel_for(4, [&](int64_t i) -> Status {
    if (i == 2) throw std::runtime_error("boom");
    return Status::OK();
  });
  STRATA_EXPECT_STATUS(ex, StatusCode::Internal, "^exception in task 2: boom$");
  // Nested calls run inline instead of deadlocking.
  std::atomic<int> total{0};
  STRATA_ASSERT_OK(pool.parallel_for(8, [&](int64_t) {
    return pool.parallel_for(8, [&](int64_t) {
      total++;
      return Status::OK();
    });
  }));
  EXPECT_EQ(total.load(), 64);
}

}  // namespace
}  // namespace strata
