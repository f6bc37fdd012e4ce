#!/bin/sh
# Five edits a spec author makes to spec/openapi.yaml (issue 24), each applied alone to a copy
# of this checkout, and the tests that fail after each, with the first line of what each
# says: `make spec-edits [SPEC_EDITS="EDIT..."]`, or
#   sh scripts/spec-edits.sh [EDIT...]      EDIT: none limit-max-50 new-status status-required name-param delete-pet
# "none" runs the copy unedited, so a failure that is the machine's (load) shows there too.
# The copy is a clone of the commit checked out (REV=<commit> for another) with the
# uncommitted changes and untracked files of the working tree (none with REV), taken once at
# the start, beside a link to ../shared (the interface document); it is removed at the end
# (KEEP=1 keeps it and the go test -json logs, and prints where). Each run is `go test -json -count=1 -p $P ./...` (no -race; P
# defaults to 2). Not part of make test: each edit runs the whole suite once (minutes).
# Needs git, perl and jq.
set -eu

P=${P:-2}
root=$(git rev-parse --show-toplevel)
for tool in perl jq; do
	command -v $tool >/dev/null 2>&1 || { echo "spec-edits: needs $tool" >&2; exit 2; }
done
[ $# -gt 0 ] || set -- none limit-max-50 new-status status-required name-param delete-pet
work=$(mktemp -d "${TMPDIR:-/tmp}/spec-edits.XXXXXX")
if [ "${KEEP:-}" = 1 ]; then
	echo "spec-edits: copies and logs kept in $work"
else
	trap 'rm -rf "$work"' EXIT INT TERM
fi
# Tests read the interface document beside the checkout (../shared); the copies lie beside
# a link to it.
[ ! -d "$root/../shared" ] || ln -s "$(cd "$root/../shared" && pwd)" "$work/shared"

# edit NAME FILE applies the edit NAME to the spec FILE with perl, failing when the text it
# changes is not there.
edit() {
	case $1 in
	none) return 0 ;;
	limit-max-50) re='s/(- name: limit\n(?:.*\n)*?            maximum: )100\n/${1}50\n/' ;;
	new-status) re='s/(    PetStatus:\n(?:.*\n)*?        - sold\n)/${1}        - reserved\n/' ;;
	status-required) re='s/(    NewPet:\n(?:.*\n)*?      required:\n        - name\n        - categoryId\n)/${1}        - status\n/' ;;
	name-param)
		re='s/(          \$ref: .#\/components\/schemas\/PetStatus.\n          example: available\n)/${1}        - name: name\n          in: query\n          required: false\n          description: Only the animals with this name.\n          schema:\n            type: string\n          example: Rex\n/' ;;
	delete-pet)
		re='s/(  \/pets\/\{petId\}:\n)/${1}    delete:\n      operationId: deletePet\n      summary: Remove an animal\n      tags:\n        - animals\n      parameters:\n        - name: petId\n          in: path\n          required: true\n          schema:\n            type: integer\n            format: int64\n          example: 1\n      responses:\n        \x27204\x27:\n          description: Removed.\n        \x27401\x27:\n          \$ref: \x27#\/components\/responses\/Unauthorized\x27\n        \x27404\x27:\n          description: Not found.\n          content:\n            application\/json:\n              schema:\n                \$ref: \x27#\/components\/schemas\/Error\x27\n/' ;;
	*) echo "spec-edits: unknown edit $1" >&2; exit 2 ;;
	esac
	perl -0777 -i -pe "\$n = $re; \$n or die \"spec-edits: $1: the text it edits is not in the spec\\n\"" "$2"
}

# The checkout as it is now, copied once: the commit checked out with the uncommitted changes
# and untracked files, or REV alone when given.
base=$work/.base
git clone -q --shared --no-checkout "$root" "$base"
git -C "$base" checkout -q --detach "$(git -C "$root" rev-parse "${REV:-HEAD}^{commit}")"
if [ -z "${REV:-}" ]; then
	git -C "$root" diff --binary HEAD >"$base.diff"
	[ ! -s "$base.diff" ] || git -C "$base" apply --whitespace=nowarn "$base.diff"
	git -C "$root" ls-files -z --others --exclude-standard >"$work/.untracked"
	[ ! -s "$work/.untracked" ] || (cd "$root" && tar cf - --null -T "$work/.untracked") | tar xf - -C "$base"
fi

# Each edit is made in the same copy, one at a time, so that go reuses what it built for the
# previous one (a build depends on its directory).
cp "$base/spec/openapi.yaml" "$work/openapi.yaml"
summary=
for name in "$@"; do
	dir=$work/$name
	cp "$work/openapi.yaml" "$base/spec/openapi.yaml"
	edit "$name" "$base/spec/openapi.yaml"
	echo "== $name: go test -json -count=1 -p $P ./..."
	(cd "$base" && go test -json -count=1 -p "$P" -timeout 20m ./... >"$dir.json" 2>"$dir.stderr") || true
	# Leaf tests that failed: a failed test none of whose subtests failed.
	jq -r 'select(.Action == "fail" and .Test != null) | .Package + " " + .Test' "$dir.json" | sort -u >"$dir.failed"
	awk '{ name[NR] = $0 } END {
		for (i = 1; i <= NR; i++) {
			leaf = 1
			for (j = 1; j <= NR; j++) if (index(name[j], name[i] "/") == 1) leaf = 0
			if (leaf) print name[i]
		}
	}' "$dir.failed" >"$dir.leaves"
	pkgs=$(jq -r 'select(.Action == "fail" and .Test == null) | .Package' "$dir.json" | sort -u | wc -l)
	tests=$(wc -l <"$dir.leaves")
	while read -r pkg test; do
		# What the test says, on one line: testify's Messages, else a line it logged, else
		# testify's Error.
		said=$(jq -r --arg p "$pkg" --arg t "$test" 'select(.Action == "output" and .Package == $p and .Test == $t) | .Output' "$dir.json" |
			awk '/^[ \t]+Messages:/ { print; found = 1; exit }
				/^[ \t]+[A-Za-z0-9_]+\.go:[0-9]+: [^ ]/ && g == "" { g = $0 }
				/^[ \t]+Error:/ && e == "" { e = $0 }
				END { if (!found) print (g != "" ? g : e) }' |
			tr -s ' \t' '  ' | sed 's/^ //' | cut -c1-160)
		case $pkg in github.com/petstore/petstore) pkg=. ;; *) pkg=${pkg#github.com/petstore/petstore/} ;; esac
		printf '  %s %s: %s\n' "$pkg" "$test" "$said"
	done <"$dir.leaves"
	if grep -q . "$dir.stderr"; then
		echo "  (go test wrote to stderr:)"; sed 's/^/    /' "$dir.stderr" | head -20
	fi
	line=$(printf '%-16s %4s failing tests in %s packages' "$name" "$tests" "$pkgs")
	echo "$line"
	summary="$summary$line
"
done
echo
echo "== spec-edits: failing tests (leaf tests and subtests) per edit"
printf '%s' "$summary"
