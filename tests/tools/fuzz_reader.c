/*
 * fuzz_reader.c - libFuzzer target over llogcat's frame reader and record
 * parser: the input is a whole file, fed in two pieces (split at a point
 * taken from the input) so the "wait for more bytes" path runs too.
 * Each record's field section (text or JSON, tools/fields.c) is parsed,
 * filtered with a --where, and its message unescaped, as llogcat does.
 * Must not crash, leak, read out of bounds or allocate beyond the bound.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "reader.h"

static struct lcf_fields fs;

/* What llogcat does with a record's fields and message. */
static void fields(const struct lcr_record *rec)
{
	static const char *const exprs[] = {"k", "k=1", "k!=\"v\"", "k>=-1.5", "k<18446744073709551615"};
	const char *why;
	char *msg;
	int rc;

	if (rec->fields != NULL) {
		rc = rec->is_json ? lcf_parse_json(rec->fields, rec->fields_len, &fs, &why)
				  : lcf_parse_text(rec->fields, rec->fields_len, &fs, &why);
		if (rc == 0) {
			for (size_t i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++) {
				struct lcf_where w;

				if (lcf_where_parse(exprs[i], &w, &why) == 0) {
					(void)lcf_where_match(&w, fs.f, fs.n);
					lcf_where_free(&w);
				}
			}
		}
	}
	msg = malloc(rec->msg_len + 1);
	if (msg != NULL) {
		(void)lcf_unescape_msg(rec->msg, rec->msg_len, msg);
		free(msg);
	}
}

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
			fields(&rec);
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
	fields(&rec);
	lcf_fields_free(&fs);
	return 0;
}
