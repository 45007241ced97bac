// Genotype throughput: 2-bit decode kernels per core (per ISA), simulation, and VCF → VCF Zarr
// against `bcftools view` on the same file in the same run. Medians of --repeats runs.
//
//   strata_genotype_bench [--samples 10000] [--variants 20000] [--repeats 5]
//                         [--dir /tmp/strata-geno-bench] [--skip-vcf] [--json out.json]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/genomics/simulate.hpp"
#include "strata/io/genotype_convert.hpp"
#include "strata/io/genotype_decode.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/io/plink.hpp"

// A context with `threads` workers (benchmarks compare thread counts).
strata::Context bench_ctx(int threads) {
  strata::ContextOptions co;
  co.threads = threads;
  return *strata::Context::make(co);
}

using namespace strata;

namespace {

using strata::bench::median;
using strata::bench::now_s;

struct Args {
  int64_t samples = 10000, variants = 20000;
  int repeats = 5;
  std::string dir = "/tmp/strata-geno-bench", json;
  bool skip_vcf = false;
};

struct Row {
  std::string name;
  double value;
  std::string unit;
};
std::vector<Row> g_rows;

void report(const std::string& name, double value, const std::string& unit) {
  std::printf("%-58s %12.4g %s\n", name.c_str(), value, unit.c_str());
  g_rows.push_back({name, value, unit});
}

// CPU seconds (user + system) of this process and its finished children: on a shared
// machine wall time mostly measures the neighbours, CPU time measures the work.
double cpu_s() {
  rusage self{}, kids{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &kids);
  auto sec = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
  return sec(self.ru_utime) + sec(self.ru_stime) + sec(kids.ru_utime) + sec(kids.ru_stime);
}

double g_last_cpu = 0;  // median CPU seconds of the last time_median call

template <class F>
double time_median(int repeats, F&& f) {
  std::vector<double> t, c;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = now_s(), c0 = cpu_s();
    f();
    t.push_back(now_s() - t0);
    c.push_back(cpu_s() - c0);
  }
  g_last_cpu = median(c);
  return median(t);
}

