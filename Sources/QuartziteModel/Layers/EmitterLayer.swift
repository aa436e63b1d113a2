import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import Glibc

// CAEmitterLayer's model state and its particles. The scalar properties are
// rows of the property table (scripts/generate-layer-properties.py); the
// cells are set through CAEmitterLayerSetEmitterCells.
//
// Particles are a pure function of the emitter's time t (the layer's local
// time): cell c's particle n is born at beginTime + n / R, where R is the
// layer's birthRate times the cell's, and its random values come from a
// counter-based hash of (seed, the cell's path, n, which value). Nothing is
// integrated frame by frame, so a frame at time t has the same particles
// whether it is the first frame rendered or the hundredth.

package final class EmitterLayerState {
    package var emitterCells: [EmitterCell] = []
    package var birthRate: Float = 1
    package var lifetime: Float = 1
    package var emitterPosition = CGPoint(x: 0, y: 0)
    package var emitterZPosition = 0.0
    package var emitterSize = CGSize(width: 0, height: 0)
    package var emitterDepth = 0.0
    /// Indices into ConstantSet's emitterShape, emitterMode and renderMode.
    package var emitterShape: UInt8 = 0
    package var emitterMode: UInt8 = 3
    package var renderMode: UInt8 = 0
    package var preservesDepth = false
    package var velocity: Float = 1
    package var scale: Float = 1
    package var spin: Float = 1
    package var seed: UInt32 = 0

    /// At most this many particles are drawn per emitter layer (the newest of
    /// each cell are kept), and at most `maxCandidates` birth indices are
    /// examined per frame: huge birth rates or lifetimes cost bounded work.
    package static let maxParticles = 100_000
    package static let maxCandidates = 400_000
    /// Nested cells deeper than this are ignored.
    package static let maxCellDepth = 8

    package init() {}

    package func copy() -> EmitterLayerState {
        let c = EmitterLayerState()
        c.emitterCells = emitterCells
        c.birthRate = birthRate; c.lifetime = lifetime
        c.emitterPosition = emitterPosition; c.emitterZPosition = emitterZPosition
        c.emitterSize = emitterSize; c.emitterDepth = emitterDepth
        c.emitterShape = emitterShape; c.emitterMode = emitterMode; c.renderMode = renderMode
        c.preservesDepth = preservesDepth
        c.velocity = velocity; c.scale = scale; c.spin = spin; c.seed = seed
        return c
    }

    package enum Shape: UInt8 { case point, line, rectangle, cuboid, circle, sphere }
    package enum Mode: UInt8 { case points, outline, surface, volume }
    package enum RenderMode: UInt8 { case unordered, oldestFirst, oldestLast, backToFront, additive }
}

/// One live particle at the emitter time it was computed for.
package struct Particle {
    package var cell: EmitterCell
    /// Emitter time of birth, and age at the time asked.
    package var birth: Double
    package var age: Double
    package var lifetime: Double
    package var position: SIMD3<Double>
    /// Scale (layer scale included) and rotation angle (radians) at `age`.
    package var scale: Double
    package var angle: Double
    /// Not premultiplied, each component in 0...1.
    package var color: SIMD4<Double>
    /// For parents of nested cells: where the particle was at birth, and its
    /// velocity and acceleration (position at age a = p0 + v a + a² acc / 2).
    package var origin: SIMD3<Double>
    package var velocity: SIMD3<Double>
    package var acceleration: SIMD3<Double>

    package func position(atAge a: Double) -> SIMD3<Double> { origin + velocity * a + acceleration * (0.5 * a * a) }
}

/// A counter-based random source: uniform values in [0, 1) from
/// (seed, cell path, particle index, value index), by SplitMix64's mixer.
package struct ParticleRandom {
    package let key: UInt64

    package init(seed: UInt32, cellPath: UInt64, index: Int64) {
        var k = Self.mix(UInt64(seed) &+ 0x9E37_79B9_7F4A_7C15)
        k = Self.mix(k ^ cellPath)
        key = Self.mix(k ^ UInt64(bitPattern: index))
    }

    @inline(__always) package static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Value `i` of this particle, uniform in [0, 1).
    @inline(__always) package func unit(_ i: UInt64) -> Double {
        Double(Self.mix(key ^ (i &* 0xD6E8_FEB8_6659_FD93)) >> 11) * 0x1p-53
    }

    /// Value `i` mapped to [-1, 1).
    @inline(__always) package func signed(_ i: UInt64) -> Double { unit(i) * 2 - 1 }
}

