#pragma once
// strata gwas: the model set-up (phenotypes, their groups) shared by gwas.cpp and gwas_run.cpp.
#include <string>
#include <vector>

#include "gwas_internal.hpp"
#include "strata/genomics/pheno.hpp"

namespace strata::genomics::gwas_detail {

struct Phenotype {
  std::string name;
  bool logistic = false;
  int64_t samples = 0, cases = 0, controls = 0;
  int group = 0, index_in_group = 0;
};

struct Model {
  std::vector<Phenotype> phenotypes;
  std::vector<Group> groups;
  std::vector<std::string> covariates, warnings;
  int64_t product_width = 0;  // columns of [Q | Y_r] over every linear group
  int64_t linear_groups = 0;
  std::vector<int64_t> table_rows;  // the samples' rows in in-memory tables (ModelScope::table_rows)
};

// Which samples a model uses and what it adds (plink2's chrX and chrY models): `include` (one
// flag per sample; empty = all) and `sex_covariate` (one value per sample, NaN unknown: such
// samples leave the model; empty = none), added after the covariate file's columns as SEX.
struct ModelScope {
  std::vector<char> include;
  std::vector<double> sex_covariate;
  // In-memory tables (GwasOptions::pheno_table): each sample's row, i.e. its index in the
  // input before the selection (null: every row in order).
  const std::vector<int64_t>* table_rows = nullptr;
};

// Read the tables and set every phenotype's model up (InvalidData for phenotypes that cannot be
// tested and for collinear covariates).
Result<Model> build_model(const Context& ctx, const io::SampleInfo& samples, const GwasOptions& o,
                          const ModelScope& scope = {});

}  // namespace strata::genomics::gwas_detail
