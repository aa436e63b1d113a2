// The C++ wrappers (include/quartzite/quartzite.hpp), built twice from this
// file: with exceptions (QUARTZITE_HPP_EXCEPTIONS=1) and with errors as
// return values (QUARTZITE_HPP_EXCEPTIONS=0, compiled with -fno-exceptions).
// C++17, -Wall -Wextra -pedantic -Werror, and run under valgrind.
#include <quartzite/quartzite.hpp>

#include <cmath>
#include <string>
#include <utility>

#include "qz_test.h"

// DO(call) for calls returning nothing, VAL(call) for values: the same test
// reads the same in both modes.
#if QUARTZITE_HPP_EXCEPTIONS
#define DO(expr) (expr)
#define VAL(expr) (expr)
#else
#define DO(expr) CHECK((expr).ok())
template <class T>
static T unwrap(qz::Result<T> result, int line) {
    if (!result.ok()) fprintf(stderr, "  FAIL line %d: %s\n", line, result.error().message.c_str());
    CHECK(result.ok());
    return std::move(result).value();
}
#define VAL(expr) unwrap((expr), __LINE__)
#endif

static double media_now = 10.0;
static CFTimeInterval clock_source(void *) { return media_now; }

static int released_count;
static void count_release(void *, const void *) { released_count++; }

static void test_references_retain_on_copy_steal_on_move_and_release_once() {
    static uint8_t memory[4 * 4 * 4];
    CVPixelBufferRef raw = nullptr;
    released_count = 0;
    CHECK(CVPixelBufferCreateWithBytes(nullptr, 4, 4, kCVPixelFormatType_32BGRA, memory, 16, count_release, nullptr,
                                       nullptr, &raw) == kCVReturnSuccess);
    {
        qz::PixelBuffer a = qz::PixelBuffer::adopt(raw);   // takes the +1
        qz::PixelBuffer b = a;                              // copy: retains
        CHECK(a == b && a.get() == raw);
        a.reset();
        CHECK(!a && released_count == 0);                  // b still holds it
        qz::PixelBuffer c = std::move(b);                   // move: steals
        CHECK(!b && c.get() == raw && released_count == 0);
        qz::PixelBuffer &alias = c;
        c = alias;                                          // self-assignment keeps it
        CHECK(c.get() == raw && released_count == 0);
        qz::PixelBuffer d;
        d = std::move(c);
        CHECK(!c && d.width() == 4 && released_count == 0);
        CVPixelBufferRef handed_back = d.release();        // back to C: nothing released
        CHECK(!d && handed_back == raw && released_count == 0);
        qz::PixelBuffer e = qz::PixelBuffer::retain(handed_back);   // +1 of its own
        CVPixelBufferRelease(handed_back);
        CHECK(released_count == 0 && e.height() == 4);
    }
    CHECK(released_count == 1);                             // the last owner released it, once
}

static void test_a_tree_keeps_its_sublayers_and_hands_them_back_retained() {
    qz::Layer root = VAL(qz::Layer::create());
    {
        qz::Layer child = VAL(qz::Layer::create());
        DO(child.set_name("child"));
        DO(root.add_sublayer(child));
    }                                                       // our reference is gone; the tree's stays
    CHECK(VAL(root.sublayer_count()) == 1);
    qz::Layer child = VAL(root.sublayer(0));
    CHECK(VAL(child.name()) == "child");
    CHECK(VAL(child.superlayer()) == root);
    CHECK(!VAL(root.superlayer()));                         // a root has none: an empty Layer
    DO(child.remove_from_superlayer());
    CHECK(VAL(root.sublayer_count()) == 0);
}

static qz::Layer make_scene(qz::Layer &card) {
    qz::Layer root = VAL(qz::Layer::create());
    DO(root.set_bounds(CGRectMake(0, 0, 8, 8)));
    DO(root.set_anchor_point(CGPointMake(0, 0)));
    DO(root.set_background_color(VAL(qz::Color::srgb(0, 0, 1))));
    card = VAL(qz::Layer::create());
    DO(card.set_frame(CGRectMake(2, 2, 4, 4)));
    DO(card.set_background_color(VAL(qz::Color::srgb(1, 0, 0))));
    DO(root.add_sublayer(card));
    return root;
}

static void test_a_scene_renders_into_a_pixel_buffer_and_hit_tests() {
    qz::Layer card;
    qz::Layer root = make_scene(card);
    qz::PixelBuffer target = VAL(qz::PixelBuffer::create(8, 8));
    qz::Renderer renderer = VAL(qz::Renderer::create(target));
    DO(renderer.set_layer(root));
    CGRect dirty = VAL(renderer.render_frame(0.0));
    CHECK(dirty.size.width == 8 && dirty.size.height == 8);  // the first frame draws everything
    {
        qz::PixelBufferLock lock(target, true);
        CHECK(lock.locked());
        const uint8_t *inside = lock.row(3) + 4 * 3, *outside = lock.row(0);
        CHECK(inside[0] == 0 && inside[1] == 0 && inside[2] == 255 && inside[3] == 255);   // BGRA red
        CHECK(outside[0] == 255 && outside[2] == 0);                                       // blue
    }
    CHECK(VAL(root.hit_test(CGPointMake(3, 3))) == card);
    CHECK(VAL(root.hit_test(CGPointMake(7, 7))) == root);
    CHECK(!VAL(root.hit_test(CGPointMake(20, 20))));
    CHECK(std::isinf(VAL(renderer.next_frame_time())));      // nothing animates
}

