#!/bin/sh
# ctest entry for plots_render_test.py: strata's PCA, gwas and king plots rendered and checked
# with the checkout's .venv (pytest, numpy, numba, scipy); exits 77 (skipped, with the reason)
# when that environment is absent. Usage: run.sh --strata build/tools/cli/strata
src="$(cd "$(dirname "$0")/../.." && pwd)"
py="${STRATA_VENV:-$src/.venv}/bin/python"
if [ ! -x "$py" ]; then
  echo "SKIP: no Python environment at $py (scripts/install-python.sh makes it)"
  exit 77
fi
data="${STRATA_DATA:-$src/../shared/data}"
if [ ! -f "$data/hapmap3/HM3_thinned_autosomal_overlap.bed" ]; then
  echo "SKIP: the shared HapMap3 data is not at $data/hapmap3"
  exit 77
fi
[ "$1" = "--strata" ] && STRATA_CLI="$2" && export STRATA_CLI
STRATA_DATA="$data" exec "$py" -m pytest -q -rs -p no:cacheprovider "$src/tests/plots/plots_render_test.py"
