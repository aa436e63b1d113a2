/* Quartzite in an SDL2 window: the host owns the window, the vsync and the
 * events; Quartzite owns the scene, the animations and the pixels.
 *
 * - Each vsync, the host tells a CADisplayLink about the frame with
 *   QZDisplayLinkStep; the link's callback renders the layer tree at that
 *   time with CARenderer into a CVPixelBuffer and uploads the part that
 *   changed (CARendererUpdateBounds) into an SDL streaming texture, whose
 *   BGRA32 byte order is the renderer's.
 * - A mouse click is hit-tested with CALayerHitTest; a card that is hit
 *   changes colour and grows, through an implicit animation inside a
 *   CATransaction; a second click puts it back.
 *
 * Usage: sdl_host [--frames N] [--click X,Y@FRAME]... [--screenshot PATH]
 *   --frames N        stop after N frames (default: until the window closes)
 *   --click X,Y@F     push a left click at window point (X, Y) before frame F
 *   --screenshot P    write the last frame as a PNG
 * Without a real display (SDL_VIDEODRIVER=offscreen or dummy) there is no
 * vsync to wait for: the host then steps a simulated media clock by one
 * refresh period per frame, so N frames are N/60 s of animation, at once.
 *
 * Build: cc sdl_host.c $(pkg-config --cflags --libs quartzite sdl2) */
#define _POSIX_C_SOURCE 200809L
#include <SDL.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <quartzite/quartzite.h>

enum { WIDTH = 480, HEIGHT = 270, CARD_COUNT = 3, MAX_CLICKS = 16 };
static const double REFRESH_RATE = 60.0;

typedef struct {
    CALayerRef root;
    CALayerRef cards[CARD_COUNT];
    bool selected[CARD_COUNT];
    CARendererRef renderer;
    CVPixelBufferRef target;
    SDL_Texture *texture;
    long frames_rendered;
    double uploaded_pixels;
} Host;

static double simulated_now;
static CFTimeInterval simulated_clock(void *info) { (void)info; return simulated_now; }

static CGColorRef card_color(bool selected) {
    return selected ? CGColorCreateSRGB(0.98, 0.55, 0.15, 1) : CGColorCreateSRGB(0.25, 0.5, 0.95, 1);
}

static void build_scene(Host *host) {
    host->root = CALayerCreate();
    CALayerSetBounds(host->root, CGRectMake(0, 0, WIDTH, HEIGHT));
    CALayerSetAnchorPoint(host->root, CGPointMake(0, 0));      /* root space = window pixels */
    CALayerSetName(host->root, "background");
    CGColorRef background = CGColorCreateSRGB(0.08, 0.09, 0.12, 1);
    CALayerSetBackgroundColor(host->root, background);
    CGColorRelease(background);
    for (int i = 0; i < CARD_COUNT; i++) {
        CALayerRef card = CALayerCreate();
        CALayerSetFrame(card, CGRectMake(40 + i * 140, 75, 120, 120));
        CALayerSetCornerRadius(card, 16);
        CGColorRef color = card_color(false);
        CALayerSetBackgroundColor(card, color);
        CGColorRelease(color);
        CALayerSetShadowOpacity(card, 0.5f);
        CALayerSetShadowRadius(card, 8);
        CALayerSetShadowOffset(card, CGSizeMake(0, 6));
        char name[16];
        snprintf(name, sizeof name, "card-%d", i + 1);
        CALayerSetName(card, name);
        /* A label strip inside the card: clicks on it still select the card. */
        CALayerRef strip = CALayerCreate();
        CALayerSetFrame(strip, CGRectMake(14, 90, 60, 12));
        CALayerSetCornerRadius(strip, 6);
        CALayerSetName(strip, "label");
        CGColorRef white = CGColorCreateSRGB(1, 1, 1, 0.85);
        CALayerSetBackgroundColor(strip, white);
        CGColorRelease(white);
        CALayerAddSublayer(card, strip);
        CARelease(strip);
        CALayerAddSublayer(host->root, card);
        host->cards[i] = card;                                   /* we keep our +1 too */
    }
    CATransactionFlush();   /* committed: later changes animate implicitly */
}

/* The card a layer belongs to (the layer itself or an ancestor), or -1. */
static int card_index(const Host *host, CALayerRef layer) {
    for (CALayerRef l = layer; l; l = CALayerGetSuperlayer(l))
        for (int i = 0; i < CARD_COUNT; i++)
            if (l == host->cards[i]) return i;
    return -1;
}

