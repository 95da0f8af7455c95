public import Foundation

extension ShoalError: LocalizedError {
    /// The error's message, so that `localizedDescription` (and anything
    /// that prints a Foundation error) shows what was wrong.
    ///
    /// ```swift
    /// do { try Realm(configuration: config) } catch {
    ///     print(error.localizedDescription)  // "Failed to open file at path …"
    /// }
    /// ```
    public var errorDescription: String? { message }
}
