// Quartzite from C++ (include/quartzite/quartzite.hpp): a card that spins
// and fades, rendered at 0, 0.75 and 1.5 seconds into PNG files. Every handle is
// released by its destructor; a failing call throws qz::Exception.
//
//   c++ -std=c++17 cpp_example.cpp $(pkg-config --cflags --libs quartzite) -o cpp_example
//   ./cpp_example out            # writes out/cpp_0.png, out/cpp_1.png, out/cpp_2.png
#include <quartzite/quartzite.hpp>

#include <cmath>
#include <cstdio>
#include <string>

static double media_now = 0;
static CFTimeInterval clock_source(void *) { return media_now; }

int main(int argc, char **argv) {
    const std::string outdir = argc > 1 ? argv[1] : ".";
    QZSetMediaTimeSource(clock_source, nullptr);   // offline rendering: we say what time it is
    try {
        qz::Layer root = qz::Layer::create();
        root.set_bounds(CGRectMake(0, 0, 160, 120));
        root.set_anchor_point(CGPointMake(0, 0));
        root.set_background_color(qz::Color::srgb(0.1, 0.12, 0.18));

        qz::Layer card = qz::Layer::create();
        card.set_frame(CGRectMake(40, 30, 80, 60));
        card.set_corner_radius(10);
        card.set_background_color(qz::Color::srgb(0.3, 0.6, 0.95));
        card.set_border_width(2);
        card.set_border_color(qz::Color::srgb(1, 1, 1));
        root.add_sublayer(card);
        qz::Transaction::flush();                   // commit the tree

        qz::Animation spin = qz::Animation::basic("transform.rotation.z");
        spin.set_from(qz::Value::number(0));
        spin.set_to(qz::Value::number(M_PI));
        qz::Animation fade = qz::Animation::basic("opacity");
        fade.set_from(qz::Value::number(1));
        fade.set_to(qz::Value::number(0.3));
        for (qz::Animation *a : {&spin, &fade}) {
            a->set_duration(2);
            a->set_timing_function(qz::TimingFunction::named(kCAMediaTimingFunctionEaseInEaseOut));
        }
        card.add_animation(spin, "spin");
        card.add_animation(fade, "fade");
        qz::Transaction::flush();                   // the animations start at media time 0

        qz::PixelBuffer target = qz::PixelBuffer::create(160, 120);
        qz::Renderer renderer = qz::Renderer::create(target);
        renderer.set_layer(root);
        for (int i = 0; i < 3; i++) {
            media_now = i * 0.75;
            renderer.render_frame(media_now);
            std::string path = outdir + "/cpp_" + std::to_string(i) + ".png";
            target.write_png(path);
            std::printf("t=%.2f s  opacity %.2f  %s\n", media_now, card.presentation().opacity(), path.c_str());
        }
    } catch (const qz::Exception &e) {
        std::fprintf(stderr, "cpp_example: %s (QZError %d)\n", e.what(), static_cast<int>(e.code()));
        QZSetMediaTimeSource(nullptr, nullptr);
        return 1;
    }
    QZSetMediaTimeSource(nullptr, nullptr);
    return 0;
}