extension EmitterLayerState {
    /// The live particles at emitter time `t` (the layer's local time), in
    /// the order the render mode draws them. Bounded by `maxParticles`.
    package func particles(at t: Double) -> [Particle] {
        guard t.isFinite, birthRate.isFinite, birthRate > 0, lifetime.isFinite, lifetime > 0 else { return [] }
        var out: [Particle] = []
        var candidates = Self.maxCandidates
        for (i, cell) in emitterCells.enumerated() {
            emit(cell, path: UInt64(i + 1), parent: nil, windowStart: 0, windowEnd: .infinity, t: t, depth: 0,
                 out: &out, candidates: &candidates)
        }
        switch RenderMode(rawValue: renderMode) ?? .unordered {
        case .unordered, .additive: break
        case .oldestFirst: out.sort { $0.birth < $1.birth }
        case .oldestLast: out.sort { $0.birth > $1.birth }
        case .backToFront: out.sort { $0.position.z < $1.position.z }
        }
        return out
    }

    /// Appends `cell`'s live particles (and its nested cells'). Births lie in
    /// [windowStart + beginTime, windowEnd) of the emitter's time; a nested
    /// cell's emitter is its parent particle, from birth to death.
    private func emit(_ cell: EmitterCell, path: UInt64, parent: Particle?, windowStart: Double, windowEnd: Double,
                      t: Double, depth: Int, out: inout [Particle], candidates: inout Int) {
        guard cell.enabled, depth < Self.maxCellDepth, out.count < Self.maxParticles, candidates > 0 else { return }
        let rate = Double(cell.birthRate) * Double(birthRate)
        let lifeScale = Double(lifetime)
        let maxLife = (Double(cell.lifetime) + abs(Double(cell.lifetimeRange))) * lifeScale
        guard rate.isFinite, rate > 0, maxLife.isFinite, maxLife > 0 else { return }
        let start = windowStart + (cell.beginTime.isFinite ? cell.beginTime : 0)
        var end = windowEnd
        if cell.duration.isFinite, cell.duration > 0 { end = Swift.min(end, start + cell.duration) }
        // Birth n at start + n / rate, for births in (t - maxLife, min(t, end)].
        let last = Swift.min(t, end.nextDown)
        guard last >= start else { return }
        let hiD = ((last - start) * rate).rounded(.down)
        let loD = Swift.max(((t - maxLife - start) * rate).rounded(.down), 0)
        guard hiD >= loD else { return }
        // Indices beyond 2^52 lose precision; they stay deterministic.
        let limit = 0x1p52
        let hi = Int64(Swift.min(hiD, limit))
        var lo = Int64(Swift.min(loD, limit))
        let room = Int64(Swift.min(candidates, Self.maxParticles - out.count))
        if hi - lo + 1 > room { lo = hi - room + 1 }  // the newest ones
        candidates -= Int(hi - lo + 1)
        let color0 = cell.color?.rgba ?? SIMD4(1, 1, 1, 1)
        let colorRange = SIMD4(Double(cell.redRange), Double(cell.greenRange), Double(cell.blueRange), Double(cell.alphaRange))
        let colorSpeed = SIMD4(Double(cell.redSpeed), Double(cell.greenSpeed), Double(cell.blueSpeed), Double(cell.alphaSpeed))
        let acc = SIMD3(cell.xAcceleration, cell.yAcceleration, cell.zAcceleration)
        var n = lo
        while n <= hi {
            defer { n += 1 }
            let birth = start + Double(n) / rate
            guard birth <= t else { continue }
            let r = ParticleRandom(seed: seed, cellPath: path, index: n)
            let life = (Double(cell.lifetime) + Double(cell.lifetimeRange) * r.signed(0)) * lifeScale
            let age = t - birth
            guard life > 0, age < life else { continue }
            // Where it starts: the emitter's shape, or the parent particle.
            let origin: SIMD3<Double>
            if let p = parent { origin = p.position(atAge: birth - p.birth) } else { origin = shapePoint(r) }
            let longitude = cell.emissionLongitude + cell.emissionRange * (r.unit(5) - 0.5)
            let latitude = cell.emissionLatitude
            let dir = SIMD3(cos(latitude) * cos(longitude), cos(latitude) * sin(longitude), sin(latitude))
            let speed = (cell.velocity + cell.velocityRange * r.signed(6)) * Double(velocity)
            let v = dir * speed
            let pos = origin + v * age + acc * (0.5 * age * age)
            let s = (cell.scale + cell.scaleRange * r.signed(7) + cell.scaleSpeed * age) * Double(scale)
            let angle = (cell.spin + cell.spinRange * r.signed(8)) * Double(spin) * age
            var c = SIMD4(color0.x + colorRange.x * r.signed(9), color0.y + colorRange.y * r.signed(10),
                          color0.z + colorRange.z * r.signed(11), color0.w + colorRange.w * r.signed(12))
            c += colorSpeed * age
            for k in 0..<4 { c[k] = c[k].isNaN ? 0 : Swift.min(Swift.max(c[k], 0), 1) }
            let particle = Particle(cell: cell, birth: birth, age: age, lifetime: life, position: pos, scale: s,
                                    angle: angle, color: c, origin: origin, velocity: v, acceleration: acc)
            if cell.contents != nil { out.append(particle) }
            for (j, sub) in cell.emitterCells.enumerated() {
                // Each particle emits its nested cells while it lives.
                let subPath = ParticleRandom.mix(path &* 31 &+ UInt64(j + 1)) ^ UInt64(bitPattern: n)
                emit(sub, path: subPath, parent: particle, windowStart: birth, windowEnd: birth + life, t: t,
                     depth: depth + 1, out: &out, candidates: &candidates)
            }
            if out.count >= Self.maxParticles || candidates <= 0 { return }
        }
    }

