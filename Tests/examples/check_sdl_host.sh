#!/bin/sh
# Runs examples/sdl_host headless for 60 frames with SDL's offscreen and
# dummy video drivers and two synthesized clicks, and checks that the clicks
# were hit-tested to the cards (one through a card's sublayer), that the hit
# cards changed (selected, scaled to 1.15 once their implicit animation
# ended) while the other did not, and that the last frame shows it.
# Usage: check_sdl_host.sh SDL_HOST OUT_DIR
set -u
host="$1"; out="$2"
status=0
for driver in offscreen dummy; do
    log="$out/sdl_host_$driver.log"
    SDL_VIDEODRIVER=$driver "$host" --frames 60 --click 100,135@10 --click 350,170@20 \
        --screenshot "$out/sdl_host_$driver.png" >"$log" 2>&1
    rc=$?
    cat "$log"
    [ $rc -eq 0 ] || { echo "FAIL $driver: exit status $rc"; status=1; continue; }
    for expected in \
        "sdl_host: $driver video driver (headless: simulated clock)" \
        "click at 100,135 (frame 10): hit card-1 -> card-1 selected" \
        "click at 350,170 (frame 20): hit label -> card-3 selected" \
        "sdl_host: 60 frames rendered" \
        "card-1: selected, scale 1.15 on screen" \
        "card-2: not selected, scale 1.00 on screen" \
        "card-3: selected, scale 1.15 on screen" \
        "pixel at 100,135: rgb 250 140 38" \
        "sdl_host: last frame written to"; do
        grep -qF "$expected" "$log" || { echo "FAIL $driver: no line with '$expected'"; status=1; }
    done
    [ -s "$out/sdl_host_$driver.png" ] || { echo "FAIL $driver: no screenshot"; status=1; }
done
[ $status -eq 0 ] && echo "ok   sdl_host: 60 headless frames, clicks hit-tested and animated"
exit $status
