#!/bin/sh
# Rewrites Tests/golden/*.png from the renderer's golden scenes
# (Tests/QuartziteTests/RenderGoldenTests.swift). Look at every changed image
# before committing it.
set -e
cd "$(dirname "$0")/.."
QZ_REGENERATE_GOLDEN=1 swift test --filter RenderGoldenTests
git status --short Tests/golden
