import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import Glibc

// CATiledLayer: the layer's content as a grid of tiles at levels of detail,
// drawn on demand by the layer's drawing method on worker threads and kept
// in a cache with a memory budget.
//
// Level z draws contentsScale x 2^z pixels per point; z runs from
// -(levelsOfDetail - 1) (coarsest) to levelsOfDetailBias (the magnified
// levels). Tiles of level z are tileSize pixels, anchored at the layer's
// point (0, 0), so every tile of level z - 1 covers exactly 2 x 2 of level z.
//
// Locks: the model lock (held by the renderer while it builds a frame, and by
// commits), then TileStore's mutex (the caches, the queue and the counters).
// Workers never take the model lock while holding the store's, and draw
// holding neither.

/// Where a tile sits in its layer's grids.
package struct TileKey: Hashable, Comparable {
    package var level: Int
    package var x: Int
    package var y: Int
    package init(level: Int, x: Int, y: Int) { self.level = level; self.x = x; self.y = y }
    package static func < (a: TileKey, b: TileKey) -> Bool {
        (a.level, a.y, a.x) < (b.level, b.y, b.x)
    }
}

/// One tile of a layer: its pixels once drawn.
package final class Tile {
    package let key: TileKey
    /// The tile's rectangle in layer coordinates (clipped to the bounds it was requested for).
    package var rect: CGRect
    package var pixels: PixelBuffer?
    /// Frame time at which it was first shown (the fade starts there); nil: not yet shown.
    package var shownAt: Double?
    /// Marked by setNeedsDisplayInRect: redrawn when next visible (the old pixels show meanwhile).
    package var stale = false
    package var inFlight = false
    /// The drawing failed (no memory): not asked again until invalidated.
    package var failed = false
    /// Increments with each request; a drawing delivers only to its own request.
    package var ticket: UInt64 = 0
    /// The store's clock when last visible (least recently visible goes first).
    package var lastUsed: UInt64 = 0
    /// The cache's visit count when last wanted (queued tiles nobody wants any more are skipped).
    package var lastWanted: UInt64 = 0
    package var bytes: Int { pixels.map { $0.height * $0.bytesPerRow } ?? 0 }
    package init(key: TileKey, rect: CGRect) { self.key = key; self.rect = rect }
}

/// A tiled layer's tiles (kept on the model layer; guarded by TileStore's mutex).
package final class TileCache {
    package var tiles: [TileKey: Tile] = [:]
    /// Renderer visits, for skipping queued tiles that are no longer visible.
    package var visits: UInt64 = 0
    /// The threads drawing one of its tiles now.
    package var drawingThreads: [pthread_t] = []

    package init() { TileStore.shared.register(self) }
    deinit { TileStore.shared.unregister(self) }
}

extension TiledLayerState {
    /// The range of level exponents: -(levelsOfDetail - 1)...levelsOfDetailBias
    /// (levelsOfDetail 0 counts as 1; both capped at 30 levels, 2^30).
    package var levelRange: ClosedRange<Int> {
        let below = min(max(levelsOfDetail, 1), 31) - 1
        return -below...min(max(levelsOfDetailBias, 0), 30)
    }

    /// Tile size in pixels as drawn: each side within 16...4096 (a bad size
    /// cannot be stored, see Layer+PropertyStorage; this bounds the work).
    package var effectiveTileSize: (Int, Int) {
        func side(_ v: Double) -> Int { v.isFinite ? Int(min(max(v.rounded(.up), 16), 4096)) : 256 }
        return (side(tileSize.width), side(tileSize.height))
    }

    /// The level for an on-screen scale of `screenScale` pixels per point:
    /// the coarsest level with at least that resolution, within levelRange.
    package func level(forScreenScale screenScale: Double, contentsScale c: Double) -> Int {
        let range = levelRange
        guard screenScale.isFinite, screenScale > 0, c.isFinite, c > 0 else { return range.lowerBound }
        let z = (log2(screenScale / c) - 1e-9).rounded(.up)
        if !(z > Double(range.lowerBound)) { return range.lowerBound }
        if !(z < Double(range.upperBound)) { return range.upperBound }
        return Int(z)
    }

    /// Drops every tile (tileSize or levels changed).
    package func dropTiles() {
        changeCount &+= 1
        guard let cache else { return }
        TileStore.shared.withLock { store in
            for (_, t) in cache.tiles { store.bytes -= t.bytes; t.inFlight = false }
            cache.tiles.removeAll()
            store.broadcast()
        }
    }

