/*
 * fuzz_binrec.c - libFuzzer target over llogcat's binary record decoder
 * (tools/binrec.c) and the renderer it calls. The first byte picks how the
 * rest is read:
 *   0      a whole file, through the frame reader (reader.h) as llogcat
 *          reads it: sites frames into the decoder, binary data frames
 *          rendered (text, then JSON);
 *   other  u16le n, n bytes of a sites payload, then a data frame's content:
 *          straight into the decoder, past zstd's checksums, so mutations
 *          reach every field of a record and of a site definition.
 * Must not crash, leak, read out of bounds or hang.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "binrec.h"
#include "reader.h"

static void out(void *ctx, const struct llog_entry *e, const char *line, size_t len)
{
	(void)ctx;
	(void)e;
	(void)line;
	(void)len;
}

static void frame(struct lcb *b, const char *p, size_t n)
{
	const char *why;

	(void)lcb_frame(b, p, n, LLOG_FORMAT_TEXT, out, NULL, &why);
	(void)lcb_frame(b, p, n, LLOG_FORMAT_JSON, out, NULL, &why);
}

static void whole_file(struct lcb *b, const uint8_t *data, size_t size)
{
	struct lcr *r = lcr_new();
	struct lcr_event ev;
	const char *why;

	if (r == NULL || lcr_feed(r, data, size) != 0) {
		lcr_free(r);
		return;
	}
	while (lcr_next(r, true, &ev) != LCR_MORE) {
		if (ev.kind == LCR_SITES)
			(void)lcb_sites(b, ev.data, ev.len, &why);
		else if (ev.kind == LCR_DATA && lcb_is_binary(ev.data, ev.len))
			frame(b, ev.data, ev.len);
	}
	lcr_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lcb *b = lcb_new();
	const char *why;

	if (b == NULL || size < 1) {
		lcb_free(b);
		return 0;
	}
	if (data[0] == 0) {
		whole_file(b, data + 1, size - 1);
	} else if (size >= 3) {
		size_t n = (size_t)data[1] | (size_t)data[2] << 8;

		if (n > size - 3)
			n = size - 3;
		(void)lcb_sites(b, (const char *)data + 3, n, &why);
		frame(b, (const char *)data + 3 + n, size - 3 - n);
	}
	lcb_free(b);
	return 0;
}
