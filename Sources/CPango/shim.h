/* Pango (Debian's libpango1.0-dev) on cairo: shaping by HarfBuzz,
 * bidirectional text by FriBiDi, line breaking by Pango, font matching by
 * fontconfig and glyphs by FreeType. Core Text and CATextLayer lay text out
 * and draw it through these. Linked dynamically; found through pkg-config
 * ("pangocairo"); pangoft2 and fontconfig for the font configuration
 * (QZTextSetFontConfigurationFile). */
#include <pango/pangocairo.h>
#include <pango/pangofc-fontmap.h>
#include <fontconfig/fontconfig.h>
