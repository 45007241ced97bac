// VCF/BCF → VCF Zarr against bcftools (GT strings) and python3-zarr (names, dims, dtypes);
// VCF → .bed against the PLINK-exported pairs; bad VCF inputs.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "core/test_context.hpp"
#include "strata/core/config.hpp"
#include "strata/io/genotype_convert.hpp"
#include "strata/io/plink.hpp"
#include "strata/io/zarr.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::io {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::shared_data_dir;
using strata::testing::TempDir;
using strata::testing::write_file;

bool have_bcftools() { return fs::exists("/usr/bin/bcftools"); }

ConvertOptions quiet() {
  ConvertOptions o;
  return o;
}

// GT strings as bcftools prints them, from call_genotype (+ call_genotype_phased).
std::vector<std::string> gt_lines(const std::string& store_path) {
  auto store = LocalStore::open(store_path);
  EXPECT_TRUE(store.ok());
  std::shared_ptr<Store> s = *store;
  auto gt = ZarrArray::open(s, "call_genotype");
  if (!gt.ok()) return {};
  auto ph = ZarrArray::open(s, "call_genotype_phased");
  const int64_t m = gt->shape()[0], n = gt->shape()[1], p = gt->shape()[2];
  std::vector<int8_t> calls(static_cast<size_t>(m * n * p));
  std::vector<uint8_t> phased(static_cast<size_t>(m * n), 0);
  EXPECT_TRUE(gt->read_region({0, 0, 0}, {m, n, p}, calls.data()).ok());
  if (ph.ok()) {
    EXPECT_TRUE(ph->read_region({0, 0}, {m, n}, phased.data()).ok());
  }
  std::vector<std::string> lines;
  for (int64_t v = 0; v < m; ++v) {
    std::string line;
    for (int64_t i = 0; i < n; ++i) {
      std::string call;
      for (int64_t k = 0; k < p; ++k) {
        const int a = calls[(v * n + i) * p + k];
        if (a == -2) continue;
        if (k > 0) call += phased[v * n + i] ? '|' : '/';
        call += a == -1 ? "." : std::to_string(a);
      }
      line += call + "\t";
    }
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> bcftools_lines(const std::string& vcf) {
  auto r = run_command("/usr/bin/bcftools query -f '[%GT\\t]\\n' " + vcf);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> lines;
  std::istringstream ss(r.output);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  return lines;
}

class VcfFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!STRATA_HAVE_HTSLIB) GTEST_SKIP() << "built without htslib";
    if (shared_data_dir().empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
    dir_ = shared_data_dir() + "/vcf";
    if (!fs::is_directory(dir_)) GTEST_SKIP() << dir_ << " absent from the shared data";
  }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (auto& e : fs::directory_iterator(dir_)) {
      const std::string p = e.path().string();
      if (is_vcf_path(p)) out.push_back(p);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string dir_;
};

TEST_F(VcfFiles, EveryFileConvertsAndMatchesBcftools) {
  if (!have_bcftools()) GTEST_SKIP() << "no oracle: bcftools not installed (/usr/bin/bcftools)";
  TempDir tmp;
  const auto all = files();
  EXPECT_GE(all.size(), 9u);
  for (const auto& f : all) {
    SCOPED_TRACE(f);
    const std::string out = tmp.str(fs::path(f).filename().string() + ".vcz");
    STRATA_ASSERT_OK_AND_ASSIGN(ConvertReport r, convert_genotypes(test_ctx(), f, out, quiet()));
    EXPECT_FALSE(fs::exists(out + ".tmp-" + std::to_string(getpid())));
    const bool has_gt = fs::exists(out + "/call_genotype/.zarray");
    auto header = run_command("/usr/bin/bcftools view -h " + f);
    const bool header_gt = header.output.find("##FORMAT=<ID=GT") != std::string::npos;
    EXPECT_EQ(has_gt, header_gt && r.samples > 0);
    if (!has_gt) continue;
    const auto ours = gt_lines(out);
    const auto theirs = bcftools_lines(f);
    ASSERT_EQ(ours.size(), theirs.size());
    for (size_t i = 0; i < ours.size(); ++i) {
      // A record without GT (bcftools: ".") is missing at every ploidy slot, as bio2zarr stores it;
      std::string want = theirs[i];
      for (size_t at = 0; (at = want.find(".\t", at)) != std::string::npos;) {
        if (at == 0 || want[at - 1] == '\t') {
          want.replace(at, 2, "./.\t");
          at += 4;
        } else {
          at += 2;
        }
      }
      // bcftools prints a haploid missing call the same way: either reading is accepted for an
      // all-missing record (test_vcf_zarr.py pins the exact values against bio2zarr).
      const bool all_missing = theirs[i].find_first_not_of(".\t") == std::string::npos;
      if (all_missing && ours[i] == want) continue;
      EXPECT_EQ(ours[i], theirs[i]) << "record " << i + 1;
    }
  }
}

TEST_F(VcfFiles, VcfAndBcfGiveTheSameStore) {
  TempDir tmp;
  STRATA_ASSERT_OK(convert_genotypes(test_ctx(), dir_ + "/sample.vcf.gz", tmp.str("a.vcz"), quiet()).status());
  STRATA_ASSERT_OK(convert_genotypes(test_ctx(), dir_ + "/sample.bcf", tmp.str("b.vcz"), quiet()).status());
  EXPECT_EQ(gt_lines(tmp.str("a.vcz")), gt_lines(tmp.str("b.vcz")));
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, open_genotypes(tmp.str("a.vcz")));
  STRATA_ASSERT_OK_AND_ASSIGN(auto b, open_genotypes(tmp.str("b.vcz")));
  STRATA_ASSERT_OK_AND_ASSIGN(auto va, a->variants(0, a->num_variants()));
  STRATA_ASSERT_OK_AND_ASSIGN(auto vb, b->variants(0, b->num_variants()));
  EXPECT_EQ(va.position, vb.position);
  EXPECT_EQ(va.alt, vb.alt);
  EXPECT_EQ(a->contigs(), b->contigs());
  EXPECT_EQ(a->report().multiallelic_sites, 3);
}

