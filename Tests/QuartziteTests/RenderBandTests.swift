import CQuartzite
import Glibc
import Testing
@testable import QuartziteCore
@testable import QuartziteGeometry
@testable import QuartziteVideo
@testable import QuartziteGraphics
@testable import QuartziteModel
@testable import QuartziteRender
@testable import Quartzite

// How a frame is cut into bands for several threads (Renderer+Bands.swift):
// whole rows covering the region, balanced by work, never across a backdrop
// or its blur's reach, and not at all where splitting does not pay.
// (Byte identity with one thread is tested in test_render_threads.c.)

@Suite("Render bands")
struct RenderBandTests {
    @Test func pixelBoxesCoverEveryTouchedPixel() {
        // Floor of the minimum, ceiling of the maximum, on both sides of zero.
        #expect(PixelBox(covering: CGRect(x: -2.5, y: -0.25, width: 4, height: 1.5))
                == PixelBox(x0: -3, y0: -1, x1: 2, y1: 2))
        #expect(PixelBox(covering: CGRect(x: 1, y: 2, width: 3, height: 4)) == PixelBox(x0: 1, y0: 2, x1: 4, y1: 6))
        #expect(PixelBox(covering: CGRect(x: -4, y: -3, width: 2, height: 1)) == PixelBox(x0: -4, y0: -3, x1: -2, y1: -2))
        #expect(PixelBox(covering: CGRect(x: 0.5, y: -1.75, width: 0.25, height: 0.5))
                == PixelBox(x0: 0, y0: -2, x1: 1, y1: -1))
        // A negative size is standardized; a sliver inside one pixel covers it.
        #expect(PixelBox(covering: CGRect(x: 3.5, y: 2, width: -2, height: 1)) == PixelBox(x0: 1, y0: 2, x1: 4, y1: 3))
        #expect(PixelBox(covering: CGRect(x: 5, y: 5, width: 1e-9, height: 1e-9)) == PixelBox(x0: 5, y0: 5, x1: 6, y1: 6))
        // Huge and non-finite rectangles: clamped, or nothing.
        #expect(PixelBox(covering: CGRect(x: -1e300, y: 0, width: 2e300, height: 1)) == PixelBox(x0: -10_000_000, y0: 0, x1: 10_000_000, y1: 1))
        #expect(PixelBox(covering: CGRect(x: Double.nan, y: 0, width: 1, height: 1)).isEmpty)
        #expect(PixelBox(covering: .null).isEmpty)
    }

    /// The operations of `root` drawn into a 400x300 target.
    private func ops(_ root: TL) -> [DrawOp] {
        CATransactionFlush()
        let pb = makeBuffer(400, 300)
        let r = CARendererCreate(pb, nil)!
        defer { CARelease(UnsafeRawPointer(r)); CVPixelBufferRelease(pb) }
        CARendererSetLayer(r, root.ref)
        CARendererBeginFrameAtTime(r, 1, nil)
        let ops = object(r, as: Renderer.self)!.frameOps
        CARendererEndFrame(r)
        return ops
    }

    private let region = PixelBox(x0: 0, y0: 0, x1: 400, y1: 300)

    /// A one-filter list, [CIGaussianBlur], handed to `body`.
    private func withGaussianBlur(_ body: (CAValueRef) -> Void) {
        let blur = CAValueCreateString("CIGaussianBlur")!
        var item: CAValueRef? = blur
        let list = CAValueCreateArray(&item, 1)!
        body(list)
        CARelease(UnsafeRawPointer(list)); CARelease(UnsafeRawPointer(blur))
    }

    /// Bands tile the region: whole rows, in order, none thinner than the minimum.
    private func checkTiling(_ bands: [PixelBox]) {
        #expect(bands.first?.y0 == 0 && bands.last?.y1 == 300)
        for (i, b) in bands.enumerated() {
            #expect(b.x0 == 0 && b.x1 == 400 && b.height >= minimumBandRows)
            if i > 0 { #expect(b.y0 == bands[i - 1].y1) }
        }
    }

    @Test func evenWorkGivesEvenBandsTwoPerThread() {
        let root = TL(0, 0, 400, 300, color: (0.2, 0.3, 0.4, 1))
        let bands = frameBands(ops(root), region, threads: 2)
        #expect(bands.count == 2 * bandsPerThread)
        checkTiling(bands)
        // A uniform frame: 75 rows each.
        #expect(bands.map(\.height) == [75, 75, 75, 75])
    }

    @Test func workConcentratedAtTheTopGetsThinnerBandsThere() {
        let root = TL(0, 0, 400, 300, color: (0.2, 0.3, 0.4, 1))
        // A perspective-free but clipped, rounded stack of layers over the top 100 rows.
        for i in 0..<20 { root.add(TL(Double(i), 0, 380, 100, color: (1, 0, 0, 0.5))) }
        let bands = frameBands(ops(root), region, threads: 2)
        checkTiling(bands)
        #expect(bands.count == 4)
        #expect(bands[0].height < 50 && bands[3].height > 100, "\(bands)")
    }

    @Test func noCutFallsAcrossABackdropOrItsReach() {
        let root = TL(0, 0, 400, 300, color: (0.2, 0.3, 0.4, 1))
        let glass = TL(50, 100, 200, 100, color: (1, 1, 1, 0.2))
        withGaussianBlur { CALayerSetBackgroundFilters(glass.ref, $0) }
        root.add(glass)
        let all = ops(root)
        let backdrop = all.first { $0.kind == .backdrop }!
        let reach = blurExtent(sigma: backdrop.filters[0].blurRadius) + 1
        let span = PixelBox(covering: backdrop.bounds)
        let bands = frameBands(all, region, threads: 2)
        checkTiling(bands)
        #expect(bands.count >= 2)
        for b in bands.dropFirst() {
            #expect(b.y0 <= span.y0 - reach || b.y0 >= span.y1 + reach, "cut at \(b.y0) inside \(span.y0 - reach)..<\(span.y1 + reach)")
        }
        // A backdrop over the whole height leaves no cut at all.
        CALayerSetFrame(glass.ref, CGRect(x: 50, y: 0, width: 200, height: 300))
        #expect(frameBands(ops(root), region, threads: 2).count == 1)
    }

    @Test func oneThreadCutsALargeFrameForTheCache() {
        // 1920x1080 BGRA is 8,294,400 bytes: ceil(8,294,400 / 1 MiB) = 8 bands on one thread.
        let big = PixelBox(x0: 0, y0: 0, x1: 1920, y1: 1080)
        let root = TL(0, 0, 1920, 1080, color: (0.2, 0.3, 0.4, 1))
        let bands = frameBands(ops(root), big, threads: 1)
        #expect(bands.count == 8)
        #expect(bands.first?.y0 == 0 && bands.last?.y1 == 1080)
        for (i, b) in bands.enumerated() where i > 0 { #expect(b.y0 == bands[i - 1].y1) }
        // Two threads take the larger of their own count and the cache's.
        #expect(frameBands(ops(root), big, threads: 2).count == 8)
        #expect(frameBands(ops(root), big, threads: 8).count == 16)
        // Small operations on average (here 8x8 layers with no background
        // under them, like particles) keep one band on one thread.
        let sparse = TL(0, 0, 1920, 1080)
        for i in 0..<200 { sparse.add(TL(Double(i * 37 % 390), Double(i * 13 % 290), 8, 8, color: (1, 1, 1, 0.5))) }
        let small = ops(sparse)
        #expect(small.filter { $0.kind == .fill }.count == 200)
        #expect(frameBands(small, big, threads: 1) == [big])
        #expect(frameBands(small, big, threads: 2).count == 2 * bandsPerThread)
        // A blurred group is drawn whole by every band it touches: one thread keeps one band.
        let blurred = TL(100, 100, 300, 300, color: (1, 0, 0, 1))
        withGaussianBlur { CALayerSetFilters(blurred.ref, $0) }
        root.add(blurred)
        let withBlur = ops(root)
        #expect(withBlur.contains { $0.kind == .beginGroup && $0.blurs })
        #expect(frameBands(withBlur, big, threads: 1) == [big])
    }

    @Test func smallRegionsAndOneThreadAreNotSplit() {
        let root = TL(0, 0, 400, 300, color: (0.2, 0.3, 0.4, 1))
        let all = ops(root)
        #expect(frameBands(all, region, threads: 1) == [region])
        let small = PixelBox(x0: 0, y0: 0, x1: 100, y1: 100)
        #expect(frameBands(all, small, threads: 4) == [small])
        let thin = PixelBox(x0: 0, y0: 0, x1: 400, y1: 2 * minimumBandRows - 1)
        #expect(frameBands(all, thin, threads: 2) == [thin])
    }

    // MARK: - The pool's batches (TileStore.parallel)

    /// Runs `count` pieces on `threads` threads and counts each piece's
    /// runs; with `slowWorkers`, pieces take 0.2 ms on the calling thread
    /// (so that a worker joins) and 5 ms on a worker. `workerPieces` counts
    /// the pieces workers ran.
    private func runBatch(count: Int, threads: Int, slowWorkers: Bool = false,
                          workerPieces: UnsafeMutablePointer<Int>? = nil) -> [Int] {
        let runs = UnsafeMutablePointer<Int>.allocate(capacity: count)
        runs.initialize(repeating: 0, count: count)
        defer { runs.deallocate() }
        let caller = pthread_self()
        let onWorker = UnsafeMutablePointer<Bool>.allocate(capacity: count)
        onWorker.initialize(repeating: false, count: count)
        defer { onWorker.deallocate() }
        TileStore.shared.parallel(count, threads: threads) { i in
            // (Each piece writes only its own slots, as bands write their rows.)
            onWorker[i] = pthread_equal(pthread_self(), caller) == 0
            if slowWorkers { usleep(onWorker[i] ? 5_000 : 200) }
            runs[i] += 1
        }
        workerPieces?.pointee += (0..<count).filter { onWorker[$0] }.count
        return Array(UnsafeBufferPointer(start: runs, count: count))
    }

    /// Every piece runs once, and `parallel` returns only after the last
    /// one: also when a worker's piece outlasts the calling thread's spin
    /// (5 ms against 1 ms), so that it sleeps on the condition until the
    /// worker finishes.
    @Test func everyPieceRunsOnceBeforeTheBatchReturns() {
        for count in [2, 3, 8, 17] {
            for threads in [2, 3, 8] {
                #expect(runBatch(count: count, threads: threads) == [Int](repeating: 1, count: count))
            }
        }
        var workerPieces = 0
        for _ in 0..<5 {
            #expect(runBatch(count: 8, threads: 2, slowWorkers: true, workerPieces: &workerPieces)
                    == [Int](repeating: 1, count: 8))
        }
        #expect(workerPieces > 0)
        // Batches back to back (as frames come): the workers take each one
        // while still spinning after the last.
        for _ in 0..<200 {
            #expect(runBatch(count: 4, threads: 2) == [1, 1, 1, 1])
        }
    }

    /// Several threads running batches at once (renderers on threads of
    /// their own) share the workers: every batch completes with each of its
    /// pieces run once.
    @Test func batchesFromSeveralThreadsAtOnceEachComplete() {
        let callers = 4, rounds = 100
        let failures = UnsafeMutablePointer<Int>.allocate(capacity: callers)
        failures.initialize(repeating: 0, count: callers)
        defer { failures.deallocate() }
        var tids: [pthread_t] = []
        final class Job { let run: () -> Void; init(_ run: @escaping () -> Void) { self.run = run } }
        for c in 0..<callers {
            let job = Job {
                for r in 0..<rounds {
                    let count = 2 + (c + r) % 9
                    let runs = self.runBatch(count: count, threads: 2 + r % 3)
                    if runs != [Int](repeating: 1, count: count) { failures[c] += 1 }
                }
            }
            var tid = pthread_t()
            let arg = Unmanaged.passRetained(job).toOpaque()
            #expect(pthread_create(&tid, nil, { p in
                let job = Unmanaged<AnyObject>.fromOpaque(p!).takeRetainedValue() as! Job
                job.run()
                return nil
            }, arg) == 0)
            tids.append(tid)
        }
        for t in tids { pthread_join(t, nil) }
        #expect((0..<callers).allSatisfy { failures[$0] == 0 })
    }
}

