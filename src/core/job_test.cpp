// Job: declare → agree → commit on one process; Summary's JSON; PhaseTimer's phases.
#include "strata/core/job.hpp"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/test_context.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

using testing::read_file;
using testing::TempDir;
using testing::write_file;
namespace fs = std::filesystem;

TEST(Summary, KeepsOrderReplacesAndNests) {
  Summary s;
  s.set("b", 2).set("a", "x").set("b", 3.5);
  Summary inner;
  inner.set("n", int64_t{7});
  s.set("inner", inner);
  s.set("list", std::vector<Summary>{inner, inner});
  s.set("values", std::vector<double>{1.0, NAN});
  s.set("sizes", std::vector<size_t>{4, 5});
  s.set("raw", Summary::Json{"{\"k\":[1,2]}"});
  EXPECT_EQ(s.to_json(),
            "{\"b\":3.5,\"a\":\"x\",\"inner\":{\"n\":7},\"list\":[{\"n\":7},{\"n\":7}],\"values\":[1.0,null],"
            "\"sizes\":[4,5],\"raw\":{\"k\":[1,2]}}");
  ASSERT_NE(s.find("a"), nullptr);
  EXPECT_EQ(std::get<std::string>(*s.find("a")), "x");
  EXPECT_FALSE(s.contains("missing"));
}

TEST(Summary, DoublesRoundTrip) {
  Summary s;
  const double v = 17.301722584458656;
  s.set("v", v);
  EXPECT_EQ(nlohmann::json::parse(s.to_json())["v"].get<double>(), v);
}

TEST(PhaseTimer, AddsItsPhaseOnce) {
  Context ctx = testing::make_test_context(1);
  {
    PhaseTimer t(ctx, "open");
    t.stop();
    t.stop();
  }
  { PhaseTimer t(ctx, "write"); }
  const RunReport r = ctx.report().snapshot();
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_EQ(r.phases[0].first, "open");
  EXPECT_EQ(r.phases[1].first, "write");
}

TEST(Job, DeclaresWritesAndCommits) {
  TempDir dir;
  const std::string input = (fs::path(dir.path()) / "in.txt").string();
  write_file(input, "data");
  const std::string prefix = (fs::path(dir.path()) / "out").string();
  Context ctx = testing::make_test_context(1);
  Job job(ctx, "demo", input, prefix);
  std::string staged;
  ASSERT_TRUE(job.declare(prefix + ".a", {}, [&](OutputSet& out) -> Status {
    STRATA_ASSIGN_OR_RETURN(staged, out.add_file(prefix + ".a"));
    return Status::OK();
  }).ok());
  EXPECT_TRUE(job.writer());
  EXPECT_FALSE(fs::exists(prefix + ".a"));  // staged, not yet in place
  write_file(staged, "result");
  ASSERT_TRUE(job.commit(Status::OK()).ok());
  EXPECT_EQ(read_file(prefix + ".a"), "result");
  ASSERT_EQ(job.files().size(), 1u);
  const auto j = nlohmann::json::parse(job.summary().to_json());
  EXPECT_EQ(j["command"], "demo");
  EXPECT_EQ(j["input"], input);
  EXPECT_EQ(j["output_prefix"], prefix);
  EXPECT_EQ(j["files"].size(), 1u);
  EXPECT_TRUE(j.contains("wall_seconds"));
}

TEST(Job, RefusesToOverwriteItsInput) {
  TempDir dir;
  const std::string prefix = (fs::path(dir.path()) / "data").string();
  write_file(prefix + ".a", "keep me");
  Context ctx = testing::make_test_context(1);
  Job job(ctx, "demo", prefix + ".a", prefix);
  const Status st = job.declare(prefix + ".a", {}, [&](OutputSet& out) { return out.add_file(prefix + ".a").status(); });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(prefix + ".a"), std::string::npos) << st.message();
  EXPECT_EQ(read_file(prefix + ".a"), "keep me");
}

TEST(Job, AFailedWriteLeavesNoOutput) {
  TempDir dir;
  const std::string prefix = (fs::path(dir.path()) / "out").string();
  Context ctx = testing::make_test_context(1);
  Job job(ctx, "demo", "", prefix);
  std::string staged;
  ASSERT_TRUE(job.declare(prefix + ".a", {}, [&](OutputSet& out) -> Status {
    STRATA_ASSIGN_OR_RETURN(staged, out.add_file(prefix + ".a"));
    return Status::OK();
  }).ok());
  write_file(staged, "half");
  const Status st = job.commit(Status::IOError(prefix, ".a: disk full"));
  EXPECT_EQ(st.code(), StatusCode::IOError);
  EXPECT_FALSE(fs::exists(prefix + ".a"));
  EXPECT_TRUE(job.files().empty());
}

}  // namespace
}  // namespace strata
