import Testing

/// The Query layer's suites, nested here so that their identifiers contain
/// "Query" and `swift test --filter Query` selects exactly this layer (the
/// folder a test file lives in is not part of its identifier).
@Suite enum QueryTests {}
