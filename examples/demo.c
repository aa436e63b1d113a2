/* Quartzite demo (foundation stage): a card flipping about the y axis under a
 * perspective sublayer transform, computed with Quartzite's transform math and
 * drawn as ASCII frames. It prints the frames and writes them, with the
 * projected corner coordinates, under the output directory given as argv[1].
 * The renderer will turn this into real pixels. */
#include <math.h>

static const double PI = 3.14159265358979323846;
#include <stdio.h>
#include <string.h>
#include <quartzite/quartzite.h>

enum { COLS = 64, ROWS = 24, FRAMES = 8 };

typedef struct { double x, y; } Vec2;

/* Row vector times matrix, then the perspective divide. */
static Vec2 project(CATransform3D t, double x, double y) {
    double px = x * t.m11 + y * t.m21 + t.m41;
    double py = x * t.m12 + y * t.m22 + t.m42;
    double w = x * t.m14 + y * t.m24 + t.m44;
    Vec2 v = { px / w, py / w };
    return v;
}

/* Inside test for a convex quad (corners in order). */
static int inside(const Vec2 q[4], double x, double y) {
    int sign = 0;
    for (int i = 0; i < 4; i++) {
        Vec2 a = q[i], b = q[(i + 1) % 4];
        double cross = (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x);
        int s = cross > 0 ? 1 : (cross < 0 ? -1 : 0);
        if (s != 0) {
            if (sign != 0 && s != sign) return 0;
            sign = s;
        }
    }
    return 1;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[512];
    snprintf(path, sizeof path, "%s/demo-frames.txt", dir);
    FILE *out = fopen(path, "w");
    if (!out) { perror(path); return 1; }

    /* The card: 40x16 points centred on the origin; perspective m34 = -1/60 (a strong one, so text cells show it),
     * then moved to the middle of a 64x24 "screen" (x scaled 2:1 for text cells). */
    CATransform3D perspective = CATransform3DIdentity;
    perspective.m34 = -1.0 / 60;
    CATransform3D toScreen = CATransform3DConcat(CATransform3DMakeScale(1.0, 0.5, 1),
                                                  CATransform3DMakeTranslation(COLS / 2.0, ROWS / 2.0, 0));
    for (int frame = 0; frame <= FRAMES; frame++) {
        double angle = PI * frame / FRAMES;                     /* 0 -> 180 degrees */
        CATransform3D flip = CATransform3DMakeRotation(angle, 0, 1, 0);
        CATransform3D full = CATransform3DConcat(CATransform3DConcat(flip, perspective), toScreen);
        Vec2 q[4] = { project(full, -20, -16), project(full, 20, -16), project(full, 20, 16), project(full, -20, 16) };
        /* The back face shows once the card has turned past 90 degrees. */
        char fill = cos(angle) >= 0 ? '#' : '.';
        fprintf(out, "frame %d  angle %5.1f deg  corners", frame, angle * 180 / PI);
        printf("frame %d  angle %5.1f deg\n", frame, angle * 180 / PI);
        for (int i = 0; i < 4; i++) fprintf(out, " (%.2f, %.2f)", q[i].x, q[i].y);
        fprintf(out, "\n");
        for (int row = 0; row < ROWS; row++) {
            char line[COLS + 1];
            for (int col = 0; col < COLS; col++) line[col] = inside(q, col + 0.5, row + 0.5) ? fill : ' ';
            line[COLS] = '\0';
            if (frame % 2 == 0) printf("|%s|\n", line);
            fprintf(out, "|%s|\n", line);
        }
    }
    fclose(out);
    if (QZGetLastError() != QZErrorNone) {
        fprintf(stderr, "demo: %s\n", QZGetLastErrorMessage());
        return 1;
    }
    printf("demo: wrote %s (every frame with its projected corners)\n", path);
    return 0;
}
