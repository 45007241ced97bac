// The pair pass in sample bands (planes that do not all fit the budget): the same tables, tile
// rows in order, and every KING and distance output the same bytes for any band, tile size,
// thread count and spool size (pending rows spilled to a file) as the one-band pass.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "core/test_context.hpp"
#include "genomics/test_cohort.hpp"
#include "strata/genomics/distance.hpp"
#include "strata/genomics/king.hpp"
#include "strata/genomics/pair_counts.hpp"
#include "strata/genomics/simulate.hpp"
#include "strata/io/store.hpp"
#include "strata/io/zarr.hpp"

namespace strata::genomics {
namespace {

namespace fs = std::filesystem;
using strata::testing::make_test_context;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Every file under `root` (a file or a Zarr store), by relative path.
std::map<std::string, std::string> files_of(const fs::path& root) {
  std::map<std::string, std::string> out;
  if (fs::is_regular_file(root)) {
    out[""] = slurp(root);
    return out;
  }
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) out[fs::relative(e.path(), root).string()] = slurp(e.path());
  return out;
}

// Names of the files that differ (or exist in one only); empty when equal.
std::string differing(const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b) {
  std::string out;
  for (const auto& [k, v] : a)
    if (!b.count(k) || b.at(k) != v) out += k + " ";
  for (const auto& [k, v] : b)
    if (!a.count(k)) out += k + " ";
  return out;
}

class PairBands : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata_bands_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    SimulateOptions so;
    so.num_samples = 77;  // not a multiple of the tile or of 8
    so.num_variants = 700;
    so.missing = 0.02;
    so.seed = 5;
    input_ = (dir_ / "sim").string();
    ASSERT_TRUE(simulate_to_files(make_test_context(2), so, input_, SimulateFormat::Bed).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }
  // A fresh prefix per call.
  std::string out(const std::string& name) { return (dir_ / (name + "_" + std::to_string(++runs_))).string(); }

  fs::path dir_;
  std::string input_;
  int runs_ = 0;
};

// (band, tile, threads, spool bytes, budget): one band (the reference) then several, with tiny
// spools so pending rows go through the spill file; the last takes its bands (and spool) from
// a 25 KB budget, as the CLI's --memory does.
struct Setting {
  int64_t band, tile;
  int threads;
  int64_t spool, budget;
};
const Setting kSettings[] = {{0, 0, 2, 0, 0},     {0, 8, 1, 0, 0},      {16, 8, 1, 0, 0}, {16, 8, 2, 1, 0},
                             {24, 8, 3, 300, 0},  {0, 16, 2, 0, 0},     {40, 16, 2, 2000, 0},
                             {0, 8, 2, 0, 25000}};

