import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import QuartziteGraphics

/// A custom action (Apple's CAAction protocol adopted by a host object): a
/// callback run with the key, the layer and the arguments. Animations are
/// actions too; they are not of this class (see `Actions.run`).
public final class Action: QZObject, Handle {
    package let run: CAActionCallback?
    package let info: UnsafeMutableRawPointer?
    package let release: CAActionReleaseCallback?

    @inlinable package static var handleKind: ObjectKind { .action }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.action.rawValue) }

    package init(run: CAActionCallback?, info: UnsafeMutableRawPointer?, release: CAActionReleaseCallback?) {
        self.run = run
        self.info = info
        self.release = release
        super.init(kind: .action)
    }

    deinit {
        if let release { hostCall { release(info) } }
    }

    /// The shared "stop searching" action (Apple's NSNull in the action search).
    package static let null = Action(run: nil, info: nil, release: nil)
}

/// Anything the action search may answer: a custom action or an animation.
package enum Actions {
    /// The object behind a CAActionRef handle (an Action or an Animation), or nil.
    package static func object(_ p: OpaquePointer?, _ function: StaticString) -> QZObject? {
        guard let p else {
            recordError(QZErrorNullArgument, function, "action is NULL")
            return nil
        }
        let tag = readTag(p)
        if Action.accepts(tag) || Animation.accepts(tag) { return anyObject(UnsafeRawPointer(p), function) }
        wrongType(p, expected: "CAAction", function)
        return nil
    }

    /// The action a value holds (an action or animation object), or nil.
    /// `isNull` is true for the null value (stop the search).
    package static func fromValue(_ v: Value) -> (action: QZObject?, isNull: Bool) {
        switch v.storage {
        case .null: return (nil, true)
        case .object(let o):
            if o === Action.null { return (nil, true) }
            if o is Action || o is Animation { return (o, false) }
            return (nil, false)
        default: return (nil, false)
        }
    }

    /// Runs `action` for `key` on `layer` (model lock held): an animation is
    /// added to the layer under the key (a copy, in the open transaction); a
    /// custom action's callback runs on the calling thread. An animation on
    /// a presentation copy records QZErrorInvalidState (copies run none).
    package static func run(_ action: QZObject, key: String, layer: Layer, arguments: Value?, function: StaticString = #function) {
        if let a = action as? Animation {
            guard layer.acceptsAnimations(function) else { return }
            layer.addAnimationInTransaction(a, forKey: key)
        } else if let a = action as? Action, let fn = a.run {
            let layerHandle = borrowedHandle(layer)
            let args = arguments.map(borrowedHandle)
            withExtendedLifetime((a, arguments)) {
                key.withCString { k in hostCall { fn(k, layerHandle, args, a.info) } }
            }
        }
    }
}
