#!/usr/bin/env bash
# Runs every Fuzz* target in the module for a short time each ($1, default 5s).
# Targets are discovered from the sources so a new fuzz test is never forgotten.
set -euo pipefail
fuzztime=${1:-5s}
cd "$(dirname "$0")/.."
status=0
while IFS=: read -r file name; do
  pkg="./$(dirname "$file")"
  echo "fuzz $pkg $name ($fuzztime)"
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg"; then status=1; fi
done < <(grep -rHoE --include='*_test.go' '^func (Fuzz[A-Za-z0-9_]+)' . | sed -E 's/^\.\///; s/func //' | sort -u)
exit $status
