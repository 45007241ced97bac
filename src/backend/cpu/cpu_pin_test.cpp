// STRATA_CPU (strata/core/cpu_pin.hpp) caps every dispatch of a process. The pin is read once
// per process, so each case runs this test binary again with the variable set; the started
// copy prints what the pinned process sees (kIsChild) and exits.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <unistd.h>

#include "strata/backend/backend.hpp"
#include "strata/core/cpu_pin.hpp"
#include "strata/core/random.hpp"

namespace strata::backend {
namespace {

constexpr CpuIsa kLevels[] = {CpuIsa::Portable, CpuIsa::Avx2, CpuIsa::Avx2Vnni, CpuIsa::Avx512, CpuIsa::Avx512Vnni,
                              CpuIsa::Avx512Amx, CpuIsa::Neon};

// The child: this binary started again with STRATA_CPU_PIN_CHILD set prints what the pinned
// process sees ("PIN best=avx2 random=avx2 available=portable,avx2 backend=cpu-avx2 status=ok")
// and exits before any test runs (the kernel tables and the pin are function-local statics).
[[maybe_unused]] const bool kIsChild = [] {
  if (std::getenv("STRATA_CPU_PIN_CHILD") == nullptr) return false;
  std::string available;
  for (CpuIsa isa : kLevels)
    if (cpu_isa_available(isa)) available += std::string(available.empty() ? "" : ",") + cpu_isa_name(isa);
  const Status st = cpu_pin_status();
  std::printf("PIN best=%s random=%s available=%s backend=%s status=%s\n", cpu_isa_name(best_cpu_isa()),
              random::isa_name(random::best_isa()), available.c_str(), cpu_backend()->name().c_str(),
              st.ok() ? "ok" : st.message().c_str());
  std::fflush(stdout);
  std::_Exit(0);
}();

// $STRATA_TEST_EMULATOR (scripts/aarch64.sh sets it to its qemu command) runs the child of a
// cross-built test binary.
std::string run_pinned(const std::string& value) {
  const char* emulator = std::getenv("STRATA_TEST_EMULATOR");
  const std::string cmd = "STRATA_CPU_PIN_CHILD=1 STRATA_CPU='" + value + "' " +
                          (emulator ? std::string(emulator) + " " : std::string()) +
                          "/proc/self/exe 2>&1";
  // popen runs the shell, whose /proc/self/exe is the shell: resolve this binary first.
  std::array<char, 4096> self{};
  const ssize_t len = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
  std::string line = cmd;
  if (len > 0) line.replace(line.find("/proc/self/exe"), 14, std::string(self.data(), static_cast<size_t>(len)));
  FILE* p = ::popen(line.c_str(), "r");
  std::string out;
  if (!p) return out;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  ::pclose(p);
  const size_t at = out.find("PIN ");
  return at == std::string::npos ? "no PIN line in: " + out : out.substr(at, out.find('\n', at) - at);
}

std::string random_level_for(CpuIsa isa) {
  if (isa == CpuIsa::Portable || isa == CpuIsa::Neon) return "portable";
  if (isa == CpuIsa::Avx2 || isa == CpuIsa::Avx2Vnni) return random::isa_available(random::Isa::Avx2) ? "avx2" : "portable";
  return random::isa_name(random::best_isa());
}

TEST(CpuPin, EachLevelCapsTheBackendAndTheRandomKernels) {
  if (!cpu_pin().text.empty()) GTEST_SKIP() << "this process is pinned (STRATA_CPU=" << cpu_pin().text << ")";
  for (CpuIsa isa : kLevels) {
    if (!cpu_isa_available(isa)) continue;
    std::string available;
    for (CpuIsa lower : kLevels)
      if (lower <= isa && cpu_isa_available(lower))
        available += std::string(available.empty() ? "" : ",") + cpu_isa_name(lower);
    const std::string want = std::string("PIN best=") + cpu_isa_name(isa) + " random=" + random_level_for(isa) +
                             " available=" + available + " backend=cpu-" + cpu_isa_name(isa) + " status=ok";
    EXPECT_EQ(run_pinned(cpu_isa_name(isa)), want);
  }
}

TEST(CpuPin, ALevelAboveTheCpuIsCappedAtWhatItHas) {
  if (!cpu_pin().text.empty()) GTEST_SKIP() << "this process is pinned (STRATA_CPU=" << cpu_pin().text << ")";
  const std::string got = run_pinned(kCpuLevelNames[kCpuLevelCount - 1]);  // the top level: caps nothing
  EXPECT_NE(got.find(std::string("best=") + cpu_isa_name(best_cpu_isa()) + " "), std::string::npos) << got;
  EXPECT_NE(got.find("status=ok"), std::string::npos) << got;
}

TEST(CpuPin, AMisspeltLevelRunsPortableAndSaysSo) {
  if (!cpu_pin().text.empty()) GTEST_SKIP() << "this process is pinned (STRATA_CPU=" << cpu_pin().text << ")";
  const std::string got = run_pinned("avx3");
  EXPECT_NE(got.find("best=portable random=portable available=portable "), std::string::npos) << got;
  EXPECT_NE(got.find("status=STRATA_CPU='avx3': not a CPU level (one of portable, avx2, avx2-vnni, avx512, "
                     "avx512-vnni, avx512-amx, neon"),
            std::string::npos)
      << got;
}

TEST(CpuPin, UnpinnedRunsTheBestLevel) {
  if (!cpu_pin().text.empty()) GTEST_SKIP() << "this process is pinned (STRATA_CPU=" << cpu_pin().text << ")";
  EXPECT_EQ(best_cpu_isa(), detected_cpu_isa());
  EXPECT_EQ(cpu_level_summary(), cpu_isa_name(best_cpu_isa()));
  // The level names are backend::CpuIsa's, in its order.
  for (int i = 0; i < kCpuLevelCount; ++i) EXPECT_STREQ(kCpuLevelNames[i], cpu_isa_name(kLevels[i]));
}

}  // namespace
}  // namespace strata::backend
