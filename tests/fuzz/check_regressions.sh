#!/usr/bin/env bash
# Every deck in DIR once crashed or hung `tridsim check`; each must now be either valid (exit 0,
# nothing printed with -q) or refused cleanly: exit 1 and one line "error: ..." (where a deck has
# several errors, each after it on an indented line of its own).
# Usage: check_regressions.sh TRIDSIM DIR WORK_DIR
set -u
tridsim=$1 dir=$(cd "$2" && pwd) work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0 count=0
for deck in "$dir"/*.yaml; do
  [ -e "$deck" ] || continue
  count=$((count + 1))
  name=$(basename "$deck" .yaml)
  timeout 60 "$tridsim" check -q "$deck" > "$name.log" 2>&1
  rc=$?
  lines=$(wc -l < "$name.log")
  if [ $rc -eq 0 ] && [ "$lines" -eq 0 ]; then continue; fi
  if [ $rc -eq 1 ] && head -1 "$name.log" | grep -q '^error: ' && [ "$(grep -c '^error: ' "$name.log")" -eq 1 ] &&
    [ "$(tail -n +2 "$name.log" | grep -vc '^  ')" -eq 0 ]; then continue; fi
  echo "FAIL: $name: exit code $rc, $lines lines of output (want 0 and none, or 1 and one 'error:' line, then indented ones):"
  head -20 "$name.log"
  failures=$((failures + 1))
done
echo "$((count - failures)) of $count regression decks passed"
[ $count -gt 0 ] && [ $failures -eq 0 ]
