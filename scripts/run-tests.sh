#!/bin/sh
# Runs every test suite (Swift unit tests, the C harness through ctest, the
# Python tests through pytest) and ends with their counts. Expects `make build`
# to have configured and built BUILD_DIR (default: build). Fails when any suite
# fails: by its exit status as well as by its parsed counts.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build="${BUILD_DIR:-$root/build}"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
cd "$root"

# Runs "$@", keeping its output in $logs/$name.log and its exit status in
# $logs/$name.status (a pipeline would report only the last command's status).
run_suite() {
    name=$1; shift
    { "$@" 2>&1; echo $? >"$logs/$name.status"; } | tee "$logs/$name.log"
}
suite_status() { cat "$logs/$1.status" 2>/dev/null || echo 1; }

echo "== Swift tests (swift test)"
# --no-parallel: QZAnimationProcessEvents and the run loop process every
# animated layer of the process at the calling thread's media time, so tests that
# drive them with their own clocks must not run beside the others.
run_suite swift swift test --no-parallel | grep -E "^(✘|✔ Test run|error:)|error:" || true
# One "failed after" line per failed test; "recorded an issue" lines are not counted.
swift_failed=$(grep "^✘ Test .* failed after" "$logs/swift.log" | grep -vc "Test run with" || true)
swift_total=$(sed -n 's/.*Test run with \([0-9]*\) test.*/\1/p' "$logs/swift.log" | tail -1)
if [ -z "$swift_total" ]; then swift_total=0; swift_failed=1; echo "swift test did not run"; fi
swift_passed=$((swift_total - swift_failed))
swift_status=$(suite_status swift)
if [ "$swift_status" -ne 0 ] && [ "$swift_failed" -eq 0 ]; then
    swift_failed=1; swift_passed=$((swift_passed > 0 ? swift_passed - 1 : 0))
    echo "swift test exited with status $swift_status"
fi

echo "== C harness (ctest)"
run_suite ctest sh -c 'cd "$1" && ctest --output-on-failure' sh "$build" | grep -vE "^ +Start " || true
c_line=$(grep -E "tests passed, [0-9]+ tests? failed out of" "$logs/ctest.log" | tail -1)
c_total=$(echo "$c_line" | sed -n 's/.*out of \([0-9]*\).*/\1/p')
c_failed=$(echo "$c_line" | sed -n 's/.*passed, \([0-9]*\) tests\{0,1\} failed.*/\1/p')
if [ -z "$c_total" ]; then c_total=0; c_failed=1; echo "ctest did not run"; fi
c_passed=$((c_total - c_failed))
c_status=$(suite_status ctest)
if [ "$c_status" -ne 0 ] && [ "$c_failed" -eq 0 ]; then
    c_failed=1; c_passed=$((c_passed > 0 ? c_passed - 1 : 0))
    echo "ctest exited with status $c_status"
fi

echo "== Python tests (pytest)"
# The test tools live in the project-local venv that scripts/install-deps.sh
# makes; PYTHON overrides it.
python="${PYTHON:-$root/.venv/bin/python}"
[ -x "$python" ] || python=python3
QUARTZITE_LIBRARY="${QUARTZITE_LIBRARY:-$build/lib/libquartzite.so}" QUARTZITE_BUILD_DIR="$build" \
    run_suite pytest "$python" -m pytest -q -p no:cacheprovider Tests/python
py_passed=$(sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p; s/^\([0-9][0-9]*\) passed.*/\1/p' "$logs/pytest.log" | tail -1)
py_failed=$(sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p; s/^\([0-9][0-9]*\) failed.*/\1/p' "$logs/pytest.log" | tail -1)
py_errors=$(sed -n 's/.* \([0-9][0-9]*\) errors\{0,1\}.*/\1/p' "$logs/pytest.log" | tail -1)
py_passed=${py_passed:-0}; py_failed=$(( ${py_failed:-0} + ${py_errors:-0} ))
if [ "$py_passed" -eq 0 ] && [ "$py_failed" -eq 0 ]; then py_failed=1; echo "pytest ran no test"; fi
py_status=$(suite_status pytest)
if [ "$py_status" -ne 0 ] && [ "$py_failed" -eq 0 ]; then
    py_failed=1; py_passed=$((py_passed > 0 ? py_passed - 1 : 0))
    echo "pytest exited with status $py_status"
fi

echo
echo "== Summary"
echo "Swift (swift test): $swift_passed passed, $swift_failed failed"
echo "C (ctest):          $c_passed passed, $c_failed failed"
echo "Python (pytest):    $py_passed passed, $py_failed failed"
total_passed=$((swift_passed + c_passed + py_passed))
total_failed=$((swift_failed + c_failed + py_failed))
echo "Total: $total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
