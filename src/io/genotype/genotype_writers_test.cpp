// .pgen and .bgen writers against plink2: what plink2 reads from strata's files equals what it
// reads from the source (and from its own BGEN export), strata reads its files back, and bad
// input or output paths fail naming the file with nothing left behind.
#include <cmath>
#include <filesystem>

#include "strata/core/context.hpp"
#include "strata/io/genotype.hpp"
#include "strata/io/genotype_dosage.hpp"
#include "strata/io/genotype_writers.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::read_rows;
using strata::testing::run_command;
using strata::testing::TempDir;

bool have_plink2() { return fs::exists("/usr/bin/plink2"); }

void plink2(const TempDir& tmp, const std::string& args) {
  auto r = run_command("cd " + tmp.str() + " && /usr/bin/plink2 --threads 1 " + args + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << "plink2 " << args << "\n" << r.output;
}

std::vector<float> all_dosages(const GenotypeView& v) {
  std::vector<float> d(static_cast<size_t>(v.num_variants() * v.num_samples()));
  EXPECT_TRUE(v.read_dosages(0, v.num_variants(), 0, v.num_samples(), d.data(), v.num_samples()).ok());
  return d;
}

// The genotype columns of two `--export A` files (from column 7 on), row by row.
void expect_same_raw(const std::string& a, const std::string& b) {
  auto ra = read_rows(a, '\t'), rb = read_rows(b, '\t');
  ASSERT_EQ(ra.size(), rb.size());
  ASSERT_GT(ra.size(), 1u);
  int64_t diff = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    ASSERT_EQ(ra[i].size(), rb[i].size()) << "row " << i;
    for (size_t c = 6; c < ra[i].size(); ++c)
      if (ra[i][c] != rb[i][c] && diff++ < 5) ADD_FAILURE() << "row " << i << " column " << c << ": " << ra[i][c] << " vs " << rb[i][c];
  }
  EXPECT_EQ(diff, 0);
}

std::vector<int64_t> iota_for_test(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

Context ctx_with(int threads) {
  ContextOptions o;
  o.threads = threads;
  return std::move(Context::make(o)).value();
}

// variant_table() of every view that keeps one is what variants(0, m) gives; a sample subset
// passes its base's through, a variant subset has none.
TEST(GenotypeView, VariantTableIsTheVariantsOfEveryIndex) {
  if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  plink2(tmp, "--seed 6 --dummy 37 150 0.05 dosage-freq=0.3 --make-pgen --out d");
  plink2(tmp, "--pfile d --make-bed --out b");
  plink2(tmp, "--pfile d --export bgen-1.2 bits=8 ref-first --out g");
  STRATA_ASSERT_OK_AND_ASSIGN(auto bed, open_genotypes(tmp.str("b.bed")));
  STRATA_ASSERT_OK_AND_ASSIGN(auto sub, make_genotype_subset(bed, {1, 5, 6}, iota_for_test(bed->num_variants())));
  STRATA_ASSERT_OK_AND_ASSIGN(auto vsub, make_genotype_subset(bed, {}, {0, 2, 3}));
  EXPECT_EQ(vsub->variant_table(), nullptr);
  EXPECT_EQ(sub->variant_table(), bed->variant_table());
  for (const char* name : {"b.bed", "d.pgen", "g.bgen"}) {
    SCOPED_TRACE(name);
    STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_genotypes(tmp.str(name)));
    const VariantInfo* table = view->variant_table();
    ASSERT_NE(table, nullptr);
    STRATA_ASSERT_OK_AND_ASSIGN(VariantInfo all, view->variants(0, view->num_variants()));
    EXPECT_EQ(table->contig, all.contig);
    EXPECT_EQ(table->position, all.position);
    EXPECT_EQ(table->id, all.id);
    EXPECT_EQ(table->ref, all.ref);
    EXPECT_EQ(table->alt, all.alt);
    EXPECT_EQ(table->size(), view->num_variants());
  }
}

