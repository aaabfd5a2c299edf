#!/usr/bin/env bash
# scripts/check_filemap.sh - the file maps say the tree as it is.
#
#   bash scripts/check_filemap.sh
#
# liblog/README.md (the library, the format layer and the public headers),
# backends/README.md and tools/README.md each list their folder's source
# files, one entry a file: a line "- `path`: its job", the path from the
# repository root. Every C source or header under liblog/, include/,
# backends/ and tools/ (and tools/' manual page, *.1) must be listed
# exactly once, and every listed path must exist. Exits 1 and names each file otherwise. Needs no build.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
maps=(liblog/README.md backends/README.md tools/README.md)
dirs=(liblog include backends tools)

listed=$(mktemp)
present=$(mktemp)
trap 'rm -f "$listed" "$present"' EXIT

for m in "${maps[@]}"; do
	[[ -f $m ]] || {
		echo "check_filemap: $m is missing" >&2
		exit 1
	}
	sed -n 's/^- `\([^`]*\)`.*/\1/p' "$m"
done | sort >"$listed"
find "${dirs[@]}" -type f \( -name '*.c' -o -name '*.h' -o -name '*.1' \) | sort >"$present"

status=0
while read -r f; do
	echo "check_filemap: $f is listed twice in the file maps" >&2
	status=1
done < <(uniq -d "$listed")
while read -r f; do
	echo "check_filemap: $f is not in a file map (${maps[*]}): add a line \"- \`$f\`: its job\"" >&2
	status=1
done < <(comm -13 <(sort -u "$listed") "$present")
while read -r f; do
	echo "check_filemap: $f is listed in a file map but does not exist" >&2
	status=1
done < <(comm -23 <(sort -u "$listed") "$present")
if ((status == 0)); then
	echo "check_filemap: $(wc -l <"$present") source files, each listed once in ${maps[*]}"
fi
exit "$status"
