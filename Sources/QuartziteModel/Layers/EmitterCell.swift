import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// Apple's CAEmitterCell: the description of one kind of particle an emitter
/// layer (or a particle of a parent cell) emits. Mutated under the model lock
/// (the exports take it); the renderer reads it under the same lock.
/// Defaults are Apple's: enabled, no births (birthRate 0), no life
/// (lifetime 0), scale 1, opaque white, everything else 0 or none.
public final class EmitterCell: QZObject, Handle {
    @inlinable package static var handleKind: ObjectKind { .emitterCell }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.emitterCell.rawValue) }

    package var name: CString?
    package var enabled = true
    package var birthRate: Float = 0
    package var lifetime: Float = 0
    package var lifetimeRange: Float = 0
    package var emissionLatitude = 0.0
    package var emissionLongitude = 0.0
    package var emissionRange = 0.0
    package var velocity = 0.0
    package var velocityRange = 0.0
    package var xAcceleration = 0.0
    package var yAcceleration = 0.0
    package var zAcceleration = 0.0
    package var scale = 1.0
    package var scaleRange = 0.0
    package var scaleSpeed = 0.0
    package var spin = 0.0
    package var spinRange = 0.0
    /// nil: as opaque white.
    package var color: Color? = Color.opaqueWhite
    package var redRange: Float = 0, greenRange: Float = 0, blueRange: Float = 0, alphaRange: Float = 0
    package var redSpeed: Float = 0, greenSpeed: Float = 0, blueSpeed: Float = 0, alphaSpeed: Float = 0
    /// The particle's image (a CGImage); nil draws nothing (as Apple's).
    package var contents: Image?
    /// CAMediaTiming: when the cell starts emitting, in its emitter's time
    /// (the layer's local time, or a parent particle's age).
    package var beginTime = 0.0
    /// How long it emits from beginTime; 0 (the default) or less: for ever.
    package var duration = 0.0
    package var emitterCells: [EmitterCell] = []

    public init() { super.init(kind: .emitterCell) }

    /// Whether `cell` is this cell or one of its nested cells (a cycle check).
    package func contains(_ cell: EmitterCell, depth: Int = 0) -> Bool {
        if self === cell { return true }
        guard depth < EmitterLayerState.maxCellDepth else { return true }
        return emitterCells.contains { $0.contains(cell, depth: depth + 1) }
    }
}

// MARK: - Key paths

// Apple reaches a named cell's properties through its emitter layer's key
// paths, "emitterCells.<name>.<property>" (nested cells:
// "emitterCells.<name>.emitterCells.<name>.<property>"), which is how cell
// properties are animated. Here the scalar properties and `enabled` are
// reachable so; a model layer's key path changes the cell itself (shared by
// whoever holds it), a presentation copy's changes a copy of the cell held
// by that presentation copy only.
extension EmitterCell {
    /// A scalar property: read, write, and whether negative values are refused.
    package struct Scalar {
        package let get: (EmitterCell) -> Double
        package let set: (EmitterCell, Double) -> Void
        package let nonNegative: Bool
    }

    package static let scalars: [String: Scalar] = {
        func float(_ k: ReferenceWritableKeyPath<EmitterCell, Float>, nonNegative: Bool = false) -> Scalar {
            Scalar(get: { Double($0[keyPath: k]) }, set: { $0[keyPath: k] = Float($1) }, nonNegative: nonNegative)
        }
        func double(_ k: ReferenceWritableKeyPath<EmitterCell, Double>) -> Scalar {
            Scalar(get: { $0[keyPath: k] }, set: { $0[keyPath: k] = $1 }, nonNegative: false)
        }
        return [
            "birthRate": float(\.birthRate, nonNegative: true), "lifetime": float(\.lifetime, nonNegative: true),
            "lifetimeRange": float(\.lifetimeRange),
            "emissionLatitude": double(\.emissionLatitude), "emissionLongitude": double(\.emissionLongitude),
            "emissionRange": double(\.emissionRange), "velocity": double(\.velocity),
            "velocityRange": double(\.velocityRange), "xAcceleration": double(\.xAcceleration),
            "yAcceleration": double(\.yAcceleration), "zAcceleration": double(\.zAcceleration),
            "scale": double(\.scale), "scaleRange": double(\.scaleRange), "scaleSpeed": double(\.scaleSpeed),
            "spin": double(\.spin), "spinRange": double(\.spinRange),
            "redRange": float(\.redRange), "greenRange": float(\.greenRange), "blueRange": float(\.blueRange),
            "alphaRange": float(\.alphaRange), "redSpeed": float(\.redSpeed), "greenSpeed": float(\.greenSpeed),
            "blueSpeed": float(\.blueSpeed), "alphaSpeed": float(\.alphaSpeed),
            "beginTime": double(\.beginTime), "duration": double(\.duration),
        ]
    }()

