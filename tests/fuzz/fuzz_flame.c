/* SPDX-License-Identifier: MIT */
/* libFuzzer target: folded text through the whole renderer (merge, layout,
 * SVG writer); whenever it succeeds the SVG must be well-formed XML, which
 * libxml2's parser checks. The first byte picks options. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "flame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fk_flame_opts o;
	struct fk_err err;
	char *out = NULL;
	size_t outlen = 0, half;
	FILE *fp;
	unsigned flags;
	int rc;

	if (size < 1)
		return 0;
	flags = data[0];
	data++;
	size--;
	fk_flame_opts_init(&o);
	o.skip_bad = flags & 1;
	o.inverted = (flags >> 1) & 1;
	o.reverse = (flags >> 2) & 1;
	o.flamechart = (flags >> 3) & 1;
	o.sort = (flags >> 4) & 1 ? FK_SORT_WEIGHT : FK_SORT_NAME;
	o.minwidth = (flags >> 5) & 1 ? 0 : 0.1;
	/* Hostile option text too: the input's first line, if short. */
	o.title = "<t>]]>--\x01";
	fp = open_memstream(&out, &outlen);
	if (!fp)
		return 0;
	fk_err_init(&err, "fuzz");
	half = (flags >> 6) & 1 ? size / 2 : 0;
	rc = fk_flame_render((const char *)data + half, size - half,
			     half ? (const char *)data : NULL, half, &o, fp, &err);
	fclose(fp);
	if (rc == 0) {
		xmlDocPtr doc = xmlReadMemory(out, (int)outlen, "fuzz.svg", NULL,
					      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
		if (!doc)
			abort();
		xmlFreeDoc(doc);
	} else if (outlen != 0 || err.code == FK_OK) {
		abort();
	}
	free(out);
	return 0;
}
