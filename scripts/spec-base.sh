#!/bin/sh
# Prints the commit that `make spec-check` compares spec/openapi.yaml with, and on stderr one
# line saying which base that is. In order:
#   SPEC_BASE, when set (a tag, branch or commit);
#   the newest tag reachable from HEAD (the last release);
#   the merge base of HEAD with the default branch: origin's (origin/HEAD, else asked of
#   origin and fetched when missing), else a local main or master.
# With none of these it fails (exit 2) with one line naming SPEC_BASE: it never lets the spec
# be compared with itself in silence.
set -u
fail() {
	echo "spec-check: $*; give a base: make spec-check SPEC_BASE=<tag|branch|commit>" >&2
	exit 2
}
commit() { git rev-parse -q --verify "$1^{commit}" 2>/dev/null; }

git rev-parse --git-dir >/dev/null 2>&1 || fail "not a git repository, so no base to compare the spec with"

if [ -n "${SPEC_BASE:-}" ]; then
	c=$(commit "$SPEC_BASE") || fail "SPEC_BASE=$SPEC_BASE is not a commit of this clone (git fetch it first)"
	echo "spec-check: base $SPEC_BASE ($(git rev-parse --short "$c"), from SPEC_BASE)" >&2
	echo "$c"
	exit 0
fi

if tag=$(git describe --tags --abbrev=0 2>/dev/null); then
	echo "spec-check: base $tag (the newest tag)" >&2
	commit "$tag"
	exit 0
fi

# origin's default branch, fetched when this clone does not have it (a CI checkout).
origin_default() {
	git remote get-url origin >/dev/null 2>&1 || return 1
	if ref=$(git symbolic-ref -q --short refs/remotes/origin/HEAD); then
		echo "$ref"
		return 0
	fi
	branch=$(git ls-remote --symref origin HEAD 2>/dev/null | sed -n 's|^ref: refs/heads/\([^	]*\)	HEAD$|\1|p')
	[ -n "$branch" ] || return 1
	if ! commit "refs/remotes/origin/$branch" >/dev/null; then
		git fetch -q --no-tags origin "+refs/heads/$branch:refs/remotes/origin/$branch" >&2 || return 1
	fi
	echo "origin/$branch"
}

ref=$(origin_default) || ref=""
if [ -z "$ref" ]; then
	for b in main master; do
		if commit "refs/heads/$b" >/dev/null; then
			ref=$b
			break
		fi
	done
fi
[ -n "$ref" ] || fail "no tag, no main branch and no default branch of origin to compare the spec with"

if ! mb=$(git merge-base HEAD "$ref" 2>/dev/null); then
	# A shallow checkout may lack the common history: deepen it once.
	if [ "$(git rev-parse --is-shallow-repository)" = true ] && git fetch -q --no-tags --unshallow origin >&2; then
		mb=$(git merge-base HEAD "$ref" 2>/dev/null) || fail "HEAD and $ref have no common commit"
	else
		fail "HEAD and $ref have no common commit (a shallow clone?)"
	fi
fi
short=$(git rev-parse --short "$mb")
if [ "$mb" = "$(git rev-parse HEAD)" ]; then
	echo "spec-check: base $ref ($short), which is HEAD itself: only uncommitted changes to the spec are compared" >&2
else
	echo "spec-check: base $ref (merge base $short)" >&2
fi
echo "$mb"
