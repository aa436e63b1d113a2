import Testing
@testable import Quartzite
@Test func placeholder() {}