    /// setNeedsDisplayInRect: the tiles overlapping `r` (with area) are redrawn when next visible.
    package func invalidateTiles(in r: CGRect) {
        changeCount &+= 1
        guard let cache, !r.isNull else { return }
        let r = r.standardized
        TileStore.shared.withLock { store in
            for (_, t) in cache.tiles where t.rect.minX < r.maxX && r.minX < t.rect.maxX && t.rect.minY < r.maxY && r.minY < t.rect.maxY {
                t.stale = true
                t.failed = false
                if t.inFlight { t.inFlight = false; t.ticket &+= 1 }   // (its drawing is outdated: not delivered)
            }
            store.broadcast()
        }
    }

    /// The cache, made on first use (callers hold the model lock).
    package var tileCache: TileCache {
        if let cache { return cache }
        let c = TileCache()
        cache = c
        return c
    }
}

/// How a tile is drawn: the class's drawInContext or the delegate's drawLayerInContext.
package struct TileDrawer {
    package let function: @convention(c) (CALayerRef?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
    package let info: UnsafeMutableRawPointer?
    /// Keeps the class (and its info) alive while a tile draws.
    package let owner: AnyObject?

    /// The drawing method of `layer` (a model layer), or nil when it has none
    /// (or displays itself: a display override or the delegate's displayLayer).
    package init?(_ layer: Layer) {
        if layer.layerClass.nearest({ $0.display }) != nil || layer.hooks?.delegate?.displayLayer != nil { return nil }
        if let (fn, info, cls) = layer.layerClass.nearest({ $0.drawInContext }) {
            function = fn
            self.info = info
            owner = cls
        } else if let hooks = layer.hooks, let fn = hooks.delegate?.drawLayerInContext {
            function = fn
            info = hooks.delegateInfo
            owner = hooks
        } else {
            return nil
        }
    }
}

/// A request to draw one tile.
package final class TileJob {
    package let cache: TileCache
    package let tile: Tile
    package let ticket: UInt64
    package var layer: Layer?
    let drawer: TileDrawer
    /// The tile's rectangle (layer coordinates), pixels per point, size in pixels.
    let rect: CGRect
    let scale: Double
    let width: Int, height: Int
    let flipped: Bool
    /// The tile's own rectangle (within `rect`): the context's clip.
    let clip: CGRect

    package init(cache: TileCache, tile: Tile, layer: Layer, drawer: TileDrawer, rect: CGRect, scale: Double,
                 width: Int, height: Int, flipped: Bool, clip: CGRect) {
        self.cache = cache; self.tile = tile; ticket = tile.ticket; self.layer = layer; self.drawer = drawer
        self.rect = rect; self.scale = scale; self.width = width; self.height = height; self.flipped = flipped
        self.clip = clip
    }

    /// Draws the tile (no lock held): a context whose CTM maps layer
    /// coordinates to the tile's pixels at the level's scale and whose clip
    /// is the tile's rectangle.
    func draw() -> PixelBuffer? {
        guard let layer,
              let pb = try? PixelBuffer.create(width: width, height: height, pixelFormat: UInt32(kCVPixelFormatType_32BGRA),
                                               attributes: nil) else { return nil }
        let k = scale
        var base = CGAffineTransform(a: k, b: 0, c: 0, d: k, tx: -rect.minX * k, ty: -rect.minY * k)
        if flipped { base = CGAffineTransform(a: k, b: 0, c: 0, d: -k, tx: -rect.minX * k, ty: rect.maxY * k) }
        guard let context = try? DrawingContext(target: pb, baseCTM: base) else { return nil }
        context.clip(to: [clip])
        context.drawnByOneThread = true
        let handle = borrowedHandle(layer)
        let ctx = borrowedHandle(context)
        let fn = drawer.function, info = drawer.info
        hostCall { fn(handle, ctx, info) }
        withExtendedLifetime(drawer.owner) {}
        pb.pixelsChanged()
        return pb
    }
}

/// Counters for tests and benchmarks (QZTiledLayerGetStatistics).
package struct TileStatistics {
    package var tilesDrawn: UInt64 = 0
    package var maxConcurrentDrawing = 0
    package var evictions: UInt64 = 0
    package init() {}
}

/// The tile caches of every tiled layer, their memory budget, and the worker
/// threads shared by all tiled layers and by the CPU renderer's bands
/// (`parallel`): one pool, so that tiles and frames do not each start threads
/// for every core.
package final class TileStore: @unchecked Sendable {
    package static let shared = TileStore()

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    // Everything below is guarded by `mutex`.
    private var caches: [ObjectIdentifier: Unmanaged<TileCache>] = [:]
    package var bytes = 0
    package var budget = 128 << 20
    /// Advances once per tiled layer visit (least recently visible first).
    package var clock: UInt64 = 0
    private var queue: [TileJob] = []
    private var running = 0
    private var threads = 0
    package var wantedThreads = 0
    package var statistics = TileStatistics()
    /// Batches of the renderer's bands being run, and the helpers the last
    /// one asked for (the pool keeps that many threads besides the tiles').
    private var batches: [Batch] = []
    private var batchHelpers = 0

    private init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        wantedThreads = TileStore.defaultThreadCount
    }

    /// The pool's default size: the machine's cores (at least 2, at most 16).
    package static var defaultThreadCount: Int {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return min(max(n, 2), 16)
    }

    @inline(__always)
    package func withLock<R>(_ body: (TileStore) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(self)
    }

    package func broadcast() { pthread_cond_broadcast(condition) }

    /// Waits on the condition (the mutex held) until `deadline` (CLOCK_MONOTONIC seconds).
    private func wait(until deadline: Double) {
        guard deadline.isFinite else { pthread_cond_wait(condition, mutex); return }
        var ts = timespec()
        ts.tv_sec = Int(deadline)
        ts.tv_nsec = Int((deadline - Double(ts.tv_sec)) * 1e9)
        pthread_cond_timedwait(condition, mutex, &ts)
    }

    func register(_ c: TileCache) { withLock { $0.caches[ObjectIdentifier(c)] = .passUnretained(c) } }
    func unregister(_ c: TileCache) {
        withLock { s in
            s.caches[ObjectIdentifier(c)] = nil
            for (_, t) in c.tiles { s.bytes -= t.bytes }
        }
    }

    // MARK: - Budget

    /// Evicts least recently visible tiles until the cache fits its budget (mutex held).
    package func evictIfNeeded() {
        guard bytes > budget else { return }
        // (The caches are held unretained here: a last release under the
        // mutex would run a cache's deinit, which takes it.)
        var all: [(Tile, Unmanaged<TileCache>)] = []
        for (_, c) in caches {
            c._withUnsafeGuaranteedRef { cache in
                for (_, t) in cache.tiles where t.pixels != nil { all.append((t, c)) }
            }
        }
        all.sort { $0.0.lastUsed < $1.0.lastUsed }
        // (Down to 7/8 of the budget, so that eviction is not run for every tile.)
        let target = budget - budget / 8
        for (t, c) in all {
            if bytes <= target { break }
            bytes -= t.bytes
            t.pixels = nil
            if !t.inFlight { c._withUnsafeGuaranteedRef { $0.tiles[t.key] = nil } }
            statistics.evictions += 1
        }
    }

    package func setBudget(_ b: Int) {
        withLock { s in s.budget = max(b, 0); s.evictIfNeeded() }
    }

    // MARK: - Workers

    /// Sets the number of worker threads (0: the default). Extra threads
    /// leave once idle.
    package func setThreadCount(_ n: Int) {
        withLock { s in
            s.wantedThreads = n <= 0 ? TileStore.defaultThreadCount : min(n, 64)
            s.broadcast()
        }
    }

    /// Threads the pool keeps: enough for the tiles and for the bands.
    private var poolSize: Int { max(wantedThreads, batchHelpers) }

    /// Starts threads up to the pool's size (mutex held).
    private func fillPool() {
        while threads < poolSize {
            guard spawn() else { break }
            threads += 1
        }
    }

    /// Queues `job` (mutex held) and starts threads up to the pool's size.
    package func enqueue(_ job: TileJob) {
        job.tile.inFlight = true
        queue.append(job)
        fillPool()
        pthread_cond_signal(condition)
    }

    // MARK: - Batches

    /// `count` independent pieces of work, `body(i)`, shared by the thread
    /// that started them and up to `helpers` workers.
    private final class Batch {
        let body: (Int) -> Void
        let count: Int
        let helpers: Int
        /// The next piece to take and the pieces done: atomic counters (a
        /// cache line each), taken and read without the mutex.
        let next: UnsafeMutablePointer<Int>
        var done: UnsafeMutablePointer<Int> { next + 8 }
        // Guarded by the mutex.
        var joined = 0
        init(_ body: @escaping (Int) -> Void, count: Int, helpers: Int) {
            self.body = body; self.count = count; self.helpers = helpers
            next = .allocate(capacity: 16)
            next.initialize(repeating: 0, count: 16)
        }
        deinit { next.deallocate() }
        var hasPiecesLeft: Bool { qz_internal_counter_load(next) < count }
        var isDone: Bool { qz_internal_counter_load(done) >= count }
    }

    /// Counts the batches posted (atomic): a worker that finished one spins
    /// a while for the next to be posted before it sleeps.
    private let posted: UnsafeMutablePointer<Int> = {
        let p = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        p.initialize(to: 0)
        return p
    }()

    /// How long a thread spins (pausing the core, not sleeping) for the
    /// last pieces of its batch, and a worker for the next batch, before it
    /// sleeps on the condition. A frame's bands come in turns a fraction of
    /// a millisecond apart (the draw list between them), and a thread woken
    /// from the condition starts 15-30 us later on the 2-core development
    /// machine: 1-2% of a frame drawn on two threads, each time.
    private static let batchSpinNanoseconds: UInt64 = 1_000_000
    private static let workerSpinNanoseconds: UInt64 = 250_000

    /// Runs `body(0) ..< body(count)` on up to `threads` threads (the calling
    /// one and pool workers) and returns when all are done. The caller works
    /// through the pieces too, so a batch finishes even while every worker is
    /// busy drawing tiles; workers take batches before tiles. `body` must not
    /// take the model lock (the caller may hold it).
    package func parallel(_ count: Int, threads: Int, _ body: @escaping (Int) -> Void) {
        guard count > 1, threads > 1 else {
            for i in 0..<max(count, 0) { body(i) }
            return
        }
        let batch = Batch(body, count: count, helpers: min(threads - 1, count - 1))
        withLock { s in
            s.batches.append(batch)
            s.batchHelpers = threads - 1
            s.fillPool()
            _ = qz_internal_counter_take(s.posted)
            s.broadcast()
        }
        work(on: batch)
        let finished = qz_internal_spin_until_reaches(batch.done, batch.count, TileStore.batchSpinNanoseconds)
        withLock { s in
            if !finished { while !batch.isDone { s.wait(until: .infinity) } }
            if let k = s.batches.firstIndex(where: { $0 === batch }) { s.batches.remove(at: k) }
        }
    }

    /// Runs pieces of `batch` until none is left to take.
    private func work(on batch: Batch) {
        while true {
            let i = qz_internal_counter_take(batch.next)
            guard i < batch.count else { return }
            batch.body(i)
            if qz_internal_counter_take(batch.done) + 1 == batch.count {
                // (Under the mutex: the caller may be about to sleep on the condition.)
                withLock { $0.broadcast() }
            }
        }
    }

    private func spawn() -> Bool {
        var tid = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let r = pthread_create(&tid, &attributes, { _ in
            TileStore.shared.workerLoop()
            return nil
        }, nil)
        pthread_attr_destroy(&attributes)
        return r == 0
    }

    /// What a worker does next.
    private enum Work {
        /// A tile, and whether to draw it (false: no longer wanted).
        case tile(TileJob, Bool)
        case batch(Batch)
    }

    private func workerLoop() {
        // (A job is released at the end of each turn, with no lock held: its
        // layer and cache may go with it, and their deinits take locks.)
        while let next = nextWork() {
            switch next {
            case .tile(let job, let wanted):
                if wanted { draw(job) }
                withModelLock { job.layer = nil }
            case .batch(let batch):
                work(on: batch)
                let seen = qz_internal_counter_load(posted)
                _ = qz_internal_spin_while_equal(posted, seen, TileStore.workerSpinNanoseconds)
            }
        }
    }

    /// The next work, nil when this thread should leave the pool.
    private func nextWork() -> Work? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            // Threads beyond the pool's size leave (between tiles).
            if threads > poolSize {
                threads -= 1
                pthread_cond_broadcast(condition)
                return nil
            }
            // Bands first: a frame is waiting for them.
            if let b = batches.first(where: { $0.joined < $0.helpers && $0.hasPiecesLeft }) {
                b.joined += 1
                return .batch(b)
            }
            // No more tiles drawing at once than the tile pool's size (the
            // pool may be larger for the bands).
            if running >= wantedThreads, !queue.isEmpty {
                wait(until: .infinity)
                continue
            }
            guard let job = queue.popLast() else {
                wait(until: .infinity)
                continue
            }
            let t = job.tile
            let current = job.cache.tiles[t.key] === t && t.ticket == job.ticket && t.inFlight
            // Queued long ago and not visible since: not drawn (asked again if it reappears).
            if !current || job.cache.visits &- t.lastWanted > 2 {
                if current { t.inFlight = false; if t.pixels == nil { job.cache.tiles[t.key] = nil } }
                pthread_cond_broadcast(condition)
                return .tile(job, false)
            }
            running += 1
            statistics.maxConcurrentDrawing = max(statistics.maxConcurrentDrawing, running)
            job.cache.drawingThreads.append(pthread_self())
            return .tile(job, true)
        }
    }

    /// Draws a job taken by nextWork (no lock held) and delivers its pixels.
    private func draw(_ job: TileJob) {
        let pixels = job.draw()
        withLock { s in
            s.running -= 1
            let me = pthread_self()
            if let i = job.cache.drawingThreads.firstIndex(where: { pthread_equal($0, me) != 0 }) {
                job.cache.drawingThreads.remove(at: i)
            }
            s.deliver(job, pixels)
            s.broadcast()
        }
    }

    /// Stores a drawing's pixels in its tile if the request is still current (mutex held).
    private func deliver(_ job: TileJob, _ pixels: PixelBuffer?) {
        let t = job.tile
        guard job.cache.tiles[t.key] === t, t.ticket == job.ticket, t.inFlight else { return }
        t.inFlight = false
        if let pixels {
            bytes -= t.bytes
            t.pixels = pixels
            bytes += t.bytes
            t.stale = false
            statistics.tilesDrawn += 1
            evictIfNeeded()
        } else {
            t.failed = true
        }
    }

    /// Draws `job` on the calling thread and delivers it (the model lock may
    /// be held: renderInContext draws the tiles it needs this way).
    package func drawInline(_ job: TileJob) {
        let pixels = job.draw()
        withLock { s in
            s.deliver(job, pixels)
            s.broadcast()
        }
        job.layer = nil
    }

    /// Waits until none of `tiles` is still being drawn for the request
    /// recorded with it, or until `timeout` seconds passed (false). The model
    /// lock is let go meanwhile (the drawings may call into the library).
    package func waitFor(_ tiles: [(Tile, UInt64)], timeout: Double) -> Bool {
        let depth = qz_internal_model_suspend()
        defer { qz_internal_model_resume(depth) }
        let deadline = qz_internal_monotonic_seconds() + (timeout.isFinite ? max(timeout, 0) : 1e9)
        return withLock { s in
            while true {
                if !tiles.contains(where: { $0.0.inFlight && $0.0.ticket == $0.1 }) { return true }
                if qz_internal_monotonic_seconds() >= deadline { return false }
                s.wait(until: deadline)
            }
        }
    }

    /// Before a layer's drawing method changes (a new delegate, whose old
    /// info may be freed): its queued tiles are not drawn with the old one,
    /// and the drawings in progress are waited for (the model lock let go
    /// meanwhile), unless the caller is one of them.
    package func retire(_ cache: TileCache, timeout: Double = 30) {
        let me = pthread_self()
        let mine = withLock { s -> Bool in
            for (_, t) in cache.tiles where t.inFlight { t.inFlight = false; t.ticket &+= 1 }
            s.broadcast()
            return cache.drawingThreads.contains { pthread_equal($0, me) != 0 }
        }
        if mine { return }
        let depth = qz_internal_model_suspend()
        defer { qz_internal_model_resume(depth) }
        let deadline = qz_internal_monotonic_seconds() + timeout
        withLock { s in
            while !cache.drawingThreads.isEmpty && qz_internal_monotonic_seconds() < deadline { s.wait(until: deadline) }
        }
    }

    /// Waits until no tile is queued or drawing (false after `timeout` seconds).
    package func waitUntilIdle(timeout: Double) -> Bool {
        let depth = qz_internal_model_suspend()
        defer { qz_internal_model_resume(depth) }
        let deadline = qz_internal_monotonic_seconds() + (timeout.isFinite ? max(timeout, 0) : 1e9)
        return withLock { s in
            while true {
                if s.queue.isEmpty && s.running == 0 { return true }
                if qz_internal_monotonic_seconds() >= deadline { return false }
                s.wait(until: deadline)
            }
        }
    }

    /// Drops every queued tile (none is drawn) and waits for those drawing.
    package func cancelQueued(timeout: Double) -> Bool {
        let jobs: [TileJob] = withLock { s in
            let q = s.queue
            s.queue.removeAll()
            for j in q where j.tile.ticket == j.ticket && j.tile.inFlight {
                j.tile.inFlight = false
                if j.tile.pixels == nil, j.cache.tiles[j.tile.key] === j.tile { j.cache.tiles[j.tile.key] = nil }
            }
            s.broadcast()
            return q
        }
        withModelLock { for j in jobs { j.layer = nil } }
        return waitUntilIdle(timeout: timeout)
    }

    package var threadCount: Int { withLock { $0.wantedThreads } }
}
