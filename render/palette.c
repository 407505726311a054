/* SPDX-License-Identifier: MIT */
/* Colour palettes as CSS classes: FK_SHADES shades of each of flamegraph.pl's
 * palettes (same base colours and ranges), and a red/blue scale for
 * differential graphs. Frames carry a class, never an inline fill; each
 * class also gives its labels a text colour of contrast >= 4.5:1 (WCAG 2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "render_int.h"

/* rgb = base + range * v for v in [0, 1]; "same" channels copy another. */
struct palette {
	const char *name;
	int r0, rr, g0, gr, b0, br;
	int g_is_r, b_is_r, b_is_g;
};

static const struct palette palettes[] = {
	{ "hot", 205, 50, 0, 230, 0, 55, 0, 0, 0 },
	{ "mem", 0, 0, 190, 50, 0, 210, 0, 0, 0 },
	{ "io", 80, 60, 0, 0, 190, 55, 1, 0, 0 },
	{ "red", 200, 55, 50, 80, 0, 0, 0, 0, 1 },
	{ "green", 50, 60, 200, 55, 50, 60, 0, 1, 0 },
	{ "blue", 80, 60, 0, 0, 205, 50, 1, 0, 0 },
	{ "aqua", 50, 60, 165, 55, 0, 0, 0, 0, 1 },
	{ "yellow", 175, 55, 0, 0, 50, 20, 1, 0, 0 },
	{ "purple", 190, 65, 80, 60, 0, 0, 0, 1, 0 },
	{ "orange", 190, 65, 90, 65, 0, 0, 0, 0, 0 },
};

static const struct palette *find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof palettes / sizeof palettes[0]; i++)
		if (strcmp(palettes[i].name, name) == 0)
			return &palettes[i];
	return NULL;
}

int fk_flame_palette_check(const char *name)
{
	return find(name) ? 0 : -1;
}

void fk_palette_rgb(const char *name, unsigned i, char out[8])
{
	const struct palette *p = find(name);
	int r, g, b;

	if (!p)
		p = &palettes[1];
	if (i >= FK_SHADES)
		i = FK_SHADES - 1;
	/* Shades spread evenly over the palette's range, v = i / (N - 1). */
	r = p->r0 + p->rr * (int)i / (FK_SHADES - 1);
	g = p->g0 + p->gr * (int)i / (FK_SHADES - 1);
	b = p->b0 + p->br * (int)i / (FK_SHADES - 1);
	if (p->g_is_r)
		g = r;
	if (p->b_is_r)
		b = r;
	if (p->b_is_g)
		b = g;
	snprintf(out, 8, "#%02x%02x%02x", r & 255, g & 255, b & 255);
}

/* sRGB relative luminance (WCAG 2) of "#rrggbb". */
static double luminance(const char *rgb)
{
	double c[3], l;
	uint64_t v = 0;
	int k;

	/* rgb is one of ours, "#rrggbb". */
	fk_parse_hex(rgb + 1, 6, 0, &v);
	for (k = 0; k < 3; k++) {
		double x = (double)((v >> (16 - 8 * k)) & 255) / 255.0;
		c[k] = x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4);
	}
	l = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
	return l;
}

const char *fk_palette_text(const char *rgb)
{
	double l = luminance(rgb);

	/* Whichever of black and white contrasts more: at least 4.58:1 on
	 * any fill (the worst case is a luminance of 0.179). */
	return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? "#000" : "#fff";
}

/* One class: its fill, and the colour of a label drawn on it. */
static int css_class(struct fk_buf *b, const char *cls, const char *rgb)
{
	char line[160];

	snprintf(line, sizeof line, ".%s{fill:%s}.%s>text{fill:%s}.sw.%s{background:%s;color:%s}",
		 cls, rgb, cls, fk_palette_text(rgb), cls, rgb, fk_palette_text(rgb));
	return fk_buf_adds(b, line);
}

/* The differential scale, blue (shrank) to red (grew): ColorBrewer's RdBu,
 * which stays distinguishable with the common colour-vision deficiencies. */
static const char *const diff_blue[FK_DIFF_STEPS] = {
	"#d1e5f0", "#a6cde3", "#6aaed6", "#3d85bd", "#1e5a9c",
};
static const char *const diff_red[FK_DIFF_STEPS] = {
	"#fddbc7", "#f7b799", "#e58267", "#c9483e", "#a2112a",
};

int fk_palette_css(struct fk_buf *b, const char *name, int diff)
{
	char cls[8];
	unsigned i;

	if (diff) {
		/* d0 unchanged; rN grew, bN shrank, N = 1..FK_DIFF_STEPS. */
		if (css_class(b, "d0", "#ececec") < 0)
			return -1;
		for (i = 1; i <= FK_DIFF_STEPS; i++) {
			snprintf(cls, sizeof cls, "r%u", i);
			if (css_class(b, cls, diff_red[i - 1]) < 0)
				return -1;
			snprintf(cls, sizeof cls, "b%u", i);
			if (css_class(b, cls, diff_blue[i - 1]) < 0)
				return -1;
		}
		return fk_buf_adds(b, "\n");
	}
	if (!find(name))
		return -1;
	for (i = 0; i < FK_SHADES; i++) {
		char rgb[8];
		fk_palette_rgb(name, i, rgb);
		snprintf(cls, sizeof cls, "c%u", i);
		if (css_class(b, cls, rgb) < 0)
			return -1;
	}
	return fk_buf_adds(b, "\n");
}
