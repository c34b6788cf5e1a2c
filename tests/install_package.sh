#!/usr/bin/env bash
# Installs the built clsort into a temporary prefix and builds and runs a find_package consumer.
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