    /// A copy of the cell (its nested cells shared).
    package func copy() -> EmitterCell {
        let c = EmitterCell()
        c.name = name; c.enabled = enabled; c.color = color; c.contents = contents
        for (_, s) in EmitterCell.scalars { s.set(c, s.get(self)) }
        c.emitterCells = emitterCells
        return c
    }

    /// The value of property `key` ("name", "enabled" or a scalar), or nil.
    package func value(forKey key: Substring) -> Value? {
        if key == "name" { return name.map { Value(string: $0.string) } }
        if key == "enabled" { return Value(.bool(enabled)) }
        return EmitterCell.scalars[String(key)].map { Value(.number($0.get(self))) }
    }

    /// The index of the first of `cells` named `name`.
    package static func index(named name: Substring, in cells: [EmitterCell]) -> Int? {
        cells.firstIndex { $0.name.map { $0.string == name } ?? false }
    }
}

extension Layer {
    /// The value at "emitterCells.<name>[.emitterCells.<name>...].<key>"
    /// (`path` without its first "emitterCells"), or nil.
    package func emitterCellValue(at path: [Substring]) -> Value? {
        guard var cells = emitter?.emitterCells else { return nil }
        var rest = path[...]
        while let name = rest.first, let i = EmitterCell.index(named: name, in: cells) {
            let cell = cells[i]
            rest = rest.dropFirst()
            guard let key = rest.first else { return nil }
            if key == "emitterCells", rest.count > 2 { cells = cell.emitterCells; rest = rest.dropFirst(); continue }
            return rest.count == 1 ? cell.value(forKey: key) : nil
        }
        return nil
    }

    /// Sets the property at such a path; false (with an error recorded
    /// naming `function`) when no cell or property is there or the value is
    /// not one it takes.
    package func setEmitterCellValue(_ value: Value, at path: [Substring], function: StaticString) -> Bool {
        let whole = "emitterCells." + path.joined(separator: ".")
        guard let state = emitter else { return false }
        // The indices of the cells along the path, and the property's name.
        var list = state.emitterCells
        var chain: [Int] = []
        var rest = path[...]
        var key: Substring?
        while let name = rest.first, let i = EmitterCell.index(named: name, in: list) {
            chain.append(i)
            rest = rest.dropFirst()
            guard let k = rest.first else { break }
            if k == "emitterCells", rest.count > 2 { list = list[i].emitterCells; rest = rest.dropFirst(); continue }
            if rest.count == 1 { key = k }
            break
        }
        guard let key, !chain.isEmpty else {
            recordError(QZErrorInvalidArgument, function, "\"\(whole)\" does not name a property of a named emitter cell")
            return false
        }
        let scalar = EmitterCell.scalars[String(key)]
        guard key == "enabled" || scalar != nil else {
            recordError(QZErrorInvalidArgument, function, "\"\(whole)\": emitter cells have no animatable property \"\(key)\"")
            return false
        }
        guard value.type == CAValueTypeNumber || (key == "enabled" && value.type == CAValueTypeBool),
              let n = value.number else {
            recordError(QZErrorWrongType, function, "\"\(whole)\" takes \(key == "enabled" ? "a bool" : "a number")")
            return false
        }
        guard n.isFinite else { recordError(QZErrorNotFinite, function, "\"\(whole)\" must be finite, got \(n)"); return false }
        if let scalar, scalar.nonNegative, n < 0 {
            recordError(QZErrorOutOfRange, function, "\"\(whole)\" \(n) is negative")
            return false
        }
        let cell: EmitterCell
        if isPresentationCopy {
            // The presentation copy's own copies of the cells along the path.
            let (cells, copied) = EmitterCell.copying(state.emitterCells, along: chain[...])
            state.emitterCells = cells
            cell = copied
        } else {
            cell = list[chain[chain.count - 1]]
        }
        if let scalar { scalar.set(cell, n) } else { cell.enabled = n != 0 }
        return true
    }
}

extension EmitterCell {
    /// `cells` with the cell at `chain` (indices, outermost first) and its
    /// parents replaced by copies; the copied cell.
    fileprivate static func copying(_ cells: [EmitterCell], along chain: ArraySlice<Int>) -> ([EmitterCell], EmitterCell) {
        var list = cells
        let c = list[chain.first!].copy()
        list[chain.first!] = c
        guard chain.count > 1 else { return (list, c) }
        let (inner, target) = copying(c.emitterCells, along: chain.dropFirst())
        c.emitterCells = inner
        return (list, target)
    }
}
