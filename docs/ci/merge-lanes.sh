#!/bin/sh
# Merge every pushed lane branch (ralph/*) into the checked-out branch, one at a time.
# Stops at the first conflict with the branch named: nothing is resolved silently; run that
# lane again (ralph run --spec PATH on its branch, after merging this branch into it).
# Usage: merge-lanes.sh [REMOTE]   (default: origin)
set -eu
remote="${1:-origin}"
git fetch --quiet "$remote" '+refs/heads/ralph/*:refs/remotes/'"$remote"'/ralph/*'
for ref in $(git for-each-ref --format='%(refname:short)' "refs/remotes/$remote/ralph/"); do
  if ! git merge --no-edit --quiet "$ref"; then
    git merge --abort
    echo "merge-lanes: $ref conflicts with $(git rev-parse --abbrev-ref HEAD); merge it into the lane and run the lane again" >&2
    exit 1
  fi
  echo "merged $ref"
done
