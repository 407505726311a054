/* Colour palettes as CSS classes: FK_SHADES shades of each of flamegraph.pl's
 * palettes (same base colours and ranges), and a red/blue scale for
 * differential graphs. Frames carry a class, never an inline fill. */
#include <stdio.h>
#include <string.h>

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

int fk_palette_css(struct fk_buf *b, const char *name, int diff)
{
	char line[64];
	unsigned i;

	if (diff) {
		/* d0 unchanged; rN grew, bN shrank, N = 1..FK_DIFF_STEPS. */
		if (fk_buf_adds(b, ".d0{fill:#dcdcdc}") < 0)
			return -1;
		for (i = 1; i <= FK_DIFF_STEPS; i++) {
			int c = 220 - 190 * (int)i / FK_DIFF_STEPS;
			snprintf(line, sizeof line, ".r%u{fill:#ff%02x%02x}.b%u{fill:#%02x%02xff}",
				 i, c, c, i, c, c);
			if (fk_buf_adds(b, line) < 0)
				return -1;
		}
		return fk_buf_adds(b, "\n");
	}
	if (!find(name))
		return -1;
	for (i = 0; i < FK_SHADES; i++) {
		char rgb[8];
		fk_palette_rgb(name, i, rgb);
		snprintf(line, sizeof line, ".c%u{fill:%s}", i, rgb);
		if (fk_buf_adds(b, line) < 0)
			return -1;
	}
	return fk_buf_adds(b, "\n");
}