TEST_F(VcfFiles, PythonZarrSeesSpecNamesDimsAndDtypes) {
  if (strata::testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  TempDir tmp;
  STRATA_ASSERT_OK(convert_genotypes(test_ctx(), dir_ + "/sample.vcf.gz", tmp.str("s.vcz"), quiet()).status());
  auto r = strata::testing::run_python(R"(
import zarr, sys
g = zarr.open_consolidated(sys.argv[1] if len(sys.argv) > 1 else ')" + tmp.str("s.vcz") + R"(', mode='r')
assert g.attrs['vcf_zarr_version'] == '0.4'
want = {
  'call_genotype': (('variants', 'samples', 'ploidy'), 'int8'),
  'call_genotype_mask': (('variants', 'samples', 'ploidy'), 'bool'),
  'call_genotype_phased': (('variants', 'samples'), 'bool'),
  'variant_position': (('variants',), 'int32'),
  'variant_contig': (('variants',), 'int8'),  # bio2zarr's smallest integer type (3 contigs)
  'variant_id': (('variants',), 'object'),
  'variant_allele': (('variants', 'alleles'), 'object'),
  'contig_id': (('contigs',), 'object'),
  'sample_id': (('samples',), 'object'),
  'variant_id_mask': (('variants',), 'bool'),
  'variant_quality': (('variants',), 'float32'),
  'variant_filter': (('variants', 'filters'), 'bool'),
  'filter_id': (('filters',), 'object'),
  'filter_description': (('filters',), 'object'),
}
for name, (dims, dtype) in want.items():
  a = g[name]
  assert tuple(a.attrs['_ARRAY_DIMENSIONS']) == dims, (name, a.attrs.asdict())
  assert str(a.dtype) == dtype, (name, a.dtype)
assert g['call_genotype'].shape == (9, 3, 2)
assert list(g['sample_id'][:]) == ['NA00001', 'NA00002', 'NA00003']
assert list(g['contig_id'][:]) == ['19', '20', 'X']
assert list(g['variant_allele'][4]) == ['A', 'G', 'T', '']
assert g['variant_position'][2] == 14370
assert (g['call_genotype_mask'][:] == (g['call_genotype'][:] < 0)).all()
assert list(g['filter_id'][:]) == ['PASS', 's50', 'q10']
# FILTER column: . . PASS q10 PASS PASS PASS . PASS; QUAL 9.6 10 29 3 67 47 50 . 10
assert [list(r) for r in g['variant_filter'][:].astype(int)] == [[0,0,0],[0,0,0],[1,0,0],[0,0,1],[1,0,0],[1,0,0],[1,0,0],[0,0,0],[1,0,0]]
q = g['variant_quality'][:]
assert q.view('u4')[7] == 0x7F800001, hex(q.view('u4')[7])
assert abs(q[0] - 9.6) < 1e-6 and q[3] == 3.0
assert list(g['variant_id_mask'][:]) == [v == '.' for v in g['variant_id'][:]]
assert 'contig_length' not in g
print('ok')
)");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::HasSubstr("ok"));
}

TEST_F(VcfFiles, MixedPloidyFillsAndHaploidCodes) {
  TempDir tmp;
  STRATA_ASSERT_OK_AND_ASSIGN(auto r, convert_genotypes(test_ctx(), dir_ + "/mixed_ploidy.vcf.gz", tmp.str("m.vcz"), quiet()));
  EXPECT_EQ(r.max_ploidy, 3);
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_genotypes(tmp.str("m.vcz")));
  STRATA_ASSERT_OK_AND_ASSIGN(auto b, read_genotype_block(*view, 0, 6));
  // Record 2 is haploid 0 / 1 / 0: homozygous codes, as plink2 imports haploid calls.
  EXPECT_EQ(code_at(b.row(1), 0), kCodeHomRef);
  EXPECT_EQ(code_at(b.row(1), 1), kCodeHomAlt);
  // Record 6: 0/1/2 (triploid) is missing; haploid 0 → 0; 1/1 → 2.
  EXPECT_EQ(code_at(b.row(5), 0), kCodeMissing);
  EXPECT_EQ(code_at(b.row(5), 1), kCodeHomRef);
  EXPECT_EQ(code_at(b.row(5), 2), kCodeHomAlt);
  EXPECT_EQ(view->report().polyploid_calls, 1);
  // Record 1: 0/1, 1|1, 2/2 with ALT C,G: non-reference dosage 1, 2, 2.
  EXPECT_EQ(code_at(b.row(0), 0), kCodeHet);
  EXPECT_EQ(code_at(b.row(0), 2), kCodeHomAlt);
  GenotypeOpenOptions skip;
  skip.multiallelic = MultiallelicMode::Skip;
  STRATA_ASSERT_OK_AND_ASSIGN(auto bi, open_genotypes(tmp.str("m.vcz"), skip));
  EXPECT_EQ(bi->num_variants(), 4);
  EXPECT_EQ(bi->report().skipped_sites, 2);
}