// Decode kernels on one core: a block of codes (rows × n) into an output block that either
// stays in L2 (the fused decode→GEMM case: 32 rows × n floats reused) or streams to memory.
Status bench_decode(const Args& a) {
  genomics::SimulateOptions so;
  so.num_samples = a.samples;
  so.num_variants = 512;
  so.missing = 0.01;
  STRATA_ASSIGN_OR_RETURN(auto view, genomics::make_simulated_genotypes(so));
  STRATA_ASSIGN_OR_RETURN(auto block, io::read_genotype_block(*view, 0, so.num_variants));
  std::vector<genomics::VariantCounts> counts(static_cast<size_t>(so.num_variants));
  STRATA_RETURN_NOT_OK(genomics::count_block(bench_ctx(1), block, counts.data()));
  std::vector<float> luts(static_cast<size_t>(4 * so.num_variants));
  std::vector<double> lutd(luts.size());
  for (int64_t v = 0; v < so.num_variants; ++v) {
    genomics::make_standardize_lut(counts[v], genomics::Standardization::Binom2, luts.data() + 4 * v);
    genomics::make_standardize_lut(counts[v], genomics::Standardization::Binom2, lutd.data() + 4 * v);
  }
  const int64_t n = a.samples, rows = so.num_variants, tile = 32;
  const double genotypes = double(rows) * double(n);
  std::vector<float> hot(static_cast<size_t>(tile * n)), cold(static_cast<size_t>(rows * n));
  std::vector<double> hotd(static_cast<size_t>(tile * n));
  std::vector<int8_t> i8(static_cast<size_t>(n));
  const int64_t words = (n + 63) / 64;
  std::vector<uint64_t> p1(words), p2(words), p3(words);
  // One CPU backend per instruction set: each picks its decode kernels once.
  const auto codes = [&](int64_t r0, int64_t nr) { return backend::CodesView{block.row(r0), nr, n, block.stride}; };
  std::vector<int64_t> cnt(static_cast<size_t>(4 * rows));
  for (backend::CpuIsa level : {backend::CpuIsa::Portable, backend::CpuIsa::Avx2, backend::CpuIsa::Avx512}) {
    auto made = backend::make_cpu_backend(level);
    if (!made.ok()) continue;
    const backend::Backend& be = **made;
    const char* isa = backend::cpu_isa_name(level);
    const double t_hot = time_median(a.repeats * 3, [&] {
      for (int64_t r0 = 0; r0 < rows; r0 += tile) {
        const int64_t nr = std::min(tile, rows - r0);
        (void)be.decode(codes(r0, nr), luts.data() + 4 * r0, backend::row_major(hot.data(), nr, n));
      }
    });
    report(std::string("decode f32 standardized, L2-resident tile [") + isa + "]", genotypes / t_hot, "genotypes/s/core");
    const double t_cold = time_median(a.repeats, [&] {
      (void)be.decode(codes(0, rows), luts.data(), backend::row_major(cold.data(), rows, n));
    });
    report(std::string("decode f32 standardized, streaming to memory [") + isa + "]", genotypes / t_cold, "genotypes/s/core");
    const double t_d = time_median(a.repeats * 3, [&] {
      for (int64_t r0 = 0; r0 < rows; r0 += tile) {
        const int64_t nr = std::min(tile, rows - r0);
        (void)be.decode(codes(r0, nr), lutd.data() + 4 * r0, backend::row_major(hotd.data(), nr, n));
      }
    });
    report(std::string("decode f64 standardized, L2-resident tile [") + isa + "]", genotypes / t_d, "genotypes/s/core");
    const double t_c = time_median(a.repeats * 3, [&] { (void)be.count_codes(codes(0, rows), cnt.data()); });
    report(std::string("count codes (per-variant stats) [") + isa + "]", genotypes / t_c, "genotypes/s/core");
  }
  const double t_i8 = time_median(a.repeats * 3, [&] {
    for (int64_t r = 0; r < rows; ++r) io::decode_row_i8(block.row(r), n, i8.data());
  });
  report("decode int8 dosages", genotypes / t_i8, "genotypes/s/core");
  const double t_bp = time_median(a.repeats * 3, [&] {
    for (int64_t r = 0; r < rows; ++r) io::decode_row_bitplanes(block.row(r), n, p1.data(), p2.data(), p3.data());
  });
  report("decode bit planes", genotypes / t_bp, "genotypes/s/core");
  return Status::OK();
}

// Simulation: code generation alone (1 and 2 threads), then simulate → .bed files.
Status bench_simulate(const Args& a) {
  genomics::SimulateOptions so;
  so.num_samples = a.samples;
  so.num_variants = a.variants;
  so.missing = 0.01;
  STRATA_ASSIGN_OR_RETURN(auto view, genomics::make_simulated_genotypes(so));
  const double genotypes = double(so.num_samples) * double(so.num_variants);
  for (int threads : {1, 2}) {
    const Context ctx = bench_ctx(threads);
    Status st;
    const double t = time_median(a.repeats, [&] {
      st = io::for_each_genotype_block(ctx, *view, 256, [](io::GenotypeBlock&) { return Status::OK(); }, nullptr);
    });
    STRATA_RETURN_NOT_OK(st);
    report("simulate codes, " + std::to_string(threads) + " thread(s)", genotypes / t, "genotypes/s");
    report("simulate codes per CPU-second, " + std::to_string(threads) + " thread(s)", genotypes / g_last_cpu, "genotypes/cpu-s");
  }
  const Context ctx = bench_ctx(2);
  Status st;
  const double t = time_median(a.repeats, [&] {
    st = genomics::simulate_to_files(ctx, so, a.dir + "/sim", genomics::SimulateFormat::Bed);
  });
  STRATA_RETURN_NOT_OK(st);
  report("simulate -> .bed files, 2 threads", genotypes / t, "genotypes/s");
  report("simulate -> .bed files per CPU-second", genotypes / g_last_cpu, "genotypes/cpu-s");
  return Status::OK();
}

int run_shell(const std::string& cmd) { return std::system(cmd.c_str()); }

