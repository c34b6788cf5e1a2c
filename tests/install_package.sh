#!/usr/bin/env bash
# Installs the built clsort into a temporary prefix and builds and runs a find_package consumer;
# then moves the prefix and checks that its clsort still finds the profiles installed with it.
set -euo pipefail
build=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > /dev/null
test -x "$work/prefix/bin/clsort"
test -f "$work/prefix/include/clsort/clsort.hpp"
cmake -S "$source_dir/tests/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" > /dev/null
cmake --build "$work/consumer" > /dev/null
"$work/consumer/consumer"
echo "installed clsort found by find_package, consumer sorted correctly"

# The profile the default device gets from the shipped ones; on a device none fits, a short tune
# writes one into the prefix's profile folder, which then plays the shipped profile's part.
unset CLSORT_PROFILE CLSORT_PROFILE_PATH CLSORT_SHIPPED_PROFILES
export XDG_DATA_HOME="$work/no-user-profiles"
profiles="$work/prefix/share/clsort/profiles"
if ! "$work/prefix/bin/clsort" devices | grep -q "profile: $profiles/"; then
  "$work/prefix/bin/clsort-tune" --classes 32:0 --sizes 10 --budget 5s -q -o "$profiles/own.json"
fi
expected=$("$work/prefix/bin/clsort" devices | grep -m1 -o "profile: $profiles/[^ ]*" | sed "s|.*/||")
test -n "$expected" || { echo "no profile of the prefix is used before the move" >&2; exit 1; }
mv "$work/prefix" "$work/moved"
listing=$("$work/moved/bin/clsort" devices)
echo "$listing" | grep -q "profile: $work/moved/share/clsort/profiles/$expected" || {
  echo "after the move clsort devices names no profile of the moved prefix:" >&2
  echo "$listing" >&2
  exit 1
}
echo "moved prefix: clsort devices still names $expected from the moved prefix"