TEST_F(VcfFiles, PlinkExportedVcfConvertsToTheSameBed) {
  const std::string plink = shared_data_dir() + "/plink";
  TempDir tmp;
  for (const char* name : {"example", "plink_sim_10s_100v_10pmiss"}) {
    SCOPED_TRACE(name);
    const std::string out = tmp.str(std::string(name) + ".bed");
    STRATA_ASSERT_OK(convert_genotypes(test_ctx(), plink + "/" + name + ".vcf", out, quiet()).status());
    EXPECT_EQ(read_file(out), read_file(plink + "/" + name + ".bed"));
    // .bim: A1 (column 5) = ALT, A2 = REF, as PLINK wrote them.
    STRATA_ASSERT_OK_AND_ASSIGN(auto ours, read_bim(tmp.str(std::string(name) + ".bim")));
    STRATA_ASSERT_OK_AND_ASSIGN(auto theirs, read_bim(plink + "/" + name + ".bim"));
    EXPECT_EQ(ours.variants.alt, theirs.variants.alt);
    EXPECT_EQ(ours.variants.ref, theirs.variants.ref);
    EXPECT_EQ(ours.variants.id, theirs.variants.id);
  }
}

TEST_F(VcfFiles, BadInputsFailClearlyAndLeaveNothing) {
  TempDir tmp;
  const std::string head =
      "##fileformat=VCFv4.2\n##contig=<ID=1>\n##contig=<ID=2>\n"
      "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n"
      "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ta\tb\n";
  struct Case {
    const char* name;
    std::string body;
    const char* out;
    StatusCode code;
    const char* pattern;
  };
  const std::vector<Case> cases = {
      {"unsorted.vcf", "1\t5\t.\tA\tC\t.\t.\t.\tGT\t0/1\t0/0\n1\t3\t.\tA\tC\t.\t.\t.\tGT\t0/1\t0/0\n", "u.vcz", StatusCode::Corrupt,
       "unsorted\\.vcf: record 2 \\(after 1:5\\): position 3 is before the previous one"},
      {"split.vcf", "1\t5\t.\tA\tC\t.\t.\t.\tGT\t0/1\t0/0\n2\t3\t.\tA\tC\t.\t.\t.\tGT\t0/1\t0/0\n1\t9\t.\tA\tC\t.\t.\t.\tGT\t0/1\t0/0\n",
       "s.vcz", StatusCode::Corrupt, "split\\.vcf: record 3 \\(after 2:3\\): contig '1' appears again"},
      {"badgt.vcf", "1\t5\t.\tA\tC\t.\t.\t.\tGT\t0/1\t0/3\n", "g.vcz", StatusCode::Corrupt, "badgt\\.vcf: record 1.*allele the record does not have"},
      {"malformed.vcf", "1\t5\t.\tA\tC\t.\t.\t.\tGT\t0/1\t0/0\n1\tx7\t.\tA\n", "m.vcz", StatusCode::Corrupt, "malformed\\.vcf: record 2.*malformed"},
      {"nogt.vcf", "", "n.bed", StatusCode::InvalidData, "nogt\\.vcf: no GT field"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::string text = head + c.body;
    if (std::string(c.name) == "nogt.vcf")
      text = "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ta\n1\t5\t.\tA\tC\t.\t.\t.\t.\t.\n";
    write_file(tmp.str(c.name), text);
    auto r = convert_genotypes(test_ctx(), tmp.str(c.name), tmp.str(c.out), quiet());
    STRATA_EXPECT_STATUS(r, c.code, c.pattern);
    for (auto& e : fs::directory_iterator(tmp.path())) {  // nothing but the inputs
      EXPECT_TRUE(is_vcf_path(e.path().string())) << e.path();
    }
  }
  auto missing = convert_genotypes(test_ctx(), tmp.str("absent.vcf.gz"), tmp.str("x.vcz"), quiet());
  STRATA_EXPECT_STATUS(missing, StatusCode::NotFound, "absent\\.vcf\\.gz: no such file");
  write_file(tmp.str("ok.vcf"), head + "1\t5\t.\tA\tC\t.\t.\t.\tGT\t0/1\t0/0\n");
  STRATA_ASSERT_OK(convert_genotypes(test_ctx(), tmp.str("ok.vcf"), tmp.str("ok.vcz"), quiet()).status());
  // A rerun replaces the store strata wrote; a store it did not write is refused.
  STRATA_ASSERT_OK(convert_genotypes(test_ctx(), tmp.str("ok.vcf"), tmp.str("ok.vcz"), quiet()).status());
  fs::remove(tmp.path() / "ok.vcz" / ".strata-output");
  STRATA_EXPECT_STATUS(convert_genotypes(test_ctx(), tmp.str("ok.vcf"), tmp.str("ok.vcz"), quiet()), StatusCode::AlreadyExists,
                       "ok\\.vcz:? already exists and was not written by strata");
}

}  // namespace
}  // namespace strata::io

