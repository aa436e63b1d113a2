import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CATiledLayer's workers, tile cache and fade, and the renderer option that
// makes a frame wait for its tiles. (The layer's properties are in
// Exports+LayerProperties.swift.)
//
// Threads: tiles are drawn on worker threads, a pool shared by every tiled
// layer (as many threads as the machine has cores, at least 2), by the
// layer's drawing method (its class's drawInContext or its delegate's
// drawLayerInContext), several at once; the drawing may call back into the
// library. These functions may be called from any thread; the waiting ones
// let go of the model lock while they wait, so that drawings calling into
// the library go on.

/// Makes each frame of `renderer` wait until the tiles it shows are drawn
/// (and build itself again with them), instead of showing them in a later
/// frame: deterministic frames for tests and offline rendering. A frame
/// waits at most 30 s (then QZErrorInvalidState is recorded and it shows
/// what is drawn). Tiles still fade in over the fade duration of their
/// layer's class, from the first frame that shows them. Default false.
@c public func QZRendererSetWaitsForTiles(_ renderer: CARendererRef?, _ waits: Bool) {
    withRenderer(renderer, ()) { $0.waitsForTiles = waits }
}

/// Whether frames of `renderer` wait for their tiles (false for a bad handle).
@c public func QZRendererGetWaitsForTiles(_ renderer: CARendererRef?) -> Bool {
    withRenderer(renderer, false) { $0.waitsForTiles }
}

/// Sets the number of worker threads drawing tiles (0: the default, the
/// machine's cores, at least 2 and at most 16; at most 64). Threads beyond
/// the new count leave once their current tile is drawn. The same pool draws
/// the bands of CPU renderers with several threads (QZRendererSetThreadCount;
/// it then holds up to their count - 1 threads if that is more, and no more
/// than this count draw tiles at once).
@c public func QZTiledLayerSetWorkerThreadCount(_ count: size_t) {
    guard count <= 64 else {
        recordError(QZErrorOutOfRange, #function, "count \(count) is above 64")
        return
    }
    TileStore.shared.setThreadCount(Int(count))
}

/// The number of worker threads drawing tiles.
@c public func QZTiledLayerGetWorkerThreadCount() -> size_t {
    size_t(TileStore.shared.threadCount)
}

/// Sets the memory budget of the tiles of every tiled layer, in bytes
/// (default 128 MiB). When drawn tiles exceed it, the least recently
/// visible ones are dropped (down to 7/8 of it) and drawn again when needed.
@c public func QZTiledLayerSetCacheMemoryLimit(_ bytes: size_t) {
    TileStore.shared.setBudget(Int(clamping: bytes))
}

/// The memory budget of the tile cache, in bytes.
@c public func QZTiledLayerGetCacheMemoryLimit() -> size_t {
    size_t(TileStore.shared.withLock { $0.budget })
}

/// The bytes of pixels the drawn tiles of every tiled layer hold now.
@c public func QZTiledLayerGetCacheMemoryUsage() -> size_t {
    size_t(max(TileStore.shared.withLock { $0.bytes }, 0))
}

/// Waits until no tile is queued or being drawn, at most `timeout` seconds
/// (infinity: no limit). Returns true when idle, false on time-out
/// (QZErrorNotFinite and false for NaN).
@c public func QZTiledLayerWaitForTiles(_ timeout: CFTimeInterval) -> Bool {
    guard !timeout.isNaN else {
        recordError(QZErrorNotFinite, #function, "timeout must not be NaN")
        return false
    }
    return TileStore.shared.waitUntilIdle(timeout: timeout)
}

/// Drops every queued tile (they are asked for again when next visible) and
/// waits for those being drawn, at most `timeout` seconds; true when no tile
/// is drawing any more. Hosts whose drawing code is about to go away (an
/// interpreter shutting down) call it first.
@c public func QZTiledLayerCancelPendingTiles(_ timeout: CFTimeInterval) -> Bool {
    guard !timeout.isNaN else {
        recordError(QZErrorNotFinite, #function, "timeout must not be NaN")
        return false
    }
    return TileStore.shared.cancelQueued(timeout: timeout)
}

/// Tiles drawn and delivered since the library loaded (or the last reset).
@c public func QZTiledLayerGetDrawnTileCount() -> UInt64 {
    TileStore.shared.withLock { $0.statistics.tilesDrawn }
}

/// The most tiles that were being drawn at the same moment since the
/// library loaded (or the last reset).
@c public func QZTiledLayerGetMaxConcurrentDrawing() -> size_t {
    size_t(TileStore.shared.withLock { $0.statistics.maxConcurrentDrawing })
}

/// Resets the counters of QZTiledLayerGetDrawnTileCount and QZTiledLayerGetMaxConcurrentDrawing.
@c public func QZTiledLayerResetStatistics() {
    TileStore.shared.withLock { $0.statistics = TileStatistics() }
}

/// Overrides Apple's +[CATiledLayer fadeDuration] for a layer class (and its
/// subclasses without their own): the seconds a newly drawn tile takes to
/// fade in (0: shown at once). QZErrorNotFinite for NaN or infinity,
/// QZErrorOutOfRange for a negative value.
@c public func QZTiledLayerClassSetFadeDuration(_ cls: CALayerClassRef?, _ duration: CFTimeInterval) {
    guard duration.isFinite else {
        recordError(QZErrorNotFinite, #function, "duration must be finite")
        return
    }
    guard duration >= 0 else {
        recordError(QZErrorOutOfRange, #function, "duration \(duration) is negative")
        return
    }
    guard let c = object(cls, as: LayerClass.self) else { return }
    withModelLock { c.fadeDurationOverride = duration }
}

/// The fade duration of a layer class's tiles: its own, else its nearest
/// superclass's override, else 0.25 s (NaN for a bad handle).
@c public func QZTiledLayerClassGetFadeDuration(_ cls: CALayerClassRef?) -> CFTimeInterval {
    guard let c = object(cls, as: LayerClass.self) else { return .nan }
    return withModelLock { c.tiledFadeDuration }
}
