#pragma once
// Helpers shared by the Zarr tests: reference arrays in memory and random boxes.

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "strata/core/shape.hpp"
#include "strata/io/zarr.hpp"
#include "testing/testing.hpp"

namespace strata::io::testutil {

/// Write a file, creating its parent directories.
inline void put_file(const std::string& path, const std::string& contents) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << contents;
}

/// Fill a dense array with copies of one element.
inline void fill_with(std::vector<uint8_t>& data, std::span<const uint8_t> element) {
  for (size_t i = 0; i + element.size() <= data.size(); i += element.size())
    std::memcpy(data.data() + i, element.data(), element.size());
}

/// Random element bytes for `dtype` (bools are 0/1).
inline std::vector<uint8_t> random_elements(int64_t n, DType dtype, std::mt19937_64& rng) {
  std::vector<uint8_t> out(static_cast<size_t>(n * dtype.itemsize()));
  for (auto& b : out) b = static_cast<uint8_t>(rng());
  if (dtype.is_bool())
    for (auto& b : out) b &= 1;
  return out;
}

/// A random box inside `shape` (possibly empty when allow_empty).
inline void random_box(const Shape& shape, std::mt19937_64& rng, Shape& start, Shape& count, bool allow_empty = false) {
  start.assign(shape.size(), 0);
  count.assign(shape.size(), 0);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) continue;
    const int64_t lo = static_cast<int64_t>(rng() % static_cast<uint64_t>(shape[i]));
    const int64_t max = shape[i] - lo;
    start[i] = lo;
    count[i] = allow_empty ? static_cast<int64_t>(rng() % static_cast<uint64_t>(max + 1))
                           : 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(max));
  }
}

/// Copy a box out of a dense reference array.
inline std::vector<uint8_t> extract(const std::vector<uint8_t>& ref, const Shape& shape, const Shape& start,
                                    const Shape& count, int64_t itemsize) {
  int64_t n = 1;
  for (int64_t c : count) n *= c;
  std::vector<uint8_t> out(static_cast<size_t>(n * itemsize));
  if (n > 0) copy_box(ref.data(), shape, start, out.data(), count, Shape(count.size(), 0), count, itemsize);
  return out;
}

/// Write a box of `data` into a dense reference array.
inline void insert(std::vector<uint8_t>& ref, const Shape& shape, const Shape& start, const Shape& count,
                   const std::vector<uint8_t>& data, int64_t itemsize) {
  int64_t n = 1;
  for (int64_t c : count) n *= c;
  if (n > 0) copy_box(data.data(), count, Shape(count.size(), 0), ref.data(), shape, start, count, itemsize);
}

/// Options of a `format` array of `shape` in chunks of `chunks`: `dtype`, or the default one.
inline ZarrCreateOptions create_options(ZarrFormat format, Shape shape, Shape chunks,
                                        std::optional<DType> dtype = std::nullopt) {
  ZarrCreateOptions o;
  o.format = format;
  o.shape = std::move(shape);
  o.chunks = std::move(chunks);
  if (dtype) o.dtype = *dtype;
  return o;
}

/// The report's only corrupt chunk is `key`, refused for a reason that contains `why`.
inline void expect_one_corrupt(const ZarrArray::VerifyReport& rep, const std::string& key, const std::string& why) {
  ASSERT_EQ(rep.corrupt.size(), 1u);
  EXPECT_EQ(rep.corrupt[0].first, key);
  EXPECT_THAT(rep.corrupt[0].second, ::testing::HasSubstr(why));
}

/// "path[a]" / "path[g]" for each node of a walk, to compare listings compactly.
inline std::vector<std::string> node_paths(const std::vector<ZarrNodeInfo>& nodes) {
  std::vector<std::string> out;
  for (const auto& n : nodes) out.push_back(n.path + (n.kind == NodeKind::Array ? "[a]" : "[g]"));
  return out;
}

}  // namespace strata::io::testutil