TEST(PairCountsBands, SameTablesAndRowsCompleteInOrder) {
  const int64_t n = 61, m = 333;
  const auto view = cohort(m, n, 9);
  auto run = [&](int64_t band, bool full_rows, std::vector<int64_t>* done_rows) {
    std::vector<int64_t> out(static_cast<size_t>(n * n * 9), -1);
    std::map<int64_t, int64_t> next_col;  // per tile row: the next column expected
    PairPassOptions o;
    o.tile = 8;
    o.band = band;
    o.full_rows = full_rows;
    const Status st = for_each_pair_tile(make_test_context(2), *view, o, [&](const PairTile& pt) -> Status {
      EXPECT_EQ(pt.col0, next_col[pt.tile_row]) << "tile row " << pt.tile_row << " out of column order";
      next_col[pt.tile_row] = pt.col0 + pt.cols;
      if (pt.last_in_row) done_rows->push_back(pt.tile_row);
      for (int64_t r = 0; r < pt.rows; ++r)
        for (int64_t c = 0; c < pt.cols; ++c) {
          const PairTable t = pt.table(r, c);
          for (int k = 0; k < 9; ++k)
            out[static_cast<size_t>(((pt.row0 + r) * n + pt.col0 + c) * 9 + k)] = t.c[k / 3][k % 3];
        }
      return Status::OK();
    });
    EXPECT_TRUE(st.ok()) << st.to_string();
    for (const auto& [row, col] : next_col) EXPECT_EQ(col, full_rows ? n : std::min(n, (row + 1) * 8)) << row;
    return out;
  };
  std::vector<int64_t> rows0, rows1, rows2, rows3;
  const auto base = run(0, false, &rows0);
  EXPECT_EQ(run(16, false, &rows1), base);
  const auto full = run(24, true, &rows2);
  EXPECT_EQ(run(0, true, &rows3), full);
  std::vector<int64_t> in_order;
  for (int64_t r = 0; r < 8; ++r) in_order.push_back(r);
  for (const auto* rows : {&rows0, &rows1, &rows2, &rows3}) EXPECT_EQ(*rows, in_order);
  // The lower triangle of the full pass is the lower pass's; above it, the transposed table.
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int k = 0; k < 9; ++k) {
        const int64_t got = full[static_cast<size_t>((i * n + j) * 9 + k)];
        if (j <= i) ASSERT_EQ(got, base[static_cast<size_t>((i * n + j) * 9 + k)]);
        else ASSERT_EQ(got, base[static_cast<size_t>((j * n + i) * 9 + (k % 3) * 3 + k / 3)]);
      }
}

TEST(PairCountsBands, BandsFromTheBudgetWhenThePlanesDoNotFit) {
  const auto view = cohort(100000, 64, 1);  // 37.5 KB of planes per sample
  PairPassOptions o;
  o.tile = 8;
  auto plan = plan_pair_pass(make_test_context(1, int64_t{64} << 20), *view, o);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->bands, 1);
  plan = plan_pair_pass(make_test_context(1, int64_t{1} << 20), *view, o);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_GT(plan->bands, 1);
  EXPECT_EQ(plan->band % 8, 0);
  EXPECT_LE(2 * plan->band * plan->plane_bytes_per_sample, int64_t{1} << 20);
}

TEST_F(PairBands, KingOutputsSameBytesForAnyBand) {
  struct Mode {
    const char* name;
    bool table;
    std::optional<double> filter, cutoff;
    std::vector<std::string> files;
  };
  const Mode modes[] = {{"tri", false, {}, {}, {".king", ".king.id"}},
                        {"tab", true, {}, {}, {".kin0"}},
                        {"flt", true, 0.01, {}, {".kin0"}},
                        {"cut", false, {}, 0.005, {".king.cutoff.in.id", ".king.cutoff.out.id"}}};
  for (const Mode& mode : modes) {
    std::map<std::string, std::string> ref;
    for (const Setting& s : kSettings) {
      KingOptions o;
      o.table = mode.table;
      o.filter = mode.filter;
      o.cutoff = mode.cutoff;
      o.pass.band = s.band;
      o.pass.tile = s.tile;
      o.spool_bytes = s.spool;
      const std::string prefix = out(std::string(mode.name) + std::to_string(s.band) + "_" + std::to_string(s.tile));
      auto r = run_king_to_files(make_test_context(s.threads, s.budget), input_, prefix, o);
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      EXPECT_EQ(r->sample_bands > 1, s.band > 0 || s.budget > 0) << mode.name;
      if (s.spool > 0 && mode.name != std::string("cut") && mode.name != std::string("flt"))
        EXPECT_GT(r->spilled_bytes, 0) << mode.name;
      for (const std::string& ext : mode.files) {
        const std::string bytes = slurp(prefix + ext);
        if (s.band == 0) {
          ref[ext] = bytes;
          EXPECT_GT(bytes.size(), 20u) << mode.name << ext;
        } else {
          EXPECT_EQ(bytes, ref[ext]) << mode.name << ext << " band " << s.band;
        }
      }
    }
  }
}

