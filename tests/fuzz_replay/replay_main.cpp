// Replays inputs through a fuzz target's LLVMFuzzerTestOneInput without libFuzzer: every file
// under the directories given, then a few fixed inputs (empty, one byte, bytes that are almost
// each format's magic). Built with the normal toolchain by tests/CMakeLists.txt, so the targets
// keep compiling and their seed corpora keep passing in every build; fuzzing itself is
// scripts/fuzz.sh (clang + libFuzzer + sanitizers).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  int inputs = 0;
  auto run = [&](const std::vector<uint8_t>& bytes) {
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    ++inputs;
  };
  for (int i = 1; i < argc; ++i) {
    if (!fs::is_directory(argv[i])) continue;
    for (const auto& e : fs::recursive_directory_iterator(argv[i])) {
      if (!e.is_regular_file()) continue;
      std::ifstream in(e.path(), std::ios::binary);
      run(std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {}));
    }
  }
  const std::string fixed[] = {"", "\x01", "\x80", "##fileformat=VCFv4.2\n", "\x6c\x1b\x01",
                               "{\"zarr_format\":2}", "{\"zarr_format\":3,\"node_type\":\"array\"}"};
  for (const std::string& s : fixed) run(std::vector<uint8_t>(s.begin(), s.end()));
  std::printf("replayed %d inputs\n", inputs);
  return 0;
}
