#pragma once
/// \file
/// VCF/BCF input through htslib, only to convert: analysis always reads VCF Zarr or `.bed`.
///
/// Records are read once, in file order, with htslib's multi-threaded BGZF decompression.
/// To VCF Zarr: `call_genotype` keeps allele indices, ploidy (−2 fills shorter calls; the
/// ploidy axis is the file's maximum) and phasing (`call_genotype_phased`); REF/ALT go to
/// `variant_allele`, CHROM to `variant_contig` (indexing `contig_id`: the header's contigs,
/// then any others in order of appearance), POS, ID. A record without a GT field has all
/// calls missing. A file whose header declares no GT converts to a sites-only store (no call
/// arrays) with a warning; INFO and other FORMAT fields are not converted.
/// To PLINK 1: calls become ALT-dosage codes (genotype.hpp rules), multi-allelic sites are
/// skipped unless MultiallelicMode::NonRefDosage is chosen; a VCF without GT is an error.
///
/// Errors name the file and the record (1-based, with the previous CHROM:POS): malformed
/// records (htslib parse errors, a wrong number of sample columns, POS < 1, GT alleles the
/// record does not have) and records out of order (a contig that reappears after another
/// contig, or a decreasing position). A contig declared twice in the header is merged by
/// htslib and needs no check here. A failed conversion leaves no output.

#include <string>

#include "strata/core/result.hpp"
#include "strata/io/genotype_convert.hpp"

namespace strata::io {

/// \brief Convert a `.vcf`, `.vcf.gz` or `.bcf` file to VCF Zarr (`output` ending in `.vcz` or
/// `.zarr`) or to a PLINK 1 fileset. Unsupported when strata was built without htslib.
Result<ConvertReport> convert_vcf(const Context& ctx, const std::string& input, const std::string& output,
                                  const ConvertOptions& options);

}  // namespace strata::io
