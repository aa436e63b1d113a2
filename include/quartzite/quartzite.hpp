/**
 * @file quartzite.hpp
 * @brief Header-only C++17 wrappers of the Quartzite C API: RAII handles,
 *        move semantics, and errors as exceptions or return values.
 *
 * ```cpp
 * #include <quartzite/quartzite.hpp>
 *
 * qz::Layer root = qz::Layer::create();          // +1, released by the destructor
 * root.set_bounds(CGRectMake(0, 0, 320, 240));
 * qz::Layer card = qz::Layer::create();
 * root.add_sublayer(card);                       // the tree retains card too
 * qz::PixelBuffer target = qz::PixelBuffer::create(320, 240);
 * qz::Renderer renderer = qz::Renderer::create(target);
 * renderer.set_layer(root);
 * renderer.render_frame(0.0);
 * ```
 *
 * **Ownership.** qz::Ref<H> owns one reference to a Quartzite handle H: a
 * copy retains (CARetain), a move steals, the destructor releases
 * (CARelease). `adopt(h)` takes over a +1 reference (what a Create or Copy
 * function returns); `retain(h)` adds one to a borrowed (+0) reference.
 * `get()` gives the raw handle for any C function of quartzite.h;
 * `release()` hands the reference back to C. Typed handles (Layer,
 * Animation, Value, Color, TimingFunction, PixelBuffer, Renderer) derive
 * from it and add methods named after the C functions they call
 * (`Layer::add_sublayer` calls CALayerAddSublayer).
 *
 * **Errors, by the host's choice.** Every wrapper call clears the thread's
 * last error, calls the C function, and turns what the library recorded
 * (QZGetLastError, or a CVReturn code) into a qz::Error. What happens next
 * is chosen once per program, before the first include:
 *
 * - `QUARTZITE_HPP_EXCEPTIONS` 1 (the default when exceptions are enabled):
 *   a failing call throws qz::Exception, and `qz::Returns<T>` is plain `T`.
 * - `QUARTZITE_HPP_EXCEPTIONS` 0 (the default under -fno-exceptions): every
 *   call returns `qz::Result<T>`, which holds the value or the qz::Error
 *   (`ok()`, `value()`, `error()`, `value_or()`); nothing throws.
 *
 * The wrappers add no state of their own: a qz::Layer and the CALayerRef it
 * holds are the same layer, and C and C++ code can share a tree.
 */
#ifndef QUARTZITE_QUARTZITE_HPP
#define QUARTZITE_QUARTZITE_HPP

#include <quartzite/quartzite.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#ifndef QUARTZITE_HPP_EXCEPTIONS
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define QUARTZITE_HPP_EXCEPTIONS 1
#else
#define QUARTZITE_HPP_EXCEPTIONS 0
#endif
#endif

#if QUARTZITE_HPP_EXCEPTIONS
#include <stdexcept>
#endif

/** @brief The C++ wrappers of Quartzite. */
namespace qz {

// MARK: - Errors

/** @brief What a failing call recorded: a QZError code, the CVReturn of a
 *  Core Video call (kCVReturnSuccess otherwise) and the library's message. */
struct Error {
    QZError code = QZErrorNone;
    CVReturn cv_return = kCVReturnSuccess;
    std::string message;

    /** @brief True when nothing failed. */
    bool ok() const noexcept { return code == QZErrorNone && cv_return == kCVReturnSuccess; }
};

#if QUARTZITE_HPP_EXCEPTIONS
/** @brief Thrown by a failing call when QUARTZITE_HPP_EXCEPTIONS is 1. */
class Exception : public std::runtime_error {
public:
    explicit Exception(Error error)
        : std::runtime_error(error.message.empty() ? "Quartzite call failed" : error.message),
          error_(std::move(error)) {}
    /** @brief The error, with its codes. */
    const Error &error() const noexcept { return error_; }
    /** @brief The QZError code (QZErrorNone for a CVReturn-only failure). */
    QZError code() const noexcept { return error_.code; }

private:
    Error error_;
};
#endif

/** @brief A value or the error that kept it from being made (the return
 *  type of every call when QUARTZITE_HPP_EXCEPTIONS is 0). */
template <class T>
class Result {
public:
    Result(T value) : value_(std::move(value)) {}   // NOLINT: implicit, as std::expected
    Result(Error error) : error_(std::move(error)) {}  // NOLINT

