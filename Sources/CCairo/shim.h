/* cairo (Debian's libcairo2-dev), the rasterizer behind Quartzite's
 * CGContext: paths, strokes, dashes, clips, gradients and blend modes.
 * Linked dynamically; found through pkg-config ("cairo"). */
#include <cairo.h>