TEST(PgenWriter, Plink2ReadsWhatTheSourceHolds) {
  if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  plink2(tmp, "--seed 3 --dummy 203 300 0.05 dosage-freq=0.3 --make-pgen --out d");
  STRATA_ASSERT_OK_AND_ASSIGN(auto src, open_genotypes(tmp.str("d.pgen")));
  ASSERT_TRUE(src->has_dosages());
  GenotypeWriteOptions wo;
  wo.block_variants = 37;  // several blocks, encoded out of order
  STRATA_ASSERT_OK(write_pgen(ctx_with(3), *src, tmp.str("w.pgen"), wo));
  plink2(tmp, "--pfile d --export A --freq --out da");
  plink2(tmp, "--pfile w --export A --freq --out wa");
  expect_same_raw(tmp.str("da.raw"), tmp.str("wa.raw"));
  EXPECT_EQ(read_file(tmp.str("da.afreq")), read_file(tmp.str("wa.afreq")));
  // strata reads back the same codes, dosages and metadata.
  STRATA_ASSERT_OK_AND_ASSIGN(auto back, open_genotypes(tmp.str("w.pgen")));
  ASSERT_TRUE(back->has_dosages());
  STRATA_ASSERT_OK_AND_ASSIGN(auto a, read_genotype_block(*src, 0, src->num_variants()));
  STRATA_ASSERT_OK_AND_ASSIGN(auto b, read_genotype_block(*back, 0, back->num_variants()));
  EXPECT_EQ(a.codes, b.codes);
  const auto da = all_dosages(*src), db = all_dosages(*back);
  ASSERT_EQ(da.size(), db.size());
  for (size_t i = 0; i < da.size(); ++i)
    ASSERT_TRUE(da[i] == db[i] || (std::isnan(da[i]) && std::isnan(db[i]))) << i << ": " << da[i] << " vs " << db[i];
  EXPECT_EQ(src->samples().id, back->samples().id);
  EXPECT_EQ(src->samples().sex, back->samples().sex);
  STRATA_ASSERT_OK_AND_ASSIGN(auto va, src->variants(0, src->num_variants()));
  STRATA_ASSERT_OK_AND_ASSIGN(auto vb, back->variants(0, back->num_variants()));
  EXPECT_EQ(va.id, vb.id);
  EXPECT_EQ(va.position, vb.position);
  EXPECT_EQ(va.ref, vb.ref);
  EXPECT_EQ(va.alt, vb.alt);
}

// More than one 2^16-variant block of the index; plink2 turns strata's .pgen back into the
// very .bed it came from.
TEST(PgenWriter, SeveralIndexBlocksRoundTripThroughPlink2) {
  if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  plink2(tmp, "--seed 5 --dummy 9 70001 0.1 --make-bed --out b");
  STRATA_ASSERT_OK_AND_ASSIGN(auto src, open_genotypes(tmp.str("b.bed")));
  EXPECT_FALSE(src->has_dosages());
  STRATA_ASSERT_OK(write_pgen(ctx_with(2), *src, tmp.str("w"), {}));
  plink2(tmp, "--pfile w --make-bed --out r");
  EXPECT_EQ(read_file(tmp.str("b.bed")), read_file(tmp.str("r.bed")));
  EXPECT_EQ(read_file(tmp.str("b.fam")), read_file(tmp.str("r.fam")));
}

