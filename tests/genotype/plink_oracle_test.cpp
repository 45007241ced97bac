// PLINK data against plink2 (`--export A`), `.bed → .vcz → .bed` round trips, and the
// scikit-allel / dosage Zarr layouts written by python3-zarr.
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "core/test_context.hpp"
#include "strata/genomics/simulate.hpp"
#include "strata/io/genotype_convert.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/io/plink.hpp"
#include "strata/io/vcf_zarr.hpp"
#include "testing/testing.hpp"

using strata::testing::test_ctx;

namespace strata::io {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::shared_data_dir;
using strata::testing::TempDir;

std::string hapmap() {
  const std::string d = shared_data_dir();
  const std::string p = d + "/hapmap3/HM3_thinned_autosomal_overlap";
  return !d.empty() && fs::exists(p + ".bed") ? p : std::string();
}

ConvertOptions quiet() {
  ConvertOptions o;
  return o;
}

// plink2 --export A prints REF (A2) counts by default: ours (ALT) must be 2 minus that.
TEST(PlinkOracle, HapMap3DosagesEqualPlink2ExportA) {
  if (hapmap().empty())
    GTEST_SKIP() << "HapMap3 absent (hapmap3/HM3_thinned_autosomal_overlap.bed); " << strata::testing::kSkipNoSharedData;
  if (!fs::exists("/usr/bin/plink2")) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  // Chromosome 21 keeps the oracle run small (230 variants × 957 samples).
  auto r = run_command("cd " + tmp.str() + " && /usr/bin/plink2 --bfile " + hapmap() +
                       " --chr 21 --export A --out p2 --threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::istringstream raw(read_file(tmp.str("p2.raw")));
  std::string header;
  std::getline(raw, header);
  std::vector<std::string> cols;
  {
    std::istringstream hs(header);
    for (std::string c; hs >> c;) cols.push_back(c);
  }
  ASSERT_GT(cols.size(), 6u);
  const int64_t nvar = static_cast<int64_t>(cols.size()) - 6;
  STRATA_ASSERT_OK_AND_ASSIGN(auto bed, BedReader::open(hapmap()));
  STRATA_ASSERT_OK_AND_ASSIGN(auto info, bed->variants(0, bed->num_variants()));
  int64_t first = -1;
  for (int64_t v = 0; v < info.size(); ++v) {
    if (bed->contigs()[info.contig[v]] == "21") {
      first = v;
      break;
    }
  }
  ASSERT_GE(first, 0);
  // Column names are ID_COUNTEDALLELE: the counted allele is REF (.bim column 6).
  EXPECT_EQ(cols[6], info.id[first] + "_" + info.ref[first]);
  STRATA_ASSERT_OK_AND_ASSIGN(auto block, read_genotype_block(*bed, first, nvar));
  int64_t compared = 0;
  for (int64_t s = 0; s < bed->num_samples(); ++s) {
    std::string line;
    ASSERT_TRUE(std::getline(raw, line));
    std::istringstream ls(line);
    std::vector<std::string> f;
    for (std::string t; ls >> t;) f.push_back(t);
    ASSERT_EQ(f[1], bed->samples().id[s]);
    for (int64_t v = 0; v < nvar; ++v) {
      const int c = code_at(block.row(v), s);
      const std::string& x = f[6 + v];
      if (c == kCodeMissing) {
        EXPECT_EQ(x, "NA");
      } else {
        EXPECT_EQ(x, std::to_string(2 - c)) << "sample " << s << " variant " << first + v;
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 230 * 957);
}

TEST(PlinkOracle, BedToVczToBedIsByteIdentical) {
  const std::string d = shared_data_dir();
  if (d.empty()) GTEST_SKIP() << strata::testing::kSkipNoSharedData;
  std::vector<std::string> prefixes = {d + "/plink/example", d + "/plink/plink_sim_10s_100v_10pmiss"};
  if (!hapmap().empty()) prefixes.push_back(hapmap());
  TempDir tmp;
  int k = 0;
  for (const auto& p : prefixes) {
    SCOPED_TRACE(p);
    const std::string vcz = tmp.str("rt" + std::to_string(k) + ".vcz");
    const std::string back = tmp.str("rt" + std::to_string(k++));
    auto o = quiet();
    o.variants_chunk = 333;  // edge chunks along variants
    o.samples_chunk = 100;   // and along samples
    STRATA_ASSERT_OK(convert_genotypes(test_ctx(), p + ".bed", vcz, o).status());
    STRATA_ASSERT_OK(convert_genotypes(test_ctx(), vcz, back + ".bed", quiet()).status());
    EXPECT_EQ(read_file(back + ".bed"), read_file(p + ".bed"));
    STRATA_ASSERT_OK_AND_ASSIGN(auto a, BedReader::open(p));
    STRATA_ASSERT_OK_AND_ASSIGN(auto b, BedReader::open(back));
    STRATA_ASSERT_OK_AND_ASSIGN(auto va, a->variants(0, a->num_variants()));
    STRATA_ASSERT_OK_AND_ASSIGN(auto vb, b->variants(0, b->num_variants()));
    EXPECT_EQ(va.id, vb.id);
    EXPECT_EQ(va.position, vb.position);
    EXPECT_EQ(va.ref, vb.ref);
    EXPECT_EQ(va.alt, vb.alt);
    EXPECT_EQ(a->contigs(), b->contigs());
    EXPECT_EQ(a->samples().id, b->samples().id);
    EXPECT_EQ(a->samples().family_id, b->samples().family_id);
    EXPECT_EQ(a->samples().sex, b->samples().sex);
    EXPECT_EQ(a->samples().phenotype, b->samples().phenotype);
  }
  // The small files ran; say so when the large case could not.
  if (hapmap().empty())
    GTEST_SKIP() << "HapMap3 case not run: hapmap3/HM3_thinned_autosomal_overlap.bed absent from the shared data";
}

TEST(PlinkOracle, ScikitAllelAndDosageLayoutsFromPython) {
  if (strata::testing::python_with_zarr().empty()) GTEST_SKIP() << strata::testing::kSkipNoPythonZarr;
  TempDir tmp;
  // A scikit-allel store grouped by contig (as Ag1000G), and a plain dosage array.
  auto r = strata::testing::run_python(R"(
import zarr, numpy as np, numcodecs
root = zarr.open_group(')" + tmp.str("allel.zarr") + R"(', mode='w')
root.array('samples', np.array(['a', 'b', 'c'], dtype=object), object_codec=numcodecs.VLenUTF8())
for contig, pos in (('2R', [10, 20]), ('3L', [5])):
    g = root.create_group(contig)
    gt = np.array([[[0, 0], [0, 1], [1, 1]], [[-1, -1], [1, 0], [0, 2]]], dtype='i1')[:len(pos)]
    g.array('calldata/GT', gt, chunks=(1, 2, 2))
    g.array('variants/POS', np.array(pos, dtype='i4'))
    g.array('variants/REF', np.array(['A'] * len(pos), dtype='S1'))
    g.array('variants/ALT', np.array([['C', 'G', ''], ['T', '', '']][:len(pos)], dtype='S1'))
d = zarr.open_group(')" + tmp.str("dosage.zarr") + R"(', mode='w')
d.array('dosage', np.array([[0, 1, 2, 255], [2, 2, 0, 1]], dtype='u1'), chunks=(1, 3))
print('ok')
)");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  STRATA_ASSERT_OK_AND_ASSIGN(auto allel, open_genotypes(tmp.str("allel.zarr")));
  ASSERT_EQ(allel->num_variants(), 3);
  ASSERT_EQ(allel->num_samples(), 3);
  EXPECT_EQ(allel->samples().id, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(allel->contigs(), (std::vector<std::string>{"2R", "3L"}));
  STRATA_ASSERT_OK_AND_ASSIGN(auto b, read_genotype_block(*allel, 0, 3));
  EXPECT_EQ(code_at(b.row(0), 0), 0);
  EXPECT_EQ(code_at(b.row(0), 1), 1);
  EXPECT_EQ(code_at(b.row(0), 2), 2);
  EXPECT_EQ(code_at(b.row(1), 0), kCodeMissing);
  EXPECT_EQ(code_at(b.row(1), 2), 1);  // 0/2: one non-reference allele
  EXPECT_EQ(code_at(b.row(2), 0), 0);
  STRATA_ASSERT_OK_AND_ASSIGN(auto info, allel->variants(0, 3));
  EXPECT_EQ(info.position, (std::vector<int64_t>{10, 20, 5}));
  EXPECT_EQ(info.alt[0], "C,G");
  EXPECT_EQ(info.contig[2], 1);
  EXPECT_EQ(allel->report().multiallelic_sites, 2);  // 2R:10 and 3L:5 have ALT C,G

  STRATA_ASSERT_OK_AND_ASSIGN(auto dos, open_genotypes(tmp.str("dosage.zarr")));
  ASSERT_EQ(dos->num_variants(), 2);
  STRATA_ASSERT_OK_AND_ASSIGN(auto db, read_genotype_block(*dos, 0, 2));
  EXPECT_EQ(code_at(db.row(0), 2), 2);
  EXPECT_EQ(code_at(db.row(0), 3), kCodeMissing);  // 255 is not a dosage
  EXPECT_EQ(code_at(db.row(1), 3), 1);
  GenotypeOpenOptions o;
  o.array = "dosage";
  STRATA_ASSERT_OK_AND_ASSIGN(auto named, open_genotypes(tmp.str("dosage.zarr"), o));
  EXPECT_EQ(named->num_samples(), 4);
  o.array = "none";
  STRATA_EXPECT_STATUS(open_genotypes(tmp.str("dosage.zarr"), o), StatusCode::NotFound, "dosage\\.zarr/none: no Zarr array or group");
}

TEST(PlinkOracle, SimulatedVczEqualsSimulatedBed) {
  genomics::SimulateOptions o;
  o.num_samples = 131;
  o.num_variants = 2500;
  o.missing = 0.01;
  o.seed = 3;
  TempDir tmp;
  genomics::SimulateWriteOptions w;
  w.variants_chunk = 700;
  w.samples_chunk = 50;
  STRATA_ASSERT_OK(genomics::simulate_to_files(test_ctx(), o, tmp.str("sim"), genomics::SimulateFormat::Both, w));
  STRATA_ASSERT_OK(convert_genotypes(test_ctx(), tmp.str("sim.vcz"), tmp.str("back.bed"), quiet()).status());
  EXPECT_EQ(read_file(tmp.str("back.bed")), read_file(tmp.str("sim.bed")));
  EXPECT_EQ(read_file(tmp.str("back.fam")), read_file(tmp.str("sim.fam")));
  EXPECT_EQ(read_file(tmp.str("back.bim")), read_file(tmp.str("sim.bim")));
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_genotypes(tmp.str("sim.vcz")));
  EXPECT_EQ(view->samples().population.front(), "pop0");
  EXPECT_EQ(view->samples().population.back(), "pop2");
}

}  // namespace
}  // namespace strata::io