    /** @brief True when the call succeeded. */
    bool ok() const noexcept { return error_.ok(); }
    explicit operator bool() const noexcept { return ok(); }
    /** @brief The error (ok() when there is none). */
    const Error &error() const noexcept { return error_; }
    /** @brief The value: a default-constructed T (a null handle) after a
     *  failure, or qz::Exception thrown when exceptions are on. */
    T &value() & { check(); return value_; }
    const T &value() const & { check(); return value_; }
    T &&value() && { check(); return std::move(value_); }
    /** @brief The value, or `fallback` after a failure. */
    T value_or(T fallback) && { return ok() ? std::move(value_) : std::move(fallback); }

private:
    void check() const {
#if QUARTZITE_HPP_EXCEPTIONS
        if (!ok()) throw Exception(error_);
#endif
    }
    T value_{};
    Error error_;
};

/** @brief The result of a call that returns nothing. */
template <>
class Result<void> {
public:
    Result() = default;
    Result(Error error) : error_(std::move(error)) {}  // NOLINT
    bool ok() const noexcept { return error_.ok(); }
    explicit operator bool() const noexcept { return ok(); }
    const Error &error() const noexcept { return error_; }

private:
    Error error_;
};

#if QUARTZITE_HPP_EXCEPTIONS
/** @brief What a wrapper returns: `T` (errors throw qz::Exception). */
template <class T>
using Returns = T;
#else
/** @brief What a wrapper returns: `qz::Result<T>` (nothing throws). */
template <class T>
using Returns = Result<T>;
#endif

namespace detail {

/** Takes the thread's recorded error (and clears it). */
inline Error take_error(CVReturn cv_return = kCVReturnSuccess) {
    Error error;
    error.code = QZGetLastError();
    error.cv_return = cv_return;
    if (!error.ok()) {
        const char *message = QZGetLastErrorMessage();
        error.message = message ? message : "";
        if (error.message.empty()) error.message = "Core Video call returned " + std::to_string(cv_return);
    }
    QZClearLastError();
    return error;
}

template <class T>
Returns<T> finish(T value, Error error) {
#if QUARTZITE_HPP_EXCEPTIONS
    if (!error.ok()) throw Exception(std::move(error));
    return value;
#else
    if (!error.ok()) return Result<T>(std::move(error));
    return Result<T>(std::move(value));
#endif
}

inline Returns<void> finish(Error error) {
#if QUARTZITE_HPP_EXCEPTIONS
    if (!error.ok()) throw Exception(std::move(error));
#else
    return Result<void>(std::move(error));
#endif
}

/** Calls f with a clear error state and reports what it recorded. */
template <class F>
auto call(F &&f) -> Returns<decltype(f())> {
    using R = decltype(f());
    QZClearLastError();
    if constexpr (std::is_void_v<R>) {
        f();
        return finish(take_error());
    } else {
        R value = f();
        return finish<R>(std::move(value), take_error());
    }
}

/** The same for a function returning a CVReturn. */
template <class F>
Returns<void> cv_call(F &&f) {
    QZClearLastError();
    CVReturn status = f();
    return finish(take_error(status));
}

}  // namespace detail

// MARK: - References

/** @brief Owns one reference to a Quartzite handle: copies retain, moves
 *  steal, the destructor releases. An empty Ref holds NULL. */
template <class Handle>
class Ref {
public:
    using handle_type = Handle;

    Ref() noexcept = default;
    Ref(std::nullptr_t) noexcept {}  // NOLINT
    Ref(const Ref &other) noexcept : ref_(other.ref_) {
        if (ref_) CARetain(ref_);
    }
    Ref(Ref &&other) noexcept : ref_(std::exchange(other.ref_, nullptr)) {}
    Ref &operator=(const Ref &other) noexcept {
        Ref copy(other);
        swap(copy);
        return *this;
    }
    Ref &operator=(Ref &&other) noexcept {
        Ref moved(std::move(other));
        swap(moved);
        return *this;
    }
    ~Ref() {
        if (ref_) CARelease(ref_);
    }