static void handle_click(Host *host, int x, int y, long frame) {
    CALayerRef hit = CALayerHitTest(host->root, CGPointMake(x + 0.5, y + 0.5));   /* borrowed */
    int index = card_index(host, hit);
    const char *name = hit ? CALayerGetName(hit) : NULL;
    printf("click at %d,%d (frame %ld): hit %s", x, y, frame, name ? name : "nothing");
    if (index < 0) {
        printf("\n");
        return;
    }
    bool selected = host->selected[index] = !host->selected[index];
    printf(" -> %s %s\n", CALayerGetName(host->cards[index]), selected ? "selected" : "deselected");
    /* Model changes inside a transaction: each runs its implicit animation. */
    CATransactionBegin();
    CATransactionSetAnimationDuration(0.3);
    CGColorRef color = card_color(selected);
    CALayerSetBackgroundColor(host->cards[index], color);
    CGColorRelease(color);
    CALayerSetNumberForKeyPath(host->cards[index], "transform.scale", selected ? 1.15 : 1.0);
    CALayerSetZPosition(host->cards[index], selected ? 1 : 0);
    CATransactionCommit();
}

/* The display link's target: one frame at the vsync's timestamp. */
static void render_frame(CADisplayLinkRef link, void *info) {
    Host *host = info;
    CARendererBeginFrameAtTime(host->renderer, CADisplayLinkGetTimestamp(link), NULL);
    CGRect dirty = CARendererUpdateBounds(host->renderer);
    CARendererRender(host->renderer);
    CARendererEndFrame(host->renderer);
    host->frames_rendered++;
    if (CGRectIsNull(dirty) || CGRectIsEmpty(dirty)) return;   /* nothing changed: the texture is current */
    SDL_Rect rect = { (int)dirty.origin.x, (int)dirty.origin.y, (int)dirty.size.width, (int)dirty.size.height };
    CVPixelBufferLockBaseAddress(host->target, kCVPixelBufferLock_ReadOnly);
    const uint8_t *base = CVPixelBufferGetBaseAddress(host->target);
    size_t bpr = CVPixelBufferGetBytesPerRow(host->target);
    SDL_UpdateTexture(host->texture, &rect, base + (size_t)rect.y * bpr + (size_t)rect.x * 4, (int)bpr);
    CVPixelBufferUnlockBaseAddress(host->target, kCVPixelBufferLock_ReadOnly);
    host->uploaded_pixels += (double)rect.w * rect.h;
}

typedef struct { int x, y; long frame; } Click;

