#!/bin/sh
# busy.sh N COMMAND...: runs COMMAND while N processes keep the CPUs busy, then stops them.
# A test that passes here does not depend on the machine being idle.
n=$1
shift
pids=
i=0
while [ "$i" -lt "$n" ]; do
	yes >/dev/null &
	pids="$pids $!"
	i=$((i + 1))
done
trap 'kill $pids 2>/dev/null' EXIT INT TERM
echo "busy.sh: $n busy processes beside: $*" >&2
"$@"
rc=$?
exit $rc
