import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// A layer class: one of the built-in classes or a "subclass" made with
/// CALayerClassCreate, whose callbacks override the superclass's methods.
public final class LayerClass: QZObject, Handle {
    public let name: String
    package let cName: CString
    public let superclass: LayerClass?
    public let builtin: BuiltinLayerKind
    package let callbacks: CALayerClassCallbacks?
    package let info: UnsafeMutableRawPointer?
    /// Defaults of declared keys answered by defaultValueForKey callbacks,
    /// resolved once per class (Apple's +defaultValueForKey: is a class method).
    private var resolvedDefaults: [(LayerKey, Value)]?
    /// Apple's +[CATiledLayer fadeDuration] overridden for this class
    /// (QZTiledLayerClassSetFadeDuration; nil: the superclass's).
    package var fadeDurationOverride: Double?

    /// The fade-in of new tiles: the nearest override, else 0.25 s.
    package var tiledFadeDuration: Double {
        var cls: LayerClass? = self
        while let c = cls {
            if let d = c.fadeDurationOverride { return d }
            cls = c.superclass
        }
        return 0.25
    }

    @inlinable package static var handleKind: ObjectKind { .layerClass }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.layerClass.rawValue) }

    package init(name: String, superclass: LayerClass?, builtin: BuiltinLayerKind,
         callbacks: CALayerClassCallbacks?, info: UnsafeMutableRawPointer?) {
        self.name = name
        cName = CString(name)
        self.superclass = superclass
        self.builtin = builtin
        self.callbacks = callbacks
        self.info = info
        hasDefaultValueCallbacks = callbacks?.defaultValueForKey != nil || (superclass?.hasDefaultValueCallbacks ?? false)
        hasNeedsDisplayForKey = callbacks?.needsDisplayForKey != nil || (superclass?.hasNeedsDisplayForKey ?? false)
            || builtin == .text
        hasDefaultActionForKey = callbacks?.defaultActionForKey != nil || (superclass?.hasDefaultActionForKey ?? false)
        hasInitWithLayer = callbacks?.initWithLayer != nil || (superclass?.hasInitWithLayer ?? false)
        hasLayoutSublayers = callbacks?.layoutSublayers != nil || (superclass?.hasLayoutSublayers ?? false)
        hasCallbacks = callbacks != nil || (superclass?.hasCallbacks ?? false)
        super.init(kind: .layerClass)
    }

    public convenience init(name: String, superclass: LayerClass, callbacks: CALayerClassCallbacks?, info: UnsafeMutableRawPointer?) {
        self.init(name: name, superclass: superclass, builtin: superclass.builtin, callbacks: callbacks, info: info)
    }

    deinit {
        if let release = callbacks?.release { hostCall { release(info) } }
    }

    public static let base = LayerClass(name: "CALayer", superclass: nil, builtin: .layer, callbacks: nil, info: nil)
    public static let scroll = LayerClass(name: "CAScrollLayer", superclass: base, builtin: .scroll, callbacks: nil, info: nil)
    public static let text = LayerClass(name: "CATextLayer", superclass: base, builtin: .text, callbacks: nil, info: nil)
    public static let tiled = LayerClass(name: "CATiledLayer", superclass: base, builtin: .tiled, callbacks: nil, info: nil)
    public static let eagl = LayerClass(name: "CAEAGLLayer", superclass: base, builtin: .eagl, callbacks: nil, info: nil)
    public static let shape = LayerClass(name: "CAShapeLayer", superclass: base, builtin: .shape, callbacks: nil, info: nil)
    public static let gradient = LayerClass(name: "CAGradientLayer", superclass: base, builtin: .gradient, callbacks: nil, info: nil)
    public static let replicator = LayerClass(name: "CAReplicatorLayer", superclass: base, builtin: .replicator, callbacks: nil, info: nil)
    public static let emitter = LayerClass(name: "CAEmitterLayer", superclass: base, builtin: .emitter, callbacks: nil, info: nil)

    package static func builtin(named name: String) -> LayerClass? {
        switch name {
        case "CALayer": return base
        case "CAScrollLayer": return scroll
        case "CATextLayer": return text
        case "CATiledLayer": return tiled
        case "CAEAGLLayer": return eagl
        case "CAGradientLayer": return gradient
        case "CAShapeLayer": return shape
        case "CAReplicatorLayer": return replicator
        case "CAEmitterLayer": return emitter
        default: return nil
        }
    }

    package var handle: OpaquePointer { borrowedHandle(self) }

    /// The nearest class in the chain (self first) whose table implements a method.
    @inline(__always)
    package func nearest<F>(_ method: (CALayerClassCallbacks) -> F?) -> (F, UnsafeMutableRawPointer?, LayerClass)? {
        guard hasCallbacks else { return nil }
        var cls: LayerClass? = self
        while let c = cls {
            if let table = c.callbacks, let fn = method(table) { return (fn, c.info, c) }
            cls = c.superclass
        }
        return nil
    }

    /// True when some class in the chain overrides defaultValueForKey or
    /// needsDisplayForKey (fixed at creation: setters test it on every change).
    package let hasDefaultValueCallbacks: Bool
    @usableFromInline package let hasNeedsDisplayForKey: Bool
    /// True when some class in the chain implements defaultActionForKey (the action search).
    @usableFromInline package let hasDefaultActionForKey: Bool
    /// True when some class in the chain has a callback table (built-in
    /// classes have none: `nearest` then answers without walking the chain).
    package let hasCallbacks: Bool
    /// True when some class in the chain implements initWithLayer (presentation copies skip the lookup otherwise).
    package let hasInitWithLayer: Bool
    /// True when some class in the chain implements layoutSublayers (the commit lays such layers out).
    package let hasLayoutSublayers: Bool

    // MARK: Class methods

    /// The class's default for `key`: the nearest defaultValueForKey callback's
    /// answer, else the built-in default of a declared key, else nil.
    public func defaultValue(forKey key: String) -> Value? {
        var cls: LayerClass? = self
        while let c = cls {
            if let fn = c.callbacks?.defaultValueForKey {
                let answer = key.withCString { k in hostCall { fn(self.handle, k, c.info) } }
                if let answer, let value = object(answer, as: Value.self) {
                    // The callback returns +1: take ownership.
                    Unmanaged<Value>.fromOpaque(UnsafeRawPointer(answer)).release()
                    return value
                }
            }
            cls = c.superclass
        }
        if let declared = LayerKey.byName[key], declared.declaringKind == .layer || declared.declaringKind == builtin {
            return Layer.builtinDefault(declared, builtin: builtin)
        }
        return nil
    }

    /// Apple's +needsDisplayForKey:. CATextLayer and its subclasses answer
    /// true for the text properties and contentsScale (a change redraws the
    /// text; an animation of fontSize or foregroundColor redraws presentation
    /// copies).
    public func needsDisplay(forKey key: String) -> Bool {
        if builtin == .text, let k = LayerKey.byName[key], k.redrawsText || k == .contentsScale { return true }
        // Like an Objective-C class method: `self` is the class asked, not the one defining it.
        guard let (fn, info, _) = nearest({ $0.needsDisplayForKey }) else { return false }
        return key.withCString { k in hostCall { fn(handle, k, info) } }
    }

    /// Apple's +defaultActionForKey: (borrowed; nil when no class answers).
    public func defaultAction(forKey key: String) -> OpaquePointer? {
        guard let (fn, info, _) = nearest({ $0.defaultActionForKey }) else { return nil }
        return key.withCString { k in hostCall { fn(handle, k, info) } }
    }

    /// The default a defaultValueForKey callback gave a declared key (what a
    /// property no style supplies goes back to), or nil for the built-in one.
    package func classDefault(_ key: LayerKey) -> Value? {
        guard hasDefaultValueCallbacks, let list = resolvedDefaults else { return nil }
        for (k, v) in list where k == key { return v }
        return nil
    }

    /// Sets the class defaults of declared keys on a new layer (not as explicit values).
    package func applyDefaults(to layer: Layer) {
        guard hasDefaultValueCallbacks else { return }
        if resolvedDefaults == nil {
            var list: [(LayerKey, Value)] = []
            for key in LayerKey.allCases where key != .frame && key != .sublayers && layer.declares(key) {
                var cls: LayerClass? = self
                while let c = cls {
                    if let fn = c.callbacks?.defaultValueForKey {
                        let answer = key.name.withCString { k in hostCall { fn(self.handle, k, c.info) } }
                        if let answer, let value = object(answer, as: Value.self) {
                            Unmanaged<Value>.fromOpaque(UnsafeRawPointer(answer)).release()
                            list.append((key, value))
                            break
                        }
                    }
                    cls = c.superclass
                }
            }
            resolvedDefaults = list
        }
        for (key, value) in resolvedDefaults! {
            _ = layer.setDeclared(key, value, explicit: false, function: "defaultValueForKey")
        }
    }
}

/// A layer's delegate and layout manager (copied callback tables).
@usableFromInline package final class LayerHooks {
    @usableFromInline package var delegate: CALayerDelegateCallbacks?
    package var delegateInfo: UnsafeMutableRawPointer?
    package var layoutManager: CALayoutManagerCallbacks?
    package var layoutManagerInfo: UnsafeMutableRawPointer?

    package func setDelegate(_ table: CALayerDelegateCallbacks?, _ info: UnsafeMutableRawPointer?) {
        let old = (delegate, delegateInfo)
        delegate = table
        delegateInfo = info
        if let release = old.0?.release { hostCall { release(old.1) } }
    }

    package func setLayoutManager(_ table: CALayoutManagerCallbacks?, _ info: UnsafeMutableRawPointer?) {
        let old = (layoutManager, layoutManagerInfo)
        layoutManager = table
        layoutManagerInfo = info
        if let release = old.0?.release { hostCall { release(old.1) } }
    }

    package func releaseAll() {
        setDelegate(nil, nil)
        setLayoutManager(nil, nil)
    }
}
