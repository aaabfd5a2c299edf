/*
 * fields.h - llogcat's structured fields (docs/fields.md): the
 * field section of a text line parsed back into typed fields, a version-2
 * message unescaped, and the --where filter (tools-internal).
 *
 * DESIGN
 * lcf_parse_text is a strict parser of the grammar of docs/fields.md 3:
 *   section := item (' ' item)*
 *   item    := KEY '=' VALUE | '+' N          ('+N' only as the last item)
 *   KEY     := [A-Za-z0-9_.-/:@]+ | QUOTED
 *   VALUE   := QUOTED ['...'] | INT | FLOAT | true | false | null
 *              | nan | inf | -inf
 *   QUOTED  := '"' (byte other than '"' '\' C0 DEL | '\' ["\nrt] | '\x' HEX HEX)* '"'
 * An INT (-?[1-9][0-9]* or 0) that fits int64 is I64, a larger one that
 * fits uint64 U64; a FLOAT has a '.' or an exponent. Anything else (an
 * unterminated quote, an unknown escape, a missing '=', a number out of
 * range, two spaces, junk) makes the whole section malformed, with a
 * reason: it is never guessed at. Invariant of a parse:
 *   fields_truncated == more (the +N) + number of values flagged
 *   LLOG_FIELD_TRUNCATED (each written with '...').
 *
 * The filter (lcf_where_*) works on an array of struct llog_field, so the
 * fields parsed from a text line and those a binary record carries
 * (binrec.c) go through the same code.
 *
 * Not thread-safe: a struct lcf_fields is one reader's scratch space.
 */
#ifndef LLOGCAT_FIELDS_H
#define LLOGCAT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llog.h>

/* The fields of one record, parsed; reused from record to record. The
 * strings point into buf (NUL-terminated). */
struct lcf_fields {
	struct llog_field *f;
	size_t n, cap;
	uint32_t more;             /* the +N: fields left out by the writer */
	uint32_t fields_truncated; /* more + the values cut ('...') */
	char *buf;
	size_t buf_cap;
};

/* Parses the field section s[0..n) (what follows the line's TAB). Returns
 * 0, -1 if malformed (*why: a static reason; out then holds no fields),
 * or -2 when out of memory. */
int lcf_parse_text(const char *s, size_t n, struct lcf_fields *out, const char **why);
/* Parses the JSON object at s[0] == '{' (the "fields" member of a JSON
 * line, docs/fields.md 4; s[0..n) may go on after its '}'): numbers
 * without a fraction or an exponent as I64/U64 (as in text), others F64;
 * strings (the non-finite doubles' "NaN", "Infinity", "-Infinity"
 * included: a JSON line cannot tell them from strings) as STR. Returns as
 * lcf_parse_text (no +N: fields_truncated stays 0). */
int lcf_parse_json(const char *s, size_t n, struct lcf_fields *out, const char **why);
/* Frees what lcf_parse_text allocated (accepts a zeroed struct). */
void lcf_fields_free(struct lcf_fields *fs);

/* Decodes a version-2 text message's escapes (\\ \n \r \t \xNN \u00NN)
 * into dst (at least n bytes). Returns the decoded length, or -1 if s
 * has a backslash that starts no escape (dst is then undefined). */
long lcf_unescape_msg(const char *s, size_t n, char *dst);

/* Shortest text (at most 17 significant digits) that strtod reads back as
 * d, always with a '.' or an 'e' for a finite d ("1.0"); "nan", "inf",
 * "-inf" otherwise. Returns the length written into buf[32]. */
size_t lcf_format_double(double d, char buf[32]);

/* ---- --where ---- */

enum lcf_op {
	LCF_PRESENT = 0, /* key */
	LCF_EQ = 1,      /* key=value */
	LCF_NE = 2,      /* key!=value: absent, or another value */
	LCF_LT = 3,      /* key<N  (numeric fields only) */
	LCF_LE = 4,      /* key<=N */
	LCF_GT = 5,      /* key>N */
	LCF_GE = 6       /* key>=N */
};

struct lcf_where {
	char *key;                 /* owned */
	size_t key_len;
	enum lcf_op op;
	struct llog_field val;     /* the value, typed as in a field section;
				    * its string is owned (in key's block) */
};

/* Parses one --where expression. Returns 0, or -1 with *why (static) for
 * a bad expression, -2 when out of memory. */
int lcf_where_parse(const char *expr, struct lcf_where *w, const char **why);
void lcf_where_free(struct lcf_where *w);
/* Whether the fields f[0..n) pass w (the first field with w's key is the
 * one compared). */
bool lcf_where_match(const struct lcf_where *w, const struct llog_field *f, size_t n);

#endif /* LLOGCAT_FIELDS_H */
