#!/bin/sh
# fetch.sh DIR: checks out, under DIR/OWNER__REPO, each repository sources.tsv names at
# the commit it pins (one shallow fetch each), for the relevance benchmark
# (tests/relevance_bench_test.go: SKILLEDGE_RELEVANCE_REPOS=DIR). Needs git and a network.
set -eu
dir=${1:?usage: fetch.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
tail -n +2 "$here/sources.tsv" | while IFS="$(printf '\t')" read -r repo commit; do
  dest="$dir/$(echo "$repo" | sed 's|/|__|')"
  if [ -d "$dest/.git" ] && [ "$(git -C "$dest" rev-parse HEAD)" = "$commit" ]; then
    continue
  fi
  rm -rf "$dest"
  git init -q "$dest"
  git -C "$dest" fetch -q --depth 1 "https://github.com/$repo" "$commit"
  git -C "$dest" checkout -q FETCH_HEAD
  echo "fetch.sh: $repo at $commit"
done
