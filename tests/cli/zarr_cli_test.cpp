// End-to-end tests of `strata zarr ...` through the built binary: outputs, exit codes, and
// that failures leave nothing behind that looks complete.
#include <nlohmann/json.hpp>

#include <filesystem>

#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::run_command;
using strata::testing::TempDir;

std::string cli() { return strata::testing::strata_cli_path(); }

class ZarrCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    if (strata::testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
    auto r = strata::testing::run_python("import numpy as np\n"
                                         "np.save('" + dir_.str("m.npy") + "', np.arange(60*70, dtype='<f4').reshape(60,70)/7)\n"
                                         "np.save('" + dir_.str("g.npy") + "', (np.arange(1000*30) % 3).astype('u1').reshape(1000,30))\n");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  TempDir dir_;
};

TEST_F(ZarrCli, ImportInfoExportRoundTrip) {
  for (const std::string codec : {"none", "zstd:3", "lz4", "zlib:1", "gzip:5", "blosc:zstd:5:bitshuffle", "blosc:lz4:3:shuffle"}) {
    SCOPED_TRACE(codec);
    std::string store = dir_.str("v2_" + std::to_string(std::hash<std::string>{}(codec)) + ".zarr");
    auto r = run_command(cli() + " zarr import " + dir_.str("m.npy") + " " + store + "/grp/m --chunks 16,32 --codec " + codec + " -q");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run_command(cli() + " zarr export " + store + "/grp/m " + dir_.str("back.npy") + " -q");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(strata::testing::read_file(dir_.str("back.npy")).substr(128),
              strata::testing::read_file(dir_.str("m.npy")).substr(128));
    auto py = strata::testing::run_python("import zarr, numpy as np\nassert (zarr.open('" + store + "/grp/m', mode='r')[:] == np.load('" +
                                          dir_.str("m.npy") + "')).all()\n");
    EXPECT_EQ(py.exit_code, 0) << py.output;
  }
  auto info = run_command(cli() + " zarr info " + dir_.str("v2_" + std::to_string(std::hash<std::string>{}(std::string("zstd:3"))) + ".zarr/grp/m"));
  ASSERT_EQ(info.exit_code, 0) << info.output;
  EXPECT_THAT(info.output, ::testing::HasSubstr("[60, 70]"));
  EXPECT_THAT(info.output, ::testing::HasSubstr("[16, 32]"));
  EXPECT_THAT(info.output, ::testing::HasSubstr("<f4"));
  EXPECT_THAT(info.output, ::testing::HasSubstr("zstd"));
  EXPECT_THAT(info.output, ::testing::HasSubstr("ratio"));
}

TEST_F(ZarrCli, ShardedV3ImportExportAndInfoJson) {
  std::string store = dir_.str("g3.zarr");
  auto r = run_command(cli() + " zarr import " + dir_.str("g.npy") + " " + store +
                       " --zarr-format 3 --chunks 100,30 --shard 400,30 --codec blosc:zstd:5:bitshuffle -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(cli() + " zarr info " + store + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto j = nlohmann::json::parse(r.output, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["zarr_format"], 3);
  EXPECT_EQ(j[0]["shards"], nlohmann::json({400, 30}));
  EXPECT_EQ(j[0]["grid_objects"], 3);  // ceil(1000/400) shards
  r = run_command(cli() + " zarr export " + store + " " + dir_.str("g_back.npy") + " -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(strata::testing::read_file(dir_.str("g_back.npy")).substr(128), strata::testing::read_file(dir_.str("g.npy")).substr(128));
  r = run_command(cli() + " zarr verify " + store);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(ZarrCli, VerifyReportsCorruptAndMissingChunks) {
  std::string store = dir_.str("c.zarr");
  auto r = run_command(cli() + " zarr import " + dir_.str("m.npy") + " " + store + " --chunks 30,35 --codec zstd:3 -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(cli() + " zarr verify " + store);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("4/4 chunks ok"));
  fs::remove(store + "/1.1");
  r = run_command(cli() + " zarr verify " + store);
  EXPECT_EQ(r.exit_code, 0) << r.output;  // missing chunks are fill, not corruption
  EXPECT_THAT(r.output, ::testing::HasSubstr("missing  1.1"));
  std::string chunk = strata::testing::read_file(store + "/0.1");
  strata::testing::write_file(store + "/0.1", chunk.substr(0, chunk.size() / 2));
  r = run_command(cli() + " zarr verify " + store);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("corrupt  0.1"));
  // verify prints its table first, then strata's error line.
  EXPECT_THAT(r.output, ::testing::HasSubstr("\nstrata: error: " + store + ": 1 chunk(s) failed to decode\n"));
  // Reading through export names the chunk too.
  r = run_command(cli() + " zarr export " + store + " " + dir_.str("x.npy") + " -q");
  STRATA_EXPECT_CLI_ERROR(r, 1, store + ": chunk '0.1': ");
  EXPECT_FALSE(fs::exists(dir_.str("x.npy")));
}

TEST_F(ZarrCli, StringArraysAreDescribedAndVerified) {
  std::string store = dir_.str("strings.zarr");
  auto py = strata::testing::run_python("import zarr, numpy as np, numcodecs\n"
                                        "g = zarr.open_group('" + store + "', mode='w')\n"
                                        "g.array('sample_id', np.array(['a','bb','ccc'], dtype=object), object_codec=numcodecs.VLenUTF8())\n"
                                        "g.array('dosage', np.arange(12, dtype='u1').reshape(3,4), chunks=(2,2))\n");
  ASSERT_EQ(py.exit_code, 0) << py.output;
  auto r = run_command(cli() + " zarr info " + store);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("sample_id  (array, zarr v2)\n"));
  EXPECT_THAT(r.output, ::testing::HasSubstr("shape   [3]  dtype |O (strings)"));
  EXPECT_THAT(r.output, ::testing::HasSubstr("codecs  vlen-utf8, "));
  EXPECT_THAT(r.output, ::testing::HasSubstr("dosage  (array, zarr v2)"));
  r = run_command(cli() + " zarr info " + store + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("\"strings\""));
  EXPECT_THAT(r.output, ::testing::Not(::testing::HasSubstr("\"unreadable\"")));
  // Every chunk of the string array is decoded, like the numeric ones.
  r = run_command(cli() + " zarr verify " + store);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("sample_id: 1/1 chunks ok"));
  EXPECT_THAT(r.output, ::testing::HasSubstr("dosage: 4/4 chunks ok"));
  std::string chunk = strata::testing::read_file(store + "/sample_id/0");
  strata::testing::write_file(store + "/sample_id/0", chunk.substr(0, chunk.size() / 2));
  r = run_command(cli() + " zarr verify " + store);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("corrupt  0: "));
  EXPECT_THAT(r.output, ::testing::HasSubstr("\nstrata: error: " + store + ": 1 chunk(s) failed to decode\n"));
}

