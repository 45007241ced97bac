#pragma once
/// \file
/// Phenotype and covariate tables as plink2 reads them (`--pheno`, `--covar`): whitespace-
/// separated, one row per sample, a header `#FID IID A B …` (or `FID IID …`, `#IID …`,
/// `IID …`; a file without a header has FID and IID columns and takes the names PHENO1… /
/// COVAR1…). `NA` and `-9` are missing. Rows are matched to the genotype input's samples by
/// (FID, IID) when the file has FIDs, else by IID among the samples whose FID is 0 or absent
/// (plink2 reads a missing FID column as FID 0); rows naming samples the input lacks are
/// skipped and counted.
///
/// A UTF-8 byte order mark and `##` lines before the header are skipped. Covariate columns
/// holding text are categorical: one 0/1 indicator `NAME=CATEGORY` per category but the first
/// in sorted order; a covariate with no value at all is left out (both with a warning).
///
/// Phenotype columns are binary (case/control) when every non-missing value is 1 or 2
/// (control/case; 0 is missing too), or, with `zero_one_binary` (plink2 `--1`), 0 or 1;
/// otherwise quantitative. Binary values are stored 0 = control, 1 = case.

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics {

/// \brief One column of a table, aligned to the genotype input's samples (NaN = missing or
/// not in the file).
struct SampleColumn {
  std::string name;
  bool binary = false;        ///< case/control (values 0/1); phenotypes only
  std::vector<double> values; ///< one per genotype sample
};

/// \brief A phenotype or covariate table aligned to the genotype input's samples.
struct SampleTable {
  std::vector<SampleColumn> columns;
  int64_t rows = 0;           ///< data rows in the file
  int64_t matched_rows = 0;   ///< rows naming a sample of the input
  int64_t unknown_rows = 0;   ///< rows naming samples the input lacks (skipped)
  std::vector<std::string> warnings;  ///< covariates split into categories or left out
};

/// \brief How to read a table.
struct SampleTableOptions {
  bool phenotypes = true;       ///< phenotypes (binary detection, PHENO names) or covariates
  bool zero_one_binary = false; ///< plink2 `--1`: binary phenotypes coded 0 = control, 1 = case
  /// Number of the first headerless column (PHENO<k>): plink2 counts the `.fam`'s phenotype as
  /// PHENO1 when it has a value, so a headerless `--pheno` file's columns start at PHENO2.
  int first_number = 1;
  /// Columns to keep, in this order (plink2 `--pheno-name` / `--covar-name`); empty = all.
  std::vector<std::string> names;
};

/// \brief A table already in memory (Python's DataFrame, dict or numpy columns): one row per
/// sample of the genotype input, in the input's order before any selection. It goes through the
/// file reader's checks and rules (column choice, -9 missing, case/control detection, --1,
/// categorical covariates), so a table and its file give the same SampleTable.
struct SampleTableData {
  std::string source = "the table";  ///< names the table in messages and warnings
  int64_t rows = 0;                  ///< rows of every column
  /// A value is missing when it is NaN (or -9, as in a file). In memory a phenotype whose
  /// values are all 0/1 is case/control (0 control), whatever zero_one_binary says.
  struct Column {
    std::string name;
    /// float64 values, not owned (they must outlive the call): value i at values[i * stride].
    const double* values = nullptr;
    int64_t stride = 1;
    /// Or text cells, as a file holds them (numbers, "NA", category names) when values is null.
    std::vector<std::string> cells;
  };
  std::vector<Column> columns;
};

/// \brief Align `data` to `samples` (the selected samples; `source_rows`: their rows in `data`,
/// empty = every row in order). Errors as read_sample_table's, with rows in place of lines.
Result<SampleTable> align_sample_table(const SampleTableData& data, const io::SampleInfo& samples,
                                       const std::vector<int64_t>& source_rows, const SampleTableOptions& options);

/// \brief Read `path` and align it to `samples`. Corrupt for malformed rows (wrong field
/// count, non-numeric values), InvalidData for duplicate samples, unknown column names or a
/// file none of whose rows names a sample of the input.
Result<SampleTable> read_sample_table(const std::string& path, const io::SampleInfo& samples,
                                      const SampleTableOptions& options);

/// \brief Split a comma-separated list of names ("A,B" → {"A", "B"}); empty parts dropped.
std::vector<std::string> split_names(const std::string& list);

}  // namespace strata::genomics
