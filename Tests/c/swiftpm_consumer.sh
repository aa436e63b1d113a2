#!/bin/sh
# Checks that another SwiftPM package can depend on Quartzite by version: the
# committed and working-tree files are copied into a scratch git repository
# tagged 0.1.0, and Tests/swiftpm-consumer (which asks for `from: "0.1.0"`)
# builds against it and runs. SwiftPM refuses unsafe flags in such a
# dependency, so this fails if Package.swift gains any.
set -eu
root=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/quartzite"
(cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 tar cf - 2>/dev/null) | (cd "$tmp/quartzite" && tar xf -)
cd "$tmp/quartzite"
git init -q
git add -A
git -c user.name=test -c user.email=test@localhost commit -qm snapshot
git tag 0.1.0
mkdir "$tmp/consumer"
cp -r "$root/Tests/swiftpm-consumer/Sources" "$tmp/consumer/"
sed "s|@QUARTZITE_URL@|file://$tmp/quartzite|" "$root/Tests/swiftpm-consumer/Package.swift.in" >"$tmp/consumer/Package.swift"
cd "$tmp/consumer"
swift build -q 2>&1 | grep -v "^warning: " || true
swift run -q consumer