TEST(BgenWriter, Plink2ReadsWhatItsOwnExportHolds) {
  if (!have_plink2()) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  plink2(tmp, "--seed 4 --dummy 101 250 0.05 dosage-freq=0.4 --make-pgen --out d");
  STRATA_ASSERT_OK_AND_ASSIGN(auto src, open_genotypes(tmp.str("d.pgen")));
  GenotypeWriteOptions wo;
  wo.block_variants = 29;
  STRATA_ASSERT_OK(write_bgen(ctx_with(3), *src, tmp.str("w.bgen"), wo));
  ASSERT_TRUE(fs::exists(tmp.str("w.sample")));
  plink2(tmp, "--pfile d --export bgen-1.2 bits=8 ref-first --out p");
  plink2(tmp, "--bgen p.bgen ref-first --sample p.sample --export A --out pa");
  plink2(tmp, "--bgen w.bgen ref-first --sample w.sample --export A --out wa");
  expect_same_raw(tmp.str("pa.raw"), tmp.str("wa.raw"));
  // strata reads its file as it reads plink2's, within 8-bit rounding of the source.
  STRATA_ASSERT_OK_AND_ASSIGN(auto mine, open_genotypes(tmp.str("w.bgen")));
  STRATA_ASSERT_OK_AND_ASSIGN(auto theirs, open_genotypes(tmp.str("p.bgen")));
  EXPECT_EQ(mine->samples().id, src->samples().id);
  const auto ds = all_dosages(*src), dm = all_dosages(*mine), dt = all_dosages(*theirs);
  ASSERT_EQ(ds.size(), dm.size());
  ASSERT_EQ(dt.size(), dm.size());
  for (size_t i = 0; i < ds.size(); ++i) {
    if (std::isnan(ds[i])) {
      ASSERT_TRUE(std::isnan(dm[i])) << i;
      continue;
    }
    ASSERT_NEAR(dm[i], ds[i], 1.0 / 255 + 1e-4) << i;
    ASSERT_EQ(dm[i], dt[i]) << i;
  }
}

TEST(BgenWriter, DosageQuantization) {
  uint8_t ref = 0, het = 0;
  dosage_to_bgen8(0.0f, ref, het);
  EXPECT_EQ(ref, 255);
  EXPECT_EQ(het, 0);
  dosage_to_bgen8(1.0f, ref, het);
  EXPECT_EQ(ref, 0);
  EXPECT_EQ(het, 255);
  dosage_to_bgen8(2.0f, ref, het);
  EXPECT_EQ(ref, 0);
  EXPECT_EQ(het, 0);
  dosage_to_bgen8(0.5f, ref, het);
  EXPECT_EQ(ref + het, 255);
  EXPECT_NEAR(het / 255.0, 0.5, 0.5 / 255);
  dosage_to_bgen8(1.5f, ref, het);
  EXPECT_EQ(ref, 0);
  EXPECT_NEAR(het / 255.0 + 2 * (255 - het) / 255.0, 1.5, 1.0 / 255);
}

// Errors name the file; a refused or failed write leaves nothing behind.
TEST(GenotypeWriters, FailuresLeaveNothing) {
  TempDir tmp;
  const int8_t dos[] = {0, 1, 2, 1, 0, 2};
  DosageMatrix m{dos, DosageType::Int8, 2, 3, 3, 1};
  VariantInfo info;
  info.contig = {0, 0};
  info.position = {10, 20};
  info.id = {"a", "b"};
  info.ref = {"A", "C"};
  info.alt = {"G", "T,G"};
  info.cm = {0, 0};
  SampleInfo s;
  s.id = {"x", "y", "z"};
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_dosage_genotypes(m, s, info));
  Context ctx;
  for (const std::string out : {"m.pgen", "m.bgen"}) {
    Status st = out == "m.pgen" ? write_pgen(ctx, *view, tmp.str(out)) : write_bgen(ctx, *view, tmp.str(out));
    EXPECT_EQ(st.code(), StatusCode::Unsupported) << st.to_string();
    EXPECT_NE(st.message().find(tmp.str(out)), std::string::npos) << st.to_string();
    EXPECT_NE(st.message().find("variant 2 ('b')"), std::string::npos) << st.to_string();
  }
  EXPECT_TRUE(fs::is_empty(tmp.path())) << "a refused write left files";
  Status st = write_bgen(ctx, *view, tmp.str("no/such/dir/x.bgen"));
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.to_string().find("no/such/dir"), std::string::npos) << st.to_string();
}

}  // namespace
}  // namespace strata::io