TEST_F(ZarrCli, ReportFlagWritesJson) {
  std::string store = dir_.str("r.zarr");
  auto r = run_command(cli() + " zarr import " + dir_.str("m.npy") + " " + store + " -q --report " + dir_.str("imp.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(cli() + " zarr export " + store + " " + dir_.str("r.npy") + " -q --report " + dir_.str("exp.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* f : {"imp.json", "exp.json"}) {
    auto j = nlohmann::json::parse(strata::testing::read_file(dir_.str(f)), nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << f;
    EXPECT_GE(j["seconds"].get<double>(), 0.0);
    EXPECT_GT(j["peak_rss_bytes"].get<int64_t>(), 0);
    EXPECT_THAT(j["command"].get<std::string>(), ::testing::HasSubstr("zarr"));
  }
}

TEST_F(ZarrCli, UsageAndInputErrors) {
  auto r = run_command(cli() + " zarr import " + dir_.str("m.npy") + " " + dir_.str("bad.zarr") + " --codec zstd:abc");
  STRATA_EXPECT_CLI_ERROR(r, 2, "codec spec 'zstd:abc': level 'abc' is not an integer; expected none | zstd:LEVEL");
  EXPECT_FALSE(fs::exists(dir_.str("bad.zarr")));
  r = run_command(cli() + " zarr import " + dir_.str("m.npy") + " " + dir_.str("bad.zarr") + " --chunks 10");
  STRATA_EXPECT_CLI_ERROR(r, 2, "--chunks [10] has 1 entries but " + dir_.str("m.npy") + " has 2 dimensions");
  EXPECT_FALSE(fs::exists(dir_.str("bad.zarr")));
  r = run_command(cli() + " zarr import " + dir_.str("m.npy") + " " + dir_.str("bad.zarr") + " --shard 20,20");
  STRATA_EXPECT_CLI_ERROR(r, 2, "--shard needs --zarr-format 3 (sharding is a Zarr v3 codec)");
  r = run_command(cli() + " zarr import " + dir_.str("missing.npy") + " " + dir_.str("bad.zarr"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "cannot open " + dir_.str("missing.npy") + ": No such file or directory");
  EXPECT_FALSE(fs::exists(dir_.str("bad.zarr")));
  r = run_command(cli() + " zarr info " + dir_.str("nothing-here"));
  STRATA_EXPECT_CLI_ERROR(r, 1, dir_.str("nothing-here") + ": no such directory");
  r = run_command(cli() + " zarr frobnicate");
  STRATA_EXPECT_CLI_ERROR(r, 2, "unknown command 'frobnicate' for strata zarr");
  // Importing again replaces the array strata wrote; an array it did not write needs --overwrite.
  ASSERT_EQ(run_command(cli() + " zarr import " + dir_.str("m.npy") + " " + dir_.str("ok.zarr") + " -q").exit_code, 0);
  r = run_command(cli() + " zarr import " + dir_.str("m.npy") + " " + dir_.str("ok.zarr") + " -q");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  fs::remove(dir_.path() / "ok.zarr" / ".strata-output");
  r = run_command(cli() + " zarr import " + dir_.str("m.npy") + " " + dir_.str("ok.zarr") + " -q");
  STRATA_EXPECT_CLI_ERROR(r, 1, dir_.str("ok.zarr") + " already exists and was not written by strata (use --overwrite to replace it)");
  r = run_command(cli() + " --version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.output, ::testing::StartsWith("strata "));
}

}  // namespace
}  // namespace strata
