#!/bin/sh
# The demo's outputs. Usage: check_demo.sh mp4 DEMO OUT_DIR   (a demo built with FFmpeg)
#                            check_demo.sh png DEMO OUT_DIR   (a demo built without it)
# mp4: writes two MP4s and checks them with FFmpeg's own probe (codec,
#      size, frame count, duration) and the progress lines on stderr.
# png: writes the PNG frames and the APNG (frame count in its acTL chunk),
#      and refuses --mp4 with a message.
set -u
mode="$1"; demo="$2"; out="$3"
status=0
fail() { echo "FAIL $*"; status=1; }

probe() {   # probe FILE KEY -> value
    ffprobe -v error -select_streams v:0 -count_frames \
        -show_entries stream=codec_name,width,height,nb_read_frames -show_entries format=duration \
        -of default=noprint_wrappers=1 "$1" | sed -n "s/^$2=//p"
}

check_mp4() {   # check_mp4 FILE FRAMES WIDTH HEIGHT
    [ -s "$1" ] || { fail "$1 was not written"; return; }
    [ "$(probe "$1" codec_name)" = h264 ] || fail "$1: codec $(probe "$1" codec_name), expected h264"
    [ "$(probe "$1" nb_read_frames)" = "$2" ] || fail "$1: $(probe "$1" nb_read_frames) frames, expected $2"
    [ "$(probe "$1" width)x$(probe "$1" height)" = "$3x$4" ] || fail "$1: size $(probe "$1" width)x$(probe "$1" height)"
    duration=$(probe "$1" duration)
    awk -v d="$duration" 'BEGIN { exit !(d > 2.95 && d < 3.05) }' || fail "$1: duration $duration, expected 3 s"
    echo "ok   $1: h264, $2 frames, $3x$4, $duration s"
}

case "$mode" in
mp4)
    command -v ffprobe >/dev/null || { echo "FAIL ffprobe not found (scripts/install-deps.sh installs ffmpeg)"; exit 1; }
    "$demo" "$out" --mp4 "$out/demo.mp4" >"$out/mp4.log" 2>"$out/mp4.err" || fail "demo --mp4 exited with $?"
    cat "$out/mp4.log"
    grep -q "encoding: frame 72/72 (100%)" "$out/mp4.err" || fail "no progress on stderr"
    check_mp4 "$out/demo.mp4" 72 320 240
    "$demo" "$out" --mp4 "$out/demo_640.mp4" --fps 30 --width 640 >/dev/null 2>&1 || fail "demo --fps 30 --width 640"
    check_mp4 "$out/demo_640.mp4" 90 640 480
    [ ! -e "$out/frame_000.png" ] || fail "--mp4 also wrote PNG frames"
    ;;
png)
    "$demo" "$out" >"$out/png.log" 2>&1 || fail "demo exited with $?"
    cat "$out/png.log"
    for i in 000 035 071; do [ -s "$out/frame_$i.png" ] || fail "no frame_$i.png"; done
    [ ! -e "$out/frame_072.png" ] || fail "more than 72 frames"
    # acTL: 4-byte length, "acTL", then num_frames as a big-endian uint32.
    frames=$(od -An -tx1 -v "$out/demo.png" | tr -d ' \n' | sed -n 's/.*6163544c\(........\).*/\1/p')
    [ "$frames" = "00000048" ] || fail "demo.png's acTL says 0x$frames frames, expected 72 (0x48)"
    if "$demo" "$out" --mp4 "$out/x.mp4" >"$out/refused.log" 2>&1; then fail "--mp4 accepted without FFmpeg"; fi
    grep -q "built without FFmpeg" "$out/refused.log" || fail "no message for --mp4 without FFmpeg"
    [ ! -e "$out/x.mp4" ] || fail "an MP4 without FFmpeg"
    [ $status -eq 0 ] && echo "ok   PNG frames and APNG (72 frames) without FFmpeg; --mp4 refused"
    ;;
*) echo "usage: check_demo.sh mp4|png DEMO OUT_DIR"; exit 2 ;;
esac
exit $status
