// swift-tools-version:6.0
import PackageDescription

// No unsafe flags here, so that another package can depend on this one by
// version. The flags of the shipped libquartzite.so (lld with the exports
// version script, static stdlib, unchecked exclusivity) are given where the
// .so is produced: CMakeLists.txt.
// Thread safety comes from explicit locks around shared state (see
// docs/architecture.md), which Swift 6 strict concurrency checking cannot see.
let engineSwiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "Quartzite",
    // MARK: - Public API
    products: [
        // libquartzite.so: the C ABI (build with -Xswiftc -static-stdlib for a self-contained .so).
        .library(name: "quartzite", type: .dynamic, targets: ["Quartzite"]),
        // The Swift engine, for Swift packages that link it directly.
        .library(name: "Quartzite", targets: ["Quartzite"]),
    ],
    targets: [
        // MARK: - Implementation details
        // Public C structs, enums, callback tables and exported constant data,
        // and the libpng calls of QZPixelBufferCreateWithPNGFile / WritePNG
        // (Debian's libpng-dev: png.h on the default include path, libpng16.so),
        // and the libjpeg calls of CGImageCreateWithJPEGDataProvider (Debian's
        // libjpeg-dev: libjpeg-turbo's libjpeg.so.62).
        .target(
            name: "CQuartzite",
            path: "Sources/CQuartzite",
            linkerSettings: [.linkedLibrary("png"), .linkedLibrary("jpeg")]
        ),
        // cairo, the rasterizer of Core Graphics drawing (Debian's
        // libcairo2-dev, linked dynamically).
        .systemLibrary(
            name: "CCairo",
            path: "Sources/CCairo",
            pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev"])]
        ),
        // Pango with HarfBuzz, FriBiDi, fontconfig and FreeType: Core Text's
        // shaping, bidi, line breaking, font matching and glyphs (Debian's
        // libpango1.0-dev, linked dynamically).
        .systemLibrary(
            name: "CPango",
            path: "Sources/CPango",
            pkgConfig: "pangocairo",
            providers: [.apt(["libpango1.0-dev"])]
        ),
        // Objects behind C handles, errors, the model lock.
        .target(
            name: "QuartziteCore",
            dependencies: ["CQuartzite"],
            path: "Sources/QuartziteCore",
            swiftSettings: engineSwiftSettings
        ),
        // Geometry, transforms, paths, boxed values and colours.
        .target(
            name: "QuartziteGeometry",
            dependencies: ["QuartziteCore"],
            path: "Sources/QuartziteGeometry",
            swiftSettings: engineSwiftSettings
        ),
        // Core Video: pixel buffers, pools, formats, conversions.
        .target(
            name: "QuartziteVideo",
            dependencies: ["QuartziteGeometry"],
            path: "Sources/QuartziteVideo",
            swiftSettings: engineSwiftSettings
        ),
        // Core Graphics (on cairo) and Core Text (on Pango).
        .target(
            name: "QuartziteGraphics",
            dependencies: ["QuartziteVideo", "CCairo", "CPango"],
            path: "Sources/QuartziteGraphics",
            swiftSettings: engineSwiftSettings
        ),
        // The model: layers, timing, animation, transactions, the run loop.
        .target(
            name: "QuartziteModel",
            dependencies: ["QuartziteGraphics"],
            path: "Sources/QuartziteModel",
            swiftSettings: engineSwiftSettings
        ),
        // Rendering: the draw list, the compositor and its kernels.
        .target(
            name: "QuartziteRender",
            dependencies: ["QuartziteModel"],
            path: "Sources/QuartziteRender",
            swiftSettings: engineSwiftSettings
        ),
        // The C exports: the thin @c layer over the engine (libquartzite.so).
        .target(
            name: "Quartzite",
            dependencies: ["QuartziteRender"],
            path: "Sources/Quartzite",
            swiftSettings: engineSwiftSettings
        ),
        // MARK: - Unit test bundles
        .testTarget(
            name: "QuartziteTests",
            dependencies: ["Quartzite", "CQuartzite", "CCairo", "CPango"],
            path: "Tests/QuartziteTests",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
