// `strata zarr verify|info` on hostile stores through the built binary: exit codes (1 for data
// errors, never 2, never a signal), "unverified: PATH (reason)" for arrays it could not check,
// arrays that consolidated metadata leaves out, over-deep metadata, FIFO chunks, huge grids.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::run_command;
using strata::testing::TempDir;

std::string cli() { return strata::testing::strata_cli_path(); }

void put(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

constexpr const char* kZarray =
    R"({"zarr_format":2,"shape":[4,4],"chunks":[2,2],"dtype":"|u1","compressor":null,"fill_value":0,"order":"C","filters":null})";

class ZarrHostileCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    root_ = dir_.str("s.zarr");
    put(root_ + "/.zgroup", R"({"zarr_format":2})");
    put(root_ + "/a/.zarray", kZarray);
    for (const char* k : {"0.0", "0.1", "1.0", "1.1"}) put(root_ + "/a/" + k, "abcd");
  }
  TempDir dir_;
  std::string root_;
};

TEST_F(ZarrHostileCli, VerifyFailsOnArraysItCouldNotCheck) {
  auto r = run_command(cli() + " zarr verify " + root_);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("a: 4/4 chunks ok, 0 missing, 0 corrupt"));
  // vlen-utf8 strings are verified (here: one missing chunk, which is not an error).
  put(root_ + "/strings/.zarray",
      R"({"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"|O","compressor":null,"fill_value":null,"filters":[{"id":"vlen-utf8"}]})");
  r = run_command(cli() + " zarr verify " + root_);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("strings: 0/1 chunks ok, 1 missing, 0 corrupt"));
  // An object array with a codec strata does not decode is named as unverified.
  put(root_ + "/objects/.zarray",
      R"({"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"|O","compressor":null,"fill_value":null,"filters":[{"id":"json2"}]})");
  r = run_command(cli() + " zarr verify " + root_);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, ::testing::ContainsRegex("unverified: objects \\(.+\\)"));
  // The table comes first, then strata's error line.
  EXPECT_THAT(r.output, ::testing::HasSubstr("\nstrata: error: " + root_ + ": 1 array(s) could not be verified\n"));
}

TEST_F(ZarrHostileCli, VerifyAndInfoWalkTheTreeNotZmetadata) {
  put(root_ + "/.zmetadata", std::string(R"({"zarr_consolidated_format":1,"metadata":{".zgroup":{"zarr_format":2},"a/.zarray":)") +
                                 kZarray + "}}");
  put(root_ + "/b/.zarray", kZarray);
  put(root_ + "/b/1.1", "ab");  // corrupt, in an array .zmetadata does not list
  auto r = run_command(cli() + " zarr verify " + root_);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("b: 0/4 chunks ok, 3 missing, 1 corrupt"));
  EXPECT_THAT(r.output, ::testing::HasSubstr("corrupt  1.1: chunk holds 2 bytes, expected 4"));
  EXPECT_THAT(r.output, ::testing::HasSubstr("\nstrata: error: " + root_ + ": 1 chunk(s) failed to decode\n"));
  r = run_command(cli() + " zarr info " + root_);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("b  (array, zarr v2)"));
}

TEST_F(ZarrHostileCli, MalformedAndOverDeepMetadataExitOneNotTwo) {
  put(root_ + "/a/.zarray", R"({"zarr_format":2,"shape":[4,4],"chunks":[2],"dtype":"|u1"})");
  auto r = run_command(cli() + " zarr info " + root_ + "/a");
  STRATA_EXPECT_CLI_ERROR(r, 1, root_ + "/a/.zarray: chunks [2] do not match the rank of shape [4, 4]");
  put(root_ + "/a/.zarray", kZarray);
  put(root_ + "/a/.zattrs", "{\"x\":" + std::string(200000, '[') + std::string(200000, ']') + "}");
  r = run_command(cli() + " zarr info " + root_);
  STRATA_EXPECT_CLI_ERROR(r, 1, root_ + "/a/.zattrs: nested deeper than 64 levels");
  r = run_command(cli() + " zarr verify " + root_);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("corrupt  a/<metadata>: " + root_ + "/a/.zattrs: nested deeper than 64 levels"));
  EXPECT_THAT(r.output, ::testing::HasSubstr("\nstrata: error: " + root_ + ": 1 chunk(s) failed to decode\n"));
}

TEST_F(ZarrHostileCli, FifoChunkAndHugeGridDoNotHang) {
  fs::remove(root_ + "/a/1.1");
  ASSERT_EQ(::mkfifo((root_ + "/a/1.1").c_str(), 0600), 0);
  put(root_ + "/h/.zarray",
      R"({"zarr_format":2,"shape":[2147483648,2147483648],"chunks":[1,1],"dtype":"|u1","compressor":null,"fill_value":0})");
  put(root_ + "/h/7.9", "x");
  auto r = run_command(cli() + " zarr verify " + root_);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("corrupt  1.1: " + root_ + "/a/1.1: is a FIFO, not a regular file"));
  EXPECT_THAT(r.output, ::testing::HasSubstr("\nstrata: error: " + root_ + ": 1 chunk(s) failed to decode\n"));
  EXPECT_THAT(r.output, ::testing::HasSubstr("h: 1/4611686018427387904 chunks ok, 4611686018427387903 missing, 0 corrupt"));
  r = run_command(cli() + " zarr info " + root_ + " --json");  // the FIFO chunk cannot be sized
  STRATA_EXPECT_CLI_ERROR(r, 1, root_ + "/a: chunk '1.1': " + root_ + "/a/1.1: is a FIFO, not a regular file");
  fs::remove(root_ + "/a/1.1");
  r = run_command(cli() + " zarr info " + root_ + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("\"grid_objects\": 4611686018427387904"));
}

}  // namespace
}  // namespace strata
