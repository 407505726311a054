/* SPDX-License-Identifier: MIT */
/* Pieces of the JSON views (lifetimes, waste): a string, and a stack as
 * the array of its frames' names, root first. */
#include <stdio.h>

#include "encode_int.h"
#include "profile.h"

void fk_enc_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void fk_enc_json_stack(FILE *f, const struct fk_profile *p, const struct fk_stack *s,
		       const char **leaf)
{
	static char last[256];
	char buf[256];
	int first = 1;

	*leaf = FK_ENC_NO_STACK;
	fputc('[', f);
	for (uint32_t i = s->depth; i-- > 0;) {
		const struct fk_sym *sym = fk_profile_sym(p, fk_stack_key(s, i));

		if (sym && sym->nframes > 0) {
			for (uint32_t k = sym->nframes; k-- > 0;) {
				fputs(first ? "" : ",", f);
				fk_enc_json_str(f, sym->frames[k].name);
				first = 0;
				*leaf = sym->frames[k].name;
			}
			continue;
		}
		fk_enc_profile_addr_name(buf, sizeof buf, p, s->addrs[i]);
		fputs(first ? "" : ",", f);
		fk_enc_json_str(f, buf);
		first = 0;
		snprintf(last, sizeof last, "%s", buf);
		*leaf = last;
	}
	if (first)
		fk_enc_json_str(f, FK_ENC_NO_STACK);
	fputc(']', f);
}