static void test_animations_and_transactions() {
    QZSetMediaTimeSource(clock_source, nullptr);
    media_now = 10.0;
    qz::Layer card;
    qz::Layer root = make_scene(card);
    qz::Transaction::flush();                                 // the tree is committed
    qz::Animation fade = VAL(qz::Animation::basic("opacity"));
    DO(fade.set_from(VAL(qz::Value::number(1.0))));
    DO(fade.set_to(VAL(qz::Value::number(0.0))));
    DO(fade.set_duration(2.0));
    DO(card.add_animation(fade, "fade"));
    qz::Transaction::flush();                                 // starts at 10.0
    media_now = 11.0;
    CHECK_NEAR(VAL(VAL(card.presentation()).opacity()), 0.5, 1e-6);
    CHECK_NEAR(VAL(card.opacity()), 1.0, 0);                  // the model is unchanged

    {
        qz::Transaction t;
        t.set_disable_actions(true);
        DO(card.set_position(CGPointMake(6, 6)));
    }
    CHECK_NEAR(VAL(VAL(card.presentation()).position()).x, 6, 1e-9);   // no implicit animation
    {
        qz::Transaction t(1.0);
        DO(card.set_position(CGPointMake(2, 2)));           // an implicit animation from 6 to 2
    }
    media_now = 11.5;
    // Half-way in time with the default timing function (0.25, 0.1, 0.25, 1)
    // is 80.24% of the way: 6 - 4 * 0.8024.
    CHECK_NEAR(VAL(VAL(card.presentation()).position()).x, 2.790, 0.005);
    CHECK_NEAR(VAL(card.position()).x, 2, 0);
    DO(card.set_number("transform.rotation.z", 0.25));
    CHECK_NEAR(VAL(card.number("transform.rotation.z")), 0.25, 1e-12);
    qz::Value rotation = VAL(card.value("transform.rotation.z"));
    CHECK(rotation.type() == CAValueTypeNumber);
    CHECK_NEAR(VAL(rotation.as_number()), 0.25, 1e-12);
    QZSetMediaTimeSource(nullptr, nullptr);
}

static void test_errors_are_reported_by_the_chosen_mode() {
    qz::Layer empty;                                          // holds NULL
    qz::Layer child = VAL(qz::Layer::create());
#if QUARTZITE_HPP_EXCEPTIONS
    bool thrown = false;
    try {
        empty.add_sublayer(child);
    } catch (const qz::Exception &e) {
        thrown = true;
        CHECK(e.code() == QZErrorNullArgument);
        CHECK(std::string(e.what()).find("CALayerAddSublayer") != std::string::npos);
    }
    CHECK(thrown);
    thrown = false;
    try {
        qz::PixelBuffer::create(0, 16);
    } catch (const qz::Exception &e) {
        thrown = true;
        CHECK(e.error().cv_return == kCVReturnInvalidSize);
    }
    CHECK(thrown);
    thrown = false;
    try {
        child.set_opacity(NAN);
    } catch (const qz::Exception &e) {
        thrown = true;
        CHECK(e.code() == QZErrorNotFinite);
    }
    CHECK(thrown);
#else
    qz::Result<void> added = empty.add_sublayer(child);
    CHECK(!added.ok() && added.error().code == QZErrorNullArgument);
    CHECK(added.error().message.find("CALayerAddSublayer") != std::string::npos);
    qz::Result<qz::PixelBuffer> made = qz::PixelBuffer::create(0, 16);
    CHECK(!made && made.error().cv_return == kCVReturnInvalidSize);
    CHECK(!std::move(made).value_or(qz::PixelBuffer()));
    CHECK(!child.set_opacity(NAN).ok());
    qz::Result<float> opacity = child.opacity();
    CHECK(opacity.ok() && opacity.value() == 1.0f);          // the bad set changed nothing
#endif
    CHECK(QZGetLastError() == QZErrorNone);                 // the wrapper took the error
}

int main() {
    RUN(test_references_retain_on_copy_steal_on_move_and_release_once);
    RUN(test_a_tree_keeps_its_sublayers_and_hands_them_back_retained);
    RUN(test_a_scene_renders_into_a_pixel_buffer_and_hit_tests);
    RUN(test_animations_and_transactions);
    RUN(test_errors_are_reported_by_the_chosen_mode);
    return qz_summary();
}