    /// A point of the emitter's shape for mode `emitterMode` (values 1...4
    /// of the particle's random source), in the layer's coordinates.
    private func shapePoint(_ r: ParticleRandom) -> SIMD3<Double> {
        let c = SIMD3(emitterPosition.x, emitterPosition.y, emitterZPosition)
        let w = emitterSize.width, h = emitterSize.height, d = emitterDepth
        let mode = Mode(rawValue: emitterMode) ?? .volume
        let u = r.unit(1), v = r.unit(2), q = r.unit(3)
        func corner(_ x: Double) -> Double { x < 0.5 ? -0.5 : 0.5 }
        switch Shape(rawValue: emitterShape) ?? .point {
        case .point:
            return c
        case .line:
            return c + SIMD3(mode == .points ? corner(u) * w : (u - 0.5) * w, 0, 0)
        case .rectangle, .cuboid:
            let depth = emitterShape == Shape.cuboid.rawValue ? d : 0
            switch mode {
            case .points:
                return c + SIMD3(corner(u) * w, corner(v) * h, depth == 0 ? 0 : corner(q) * depth)
            case .outline:
                // A point on the perimeter, uniform by length.
                let perimeter = 2 * (abs(w) + abs(h))
                guard perimeter > 0 else { return c }
                var s = u * perimeter
                let z = (q - 0.5) * depth
                if s < abs(w) { return c + SIMD3(s - abs(w) / 2, -h / 2, z) }
                s -= abs(w)
                if s < abs(h) { return c + SIMD3(w / 2, s - abs(h) / 2, z) }
                s -= abs(h)
                if s < abs(w) { return c + SIMD3(abs(w) / 2 - s, h / 2, z) }
                s -= abs(w)
                return c + SIMD3(-w / 2, abs(h) / 2 - s, z)
            case .surface, .volume:
                return c + SIMD3((u - 0.5) * w, (v - 0.5) * h, (q - 0.5) * depth)
            }
        case .circle:
            let radius = w / 2
            switch mode {
            case .points: return c
            case .outline: return c + SIMD3(cos(2 * .pi * u) * radius, sin(2 * .pi * u) * radius, 0)
            case .surface, .volume:
                let rr = radius * v.squareRoot()
                return c + SIMD3(cos(2 * .pi * u) * rr, sin(2 * .pi * u) * rr, 0)
            }
        case .sphere:
            let radius = w / 2
            // A uniform direction: z uniform in -1...1, angle uniform.
            let z = 2 * v - 1, ring = (1 - z * z).squareRoot()
            let dir = SIMD3(cos(2 * .pi * u) * ring, sin(2 * .pi * u) * ring, z)
            switch mode {
            case .points: return c
            case .outline, .surface: return c + dir * radius
            case .volume: return c + dir * (radius * cbrt(q))
            }
        }
    }
}
