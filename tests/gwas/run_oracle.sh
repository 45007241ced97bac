#!/bin/sh
# ctest entry for firth_oracle_test.py: runs it with the checkout's .venv (numpy, scipy); exits
# 77 (skipped, with the reason) when that environment is absent.
src="$(cd "$(dirname "$0")/../.." && pwd)"
py="${STRATA_VENV:-$src/.venv}/bin/python"
if [ ! -x "$py" ]; then
  echo "SKIP: no Python environment at $py (scripts/install-python.sh makes it)"
  exit 77
fi
exec "$py" "$src/tests/gwas/firth_oracle_test.py" --data "$src/../shared/data" "$@"