namespace strata::io {
namespace {

// What plink2 reads and strata refused: positions out of order within a chromosome, converted to
// a PLINK fileset (kept in the file's order with a warning; VCF Zarr still needs sorted records),
// and a VCF without its ##fileformat line. A split chromosome is refused by both.
TEST(VcfLeniency, UnsortedToBedAndNoFileformatLineAsPlink2) {
  TempDir tmp;
  const std::string meta = "##contig=<ID=1>\n##contig=<ID=2>\n##FORMAT=<ID=GT,Number=1,Type=String,Description=\"g\">\n"
                           "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ta\tb\n";
  const std::string body = "1\t5\tv1\tA\tC\t.\t.\t.\tGT\t0/1\t0/0\n1\t2\tv3\tA\tC\t.\t.\t.\tGT\t0/0\t1/1\n"
                           "2\t3\tv2\tA\tC\t.\t.\t.\tGT\t1/1\t0/1\n";
  write_file(tmp.str("u.vcf"), "##fileformat=VCFv4.2\n" + meta + body);
  write_file(tmp.str("n.vcf"), meta + body);
  for (const char* in : {"u.vcf", "n.vcf"}) {
    SCOPED_TRACE(in);
    const std::string out = tmp.str(std::string(in) + ".out");
    STRATA_ASSERT_OK(convert_genotypes(test_ctx(), tmp.str(in), out + ".bed", {}));
    EXPECT_EQ(read_file(out + ".bim"), "1\tv1\t0\t5\tC\tA\n1\tv3\t0\t2\tC\tA\n2\tv2\t0\t3\tC\tA\n");
    STRATA_EXPECT_STATUS(convert_genotypes(test_ctx(), tmp.str(in), out + ".vcz", {}), StatusCode::Corrupt,
                         "position 2 is before the previous one.*VCF Zarr needs sorted positions");
    if (fs::exists("/usr/bin/plink2")) {
      const auto r = run_command("cd " + tmp.str() + " && /usr/bin/plink2 --vcf " + in + " --make-bed --out p --threads 1");
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_EQ(read_file(out + ".bed"), read_file(tmp.str("p.bed")));
      EXPECT_EQ(read_file(out + ".bim"), read_file(tmp.str("p.bim")));
    }
  }
  write_file(tmp.str("s.vcf"), meta + "1\t5\tv1\tA\tC\t.\t.\t.\tGT\t0/1\t0/0\n2\t3\tv2\tA\tC\t.\t.\t.\tGT\t1/1\t0/1\n"
                                      "1\t9\tv3\tA\tC\t.\t.\t.\tGT\t0/0\t1/1\n");
  STRATA_EXPECT_STATUS(convert_genotypes(test_ctx(), tmp.str("s.vcf"), tmp.str("s.bed"), {}), StatusCode::Corrupt,
                       "contig '1' appears again after other contigs");
  EXPECT_FALSE(fs::exists(tmp.str("s.bed")));
}

}  // namespace
}  // namespace strata::io
