#!/usr/bin/env bash
# The Python environment: .venv at the checkout, made with Debian's /usr/bin/python3 (not any
# other python3 on PATH), holding exactly the versions pinned in requirements.txt. Idempotent:
# pip only installs what is missing or differs. Called by scripts/install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${STRATA_VENV:-.venv}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "install-python: creating $VENV with /usr/bin/python3"
  /usr/bin/python3 -m venv "$VENV"
fi
stamp="$VENV/.requirements.sha256"
want="$(sha256sum requirements.txt | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r requirements.txt
  echo "$want" > "$stamp"
fi
echo "install-python: $VENV ready ($("$VENV/bin/python" --version), $(grep -c '==' requirements.txt) pinned packages)"
