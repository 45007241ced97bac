#pragma once
// Test-only helpers for the codec tests: data generators, a round-trip / corruption harness, and
// a batched numcodecs interop runner (one python process per call).

#include <nlohmann/json.hpp>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "io/codecs/codec_json_internal.hpp"
#include "strata/io/codec.hpp"
#include "testing/testing.hpp"

namespace strata::io::test {

using ByteVec = std::vector<uint8_t>;

inline ByteVec random_bytes(size_t n, uint64_t seed = 42) {
  std::mt19937_64 rng(seed);
  ByteVec v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

/// Little-endian integers of `itemsize` bytes that change slowly, with a little noise: the
/// kind of data shuffling helps with.
inline ByteVec compressible_bytes(size_t n, int itemsize = 1, uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  ByteVec v(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t item = i / itemsize;
    const size_t byte = i % itemsize;
    uint64_t value = (item / 64) * 3 + (rng() % 4 == 0 ? rng() % 3 : 0);
    v[i] = static_cast<uint8_t>(value >> (8 * byte));
  }
  return v;
}

inline std::span<const uint8_t> span_of(const ByteVec& v) { return {v.data(), v.size()}; }
inline std::span<const uint8_t> span_of(const Bytes& v) { return {v.data(), v.size()}; }
inline ByteVec to_vec(const Bytes& b) { return ByteVec(b.begin(), b.end()); }
inline ByteVec to_vec(const std::string& s) { return ByteVec(s.begin(), s.end()); }
inline std::string to_string(std::span<const uint8_t> s) { return std::string(s.begin(), s.end()); }

/// A copy of some bytes placed to end exactly where an unreadable page begins, so a decoder
/// that reads past the input crashes even inside uninstrumented libraries.
class GuardedCopy {
 public:
  explicit GuardedCopy(std::span<const uint8_t> data) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t data_pages = (data.size() + page - 1) / page;
    total_ = (data_pages + 1) * page;
    void* p = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      ADD_FAILURE() << "mmap failed";
      total_ = 0;
      return;
    }
    base_ = static_cast<uint8_t*>(p);
    mprotect(base_ + data_pages * page, page, PROT_NONE);
    uint8_t* start = base_ + data_pages * page - data.size();
    if (!data.empty()) std::memcpy(start, data.data(), data.size());
    span_ = {start, data.size()};
  }
  ~GuardedCopy() {
    if (base_) munmap(base_, total_);
  }
  GuardedCopy(const GuardedCopy&) = delete;
  GuardedCopy& operator=(const GuardedCopy&) = delete;
  std::span<const uint8_t> span() const { return span_; }

 private:
  uint8_t* base_ = nullptr;
  size_t total_ = 0;
  std::span<const uint8_t> span_;
};

/// A codec's v2 configuration as a JSON document (null if its text does not parse).
inline nlohmann::json v2_of(const BytesCodec& codec) {
  auto r = detail::codec_json_v2(codec);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? std::move(r).value() : nlohmann::json();
}
/// A codec's v3 entry as a JSON document, or its error.
inline Result<nlohmann::json> v3_of(const BytesCodec& codec) { return detail::codec_json_v3(codec); }

inline std::unique_ptr<BytesCodec> must_v2(const nlohmann::json& config, int64_t itemsize = 1) {
  auto r = make_codec_v2(config, itemsize);
  EXPECT_TRUE(r.ok()) << config.dump() << ": " << r.status().to_string();
  return r.ok() ? std::move(r).value() : nullptr;
}

/// encode → decode and decode_into give back `data`; wrong decode_into sizes are Corrupt.
inline void expect_round_trip(const BytesCodec& codec, const ByteVec& data) {
  SCOPED_TRACE(codec.describe() + " on " + std::to_string(data.size()) + " bytes");
  auto enc = codec.encode(span_of(data));
  ASSERT_TRUE(enc.ok()) << enc.status().to_string();
  auto dec = codec.decode(span_of(*enc));
  ASSERT_TRUE(dec.ok()) << dec.status().to_string();
  EXPECT_TRUE(to_vec(*dec) == data) << "decode() differs";
  ByteVec out(data.size(), 0xAB);
  STRATA_EXPECT_OK(codec.decode_into(span_of(*enc), {out.data(), out.size()}));
  EXPECT_TRUE(out == data) << "decode_into() differs";
  ByteVec bigger(data.size() + 1);
  STRATA_EXPECT_STATUS(codec.decode_into(span_of(*enc), {bigger.data(), bigger.size()}),
                       StatusCode::Corrupt, codec.name());
  if (!data.empty()) {
    ByteVec smaller(data.size() - 1);
    STRATA_EXPECT_STATUS(codec.decode_into(span_of(*enc), {smaller.data(), smaller.size()}),
                         StatusCode::Corrupt, codec.name());
  }
}

/// Every proper prefix cut at several offsets fails as Corrupt through both decode paths,
/// without reading past the cut.
inline void expect_truncations_fail(const BytesCodec& codec, const ByteVec& data) {
  auto enc = codec.encode(span_of(data));
  ASSERT_TRUE(enc.ok()) << enc.status().to_string();
  const size_t len = enc->size();
  std::set<size_t> cuts = {0, 1, 2, 3, 4, 5, 8, 15, 16, 17, 20, len / 3, len / 2, len - 2, len - 1};
  for (size_t cut : cuts) {
    if (cut >= len) continue;
    SCOPED_TRACE(codec.describe() + " cut at " + std::to_string(cut) + " of " + std::to_string(len));
    GuardedCopy prefix(span_of(*enc).first(cut));
    STRATA_EXPECT_STATUS(codec.decode(prefix.span()), StatusCode::Corrupt, codec.name());
    ByteVec out(data.size());
    STRATA_EXPECT_STATUS(codec.decode_into(prefix.span(), {out.data(), out.size()}),
                         StatusCode::Corrupt, codec.name());
  }
}

