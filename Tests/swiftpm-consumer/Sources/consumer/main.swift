// Uses the engine through its Swift module: a layer object and the C-named
// functions, as a Swift project depending on Quartzite would.
import Quartzite

let layer = Layer()
let identity = layer.transform.m11 == 1 && layer.transform.m44 == 1
let viaC = CALayerCreate()
CALayerSetOpacity(viaC, 0.5)
let opacity = CALayerGetOpacity(viaC)
CARelease(UnsafeRawPointer(viaC))
print("consumer: identity transform \(identity), opacity \(opacity)")
guard identity, opacity == 0.5 else { fatalError("consumer: unexpected values") }
