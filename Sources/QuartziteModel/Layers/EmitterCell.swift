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
