/*
 * fuzz_reader.c - libFuzzer target over llogcat's frame reader and record
 * parser: the input is a whole file, fed in two pieces (split at a point
 * taken from the input) so the "wait for more bytes" path runs too.
 * Must not crash, leak, read out of bounds or allocate beyond the bound.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "reader.h"

static void consume(struct lcr *r, bool eof)
{
	struct lcr_event ev;
	struct lcr_meta m;
	struct lcr_record rec;

	while (lcr_next(r, eof, &ev) != LCR_MORE) {
		if (ev.kind == LCR_META)
			lcr_parse_meta(ev.data, ev.len, &m);
		if (ev.kind != LCR_DATA)
			continue;
		for (size_t i = 0; i < ev.len;) {
			const char *nl = memchr(ev.data + i, '\n', ev.len - i);
			size_t n = nl ? (size_t)(nl - (ev.data + i)) : ev.len - i;

			lcr_parse_record(ev.data + i, n, &rec);
			i += n + 1;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lcr *r = lcr_new();
	size_t cut = size ? data[0] % (size + 1) : 0;
	struct lcr_record rec;

	if (r == NULL)
		return 0;
	if (lcr_feed(r, data, cut) == 0)
		consume(r, false);
	if (lcr_feed(r, data + cut, size - cut) == 0)
		consume(r, true);
	lcr_free(r);
	lcr_parse_record((const char *)data, size, &rec);
	return 0;
}
