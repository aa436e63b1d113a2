import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics
import QuartziteModel
import QuartziteRender

// CAEmitterCell (issue 20): creation, its properties and nested cells, and
// CAEmitterLayer's cells and preservesDepth. Every call holds the model lock,
// so cells may be changed from any thread while another renders.

@inline(__always)
func readCell<R>(_ cell: CAEmitterCellRef?, _ fallback: R, _ function: StaticString = #function,
                 _ body: (EmitterCell) -> R) -> R {
    withObject(cell, as: EmitterCell.self, fallback: fallback, function) { c in withModelLock { body(c) } }
}

@inline(__always)
func writeCell(_ cell: CAEmitterCellRef?, _ function: StaticString = #function, _ body: (EmitterCell) -> Void) {
    withObject(cell, as: EmitterCell.self, fallback: (), function) { c in withModelLock { body(c) } }
}

/// Creates an emitter cell with Apple's defaults: enabled, birthRate 0,
/// lifetime 0, scale 1, opaque white, no contents, no nested cells. Returns +1.
@c public func CAEmitterCellCreate() -> CAEmitterCellRef? {
    retainedHandle(EmitterCell())
}

/// The cell's name (default NULL). Borrowed until the name next changes.
@c public func CAEmitterCellGetName(_ cell: CAEmitterCellRef?) -> UnsafePointer<CChar>? {
    readCell(cell, nil) { c in c.name.map { UnsafePointer($0.pointer) } }
}

/// Sets the cell's name, which addresses the cell in its emitter layer's key paths ("emitterCells.<name>.birthRate": set, read and animated there). The string is copied; NULL clears it.
@c public func CAEmitterCellSetName(_ cell: CAEmitterCellRef?, _ name: UnsafePointer<CChar>?) {
    let s = name.map { CString(String(cString: $0)) }
    writeCell(cell) { $0.name = s }
}

/// The colour particles start from (default opaque white). Borrowed.
@c public func CAEmitterCellGetColor(_ cell: CAEmitterCellRef?) -> QZCGColorRef? {
    readCell(cell, nil) { c in borrowedColor(c.color) }
}

/// Sets the colour particles start from. The colour is retained; NULL means opaque white.
@c public func CAEmitterCellSetColor(_ cell: CAEmitterCellRef?, _ color: QZCGColorRef?) {
    var value: Color?
    if let color { guard let c = object(color, as: Color.self) else { return }; value = c }
    writeCell(cell) { $0.color = value }
}

/// The particles' image (default NULL: nothing is drawn). Borrowed.
@c public func CAEmitterCellGetContents(_ cell: CAEmitterCellRef?) -> QZCGImageRef? {
    readCell(cell, nil) { c in c.contents.map(borrowedHandle) }
}

/// Sets the particles' image. The image is retained; NULL clears it.
@c public func CAEmitterCellSetContents(_ cell: CAEmitterCellRef?, _ image: QZCGImageRef?) {
    var value: Image?
    if let image { guard let i = object(image, as: Image.self) else { return }; value = i }
    writeCell(cell) { $0.contents = value }
}

/// Whether the cell emits (default true).
@c public func CAEmitterCellGetEnabled(_ cell: CAEmitterCellRef?) -> Bool {
    readCell(cell, false) { $0.enabled }
}

/// Sets enabled.
@c public func CAEmitterCellSetEnabled(_ cell: CAEmitterCellRef?, _ enabled: Bool) {
    writeCell(cell) { $0.enabled = enabled }
}

/// Particles born per second (default 0), multiplied by the layer's birthRate. Negative values record QZErrorOutOfRange; NaN or infinity QZErrorNotFinite. However large, at most 100,000 particles per layer are drawn.
@c public func CAEmitterCellGetBirthRate(_ cell: CAEmitterCellRef?) -> Float {
    readCell(cell, 0) { $0.birthRate }
}