    /** @brief The raw handle, borrowed (+0): valid while this Ref holds it. */
    Handle get() const noexcept { return ref_; }
    /** @brief Gives up ownership: the caller now owns the +1 reference. */
    Handle release() noexcept { return std::exchange(ref_, nullptr); }
    /** @brief Drops the reference (the object goes when its last one does). */
    void reset() noexcept { Ref().swap(*this); }
    void swap(Ref &other) noexcept { std::swap(ref_, other.ref_); }
    explicit operator bool() const noexcept { return ref_ != nullptr; }
    friend bool operator==(const Ref &a, const Ref &b) noexcept { return a.ref_ == b.ref_; }
    friend bool operator!=(const Ref &a, const Ref &b) noexcept { return a.ref_ != b.ref_; }

protected:
    struct adopt_tag {};
    Ref(Handle ref, adopt_tag) noexcept : ref_(ref) {}

private:
    Handle ref_ = nullptr;
};

#define QZ_HPP_HANDLE(Class, Handle)                                                              \
public:                                                                                           \
    Class() noexcept = default;                                                                   \
    Class(std::nullptr_t) noexcept {}                                                             \
    /** @brief Takes over a +1 reference (from a Create or Copy function). */                     \
    static Class adopt(Handle ref) noexcept { return Class(ref, adopt_tag{}); }                   \
    /** @brief Adds a reference to a borrowed (+0) one. */                                        \
    static Class retain(Handle ref) noexcept {                                                    \
        if (ref) CARetain(ref);                                                                   \
        return Class(ref, adopt_tag{});                                                           \
    }                                                                                             \
                                                                                                  \
private:                                                                                          \
    Class(Handle ref, adopt_tag tag) noexcept : Ref<Handle>(ref, tag) {}                          \
                                                                                                  \
public:

// MARK: - Values and colours

/** @brief An sRGB colour (CGColorRef). */
class Color : public Ref<CGColorRef> {
    QZ_HPP_HANDLE(Color, CGColorRef)
    /** @brief CGColorCreateSRGB. */
    static Returns<Color> srgb(double red, double green, double blue, double alpha = 1.0) {
        return detail::call([&] { return adopt(CGColorCreateSRGB(red, green, blue, alpha)); });
    }
};

/** @brief A boxed value (CAValueRef): number, string, point, transform,
 *  colour, ... as the C API's `id`. */
class Value : public Ref<CAValueRef> {
    QZ_HPP_HANDLE(Value, CAValueRef)
    static Returns<Value> number(double n) {
        return detail::call([&] { return adopt(CAValueCreateNumber(n)); });
    }
    static Returns<Value> string(const std::string &s) {
        return detail::call([&] { return adopt(CAValueCreateString(s.c_str())); });
    }
    static Returns<Value> point(CGPoint p) {
        return detail::call([&] { return adopt(CAValueCreatePoint(p)); });
    }
    static Returns<Value> transform(const CATransform3D &t) {
        return detail::call([&] { return adopt(CAValueCreateTransform3D(t)); });
    }
    static Returns<Value> color(const Color &c) {
        return detail::call([&] { return adopt(CAValueCreateColor(c.get())); });
    }
    /** @brief CAValueGetType (kCAValueTypeNull for an empty Value). */
    CAValueType type() const noexcept { return CAValueGetType(get()); }
    Returns<double> as_number() const {
        return detail::call([&] { return CAValueGetNumber(get()); });
    }
    Returns<std::string> as_string() const {
        return detail::call([&] {
            const char *s = CAValueGetString(get());
            return std::string(s ? s : "");
        });
    }
    Returns<CGPoint> as_point() const {
        return detail::call([&] { return CAValueGetPoint(get()); });
    }
};

/** @brief A CAMediaTimingFunction. */
class TimingFunction : public Ref<CAMediaTimingFunctionRef> {
    QZ_HPP_HANDLE(TimingFunction, CAMediaTimingFunctionRef)
    /** @brief CAMediaTimingFunctionCreateWithName (kCAMediaTimingFunctionEaseIn, ...). */
    static Returns<TimingFunction> named(const char *name) {
        return detail::call([&] { return adopt(CAMediaTimingFunctionCreateWithName(name)); });
    }
};

// MARK: - Animations

/** @brief A CAAnimation of any class: basic, keyframe, group, transition. */
class Animation : public Ref<CAAnimationRef> {
    QZ_HPP_HANDLE(Animation, CAAnimationRef)
    /** @brief CABasicAnimationCreate(keyPath). */
    static Returns<Animation> basic(const char *key_path) {
        return detail::call([&] { return adopt(CABasicAnimationCreate(key_path)); });
    }
    /** @brief CAKeyframeAnimationCreate(keyPath). */
    static Returns<Animation> keyframe(const char *key_path) {
        return detail::call([&] { return adopt(CAKeyframeAnimationCreate(key_path)); });
    }
    /** @brief CAAnimationGroupCreate(). */
    static Returns<Animation> group() {
        return detail::call([&] { return adopt(CAAnimationGroupCreate()); });
    }
    /** @brief CATransitionCreate(). */
    static Returns<Animation> transition() {
        return detail::call([&] { return adopt(CATransitionCreate()); });
    }
    Returns<void> set_duration(CFTimeInterval seconds) {
        return detail::call([&] { CAAnimationSetDuration(get(), seconds); });
    }
    Returns<void> set_repeat_count(float count) {
        return detail::call([&] { CAAnimationSetRepeatCount(get(), count); });
    }
    Returns<void> set_autoreverses(bool on) {
        return detail::call([&] { CAAnimationSetAutoreverses(get(), on); });
    }
    Returns<void> set_fill_mode(const char *mode) {
        return detail::call([&] { CAAnimationSetFillMode(get(), mode); });
    }
    Returns<void> set_removed_on_completion(bool on) {
        return detail::call([&] { CAAnimationSetRemovedOnCompletion(get(), on); });
    }
    Returns<void> set_timing_function(const TimingFunction &f) {
        return detail::call([&] { CAAnimationSetTimingFunction(get(), f.get()); });
    }
    /** @brief CABasicAnimationSetFromValue (basic animations). */
    Returns<void> set_from(const Value &v) {
        return detail::call([&] { CABasicAnimationSetFromValue(get(), v.get()); });
    }
    /** @brief CABasicAnimationSetToValue (basic animations). */
    Returns<void> set_to(const Value &v) {
        return detail::call([&] { CABasicAnimationSetToValue(get(), v.get()); });
    }
};

// MARK: - Pixel buffers

/** @brief A CVPixelBufferRef. Row 0 is the top row; the renderer's
 *  targets are premultiplied BGRA. */
class PixelBuffer : public Ref<CVPixelBufferRef> {
    QZ_HPP_HANDLE(PixelBuffer, CVPixelBufferRef)
    /** @brief CVPixelBufferCreate; a failure carries its CVReturn. */
    static Returns<PixelBuffer> create(size_t width, size_t height,
                                       OSType format = kCVPixelFormatType_32BGRA) {
        CVPixelBufferRef out = nullptr;
        QZClearLastError();
        CVReturn status = CVPixelBufferCreate(nullptr, width, height, format, nullptr, &out);
        return detail::finish<PixelBuffer>(adopt(out), detail::take_error(status));
    }
    size_t width() const noexcept { return CVPixelBufferGetWidth(get()); }
    size_t height() const noexcept { return CVPixelBufferGetHeight(get()); }
    size_t bytes_per_row() const noexcept { return CVPixelBufferGetBytesPerRow(get()); }
    OSType pixel_format() const noexcept { return CVPixelBufferGetPixelFormatType(get()); }
    /** @brief The first byte (the memory never moves; lock around access). */
    uint8_t *data() const noexcept { return static_cast<uint8_t *>(CVPixelBufferGetBaseAddress(get())); }
    Returns<void> lock(bool read_only = false) {
        return detail::cv_call([&] { return CVPixelBufferLockBaseAddress(get(), read_only ? kCVPixelBufferLock_ReadOnly : 0); });
    }
    Returns<void> unlock(bool read_only = false) {
        return detail::cv_call([&] { return CVPixelBufferUnlockBaseAddress(get(), read_only ? kCVPixelBufferLock_ReadOnly : 0); });
    }
    /** @brief QZPixelBufferWritePNG. */
    Returns<void> write_png(const std::string &path) const {
        return detail::cv_call([&] { return QZPixelBufferWritePNG(get(), path.c_str()); });
    }
};

/** @brief Locks a buffer for a scope (CVPixelBufferLock/UnlockBaseAddress;
 *  a read-write unlock tells the renderer the pixels changed). */
class PixelBufferLock {
public:
    explicit PixelBufferLock(const PixelBuffer &buffer, bool read_only = false)
        : buffer_(buffer), read_only_(read_only),
          locked_(CVPixelBufferLockBaseAddress(buffer.get(), read_only ? kCVPixelBufferLock_ReadOnly : 0) ==
                  kCVReturnSuccess) {}
    PixelBufferLock(const PixelBufferLock &) = delete;
    PixelBufferLock &operator=(const PixelBufferLock &) = delete;
    ~PixelBufferLock() {
        if (locked_) CVPixelBufferUnlockBaseAddress(buffer_.get(), read_only_ ? kCVPixelBufferLock_ReadOnly : 0);
    }
    /** @brief False when the lock failed (the buffer was empty). */
    bool locked() const noexcept { return locked_; }
    uint8_t *data() const noexcept { return locked_ ? buffer_.data() : nullptr; }
    /** @brief Row `y` (0 is the top). */
    uint8_t *row(size_t y) const noexcept { return locked_ ? buffer_.data() + y * buffer_.bytes_per_row() : nullptr; }

private:
    PixelBuffer buffer_;
    bool read_only_;
    bool locked_;
};

// MARK: - Layers

/** @brief A CALayerRef. Sublayers and superlayers come back as new
 *  references (retained), never as borrowed raw handles. */
class Layer : public Ref<CALayerRef> {
    QZ_HPP_HANDLE(Layer, CALayerRef)
    /** @brief CALayerCreate. */
    static Returns<Layer> create() {
        return detail::call([&] { return adopt(CALayerCreate()); });
    }

