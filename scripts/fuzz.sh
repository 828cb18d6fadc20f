#!/usr/bin/env bash
# Runs every Fuzz* target in the module for a fixed budget each ($1, default
# 10000x: that many executions). Targets are discovered from the sources so a
# new fuzz test is never forgotten.
#
# The budget is a count, not a duration: with a duration, Go's fuzzing
# coordinator can race its own deadline on a loaded machine and fail the
# target with a bare "context deadline exceeded", no input found. A count
# has no deadline to race; a slow machine only takes longer.
set -euo pipefail
fuzztime=${1:-10000x}
cd "$(dirname "$0")/.."
status=0
while IFS=: read -r file name; do
  pkg="./$(dirname "$file")"
  echo "fuzz $pkg $name ($fuzztime)"
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg"; then status=1; fi
done < <(grep -rHoE --include='*_test.go' '^func (Fuzz[A-Za-z0-9_]+)' . | sed -E 's/^\.\///; s/func //' | sort -u)
exit $status
