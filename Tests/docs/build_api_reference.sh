#!/bin/sh
# Builds the API reference (docs/Doxyfile) with every Doxygen warning an
# error, and checks that it documents the C functions, the types and the C++
# wrappers. Usage: build_api_reference.sh REPO OUT_DIR
set -u
repo="$1"; out="$2"
command -v doxygen >/dev/null || { echo "FAIL doxygen not found (scripts/install-deps.sh installs it)"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
log="$out/doxygen.log"
( cd "$repo/docs" && QZ_DOCS_OUT="$out" QZ_DOCS_WARN_AS_ERROR=YES doxygen Doxyfile ) >"$log" 2>&1
rc=$?
status=0
[ $rc -eq 0 ] || { echo "FAIL doxygen exited with $rc"; status=1; }
if [ -s "$log" ]; then echo "FAIL doxygen printed warnings or errors:"; cat "$log"; status=1; fi
html="$out/html"
for page in index.html quartzite_8h.html quartzite__types_8h.html quartzite_8hpp.html classqz_1_1Layer.html \
            classqz_1_1Ref.html structCATransform3D.html; do
    [ -s "$html/$page" ] || { echo "FAIL no $page in the reference"; status=1; }
done
for symbol in CALayerAddSublayer CVPixelBufferCreate QZRendererCopyDrawList QZDisplayLinkStep; do
    grep -q "$symbol" "$html/quartzite_8h.html" 2>/dev/null || { echo "FAIL $symbol is not in quartzite.h's page"; status=1; }
done
grep -q "kCAFillModeForwards" "$html/quartzite__types_8h.html" 2>/dev/null || { echo "FAIL the constants are missing"; status=1; }
[ $status -eq 0 ] && echo "ok   API reference: $(ls "$html" | wc -l) files, no warnings ($html/index.html)"
exit $status