/// Flipping bytes anywhere must never crash or read past the input; when decode() still
/// succeeds, decode_into() of that size must agree with it.
inline void expect_flips_are_safe(const BytesCodec& codec, const ByteVec& data) {
  auto enc = codec.encode(span_of(data));
  ASSERT_TRUE(enc.ok());
  for (size_t pos = 0; pos < enc->size(); pos += 1 + enc->size() / 40) {
    for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
      ByteVec flipped = to_vec(*enc);
      flipped[pos] ^= mask;
      GuardedCopy bad(span_of(flipped));
      auto dec = codec.decode(bad.span());
      ByteVec out(data.size());
      (void)codec.decode_into(bad.span(), {out.data(), out.size()});
      if (!dec.ok()) continue;
      ByteVec exact(dec->size());
      STRATA_EXPECT_OK(codec.decode_into(bad.span(), {exact.data(), exact.size()}));
      EXPECT_TRUE(exact == to_vec(*dec)) << "flip at " << pos;
    }
  }
}

/// One numcodecs interop case: `config` is a numcodecs v2 config, data is viewed as uint of
/// `itemsize` bytes (which sets blosc's typesize on both sides).
struct InteropCase {
  std::string name;
  nlohmann::json config;
  int itemsize = 1;
  ByteVec data;
};

/// For each case: numcodecs decodes strata's encoding, and strata decodes numcodecs' encoding;
/// both must give the original bytes. A single python process handles all cases.
/// `expected_python_errors` lists "<case> encode" / "<case> decode" steps numcodecs itself
/// is known to refuse.
inline void run_numcodecs_interop(const std::vector<InteropCase>& cases,
                                  const std::set<std::string>& expected_python_errors = {}) {
  if (strata::testing::python_with_zarr().empty()) GTEST_SKIP() << "python3 with numcodecs not available";
  strata::testing::TempDir dir;
  nlohmann::json listing = nlohmann::json::array();
  for (size_t i = 0; i < cases.size(); ++i) {
    const InteropCase& c = cases[i];
    auto codec = must_v2(c.config, c.itemsize);
    ASSERT_NE(codec, nullptr) << c.name;
    auto enc = codec->encode(span_of(c.data));
    ASSERT_TRUE(enc.ok()) << c.name << ": " << enc.status().to_string();
    std::string stem = dir.str("case" + std::to_string(i));
    strata::testing::write_file(stem + ".raw", to_string(span_of(c.data)));
    strata::testing::write_file(stem + ".st", to_string(span_of(*enc)));
    listing.push_back({{"name", c.name}, {"config", c.config}, {"itemsize", c.itemsize},
                       {"stem", stem}});
  }
  strata::testing::write_file(dir.str("cases.json"), listing.dump());
  const std::string script = R"PY(
import json, sys
import numpy as np, numcodecs
from numcodecs.compat import ensure_bytes
d = r')PY" + dir.str() + R"PY('
errors = {}
for c in json.load(open(d + '/cases.json')):
    s = c['stem']
    try:
        codec = numcodecs.get_codec(dict(c['config']))
        raw = open(s + '.raw', 'rb').read()
        arr = np.frombuffer(raw, dtype='<u%d' % c['itemsize'])
        open(s + '.nc', 'wb').write(ensure_bytes(codec.encode(arr)))
    except Exception as e:
        errors[c['name'] + ' encode'] = repr(e)
    try:
        codec = numcodecs.get_codec(dict(c['config']))
        open(s + '.ncdec', 'wb').write(ensure_bytes(codec.decode(open(s + '.st', 'rb').read())))
    except Exception as e:
        errors[c['name'] + ' decode'] = repr(e)
json.dump(errors, open(d + '/errors.json', 'w'))
print('done')
)PY";
  auto run = strata::testing::run_python(script);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto errors = nlohmann::json::parse(strata::testing::read_file(dir.str("errors.json")));
  for (auto& [name, what] : errors.items()) {
    EXPECT_TRUE(expected_python_errors.count(name)) << "numcodecs failed on " << name << ": " << what;
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    const InteropCase& c = cases[i];
    SCOPED_TRACE(c.name + " " + c.config.dump());
    std::string stem = dir.str("case" + std::to_string(i));
    if (!errors.contains(c.name + " decode")) {
      EXPECT_TRUE(to_vec(strata::testing::read_file(stem + ".ncdec")) == c.data)
          << "numcodecs decoded strata's bytes differently";
    }
    if (errors.contains(c.name + " encode")) continue;
    ByteVec theirs = to_vec(strata::testing::read_file(stem + ".nc"));
    auto codec = must_v2(c.config, c.itemsize);
    auto dec = codec->decode(span_of(theirs));
    ASSERT_TRUE(dec.ok()) << dec.status().to_string();
    EXPECT_TRUE(to_vec(*dec) == c.data) << "strata decoded numcodecs' bytes differently";
    ByteVec out(c.data.size());
    STRATA_EXPECT_OK(codec->decode_into(span_of(theirs), {out.data(), out.size()}));
    EXPECT_TRUE(out == c.data);
  }
  for (const auto& name : expected_python_errors) {
    EXPECT_TRUE(errors.contains(name)) << name << " was expected to fail in numcodecs but did not";
  }
}

/// Sizes every codec is exercised on (bytes, multiplied by the item size where relevant).
inline std::vector<size_t> standard_sizes() { return {0, 1, 7, 100, 4096, size_t{1} << 20}; }

}  // namespace strata::io::test
