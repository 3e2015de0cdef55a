#!/usr/bin/env bash
# The catalog's history on a data branch of the repository: every dataset version, kept durably.
#
#   scripts/history.sh restore <out> [branch]            the branch's files into <out> (nothing when
#                                                        there is no branch yet: a new history)
#   scripts/history.sh publish <out> <message> [branch]  <out> as one new commit on the branch
#
# Run in a checkout whose remote $CATALOG_REMOTE (default origin) may be pushed to. The branch
# holds only the output folder's files; each commit adds the versions of one CI run, so its tip
# holds them all and a shallow fetch of it restores the whole history. Publishing uses its own
# index and never touches the checkout's work tree, index or branches.
set -euo pipefail

remote=${CATALOG_REMOTE:-origin}
command=${1:?restore or publish}
out=${2:?the output folder}

case "$command" in
restore)
  branch=${3:-catalog-data}
  if ! git ls-remote --exit-code --heads "$remote" "$branch" >/dev/null; then
    echo "no branch $branch on $remote yet: the history starts with this run"
    exit 0
  fi
  git fetch --quiet --depth=1 "$remote" "+refs/heads/$branch:refs/remotes/$remote/$branch"
  mkdir -p "$out"
  git archive "refs/remotes/$remote/$branch" | tar -x -C "$out"
  echo "restored $(git rev-parse --short "refs/remotes/$remote/$branch") of $branch into $out"
  ;;
publish)
  message=${3:?a commit message}
  branch=${4:-catalog-data}
  parent=$(git rev-parse --quiet --verify "refs/remotes/$remote/$branch^{commit}" || true)
  index=$(mktemp)
  trap 'rm -f "$index"' EXIT
  rm -f "$index"
  gitdir=$(git rev-parse --absolute-git-dir)
  tree_dir=$(cd "$out" && pwd)
  # Note: --force, since the checkout's ignore rules (output/*) are not this tree's.
  GIT_INDEX_FILE=$index git --git-dir="$gitdir" --work-tree="$tree_dir" -C "$tree_dir" add --all --force .
  tree=$(GIT_INDEX_FILE=$index git --git-dir="$gitdir" write-tree)
  if [ -n "$parent" ] && [ "$tree" = "$(git rev-parse "$parent^{tree}")" ]; then
    echo "$branch already holds this output: nothing to publish"
    exit 0
  fi
  commit=$(GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-error-catalog} GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-error-catalog@users.noreply.github.com} \
    GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-error-catalog} GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-error-catalog@users.noreply.github.com} \
    git commit-tree "$tree" ${parent:+-p "$parent"} -m "$message")
  git push --quiet "$remote" "$commit:refs/heads/$branch"
  echo "published $(git rev-parse --short "$commit") to $branch"
  ;;
*)
  echo "usage: scripts/history.sh restore <out> [branch] | publish <out> <message> [branch]" >&2
  exit 2
  ;;
esac
