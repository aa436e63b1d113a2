import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// A layer's animation plans packed into one allocation, the form a
/// presentation frame reads.
///
/// Without it a frame follows, per layer, the animation list, each
/// animation and a transform animation's end points: five objects in
/// different places. On a tree larger than the caches each is a wait on
/// memory, and the time per layer grows with the tree. The block holds what
/// one plain pass of every animation needs (kind, begin, duration, timing
/// function, end points, transforms decomposed) one entry after another, and
/// the blocks of a tree's layers are made in the order a frame visits them.
///
/// A layer makes its block on its first presentation (`Layer.currentPlanBlock`)
/// when every animation is a basic animation with a typed plan; otherwise
/// the block only says so, and the animations are evaluated one by one.
/// Changing the list drops the block (Layer.animationList's observer); a
/// forgotten plan anywhere makes every block out of date
/// (`qz_internal_plan_generation`). An entry keeps its animation (unretained:
/// the list holds it while the block lives) for times outside one plain
/// pass, which the animation evaluates itself.
///
/// Layout (8-byte aligned): a `Header`, then per animation an `Entry`
/// followed by its end points: 2 doubles for a number, 4 for a point,
/// 8 for a rect (from and to side by side, as in FastPlan), a
/// TransformEndsData for a transform.
package enum PlanBlock {
    package struct Header {
        /// qz_internal_plan_generation when the block was made.
        package var generation: UInt64
        package var entryCount: UInt32
        /// The block's size in bytes.
        package var byteCount: UInt32
        /// Some animation takes the general path: no entries.
        package var general: Bool
        /// A `transform` plan replaces the whole transform.
        package var setsTransform: Bool
    }

    package struct Entry {
        package var kind: FastPlan.Kind
        package var eased: Bool
        package var simpleTiming: Bool
        /// Bytes from this entry to the next.
        package var stride: UInt32
        package var begin: Double
        @usableFromInline package var duration: Double
        /// The animation's timing function (when `eased`) and the animation.
        package var function: UnsafeRawPointer?
        package var animation: UnsafeRawPointer
    }

    package static var headerSize: Int { MemoryLayout<Header>.stride }
    package static var entrySize: Int { MemoryLayout<Entry>.stride }

    /// Bytes of end points after an entry of `kind`.
    package static func payloadSize(_ kind: FastPlan.Kind) -> Int {
        switch kind {
        case .opacity, .zPosition: 2 * 8
        case .position, .anchorPoint: 4 * 8
        case .bounds: 8 * 8
        case .transform, .sublayerTransform: (MemoryLayout<TransformEndsData>.size + 7) & ~7
        case .unresolved, .general: 0
        }
    }

    /// A block for `list` (resolving the animations' plans). `general`: the
    /// layer's animations are evaluated one by one whatever they are (its
    /// class asks needsDisplayForKey while they run). The caller frees the
    /// block with `deallocate()`.
    package static func make(_ list: [AnimationEntry], general: Bool) -> UnsafeMutableRawPointer {
        var size = headerSize
        var general = general
        for entry in list where !general {
            guard entry.animation.evaluatesWithoutHostCode else { general = true; break }
            size += entrySize + payloadSize(entry.animation.fastPlan.kind)
        }
        if general { size = headerSize }
        let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        var setsTransform = false
        var offset = headerSize
        if !general {
            for entry in list {
                let a = entry.animation
                let plan = a.fastPlan
                let stride = entrySize + payloadSize(plan.kind)
                block.storeBytes(of: Entry(kind: plan.kind, eased: plan.eased, simpleTiming: plan.simpleTiming,
                                           stride: UInt32(stride), begin: plan.begin, duration: plan.duration,
                                           function: plan.function.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) },
                                           animation: UnsafeRawPointer(Unmanaged.passUnretained(a).toOpaque())),
                                 toByteOffset: offset, as: Entry.self)
                let ends = block + offset + entrySize
                switch plan.kind {
                case .opacity, .zPosition, .position, .anchorPoint, .bounds:
                    for k in 0..<(payloadSize(plan.kind) / 8) { ends.storeBytes(of: plan.end(k), toByteOffset: k * 8, as: Double.self) }
                case .transform, .sublayerTransform:
                    ends.bindMemory(to: TransformEndsData.self, capacity: 1).initialize(to: plan.transforms.unsafelyUnwrapped.data)
                    if plan.kind == .transform { setsTransform = true }
                case .unresolved, .general:
                    break
                }
                offset += stride
            }
        }
        block.storeBytes(of: Header(generation: qz_internal_plan_generation, entryCount: general ? 0 : UInt32(list.count),
                                    byteCount: UInt32(size), general: general, setsTransform: setsTransform),
                         toByteOffset: 0, as: Header.self)
        return block
    }

    @inline(__always)
    package static func header(_ block: UnsafeRawPointer) -> Header { block.load(as: Header.self) }

    /// True when no plan was forgotten since the block was made.
    @inline(__always)
    package static func isCurrent(_ block: UnsafeRawPointer) -> Bool { header(block).generation == qz_internal_plan_generation }

    /// Applies every entry in order to `copy` at the layer's local time `t`
    /// (Animation.apply's arithmetic, in the same order: identical values).
    /// Returns true when a `transform` entry wrote the transform.
    @inline(__always)
    package static func apply(_ block: UnsafeRawPointer, to copy: Layer, localTime t: Double) -> Bool {
        let count = Int(header(block).entryCount)
        var offset = headerSize
        var transformWritten = false
        var i = 0
        while i < count {
            let e = block.load(fromByteOffset: offset, as: Entry.self)
            let written: Bool
            if e.simpleTiming, let progress = FastPlan.plainProgress(at: t, begin: e.begin, duration: e.duration) {
                let p = e.eased
                    ? Unmanaged<TimingFunction>.fromOpaque(e.function.unsafelyUnwrapped)._withUnsafeGuaranteedRef { $0.curve.solve(progress) }
                    : progress
                write(e.kind, ends: block + offset + entrySize, p, to: copy)
                written = true
            } else {
                // Outside one plain pass: the animation samples its full timing.
                written = Unmanaged<Animation>.fromOpaque(e.animation)._withUnsafeGuaranteedRef { $0.apply(to: copy, parentTime: t) }
            }
            if written && e.kind == .transform { transformWritten = true }
            offset &+= Int(e.stride)
            i &+= 1
        }
        return transformWritten
    }

    /// FastPlan.write for the end points at `ends`.
    @inline(__always)
    private static func write(_ kind: FastPlan.Kind, ends: UnsafeRawPointer, _ p: Double, to target: Layer) {
        FastPlan.write(kind, p, to: target, end: { k in ends.load(fromByteOffset: k &* 8, as: Double.self) },
                       matrix: { p in ends.assumingMemoryBound(to: TransformEndsData.self).pointee.matrix(at: p) })
    }
}

extension Layer {
    /// The layer's plan block, made (again) when there is none or it is out
    /// of date; nil when some animation takes the general path. Only with
    /// animations, under the model lock.
    @inline(__always)
    package func currentPlanBlock() -> UnsafeRawPointer? {
        if let b = planBlock, PlanBlock.isCurrent(b) {
            return PlanBlock.header(b).general ? nil : UnsafeRawPointer(b)
        }
        return remakePlanBlock()
    }

    @inline(never)
    private func remakePlanBlock() -> UnsafeRawPointer? {
        dropPlanBlock()
        let b = PlanBlock.make(animationList ?? [], general: layerClass.hasNeedsDisplayForKey)
        planBlock = b
        return PlanBlock.header(b).general ? nil : UnsafeRawPointer(b)
    }

    /// Frees the plan block (the list changed or the layer goes away).
    @inline(__always)
    package func dropPlanBlock() {
        planBlock?.deallocate()
        planBlock = nil
    }
}