    Returns<CGRect> bounds() const { return detail::call([&] { return CALayerGetBounds(get()); }); }
    Returns<void> set_bounds(CGRect r) { return detail::call([&] { CALayerSetBounds(get(), r); }); }
    Returns<CGPoint> position() const { return detail::call([&] { return CALayerGetPosition(get()); }); }
    Returns<void> set_position(CGPoint p) { return detail::call([&] { CALayerSetPosition(get(), p); }); }
    Returns<void> set_anchor_point(CGPoint p) { return detail::call([&] { CALayerSetAnchorPoint(get(), p); }); }
    Returns<CGRect> frame() const { return detail::call([&] { return CALayerGetFrame(get()); }); }
    Returns<void> set_frame(CGRect r) { return detail::call([&] { CALayerSetFrame(get(), r); }); }
    Returns<float> opacity() const { return detail::call([&] { return CALayerGetOpacity(get()); }); }
    Returns<void> set_opacity(float o) { return detail::call([&] { CALayerSetOpacity(get(), o); }); }
    Returns<bool> hidden() const { return detail::call([&] { return CALayerGetHidden(get()); }); }
    Returns<void> set_hidden(bool h) { return detail::call([&] { CALayerSetHidden(get(), h); }); }
    Returns<void> set_corner_radius(double r) { return detail::call([&] { CALayerSetCornerRadius(get(), r); }); }
    Returns<void> set_border_width(double w) { return detail::call([&] { CALayerSetBorderWidth(get(), w); }); }
    Returns<void> set_border_color(const Color &c) { return detail::call([&] { CALayerSetBorderColor(get(), c.get()); }); }
    Returns<void> set_z_position(double z) { return detail::call([&] { CALayerSetZPosition(get(), z); }); }
    Returns<void> set_background_color(const Color &c) {
        return detail::call([&] { CALayerSetBackgroundColor(get(), c.get()); });
    }
    /** @brief The background colour, retained (empty when none). */
    Returns<Color> background_color() const {
        return detail::call([&] { return Color::retain(CALayerGetBackgroundColor(get())); });
    }
    Returns<CATransform3D> transform() const { return detail::call([&] { return CALayerGetTransform(get()); }); }
    Returns<void> set_transform(const CATransform3D &t) { return detail::call([&] { CALayerSetTransform(get(), t); }); }
    /** @brief The name ("" when nil). */
    Returns<std::string> name() const {
        return detail::call([&] {
            const char *n = CALayerGetName(get());
            return std::string(n ? n : "");
        });
    }
    Returns<void> set_name(const std::string &n) { return detail::call([&] { CALayerSetName(get(), n.c_str()); }); }
    /** @brief CALayerGetNumberForKeyPath ("position.x", "transform.rotation.z", ...). */
    Returns<double> number(const char *key_path) const {
        return detail::call([&] { return CALayerGetNumberForKeyPath(get(), key_path); });
    }
    Returns<void> set_number(const char *key_path, double value) {
        return detail::call([&] { CALayerSetNumberForKeyPath(get(), key_path, value); });
    }
    /** @brief CALayerCopyValueForKeyPath. */
    Returns<Value> value(const char *key_path) const {
        return detail::call([&] { return Value::adopt(CALayerCopyValueForKeyPath(get(), key_path)); });
    }
    Returns<void> set_contents(const PixelBuffer &contents) {
        return detail::call([&] { CALayerSetContents(get(), contents.get()); });
    }