TEST_F(PairBands, DistanceOutputsSameBytesForAnyBand) {
  for (const char* metric : {"euclidean", "ibs", "correlation"})
    for (DistanceFormat format : {DistanceFormat::Triangle, DistanceFormat::Square, DistanceFormat::Zarr}) {
      std::map<int64_t, std::map<std::string, std::string>> refs;  // Zarr chunks are tiles: per tile
      for (const Setting& s : kSettings) {
        for (bool stream : {false, true}) {
          if (format != DistanceFormat::Square && stream) continue;
          DistanceOptions o;
          o.metric = *parse_distance_metric(metric);
          o.format = format;
          o.pass.band = s.band;
          o.pass.tile = s.tile;
          o.spool_bytes = s.spool;
          o.stream_square = stream;
          const std::string prefix = out(std::string(metric) + std::to_string(static_cast<int>(format)) + "_" +
                                         std::to_string(s.band) + "_" + std::to_string(s.tile) + (stream ? "s" : ""));
          auto r = run_distance_to_files(make_test_context(s.threads, s.budget), input_, prefix, o);
          ASSERT_TRUE(r.ok()) << r.status().to_string();
          const bool zarr = format == DistanceFormat::Zarr;
          EXPECT_EQ(r->layout, format == DistanceFormat::Square && !stream && s.budget == 0 ? "held" : "streamed");
          EXPECT_EQ(r->sample_bands > 1, s.band > 0 || s.budget > 0);
          const auto got = files_of(prefix + (zarr ? ".dist.zarr" : ".dist"));
          auto& ref = refs[zarr ? s.tile : 0];
          if (ref.empty()) {
            ref = got;
            ASSERT_FALSE(ref.empty());
          } else {
            EXPECT_EQ(differing(got, ref), "") << metric << " format " << static_cast<int>(format) << " band "
                                               << s.band << (stream ? " streamed" : "");
          }
        }
      }
    }
}

// Square output streams (full rows) when the N × N matrix does not fit half the budget.
TEST_F(PairBands, SquareStreamsBeyondTheBudget) {
  DistanceOptions o;
  o.pass.band = 16;
  o.pass.tile = 8;
  const std::string held_prefix = out("held"), small_prefix = out("small");
  auto held = run_distance_to_files(make_test_context(2), input_, held_prefix, o);
  ASSERT_TRUE(held.ok());
  EXPECT_EQ(held->layout, "held");
  auto small = run_distance_to_files(make_test_context(2, 40000), input_, small_prefix, o);  // 77² × 8 = 47 KB
  ASSERT_TRUE(small.ok()) << small.status().to_string();
  EXPECT_EQ(small->layout, "streamed");
  EXPECT_EQ(slurp(small_prefix + ".dist"), slurp(held_prefix + ".dist"));
}

// The streamed Zarr matrix holds what distance_matrix() computes, mirrored.
TEST_F(PairBands, ZarrChunksHoldTheMatrix) {
  DistanceOptions o;
  o.format = DistanceFormat::Zarr;
  o.pass.band = 16;
  o.pass.tile = 8;
  const std::string prefix = out("z");
  ASSERT_TRUE(run_distance_to_files(make_test_context(2), input_, prefix, o).ok());
  auto view = io::open_genotypes(input_);
  ASSERT_TRUE(view.ok());
  auto d = distance_matrix(make_test_context(2), **view, o.metric);
  ASSERT_TRUE(d.ok());
  auto store = io::LocalStore::open(prefix + ".dist.zarr");
  ASSERT_TRUE(store.ok());
  auto arr = io::ZarrArray::open(*store, "distance");
  ASSERT_TRUE(arr.ok()) << arr.status().to_string();
  std::vector<double> got(77 * 77);
  ASSERT_TRUE(arr->read_region({0, 0}, {77, 77}, got.data()).ok());
  EXPECT_EQ(got, *d);
}

}  // namespace
}  // namespace strata::genomics
