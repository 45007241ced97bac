// --device: what each value selects, and the errors when CUDA is asked for and cannot run. On a
// machine without a CUDA device (the development machines, CI) the error paths are what runs;
// the cases that need a device skip there, naming why.
#include <filesystem>

#include "strata/backend/backend.hpp"
#include "testing/testing.hpp"

namespace strata::backend {
namespace {

// Why CUDA cannot run here ("" when it can).
std::string cuda_unavailable() {
  auto n = cuda_device_count();
  return n.ok() ? std::string() : n.status().message();
}

TEST(DeviceSelection, CpuAndBadSpellings) {
  STRATA_ASSERT_OK_AND_ASSIGN(BackendPtr cpu, backend_for_device("cpu"));
  EXPECT_EQ(cpu.get(), cpu_backend().get());
  for (const char* bad : {"gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:1x", "CUDA", "", "cpu:0"}) {
    auto r = backend_for_device(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::Invalid) << bad;
    EXPECT_NE(r.status().message().find("--device must be cpu, cuda, cuda:N"), std::string::npos)
        << r.status().message();
    const Status check = check_device_spec(bad);
    EXPECT_EQ(check.code(), StatusCode::Invalid) << bad;
    EXPECT_NE(check.message().find("got '" + std::string(bad) + "'"), std::string::npos) << check.message();
  }
  // The spellings the CLI accepts are exactly those backend_for_device takes (opening nothing).
  for (const char* good : {"cpu", "auto", "cuda", "cuda:0", "cuda:12", "cuda:all"}) STRATA_EXPECT_OK(check_device_spec(good));
}

TEST(DeviceSelection, CudaWithoutDeviceIsAnErrorNamingTheCause) {
  const std::string why = cuda_unavailable();
  if (why.empty()) GTEST_SKIP() << "a CUDA device is present: the no-device error cannot be provoked here";
  for (const char* spec : {"cuda", "cuda:0", "cuda:3", "cuda:all"}) {
    auto r = backend_for_device(spec, "--device");
    ASSERT_FALSE(r.ok()) << spec;
    EXPECT_EQ(r.status().code(), StatusCode::Unsupported) << spec;
    // "--device cuda: no CUDA device (cudaGetDeviceCount: …)" or "… built without the CUDA backend"
    EXPECT_EQ(r.status().message().rfind(std::string("--device ") + spec + ": ", 0), 0u) << r.status().message();
    EXPECT_NE(r.status().message().find(why), std::string::npos) << r.status().message();
  }
  if (cuda_backend_built()) EXPECT_NE(why.find("no CUDA device"), std::string::npos) << why;
  // auto falls back to the CPU.
  STRATA_ASSERT_OK_AND_ASSIGN(BackendPtr a, backend_for_device("auto"));
  EXPECT_EQ(a.get(), cpu_backend().get());
}

TEST(DeviceSelection, CudaDeviceIsNamed) {
  const std::string why = cuda_unavailable();
  if (!why.empty()) GTEST_SKIP() << why;
  STRATA_ASSERT_OK_AND_ASSIGN(BackendPtr be, backend_for_device("cuda"));
  EXPECT_EQ(be->name().rfind("cuda:0 (", 0), 0u) << be->name();
  STRATA_ASSERT_OK_AND_ASSIGN(BackendPtr a, backend_for_device("auto"));
  EXPECT_EQ(a->name().rfind("cuda:0 (", 0), 0u) << a->name();
  STRATA_ASSERT_OK_AND_ASSIGN(int n, cuda_device_count());
  auto beyond = backend_for_device("cuda:" + std::to_string(n));
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.status().message().find("no CUDA device " + std::to_string(n)), std::string::npos);
}

TEST(DeviceSelection, VersionListsTheBackendsBuilt) {
  const std::string b = backends_built();
  EXPECT_EQ(b.rfind("cpu (", 0), 0u) << b;
  EXPECT_EQ(b.find("cuda (") != std::string::npos, cuda_backend_built()) << b;
  const std::string cli = strata::testing::strata_cli_path();
  if (!std::filesystem::exists(cli)) GTEST_SKIP() << "strata CLI not built";
  auto r = strata::testing::run_command(cli + " --version");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("backends: " + b), std::string::npos) << r.output;
}