/// Sets birthRate. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetBirthRate(_ cell: CAEmitterCellRef?, _ rate: Float) {
    guard checkFinite(Double(rate), function: #function) else { return }
    guard rate >= 0 else { recordError(QZErrorOutOfRange, #function, "birthRate \(rate) is negative"); return }
    writeCell(cell) { $0.birthRate = rate }
}

/// Each particle's life in seconds (default 0: none live), multiplied by the layer's lifetime. Negative values record QZErrorOutOfRange.
@c public func CAEmitterCellGetLifetime(_ cell: CAEmitterCellRef?) -> Float {
    readCell(cell, 0) { $0.lifetime }
}

/// Sets lifetime. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetLifetime(_ cell: CAEmitterCellRef?, _ lifetime: Float) {
    guard checkFinite(Double(lifetime), function: #function) else { return }
    guard lifetime >= 0 else { recordError(QZErrorOutOfRange, #function, "lifetime \(lifetime) is negative"); return }
    writeCell(cell) { $0.lifetime = lifetime }
}

/// How much a particle's lifetime varies either way (default 0).
@c public func CAEmitterCellGetLifetimeRange(_ cell: CAEmitterCellRef?) -> Float {
    readCell(cell, 0) { $0.lifetimeRange }
}

/// Sets lifetimeRange. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetLifetimeRange(_ cell: CAEmitterCellRef?, _ range: Float) {
    guard checkFinite(Double(range), function: #function) else { return }
    writeCell(cell) { $0.lifetimeRange = range }
}

/// The angle of emission out of the layer's plane, in radians (default 0).
@c public func CAEmitterCellGetEmissionLatitude(_ cell: CAEmitterCellRef?) -> Double {
    readCell(cell, 0) { $0.emissionLatitude }
}

/// Sets emissionLatitude. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetEmissionLatitude(_ cell: CAEmitterCellRef?, _ angle: Double) {
    guard checkFinite(Double(angle), function: #function) else { return }
    writeCell(cell) { $0.emissionLatitude = angle }
}

/// The angle of emission in the layer's plane, in radians from the x axis towards the y axis (default 0).
@c public func CAEmitterCellGetEmissionLongitude(_ cell: CAEmitterCellRef?) -> Double {
    readCell(cell, 0) { $0.emissionLongitude }
}

/// Sets emissionLongitude. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetEmissionLongitude(_ cell: CAEmitterCellRef?, _ angle: Double) {
    guard checkFinite(Double(angle), function: #function) else { return }
    writeCell(cell) { $0.emissionLongitude = angle }
}

/// The spread of emission in radians (default 0): longitudes are uniform within half of it either way.
@c public func CAEmitterCellGetEmissionRange(_ cell: CAEmitterCellRef?) -> Double {
    readCell(cell, 0) { $0.emissionRange }
}

/// Sets emissionRange. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetEmissionRange(_ cell: CAEmitterCellRef?, _ range: Double) {
    guard checkFinite(Double(range), function: #function) else { return }
    writeCell(cell) { $0.emissionRange = range }
}

/// The initial speed in points per second (default 0), multiplied by the layer's velocity.
@c public func CAEmitterCellGetVelocity(_ cell: CAEmitterCellRef?) -> Double {
    readCell(cell, 0) { $0.velocity }
}

/// Sets velocity. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetVelocity(_ cell: CAEmitterCellRef?, _ velocity: Double) {
    guard checkFinite(Double(velocity), function: #function) else { return }
    writeCell(cell) { $0.velocity = velocity }
}

/// How much the speed varies either way (default 0).
@c public func CAEmitterCellGetVelocityRange(_ cell: CAEmitterCellRef?) -> Double {
    readCell(cell, 0) { $0.velocityRange }
}

/// Sets velocityRange. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetVelocityRange(_ cell: CAEmitterCellRef?, _ range: Double) {
    guard checkFinite(Double(range), function: #function) else { return }
    writeCell(cell) { $0.velocityRange = range }
}

/// Acceleration along x in points per second squared (default 0).
@c public func CAEmitterCellGetXAcceleration(_ cell: CAEmitterCellRef?) -> Double {
    readCell(cell, 0) { $0.xAcceleration }
}

/// Sets xAcceleration. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetXAcceleration(_ cell: CAEmitterCellRef?, _ acceleration: Double) {
    guard checkFinite(Double(acceleration), function: #function) else { return }
    writeCell(cell) { $0.xAcceleration = acceleration }
}

/// Acceleration along y in points per second squared (default 0).
@c public func CAEmitterCellGetYAcceleration(_ cell: CAEmitterCellRef?) -> Double {
    readCell(cell, 0) { $0.yAcceleration }
}

/// Sets yAcceleration. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetYAcceleration(_ cell: CAEmitterCellRef?, _ acceleration: Double) {
    guard checkFinite(Double(acceleration), function: #function) else { return }
    writeCell(cell) { $0.yAcceleration = acceleration }
}

/// Acceleration along z in points per second squared (default 0).
@c public func CAEmitterCellGetZAcceleration(_ cell: CAEmitterCellRef?) -> Double {
    readCell(cell, 0) { $0.zAcceleration }
}

/// Sets zAcceleration. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetZAcceleration(_ cell: CAEmitterCellRef?, _ acceleration: Double) {
    guard checkFinite(Double(acceleration), function: #function) else { return }
    writeCell(cell) { $0.zAcceleration = acceleration }
}

/// The particle image's scale (default 1), multiplied by the layer's scale.
@c public func CAEmitterCellGetScale(_ cell: CAEmitterCellRef?) -> Double {
    readCell(cell, 0) { $0.scale }
}

/// Sets scale. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetScale(_ cell: CAEmitterCellRef?, _ scale: Double) {
    guard checkFinite(Double(scale), function: #function) else { return }
    writeCell(cell) { $0.scale = scale }
}

/// How much the scale varies either way (default 0).
@c public func CAEmitterCellGetScaleRange(_ cell: CAEmitterCellRef?) -> Double {
    readCell(cell, 0) { $0.scaleRange }
}

/// Sets scaleRange. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetScaleRange(_ cell: CAEmitterCellRef?, _ range: Double) {
    guard checkFinite(Double(range), function: #function) else { return }
    writeCell(cell) { $0.scaleRange = range }
}

/// How fast the scale changes, per second (default 0).
@c public func CAEmitterCellGetScaleSpeed(_ cell: CAEmitterCellRef?) -> Double {
    readCell(cell, 0) { $0.scaleSpeed }
}

/// Sets scaleSpeed. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetScaleSpeed(_ cell: CAEmitterCellRef?, _ speed: Double) {
    guard checkFinite(Double(speed), function: #function) else { return }
    writeCell(cell) { $0.scaleSpeed = speed }
}

/// The rotation rate in radians per second (default 0), multiplied by the layer's spin.
@c public func CAEmitterCellGetSpin(_ cell: CAEmitterCellRef?) -> Double {
    readCell(cell, 0) { $0.spin }
}

/// Sets spin. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetSpin(_ cell: CAEmitterCellRef?, _ spin: Double) {
    guard checkFinite(Double(spin), function: #function) else { return }
    writeCell(cell) { $0.spin = spin }
}

/// How much the rotation rate varies either way (default 0).
@c public func CAEmitterCellGetSpinRange(_ cell: CAEmitterCellRef?) -> Double {
    readCell(cell, 0) { $0.spinRange }
}

/// Sets spinRange. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetSpinRange(_ cell: CAEmitterCellRef?, _ range: Double) {
    guard checkFinite(Double(range), function: #function) else { return }
    writeCell(cell) { $0.spinRange = range }
}

/// How much the red component varies either way (default 0).
@c public func CAEmitterCellGetRedRange(_ cell: CAEmitterCellRef?) -> Float {
    readCell(cell, 0) { $0.redRange }
}

/// Sets redRange. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetRedRange(_ cell: CAEmitterCellRef?, _ range: Float) {
    guard checkFinite(Double(range), function: #function) else { return }
    writeCell(cell) { $0.redRange = range }
}

/// How much the green component varies either way (default 0).
@c public func CAEmitterCellGetGreenRange(_ cell: CAEmitterCellRef?) -> Float {
    readCell(cell, 0) { $0.greenRange }
}

/// Sets greenRange. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetGreenRange(_ cell: CAEmitterCellRef?, _ range: Float) {
    guard checkFinite(Double(range), function: #function) else { return }
    writeCell(cell) { $0.greenRange = range }
}

/// How much the blue component varies either way (default 0).
@c public func CAEmitterCellGetBlueRange(_ cell: CAEmitterCellRef?) -> Float {
    readCell(cell, 0) { $0.blueRange }
}

/// Sets blueRange. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetBlueRange(_ cell: CAEmitterCellRef?, _ range: Float) {
    guard checkFinite(Double(range), function: #function) else { return }
    writeCell(cell) { $0.blueRange = range }
}

/// How much the alpha varies either way (default 0).
@c public func CAEmitterCellGetAlphaRange(_ cell: CAEmitterCellRef?) -> Float {
    readCell(cell, 0) { $0.alphaRange }
}

/// Sets alphaRange. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetAlphaRange(_ cell: CAEmitterCellRef?, _ range: Float) {
    guard checkFinite(Double(range), function: #function) else { return }
    writeCell(cell) { $0.alphaRange = range }
}

/// How fast the red component changes, per second (default 0).
@c public func CAEmitterCellGetRedSpeed(_ cell: CAEmitterCellRef?) -> Float {
    readCell(cell, 0) { $0.redSpeed }
}

/// Sets redSpeed. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetRedSpeed(_ cell: CAEmitterCellRef?, _ speed: Float) {
    guard checkFinite(Double(speed), function: #function) else { return }
    writeCell(cell) { $0.redSpeed = speed }
}

/// How fast the green component changes, per second (default 0).
@c public func CAEmitterCellGetGreenSpeed(_ cell: CAEmitterCellRef?) -> Float {
    readCell(cell, 0) { $0.greenSpeed }
}

/// Sets greenSpeed. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetGreenSpeed(_ cell: CAEmitterCellRef?, _ speed: Float) {
    guard checkFinite(Double(speed), function: #function) else { return }
    writeCell(cell) { $0.greenSpeed = speed }
}

/// How fast the blue component changes, per second (default 0).
@c public func CAEmitterCellGetBlueSpeed(_ cell: CAEmitterCellRef?) -> Float {
    readCell(cell, 0) { $0.blueSpeed }
}

/// Sets blueSpeed. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetBlueSpeed(_ cell: CAEmitterCellRef?, _ speed: Float) {
    guard checkFinite(Double(speed), function: #function) else { return }
    writeCell(cell) { $0.blueSpeed = speed }
}

/// How fast the alpha changes, per second (default 0).
@c public func CAEmitterCellGetAlphaSpeed(_ cell: CAEmitterCellRef?) -> Float {
    readCell(cell, 0) { $0.alphaSpeed }
}

/// Sets alphaSpeed. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetAlphaSpeed(_ cell: CAEmitterCellRef?, _ speed: Float) {
    guard checkFinite(Double(speed), function: #function) else { return }
    writeCell(cell) { $0.alphaSpeed = speed }
}

/// When the cell starts emitting, in its emitter's time (default 0; a nested cell: the parent particle's age).
@c public func CAEmitterCellGetBeginTime(_ cell: CAEmitterCellRef?) -> CFTimeInterval {
    readCell(cell, 0) { $0.beginTime }
}

/// Sets beginTime. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetBeginTime(_ cell: CAEmitterCellRef?, _ time: CFTimeInterval) {
    guard checkFinite(Double(time), function: #function) else { return }
    writeCell(cell) { $0.beginTime = time }
}

/// How long the cell emits from its beginTime (default 0: for ever).
@c public func CAEmitterCellGetDuration(_ cell: CAEmitterCellRef?) -> CFTimeInterval {
    readCell(cell, 0) { $0.duration }
}

/// Sets duration. NaN or infinity records QZErrorNotFinite and changes nothing.
@c public func CAEmitterCellSetDuration(_ cell: CAEmitterCellRef?, _ duration: CFTimeInterval) {
    guard checkFinite(Double(duration), function: #function) else { return }
    writeCell(cell) { $0.duration = duration }
}

/// The number of the cell's nested cells (each of its particles emits them).
@c public func CAEmitterCellGetEmitterCellCount(_ cell: CAEmitterCellRef?) -> size_t {
    readCell(cell, 0) { $0.emitterCells.count }
}

/// Nested cell `index`, or NULL (QZErrorOutOfRange) outside 0..<count. Borrowed.
@c public func CAEmitterCellGetEmitterCellAtIndex(_ cell: CAEmitterCellRef?, _ index: size_t) -> CAEmitterCellRef? {
    readCell(cell, nil) { c in
        guard index >= 0, index < c.emitterCells.count else {
            recordError(QZErrorOutOfRange, #function, "index \(index) is outside 0..<\(c.emitterCells.count)")
            return nil
        }
        return borrowedHandle(c.emitterCells[index])
    }
}

/// The cells `cells[0..<count]` as a list (nil on a bad argument, error recorded).
func emitterCellList(_ cells: UnsafePointer<CAEmitterCellRef?>?, _ count: Int, _ function: StaticString) -> [EmitterCell]? {
    guard count >= 0, count <= 10_000 else {
        recordError(QZErrorOutOfRange, function, "count \(count) is outside 0...10000")
        return nil
    }
    guard count > 0 else { return [] }
    guard let cells else { recordError(QZErrorNullArgument, function, "cells is NULL"); return nil }
    var list: [EmitterCell] = []
    for i in 0..<count {
        guard let c = object(cells[i], as: EmitterCell.self, function) else { return nil }
        list.append(c)
    }
    return list
}

/// Sets the cell's nested cells to `cells[0..<count]` (retained; count 0:
/// none). A cell that contains this one records QZErrorInvalidArgument (a
/// cycle) and changes nothing.
@c public func CAEmitterCellSetEmitterCells(_ cell: CAEmitterCellRef?, _ cells: UnsafePointer<CAEmitterCellRef?>?, _ count: size_t) {
    guard let list = emitterCellList(cells, count, #function) else { return }
    writeCell(cell) { c in
        if list.contains(where: { $0.contains(c) }) {
            recordError(QZErrorInvalidArgument, #function, "a nested cell contains the cell (a cycle)")
            return
        }
        c.emitterCells = list
    }
}

/// Creates a CAEmitterLayer (Apple's defaults: birthRate, lifetime,
/// velocity, scale and spin 1, a point emitter at (0, 0) in volume mode,
/// unordered rendering, seed 0, no cells). Returns +1.
@c public func CAEmitterLayerCreate() -> CALayerRef? {
    retainedHandle(withModelLock { enlistedNewLayer(Layer(class: .emitter)) })
}

/// The number of the emitter layer's cells.
@c public func CAEmitterLayerGetEmitterCellCount(_ layer: CALayerRef?) -> size_t {
    readSubclassLayer(layer, .emitter, 0) { $0.emitter?.emitterCells.count ?? 0 }
}

/// Cell `index` of the emitter layer, or NULL (QZErrorOutOfRange) outside 0..<count. Borrowed.
@c public func CAEmitterLayerGetEmitterCellAtIndex(_ layer: CALayerRef?, _ index: size_t) -> CAEmitterCellRef? {
    readSubclassLayer(layer, .emitter, nil) { l in
        let cells = l.emitter?.emitterCells ?? []
        guard index >= 0, index < cells.count else {
            recordError(QZErrorOutOfRange, #function, "index \(index) is outside 0..<\(cells.count)")
            return nil
        }
        return borrowedHandle(cells[index])
    }
}

/// Sets the emitter layer's cells to `cells[0..<count]` (retained; count 0:
/// none). Takes effect at once (not animated).
@c public func CAEmitterLayerSetEmitterCells(_ layer: CALayerRef?, _ cells: UnsafePointer<CAEmitterCellRef?>?, _ count: size_t) {
    guard let list = emitterCellList(cells, count, #function) else { return }
    writeSubclassLayer(layer, .emitter, #function) { l in l.emitter?.emitterCells = list }
}

/// Whether particles keep their depth (default false). Particles are drawn
/// flattened into the layer's plane either way; kCAEmitterLayerBackToFront
/// orders them by z.
@c public func CAEmitterLayerGetPreservesDepth(_ layer: CALayerRef?) -> Bool {
    readSubclassLayer(layer, .emitter, false) { $0.emitter?.preservesDepth ?? false }
}

/// Sets preservesDepth (not animated).
@c public func CAEmitterLayerSetPreservesDepth(_ layer: CALayerRef?, _ preserves: Bool) {
    writeSubclassLayer(layer, .emitter, #function) { l in l.emitter?.preservesDepth = preserves }
}

/// Changes a subclass layer's state under the model lock, checking its class.
@inline(__always)
func writeSubclassLayer(_ layer: CALayerRef?, _ kind: BuiltinLayerKind, _ function: StaticString, _ body: (Layer) -> Void) {
    withObject(layer, as: Layer.self, fallback: (), function) { l in
        withModelLock {
            guard l.layerClass.builtin == kind else {
                recordError(QZErrorWrongType, function, "the layer is a \(l.layerClass.name), which does not declare this property")
                return
            }
            body(l)
        }
    }
}