// VCF → VCF Zarr vs bcftools view on the same bgzipped VCF (written by plink2 from the
// simulated .bed), both with 2 threads.
Status bench_vcf(const Args& a) {
  const std::string vcf = a.dir + "/sim.vcf.gz";
  if (run_shell("cd " + a.dir + " && /usr/bin/plink2 --bfile sim --export vcf bgz --out sim --threads 2 > /dev/null 2>&1") != 0 ||
      !std::filesystem::exists(vcf))
    return Status::Unsupported("plink2 could not export the VCF (is plink2 installed?)");
  const double bytes = double(std::filesystem::file_size(vcf));
  const double genotypes = double(a.samples) * double(a.variants);
  const Context ctx = bench_ctx(2);
  io::ConvertOptions o;
  o.overwrite = true;
  Status st;
  const int reps = std::max(1, a.repeats / 2);
  const double t_strata = time_median(reps, [&] { st = io::convert_genotypes(ctx, vcf, a.dir + "/sim.vcz", o).status(); });
  const double c_strata = g_last_cpu;
  STRATA_RETURN_NOT_OK(st);
  const double t_view = time_median(reps, [&] { run_shell("/usr/bin/bcftools view --threads 2 " + vcf + " > /dev/null"); });
  const double c_view = g_last_cpu;
  const double t_ou = time_median(reps, [&] { run_shell("/usr/bin/bcftools view --threads 2 -Ou " + vcf + " > /dev/null"); });
  const double c_ou = g_last_cpu;
  report("VCF->VCZ strata convert, 2 threads", genotypes / t_strata, "genotypes/s");
  report("VCF->VCZ strata convert, 2 threads (compressed input)", bytes / t_strata / 1e6, "MB/s");
  report("bcftools view (VCF text out), 2 threads", genotypes / t_view, "genotypes/s");
  report("bcftools view -Ou (uncompressed BCF out), 2 threads", genotypes / t_ou, "genotypes/s");
  report("ratio wall: bcftools view / strata convert", t_view / t_strata, "x");
  report("ratio wall: bcftools view -Ou / strata convert", t_ou / t_strata, "x");
  report("ratio CPU: bcftools view / strata convert", c_view / c_strata, "x");
  report("ratio CPU: bcftools view -Ou / strata convert", c_ou / c_strata, "x");
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (k == "--samples") a.samples = std::stoll(next());
    else if (k == "--variants") a.variants = std::stoll(next());
    else if (k == "--repeats") a.repeats = std::stoi(next());
    else if (k == "--dir") a.dir = next();
    else if (k == "--json") a.json = next();
    else if (k == "--skip-vcf") a.skip_vcf = true;
    else {
      std::fprintf(stderr, "usage: %s [--samples N] [--variants M] [--repeats R] [--dir D] [--skip-vcf] [--json F]\n", argv[0]);
      return 2;
    }
  }
  std::filesystem::create_directories(a.dir);
  std::printf("genotype bench: %lld samples x %lld variants, median of %d, backend %s\n", (long long)a.samples,
              (long long)a.variants, a.repeats, backend::cpu_backend()->name().c_str());
  for (auto* fn : {bench_decode, bench_simulate}) {
    Status st = fn(a);
    if (!st.ok()) std::fprintf(stderr, "error: %s\n", st.to_string().c_str());
  }
  if (!a.skip_vcf) {
    Status st = bench_vcf(a);
    if (!st.ok()) std::fprintf(stderr, "vcf bench skipped: %s\n", st.to_string().c_str());
  }
  if (!a.json.empty()) {
    FILE* f = std::fopen(a.json.c_str(), "w");
    if (f) {
      std::fprintf(f, "[\n");
      for (size_t i = 0; i < g_rows.size(); ++i)
        std::fprintf(f, "  {\"name\": \"%s\", \"value\": %.6g, \"unit\": \"%s\"}%s\n", g_rows[i].name.c_str(), g_rows[i].value,
                     g_rows[i].unit.c_str(), i + 1 < g_rows.size() ? "," : "");
      std::fprintf(f, "]\n");
      std::fclose(f);
    }
  }
  std::filesystem::remove_all(a.dir);
  return 0;
}