int main(int argc, char **argv) {
    long max_frames = -1;
    const char *screenshot = NULL;
    Click clicks[MAX_CLICKS];
    int click_count = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
            max_frames = atol(argv[++i]);
        } else if (strcmp(argv[i], "--click") == 0 && i + 1 < argc && click_count < MAX_CLICKS) {
            Click *c = &clicks[click_count];
            if (sscanf(argv[++i], "%d,%d@%ld", &c->x, &c->y, &c->frame) != 3) {
                fprintf(stderr, "sdl_host: --click takes X,Y@FRAME\n");
                return 2;
            }
            click_count++;
        } else if (strcmp(argv[i], "--screenshot") == 0 && i + 1 < argc) {
            screenshot = argv[++i];
        } else {
            fprintf(stderr, "usage: sdl_host [--frames N] [--click X,Y@FRAME]... [--screenshot PATH]\n");
            return 2;
        }
    }

    if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_EVENTS) != 0) {
        fprintf(stderr, "sdl_host: SDL_Init: %s\n", SDL_GetError());
        return 1;
    }
    const char *driver = SDL_GetCurrentVideoDriver();
    bool headless = driver && (strcmp(driver, "offscreen") == 0 || strcmp(driver, "dummy") == 0);
    SDL_Window *window = SDL_CreateWindow("Quartzite in SDL", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                          WIDTH, HEIGHT, 0);
    SDL_Renderer *sdl = window ? SDL_CreateRenderer(window, -1, SDL_RENDERER_PRESENTVSYNC) : NULL;
    if (!sdl && window) sdl = SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE);
    if (!sdl) {
        fprintf(stderr, "sdl_host: no window or renderer: %s\n", SDL_GetError());
        SDL_Quit();
        return 1;
    }
    if (headless) {
        /* No vsync to wait for: a simulated clock that the loop advances. */
        simulated_now = 0;
        QZSetMediaTimeSource(simulated_clock, NULL);
    }
    QZDisplaySetRefreshRate(REFRESH_RATE);

    Host host;
    memset(&host, 0, sizeof host);
    build_scene(&host);
    if (CVPixelBufferCreate(NULL, WIDTH, HEIGHT, kCVPixelFormatType_32BGRA, NULL, &host.target) != kCVReturnSuccess) {
        fprintf(stderr, "sdl_host: %s\n", QZGetLastErrorMessage());
        return 1;
    }
    host.renderer = CARendererCreate(host.target, NULL);
    CARendererSetLayer(host.renderer, host.root);
    host.texture = SDL_CreateTexture(sdl, SDL_PIXELFORMAT_BGRA32, SDL_TEXTUREACCESS_STREAMING, WIDTH, HEIGHT);
    if (!host.texture) {
        fprintf(stderr, "sdl_host: SDL_CreateTexture: %s\n", SDL_GetError());
        return 1;
    }
    CADisplayLinkRef link = CADisplayLinkCreate(render_frame, &host);   /* stepped by us, in no run loop */

    printf("sdl_host: %s video driver%s\n", driver ? driver : "?", headless ? " (headless: simulated clock)" : "");
    double vsync = CACurrentMediaTime();
    bool running = true;
    for (long frame = 0; running && (max_frames < 0 || frame < max_frames); frame++) {
        for (int i = 0; i < click_count; i++) {
            if (clicks[i].frame != frame) continue;
            SDL_Event e;
            memset(&e, 0, sizeof e);
            e.type = SDL_MOUSEBUTTONDOWN;
            e.button.button = SDL_BUTTON_LEFT;
            e.button.state = SDL_PRESSED;
            e.button.clicks = 1;
            e.button.x = clicks[i].x;
            e.button.y = clicks[i].y;
            e.button.windowID = SDL_GetWindowID(window);
            SDL_PushEvent(&e);
        }
        SDL_Event event;
        while (SDL_PollEvent(&event)) {
            if (event.type == SDL_QUIT) running = false;
            if (event.type == SDL_MOUSEBUTTONDOWN && event.button.button == SDL_BUTTON_LEFT)
                handle_click(&host, event.button.x, event.button.y, frame);
        }
        QZDisplayLinkStep(link, vsync);            /* renders the frame shown at this vsync */
        SDL_RenderCopy(sdl, host.texture, NULL, NULL);
        SDL_RenderPresent(sdl);                    /* waits for the next vsync on a real display */
        if (headless) simulated_now += 1.0 / REFRESH_RATE;
        vsync = CACurrentMediaTime();
    }

    printf("sdl_host: %ld frames rendered, %.0f%% of the pixels uploaded\n", host.frames_rendered,
           100.0 * host.uploaded_pixels / ((double)(host.frames_rendered ? host.frames_rendered : 1) * WIDTH * HEIGHT));
    for (int i = 0; i < CARD_COUNT; i++) {
        CALayerRef shown = CALayerCopyPresentationLayer(host.cards[i]);
        printf("%s: %s, scale %.2f on screen\n", CALayerGetName(host.cards[i]),
               host.selected[i] ? "selected" : "not selected", CALayerGetNumberForKeyPath(shown, "transform.scale"));
        CARelease(shown);
    }
    for (int i = 0; i < click_count; i++) {
        CVPixelBufferLockBaseAddress(host.target, kCVPixelBufferLock_ReadOnly);
        const uint8_t *p = (const uint8_t *)CVPixelBufferGetBaseAddress(host.target) +
                           (size_t)clicks[i].y * CVPixelBufferGetBytesPerRow(host.target) + (size_t)clicks[i].x * 4;
        printf("pixel at %d,%d: rgb %d %d %d\n", clicks[i].x, clicks[i].y, p[2], p[1], p[0]);
        CVPixelBufferUnlockBaseAddress(host.target, kCVPixelBufferLock_ReadOnly);
    }
    if (screenshot && QZPixelBufferWritePNG(host.target, screenshot) == kCVReturnSuccess)
        printf("sdl_host: last frame written to %s\n", screenshot);

    CADisplayLinkInvalidate(link);
    CARelease(link);
    CARelease(host.renderer);
    CVPixelBufferRelease(host.target);
    for (int i = 0; i < CARD_COUNT; i++) CARelease(host.cards[i]);
    CARelease(host.root);
    SDL_DestroyTexture(host.texture);
    SDL_DestroyRenderer(sdl);
    SDL_DestroyWindow(window);
    SDL_Quit();
    QZSetMediaTimeSource(NULL, NULL);
    return 0;
}
