# lib.sh - helpers that write llog-format files without the file sink, and
# the case helpers of the llogcat tests (sourced by test_llogcat.sh,
# test_fields_cat.sh and run_fuzz.sh).

# ---- case helpers: use $CASE (the case's name) and $T (its scratch folder)

# die MESSAGE: fails the case.
die() {
	echo "FAIL ($CASE): $*" >&2
	exit 1
}

# run CMD...: runs it, sets rc, out (stdout file) and err (stderr file).
run() {
	set +e
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	set -e
}

# expect_rc STATUS WHAT: the last run exited with STATUS.
expect_rc() {
	[[ $rc == "$1" ]] || { cat "$T/err" >&2; die "exit status $rc, expected $1: $2"; }
}

# same FILE_A FILE_B WHAT: the files are equal.
same() {
	cmp -s "$1" "$2" || { diff "$1" "$2" | head -20 >&2; die "$3"; }
}

# ---- llog-format files

# make_lines N [FIRST] [TAG]: N text records in llog's text layout
# (liblog/format/line.c), one second apart from 2026-12-03T08:00:00Z + FIRST s,
# levels cycling TRACE..FATAL, messages "TAG record K".
make_lines() {
	awk -v n="$1" -v first="${2:-0}" -v tag="${3:-m}" 'BEGIN {
		split("TRACE DEBUG INFO  WARN  ERROR FATAL", lv, " ")
		lv[3] = "INFO "; lv[4] = "WARN "
		for (i = 0; i < n; i++) {
			k = first + i
			printf "2026-12-03T%02d:%02d:%02d.%09dZ %s [%d] app.c:%d %s record %d\n",
				8 + int(k / 3600), int(k / 60) % 60, k % 60, 123456789, lv[k % 6 + 1],
				100 + k % 3, 10 + k, tag, k
		}
	}'
}

# le32 V: V as 4 little-endian bytes.
le32() {
	printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) \
		$(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}

# meta_frame CREATED_NS SEQ_FIRST: an llog metadata skippable frame.
meta_frame() {
	local payload
	payload=$(printf 'llog-meta 1\nhost=testhost\npid=42\nprogram=test\ncreated_ns=%s\nseq_first=%s\nformat=text\n_' "$1" "$2")
	payload=${payload%_}
	printf '\x5b\x2a\x4d\x18'
	le32 ${#payload}
	printf '%s' "$payload"
}

# frame LEVEL FILE: FILE's bytes as one data frame (content size + checksum).
frame() {
	zstd -q "-$1" --check -c "$2"
}

# meta_frame_v VERSION [CREATED_NS] [EXTRA_LINES]: a metadata frame saying
# "llog-meta VERSION" (version 2 has field sections).
meta_frame_v() {
	local payload
	payload=$(printf 'llog-meta %s\nhost=testhost\npid=42\nprogram=test\ncreated_ns=%s\nseq_first=1\nformat=text\n%s_' \
		"$1" "${2:-1796285982000000000}" "${3:-}")
	payload=${payload%_}
	printf '\x5b\x2a\x4d\x18'
	le32 ${#payload}
	printf '%s' "$payload"
}

# tabs FILE: FILE with each "<TAB>" replaced by a TAB byte (in place).
tabs() {
	sed -i 's/<TAB>/\t/g' "$1"
}
