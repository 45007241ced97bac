// Reaching the CUDA backend: the module libstrata_cuda.so is opened (dlopen) at the first request
// for a CUDA device, so the CLI, the tests and the Python module load and run on machines
// without the CUDA driver; nothing else links the CUDA runtime. The module is $STRATA_CUDA_MODULE
// when set, else looked for beside the executable, in ../lib from it, in the configured install
// lib directory, then where this build made it.
#include <dlfcn.h>
#include <unistd.h>

#include <charconv>
#include <climits>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "backend/cuda_module.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/config.hpp"

namespace strata::backend {
namespace {

#if STRATA_HAVE_CUDA
std::string executable_dir() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return {};
  std::string path(buf, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

// $STRATA_CUDA_MODULE alone when set (an explicit choice is never passed over), else the usual
// places in order.
std::vector<std::string> module_candidates() {
  std::vector<std::string> c;
  if (const char* env = std::getenv("STRATA_CUDA_MODULE"); env && *env) return {env};
  if (const std::string dir = executable_dir(); !dir.empty()) {
    c.push_back(dir + "/" + cuda_module::kModuleFile);
    // An installed tree moved or installed under another prefix: bin/strata → lib/.
    c.push_back(dir + "/../" + STRATA_CUDA_RELATIVE_LIBDIR + "/" + cuda_module::kModuleFile);
  }
  c.push_back(std::string(STRATA_CUDA_INSTALL_LIBDIR) + "/" + cuda_module::kModuleFile);
  c.emplace_back(STRATA_CUDA_BUILD_MODULE);
  return c;
}

// The module's table, opened once per process (never closed: backends made by it live on).
Result<const cuda_module::Api*> module_api() {
  static const Result<const cuda_module::Api*> api = []() -> Result<const cuda_module::Api*> {
    std::string tried;
    for (const std::string& path : module_candidates()) {
      if (::access(path.c_str(), F_OK) != 0) continue;
      void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib) {
        const char* e = ::dlerror();
        tried += str_cat(tried.empty() ? "" : "; ", e ? e : path);
        continue;
      }
      using Entry = const cuda_module::Api* (*)();
      auto entry = reinterpret_cast<Entry>(::dlsym(lib, cuda_module::kEntrySymbol));
      if (!entry) return Status::Unsupported(path, " is not a strata CUDA module (no ", cuda_module::kEntrySymbol, ")");
      const cuda_module::Api* a = entry();
      if (!a || a->version != cuda_module::kApiVersion)
        return Status::Unsupported(path, " is a strata CUDA module of another build (interface version ",
                                   a ? a->version : 0, ", expected ", cuda_module::kApiVersion, ")");
      return a;
    }
    if (const char* env = std::getenv("STRATA_CUDA_MODULE"); env && *env && tried.empty())
      return Status::Unsupported("STRATA_CUDA_MODULE=", env, ": no such file");
    if (tried.empty()) return Status::Unsupported("the CUDA backend module (", cuda_module::kModuleFile, ") is not installed");
    return Status::Unsupported("cannot load the CUDA backend module: ", tried);
  }();
  return api;
}
#endif

// cuda:all on `count` > 1 devices: random sums split across them, other operations on cuda:0
// (so far).
Result<BackendPtr> make_all_devices(int count) {
#if STRATA_HAVE_CUDA
  STRATA_ASSIGN_OR_RETURN(const cuda_module::Api* api, module_api());
  std::vector<int> devices(static_cast<size_t>(count));
  for (int d = 0; d < count; ++d) devices[static_cast<size_t>(d)] = d;
  return api->make(devices, cpu_backend(), /*small_dense_on_host=*/true);
#else
  return Status::Unsupported("this strata was built without the CUDA backend (", count, " devices)");
#endif
}

}  // namespace

bool cuda_backend_built() { return STRATA_HAVE_CUDA != 0; }

std::string backends_built() {
  std::string s = str_cat("cpu (", cpu_isa_name(best_cpu_isa()), ")");
#if STRATA_HAVE_CUDA
  s += str_cat(", cuda (", STRATA_CUDA_BUILD_INFO, "; ", cuda_module::kModuleFile, ")");
#endif
  return s;
}

Result<int> cuda_device_count() {
#if STRATA_HAVE_CUDA
  STRATA_ASSIGN_OR_RETURN(const cuda_module::Api* api, module_api());
  return api->device_count();
#else
  return Status::Unsupported("this strata was built without the CUDA backend");
#endif
}

Result<BackendPtr> make_cuda_backend(int device, bool small_dense_on_host) {
#if STRATA_HAVE_CUDA
  STRATA_ASSIGN_OR_RETURN(const cuda_module::Api* api, module_api());
  STRATA_ASSIGN_OR_RETURN(int count, api->device_count());
  if (device < 0 || device >= count)
    return Status::Unsupported("no CUDA device ", device, " (", count, count == 1 ? " device" : " devices", " present)");
  return api->make({device}, cpu_backend(), small_dense_on_host);
#else
  (void)device;
  (void)small_dense_on_host;
  return Status::Unsupported("this strata was built without the CUDA backend");
#endif
}

namespace {
// The device index a CUDA spelling names ("cuda" = 0, "cuda:N" = N, "cuda:all" = -1); nullopt
// for any other text.
std::optional<int> cuda_index(const std::string& spec) {
  if (spec == "cuda") return 0;
  if (spec == "cuda:all") return -1;
  if (spec.rfind("cuda:", 0) != 0) return std::nullopt;
  int device = 0;
  const char* b = spec.data() + 5;
  const char* e = spec.data() + spec.size();
  auto [p, ec] = std::from_chars(b, e, device);
  if (b == e || p != e || ec != std::errc() || device < 0) return std::nullopt;
  return device;
}
}  // namespace

Status check_device_spec(const std::string& spec) {
  if (spec == "cpu" || spec == "auto" || cuda_index(spec)) return Status::OK();
  return Status::Invalid("must be cpu, cuda, cuda:N (N = 0, 1, …), cuda:all or auto, got '", spec, "'");
}

Result<BackendPtr> backend_for_device(const std::string& spec, const std::string& option) {
  if (spec == "cpu") return cpu_backend();
  if (spec == "auto") {
    // A GPU when one is usable, else the CPU (not an error: "auto" asks for the best there is).
    auto gpu = make_cuda_backend(0);
    return gpu.ok() ? *gpu : cpu_backend();
  }
  const std::optional<int> index = cuda_index(spec);
  if (!index) return Status::Invalid(option, " ", check_device_spec(spec).message());
  const bool all = *index < 0;
  const int device = all ? 0 : *index;
  auto count = cuda_device_count();
  if (!count.ok()) return Status::Unsupported(option, " ", spec, ": ", count.status().message());
  auto be = all && *count > 1 ? make_all_devices(*count) : make_cuda_backend(device);
  if (!be.ok()) return Status::Unsupported(option, " ", spec, ": ", be.status().message());
  return be;
}

}  // namespace strata::backend
