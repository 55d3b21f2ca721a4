#!/usr/bin/env bash
# Keeps Bazel's shared disk cache (~/.cache/graphrt-bazel-disk, .bazelrc)
# under GRAPHRT_DISK_CACHE_GB (default 20) GiB: when it is larger, deletes
# the least recently written entries until it is under three quarters of
# that. Bazel 4 never prunes it, and every changed header writes a new copy
# of everything that includes it (46 GB after two weeks of CI runs here,
# which filled the disk). A deleted entry costs only a rebuild of that
# action. Run by tools/setup.sh before a build.
set -euo pipefail
dir="${GRAPHRT_DISK_CACHE:-$HOME/.cache/graphrt-bazel-disk}"
limit_gb="${GRAPHRT_DISK_CACHE_GB:-20}"
[ -d "$dir" ] || exit 0
limit=$((limit_gb * 1024 * 1024 * 1024))
used=$(du -sb "$dir" | cut -f1)
[ "$used" -gt "$limit" ] || exit 0
target=$((limit / 4 * 3))
echo "prune_bazel_cache: $dir holds $((used >> 20)) MiB, pruning to $((target >> 20)) MiB"
# Oldest first: "mtime size path" per file.
while read -r _ size path; do
  [ "$used" -gt "$target" ] || break
  rm -f -- "$path"
  used=$((used - size))
done < <(find "$dir" -type f -printf '%T@ %s %p\n' | sort -n)
