#!/bin/sh
# Rewrites Tests/golden/*.png from the renderer's golden scenes
# (Tests/QuartziteTests/RenderGoldenTests.swift) and Core Graphics' and the
# display cycle's (GraphicsGoldenTests.swift), layer filters' (FilterTests.swift), and text's (TextGoldenTests.swift,
# with the fonts pinned by Tests/fonts/fonts.conf). Look at every changed image
# before committing it.
set -e
cd "$(dirname "$0")/.."
QZ_REGENERATE_GOLDEN=1 swift test --filter 'RenderGoldenTests|GraphicsGoldenTests|DisplayGoldenTests|TextGoldenTests|FilterTests/golden'
git status --short Tests/golden
