#!/usr/bin/env bash
# Install what the CLI needs, build the CLI alone, and run strata's main job (README command 1):
# simulate a structured cohort → allele frequencies → PCA → plot, plus a Zarr round trip.
# Only the `strata` CLI is built (no tests, no CUDA module, no MPI): scripts/test.sh builds the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
bash scripts/install-deps.sh --minimal
T1=$(date +%s)
bash scripts/build.sh --cli
T2=$(date +%s)
STRATA="$(pwd)/${STRATA_BUILD_DIR:-build}/tools/cli/strata"
OUT="${STRATA_DEMO_DIR:-demo-out}"
rm -rf "$OUT" && mkdir -p "$OUT"

echo "== simulate: 2,000 samples x 20,000 variants, 3 populations, F_ST 0.05, 1% missing"
"$STRATA" simulate --samples 2000 --variants 20000 --pops 3 --fst 0.05 --missing 0.01 --seed 7 \
  --out "$OUT/cohort" --format both -q

echo "== the VCF Zarr store strata wrote"
"$STRATA" zarr info "$OUT/cohort.vcz" | head -24

echo "== allele frequencies (plink2 .afreq format)"
"$STRATA" freq "$OUT/cohort" --out "$OUT/cohort" -q
head -4 "$OUT/cohort.afreq"

echo "== PCA, k = 10 (missing genotypes mean-imputed)"
"$STRATA" pca "$OUT/cohort.vcz" -k 10 --out "$OUT/cohort_pca" --report "$OUT/pca_run.json" -q
echo "eigenvalues (GRM 1/M scale):"
head -10 "$OUT/cohort_pca.eigenval"
head -3 "$OUT/cohort_pca.eigenvec" | cut -f1-6
echo "plot: $OUT/cohort_pca.svg"
T3=$(date +%s)
echo "== seconds: packages $((T1 - T0)), build $((T2 - T1)), demo $((T3 - T2)); total $((T3 - T0))"
