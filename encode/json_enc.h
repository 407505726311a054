/* SPDX-License-Identifier: MIT */
/* A JSON string, as every JSON flamekit writes spells one (json_enc.c):
 * the views' (lifetimes, waste) and the hook's answers. */
#ifndef FK_JSON_ENC_H
#define FK_JSON_ENC_H

#include <stdio.h>

/* Writes s as a JSON string (names are UTF-8 or placeholders): quotes,
 * backslashes and control bytes escaped. */
void fk_enc_json_str(FILE *f, const char *s);

#endif
