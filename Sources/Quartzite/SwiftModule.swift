// The `Quartzite` product's Swift module: a Swift package that depends on it
// imports this one module and gets the engine's public Swift API (Layer,
// Animation, PixelBuffer, ...) with the C-named functions, as before the
// engine was split into targets.
@_exported import QuartziteCore
@_exported import QuartziteGeometry
@_exported import QuartziteVideo
@_exported import QuartziteGraphics
@_exported import QuartziteModel
@_exported import QuartziteRender
