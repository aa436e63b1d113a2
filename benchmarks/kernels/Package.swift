// swift-tools-version:6.0
// The renderer's pixel kernels (Sources/QuartziteRender/Render/Kernels and
// the Gaussian blur of Sources/QuartziteGraphics, copied into
// Sources/bench_kernels/Engine by benchmarks/run.sh without their imports) against pixman in one
// process: see ../README.md. Build and run: benchmarks/run.sh, or
//   swift run -c release --package-path benchmarks/kernels
import PackageDescription

let package = Package(
    name: "bench_kernels",
    targets: [
        // Debian's libpixman-1-dev, found with pkg-config.
        .systemLibrary(name: "CPixman", path: "Sources/CPixman", pkgConfig: "pixman-1",
                       providers: [.apt(["libpixman-1-dev"])]),
        .executableTarget(
            name: "bench_kernels",
            dependencies: ["CPixman"],
            path: "Sources/bench_kernels",
            // The library's own settings for the same files.
            swiftSettings: [.swiftLanguageMode(.v5), .unsafeFlags(["-enforce-exclusivity=unchecked"])]
        ),
    ]
)