// A CPU run never loads CUDA (the module is opened only for a CUDA device): the loader's own
// trace (LD_DEBUG=files) names every library a process opens.
TEST(DeviceSelection, CpuRunsLoadNoCuda) {
  const std::string cli = strata::testing::strata_cli_path();
  if (!std::filesystem::exists(cli)) GTEST_SKIP() << "strata CLI not built";
  auto cpu = strata::testing::run_command("LD_DEBUG=files " + cli + " bench random-sum --shape 100,100 -q");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.output;
  ASSERT_NE(cpu.output.find("file="), std::string::npos) << "no loader trace: " << cpu.output.substr(0, 500);
  for (const char* lib : {"libstrata_cuda", "libcudart", "libcublas", "libcusolver", "libcuda.so"})
    EXPECT_EQ(cpu.output.find(lib), std::string::npos) << lib;
  if (!cuda_backend_built()) GTEST_SKIP() << "built without the CUDA backend: nothing to open";
  auto gpu = strata::testing::run_command("LD_DEBUG=files " + cli + " bench random-sum --shape 100,100 -q --device cuda");
  EXPECT_NE(gpu.output.find("libstrata_cuda.so"), std::string::npos) << "the module was not opened";
}

// $STRATA_CUDA_MODULE is used alone: a missing file or one that is not a loadable module is the
// error, with its reason (never another module found elsewhere).
TEST(DeviceSelection, ModuleOverrideErrors) {
  const std::string cli = strata::testing::strata_cli_path();
  if (!std::filesystem::exists(cli)) GTEST_SKIP() << "strata CLI not built";
  if (!cuda_backend_built()) GTEST_SKIP() << "built without the CUDA backend: no module is looked for";
  strata::testing::TempDir dir;
  const std::string cmd = " bench random-sum --shape 100,100 -q --device cuda";
  auto missing = strata::testing::run_command("STRATA_CUDA_MODULE=" + dir.str("none.so") + " " + cli + cmd);
  STRATA_EXPECT_CLI_ERROR(missing, 1, "--device cuda: STRATA_CUDA_MODULE=" + dir.str("none.so") + ": no such file");
  strata::testing::write_file(dir.str("bogus.so"), "not a shared object\n");
  auto bogus = strata::testing::run_command("STRATA_CUDA_MODULE=" + dir.str("bogus.so") + " " + cli + cmd);
  STRATA_EXPECT_CLI_ERROR(bogus, 1, "--device cuda: cannot load the CUDA backend module: " + dir.str("bogus.so"));
  // A CPU run does not look for the module at all.
  auto cpu = strata::testing::run_command("STRATA_CUDA_MODULE=" + dir.str("bogus.so") + " " + cli +
                                          " bench random-sum --shape 100,100 -q");
  EXPECT_EQ(cpu.exit_code, 0) << cpu.output;
}

// The CLI: every computing command takes --device; CUDA without a device exits 1 naming it.
TEST(DeviceSelection, CliErrors) {
  const std::string cli = strata::testing::strata_cli_path();
  if (!std::filesystem::exists(cli)) GTEST_SKIP() << "strata CLI not built";
  auto bad = strata::testing::run_command(cli + " bench random-sum --shape 100,100 --device gpu");
  STRATA_EXPECT_CLI_ERROR(bad, 2, "--device: must be cpu, cuda, cuda:N");
  const std::string why = cuda_unavailable();
  if (why.empty()) GTEST_SKIP() << "a CUDA device is present: the no-device error cannot be provoked here";
  for (const char* cmd : {" bench random-sum --shape 100,100 --device cuda", " bench svd --shape 300,40 --device cuda:0",
                          " simulate --samples 10 --variants 10 --out /nonexistent/x --device cuda"}) {
    auto r = strata::testing::run_command(cli + cmd);
    STRATA_EXPECT_CLI_ERROR(r, 1, "--device cuda");
    EXPECT_NE(r.output.find(why), std::string::npos) << cmd << ": " << r.output;
  }
}

}  // namespace
}  // namespace strata::backend
