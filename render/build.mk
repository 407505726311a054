# SPDX-License-Identifier: MIT
# render/: libfkrender.a (layout, SVG writer through libxml2, palettes, the
# embedded flame-*.js/flame.css) and the render-flame tool.
RENDER_SRC := layout.c treefinish.c text.c palette.c svg.c svgdata.c timeline.c pageinfo.c flame.c flame_opts.c
RENDER_OBJ := $(RENDER_SRC:%.c=$(B)/%.o) $(B)/flame_assets.o
OBJS       += $(RENDER_OBJ) $(B)/render_flame_main.o $(B)/test_folded.o $(B)/test_layout.o \
              $(B)/fuzz_folded.o $(B)/fuzz_flame.o
XML_CFLAGS  = $(call pkg,libxml-2.0,--cflags,libxml2-dev)
XML_LIBS    = $(call pkg,libxml-2.0,--libs,libxml2-dev)
PROGS      += $(B)/render-flame
LIBS       += $(B)/libfkrender.a
UNIT       += $(B)/test_folded $(B)/test_layout
FUZZ       += fuzz_folded fuzz_flame

$(B)/svg.o $(B)/svgdata.o $(B)/timeline.o $(B)/pageinfo.o: CPPFLAGS += $(XML_CFLAGS)

# The page's style sheet and script are real files, embedded at build
# time; the script's parts are joined in this order (render/flame-data.js).
FLAME_JS := $(addprefix render/flame-,data.js lifetimes.js draw.js search.js tables.js sandwich.js invert.js transform.js compare.js export.js timeline.js events.js)
$(B)/flame_assets.c: render/flame.css $(FLAME_JS) render/embed.sh | $(B)
	sh render/embed.sh render/flame.css $(FLAME_JS) >$@.tmp && mv $@.tmp $@
$(B)/flame_assets.o: $(B)/flame_assets.c
	$(CC) $(CPPFLAGS) $(INCS) $(ALL_CFLAGS) -c -o $@ $<

$(B)/libfkrender.a: $(RENDER_OBJ)
	$(AR) rcs $@ $^
$(B)/render-flame: $(B)/render_flame_main.o $(B)/libfkrender.a $(B)/libfkcli.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(XML_LIBS) -lm
$(B)/test_folded: $(B)/test_folded.o $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^
$(B)/test_layout: $(B)/test_layout.o $(B)/libfkrender.a $(B)/libfkcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(XML_LIBS) -lm
$(B)/fuzz_folded: $(B)/fuzz_folded.o $(B)/libfkcore.a ; $(FUZZ_LINK)
$(B)/fuzz_flame: $(B)/fuzz_flame.o $(B)/libfkrender.a $(B)/libfkcore.a
	$(FUZZ_LINK) $(XML_LIBS) -lm
$(B)/fuzz_flame.o: CPPFLAGS += $(XML_CFLAGS)

# render/ sees core/; its tool also cli/.
$(call layer,$(RENDER_OBJ),render core)
$(call layer,$(B)/render_flame_main.o,render cli core)
