#!/bin/sh
# Runs every test suite (Swift unit tests, the C harness through ctest, the
# Python tests through pytest) and ends with their counts. Expects `make build`
# to have configured and built BUILD_DIR (default: build).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build="${BUILD_DIR:-$root/build}"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
cd "$root"

echo "== Swift tests (swift test)"
# --no-parallel: QZAnimationProcessEvents and the run loop process every
# animated layer of the process at the calling thread's media time, so tests that
# drive them with their own clocks must not run beside the others.
swift test --no-parallel 2>&1 | tee "$logs/swift.log" | grep -E "^(✘|✔ Test run|error:)|error:" || true
swift_failed=$(grep "^✘ Test .*failed" "$logs/swift.log" | grep -vc "Test run with" || true)
swift_total=$(sed -n 's/.*Test run with \([0-9]*\) test.*/\1/p' "$logs/swift.log" | tail -1)
if [ -z "$swift_total" ]; then swift_total=0; swift_failed=1; echo "swift test did not run"; fi
swift_passed=$((swift_total - swift_failed))

echo "== C harness (ctest)"
(cd "$build" && ctest --output-on-failure 2>&1) | tee "$logs/ctest.log" | grep -vE "^ +Start " || true
c_line=$(grep -E "tests passed, [0-9]+ tests? failed out of" "$logs/ctest.log" | tail -1)
c_total=$(echo "$c_line" | sed -n 's/.*out of \([0-9]*\).*/\1/p')
c_failed=$(echo "$c_line" | sed -n 's/.*passed, \([0-9]*\) tests\{0,1\} failed.*/\1/p')
if [ -z "$c_total" ]; then c_total=0; c_failed=1; echo "ctest did not run"; fi
c_passed=$((c_total - c_failed))

echo "== Python tests (pytest)"
QUARTZITE_LIBRARY="${QUARTZITE_LIBRARY:-$build/lib/libquartzite.so}" \
    python3 -m pytest -q -p no:cacheprovider Tests/python 2>&1 | tee "$logs/pytest.log"
py_passed=$(sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p; s/^\([0-9][0-9]*\) passed.*/\1/p' "$logs/pytest.log" | tail -1)
py_failed=$(sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p; s/^\([0-9][0-9]*\) failed.*/\1/p' "$logs/pytest.log" | tail -1)
py_errors=$(sed -n 's/.* \([0-9][0-9]*\) errors\{0,1\}.*/\1/p' "$logs/pytest.log" | tail -1)
py_passed=${py_passed:-0}; py_failed=$(( ${py_failed:-0} + ${py_errors:-0} ))
if [ "$py_passed" -eq 0 ] && [ "$py_failed" -eq 0 ]; then py_failed=1; echo "pytest ran no test"; fi

echo
echo "== Summary"
echo "Swift (swift test): $swift_passed passed, $swift_failed failed"
echo "C (ctest):          $c_passed passed, $c_failed failed"
echo "Python (pytest):    $py_passed passed, $py_failed failed"
total_passed=$((swift_passed + c_passed + py_passed))
total_failed=$((swift_failed + c_failed + py_failed))
echo "Total: $total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
