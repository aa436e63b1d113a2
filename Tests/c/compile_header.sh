#!/bin/sh
# Compiles the public header as C99 and C11 (gcc and clang) and C++11 (g++, and
# clang++ when present) with every warning an error. Usage: compile_header.sh INCLUDE_DIR
set -eu
inc="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/main.c" <<'SRC'
#include <quartzite/quartzite.h>
int main(void) {
    CATransform3D t = CATransform3DConcat(CATransform3DIdentity, CATransform3DMakeScale(2, 2, 2));
    CAValueRef v = CAValueCreateNumber(t.m11);
    CARelease(v);
    return QZGetLastError() == QZErrorNone ? 0 : 1;
}
SRC
cp "$tmp/main.c" "$tmp/main.cpp"
status=0
try() {
    if "$@" -Wall -Wextra -pedantic -Werror -I"$inc" -c -o "$tmp/out.o" 2>"$tmp/err"; then
        echo "ok   $*"
    else
        echo "FAIL $*"; cat "$tmp/err"; status=1
    fi
}
for cc in gcc clang; do
    command -v $cc >/dev/null || { echo "FAIL $cc not found"; status=1; continue; }
    for std in c99 c11; do try $cc -std=$std "$tmp/main.c"; done
done
try g++ -std=c++11 "$tmp/main.cpp"
if command -v clang++ >/dev/null; then try clang++ -std=c++11 "$tmp/main.cpp"; fi

# EGLDisplay and EGLContext: the header's own typedefs, or <EGL/egl.h>'s when
# that is included first (C99), in either order (C11, C++11).
if [ -f /usr/include/EGL/egl.h ]; then
    cat > "$tmp/egl_first.c" <<'SRC'
#include <EGL/egl.h>
#include <quartzite/quartzite.h>
int main(void) { EGLDisplay d = EGL_NO_DISPLAY; return QZEAGLContextPresentRenderbuffer(d, EGL_NO_CONTEXT, 0x8D41) ? 1 : 0; }
SRC
    cat > "$tmp/egl_after.c" <<'SRC'
#include <quartzite/quartzite.h>
#include <EGL/egl.h>
int main(void) { EGLDisplay d = EGL_NO_DISPLAY; return QZEAGLContextPresentRenderbuffer(d, EGL_NO_CONTEXT, 0x8D41) ? 1 : 0; }
SRC
    cp "$tmp/egl_after.c" "$tmp/egl_after.cpp"
    try gcc -std=c99 "$tmp/egl_first.c"
    try gcc -std=c11 "$tmp/egl_after.c"
    try g++ -std=c++11 "$tmp/egl_after.cpp"
    if command -v clang >/dev/null; then try clang -std=c11 "$tmp/egl_after.c"; fi
fi
exit $status
