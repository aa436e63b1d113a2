import CCairo
import CPango
import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import Glibc

// The one Pango font map and context that Core Text and CATextLayer lay text
// out with. Pango's font maps are not thread-safe, so every use of Pango
// (fonts, layouts, drawing) holds `TextSystem.lock`, a recursive mutex of
// its own; text work never calls host code, so holding it cannot deadlock
// with the model lock.
//
// Layout happens in points: the context's resolution is 72 dpi (Pango's
// default of 96 would make 36 "points" 48 pixels). Metrics are not hinted
// and glyph positions are not rounded, so a layout does not depend on the
// scale it is drawn at (contentsScale 2 draws the same layout sharper), and
// glyphs are antialiased in gray (Apple's CATextLayer never uses subpixel
// antialiasing).

/// A recursive pthread mutex.
package final class RecursiveLock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// Counters of text work, for tests and benchmarks (QZTextGetStatistics).
public struct TextStatistics: Sendable {
    /// Layouts made (shaping, bidi and line breaking of a whole text).
    public var layouts: UInt64 = 0
    /// Layouts found in the layout cache instead of being made again.
    public var layoutCacheHits: UInt64 = 0
    /// Layouts drawn into a context (CATextLayer displays, CTLineDraw, CTFrameDraw).
    public var draws: UInt64 = 0
}

/// Pango's font map and context, the caches of fonts and layouts, and the
/// counters. Reached through `TextSystem.shared` with `lock` held.
public final class TextSystem: @unchecked Sendable {
    package static let lock = RecursiveLock()

    nonisolated(unsafe) private static var instance: TextSystem?

    /// The text system (made on first use). Callers hold `lock`.
    package static var shared: TextSystem {
        if let s = instance { return s }
        let s = TextSystem()
        instance = s
        return s
    }

    package let fontMap: UnsafeMutablePointer<PangoFontMap>
    package let context: OpaquePointer
    package var statistics = TextStatistics()
    /// Bumped when the font configuration changes (layouts made before are stale).
    package private(set) var configurationGeneration: UInt64 = 0
    package let fonts = FontCache()
    package let layouts = LayoutCache()

    private init() {
        // A font map of our own (not the per-thread default) with a
        // fontconfig configuration chosen by QUARTZITE_FONTCONFIG_FILE when
        // it is set, else fontconfig's (FONTCONFIG_FILE or the system's).
        fontMap = pango_cairo_font_map_new()!
        pango_cairo_font_map_set_resolution(OpaquePointer(fontMap), 72)
        context = pango_font_map_create_context(fontMap)!
        pango_cairo_context_set_resolution(context, 72)
        pango_context_set_round_glyph_positions(context, 0)
        let options = cairo_font_options_create()!
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_subpixel_order(options, CAIRO_SUBPIXEL_ORDER_DEFAULT)
        pango_cairo_context_set_font_options(context, options)
        cairo_font_options_destroy(options)
        if let path = getenv("QUARTZITE_FONTCONFIG_FILE"), path.pointee != 0 {
            _ = loadConfiguration(String(cString: path))
        }
    }

    /// Replaces the font configuration with the fontconfig file at `path`
    /// (its <dir> elements name the only fonts used). Caches are emptied.
    package func loadConfiguration(_ path: String) -> Bool {
        guard let config = FcConfigCreate() else { return false }
        let ok = path.withCString { p in
            FcConfigParseAndLoad(config, UnsafeRawPointer(p).assumingMemoryBound(to: FcChar8.self), 1) != 0
        }
        guard ok, FcConfigBuildFonts(config) != 0 else {
            FcConfigDestroy(config)
            return false
        }
        pango_fc_font_map_set_config(OpaquePointer(fontMap), config)
        FcConfigDestroy(config)   // (the font map holds its own reference)
        pango_context_changed(context)
        fonts.removeAll()
        layouts.removeAll()
        configurationGeneration &+= 1
        return true
    }

    /// The fontconfig configuration the font map uses.
    package var fcConfig: OpaquePointer? {
        pango_fc_font_map_get_config(OpaquePointer(fontMap))
    }
}

/// Runs `body` with the text lock held.
@inline(__always)
package func withTextLock<R>(_ body: () throws -> R) rethrows -> R {
    try TextSystem.lock.withLock(body)
}

extension TextSystem {
    /// The counters so far.
    public static var currentStatistics: TextStatistics { withTextLock { shared.statistics } }

    public static func resetStatistics() { withTextLock { shared.statistics = TextStatistics() } }

    /// Uses the fontconfig file at `path` from now on (QZTextSetFontConfigurationFile).
    public static func useFontConfiguration(file path: String) -> Bool {
        withTextLock { shared.loadConfiguration(path) }
    }
}
