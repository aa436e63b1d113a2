import CQuartzite
import QuartziteCore
import QuartziteGeometry
import QuartziteVideo
import Glibc

/// Apple's CGDataProviderReleaseDataCallback: `info` comes first, as in
/// CGDataProvider.h.
public typealias DataProviderReleaseCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Void

/// Bytes for images (Apple's CGDataProviderRef): the caller's memory, kept
/// until the provider is freed (then its release callback runs), or a file's
/// contents read into memory the provider owns.
public final class DataProvider: QZObject, Handle {
    public let bytes: UnsafeRawPointer?
    public let count: Int
    private let owned: Bool
    private let info: UnsafeMutableRawPointer?
    private let release: DataProviderReleaseCallback?

    @inlinable package static var handleKind: ObjectKind { .dataProvider }
    @inlinable package static func accepts(_ tag: UInt32) -> Bool { tag == tagMagic | UInt32(ObjectKind.dataProvider.rawValue) }

    /// CGDataProviderCreateWithData: the caller's `count` bytes at `bytes`.
    public init(bytes: UnsafeRawPointer?, count: Int, info: UnsafeMutableRawPointer?, release: DataProviderReleaseCallback?) {
        self.bytes = bytes
        self.count = count
        self.info = info
        self.release = release
        owned = false
        super.init(kind: .dataProvider)
    }

    /// A copy of `data` the provider owns.
    public init(copying data: UnsafeRawBufferPointer) {
        let p = malloc(Swift.max(data.count, 1))!
        if let base = data.baseAddress, data.count > 0 { memcpy(p, base, data.count) }
        bytes = UnsafeRawPointer(p)
        count = data.count
        owned = true
        info = nil
        release = nil
        super.init(kind: .dataProvider)
    }

    /// CGDataProviderCreateWithFilename: the file's contents, or nil when it
    /// cannot be read (or is larger than `limit` bytes).
    public static func contentsOfFile(_ path: String, limit: Int = 1 << 31) -> DataProvider? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        guard fseek(f, 0, SEEK_END) == 0 else { return nil }
        let size = ftell(f)
        guard size >= 0, size <= limit, fseek(f, 0, SEEK_SET) == 0 else { return nil }
        guard let p = malloc(Swift.max(size, 1)) else { return nil }
        let read = fread(p, 1, size, f)
        guard read == size else { free(p); return nil }
        let provider = DataProvider(copying: UnsafeRawBufferPointer(start: p, count: size))
        free(p)
        return provider
    }

    deinit {
        if owned {
            free(UnsafeMutableRawPointer(mutating: bytes))
        } else if let release {
            let (info, bytes, count) = (info, bytes, count)
            hostCall { release(info, bytes, count) }
        }
    }

    public var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count) }
}