    // Tree
    Returns<void> add_sublayer(const Layer &sublayer) {
        return detail::call([&] { CALayerAddSublayer(get(), sublayer.get()); });
    }
    Returns<void> remove_from_superlayer() { return detail::call([&] { CALayerRemoveFromSuperlayer(get()); }); }
    Returns<size_t> sublayer_count() const { return detail::call([&] { return CALayerGetSublayerCount(get()); }); }
    /** @brief Sublayer `index`, retained. */
    Returns<Layer> sublayer(size_t index) const {
        return detail::call([&] { return retain(CALayerGetSublayerAtIndex(get(), index)); });
    }
    /** @brief The superlayer, retained (empty for a root). */
    Returns<Layer> superlayer() const { return detail::call([&] { return retain(CALayerGetSuperlayer(get())); }); }
    /** @brief CALayerHitTest: the deepest layer containing `point` (in the
     *  superlayer's space), retained; empty when none. */
    Returns<Layer> hit_test(CGPoint point) const {
        return detail::call([&] { return retain(CALayerHitTest(get(), point)); });
    }

    // Animation
    /** @brief CALayerAddAnimation (the layer runs a copy). */
    Returns<void> add_animation(const Animation &animation, const char *key) {
        return detail::call([&] { CALayerAddAnimation(get(), animation.get(), key); });
    }
    Returns<void> remove_all_animations() { return detail::call([&] { CALayerRemoveAllAnimations(get()); }); }
    /** @brief CALayerCopyPresentationLayer: the layer as on screen now. */
    Returns<Layer> presentation() const {
        return detail::call([&] { return adopt(CALayerCopyPresentationLayer(get())); });
    }
};

// MARK: - Rendering

/** @brief A CARenderer drawing a layer tree into a pixel buffer, which it
 *  keeps alive. */
class Renderer : public Ref<CARendererRef> {
    QZ_HPP_HANDLE(Renderer, CARendererRef)
    /** @brief CARendererCreate(target, NULL). */
    static Returns<Renderer> create(const PixelBuffer &target) {
        return detail::call([&] { return adopt(CARendererCreate(target.get(), nullptr)); });
    }
    Returns<void> set_layer(const Layer &layer) { return detail::call([&] { CARendererSetLayer(get(), layer.get()); }); }
    Returns<void> set_bounds(CGRect r) { return detail::call([&] { CARendererSetBounds(get(), r); }); }
    Returns<void> begin_frame(CFTimeInterval time) {
        return detail::call([&] { CARendererBeginFrameAtTime(get(), time, nullptr); });
    }
    /** @brief What the frame redraws (CGRectNull: nothing changed). */
    Returns<CGRect> update_bounds() { return detail::call([&] { return CARendererUpdateBounds(get()); }); }
    Returns<void> render() { return detail::call([&] { CARendererRender(get()); }); }
    Returns<void> end_frame() { return detail::call([&] { CARendererEndFrame(get()); }); }
    /** @brief When the next frame differs (INFINITY while nothing animates). */
    Returns<CFTimeInterval> next_frame_time() const {
        return detail::call([&] { return CARendererGetNextFrameTime(get()); });
    }
    /** @brief A whole frame at media time `time`: begin, update bounds,
     *  render, end. Returns what was redrawn (CGRectNull: nothing). */
    Returns<CGRect> render_frame(CFTimeInterval time) {
        return detail::call([&] {
            CARendererBeginFrameAtTime(get(), time, nullptr);
            CGRect dirty = CARendererUpdateBounds(get());
            CARendererRender(get());
            CARendererEndFrame(get());
            return dirty;
        });
    }
};

// MARK: - Transactions

/** @brief An explicit CATransaction for a scope: Begin in the constructor,
 *  Commit in the destructor. */
class Transaction {
public:
    Transaction() { CATransactionBegin(); }
    explicit Transaction(CFTimeInterval animation_duration) {
        CATransactionBegin();
        CATransactionSetAnimationDuration(animation_duration);
    }
    Transaction(const Transaction &) = delete;
    Transaction &operator=(const Transaction &) = delete;
    ~Transaction() { CATransactionCommit(); }
    void set_animation_duration(CFTimeInterval seconds) { CATransactionSetAnimationDuration(seconds); }
    void set_disable_actions(bool disable) { CATransactionSetDisableActions(disable); }
    /** @brief CATransactionFlush: commits the thread's implicit transaction. */
    static void flush() { CATransactionFlush(); }
};

#undef QZ_HPP_HANDLE

}  // namespace qz

#endif /* QUARTZITE_QUARTZITE_HPP */
