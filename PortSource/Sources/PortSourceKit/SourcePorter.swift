import SwiftDiagnostics
import SwiftParser
import SwiftParserDiagnostics
import SwiftSyntax

/// One file before and after the port, with what is left to a person.
public struct PortedFile: Sendable {
    /// The file, as the caller named it.
    public let path: String
    /// The text as given.
    public let original: String
    /// The text for Shoal.
    public let ported: String
    /// What the port could not do, at lines of ``ported``.
    public let notes: [PortNote]

    /// Whether the port changes the file.
    public var changed: Bool { original != ported }
}

/// The mechanical part of porting Realm Swift code to Shoal, on syntax trees.
///
/// - `import RealmSwift` becomes `import Shoal`, and `RealmSwift.X` becomes
///   `Shoal.X`; `import Realm` (the Objective-C framework) goes when the file
///   imports Realm Swift too, and is left with a note otherwise.
/// - `import Combine` becomes `import OpenCombine` and `import
///   OpenCombineDispatch`, plus `import ShoalCombine` when the file imports
///   Realm Swift.
/// - In classes that inherit from `Object` or `EmbeddedObject` (directly or
///   through other classes of the files): `@objc dynamic var`, `let x =
///   List<T>()` (and `MutableSet`, `Map`), `LinkingObjects(fromType:property:)`,
///   `RealmOptional<T>()` and `RealmProperty<T>()` become `@Persisted`
///   declarations; `primaryKey()` and `indexedProperties()` become arguments
///   of the properties they name, and `ignoredProperties()` leaves those
///   properties plain.
/// - `@objc` goes from enums that conform to `RealmEnum`.
///
/// Anything else is left as it is, and what still needs a person (a
/// computed `@objc dynamic` property, a `primaryKey()` that computes its
/// answer, `.value` on a property that is no longer a wrapper) is a note.
/// Comments and formatting outside the rewritten declarations are kept.
public enum SourcePorter {
    /// Ports the files together (a model class may inherit from one
    /// declared in another file).
    /// - Parameter files: each file's path, used in notes and errors, and text.
    /// - Throws: ``PortError`` for a file that does not parse, naming the
    ///   first error's line.
    public static func port(_ files: [(path: String, text: String)]) throws(PortError) -> [PortedFile] {
        var trees: [SourceFileSyntax] = []
        for file in files {
            let tree = Parser.parse(source: file.text)
            if tree.hasError {
                let converter = SourceLocationConverter(fileName: file.path, tree: tree)
                let diagnostics = ParseDiagnosticsGenerator.diagnostics(for: tree)
                let message = diagnostics.first.map {
                    "line \($0.location(converter: converter).line): \($0.message)"
                } ?? "not valid Swift"
                throw PortError(path: file.path, message: "cannot parse (\(message)); nothing in it was changed")
            }
            trees.append(tree)
        }
        let index = ProjectIndex(trees)
        var rewritten: [(tree: SourceFileSyntax, rewriter: PortRewriter)] = []
        var unwrapped: Set<String> = []
        for tree in trees {
            let rewriter = PortRewriter(index: index, facts: ImportFacts(tree))
            let ported = rewriter.rewrite(tree).cast(SourceFileSyntax.self)
            unwrapped.formUnion(rewriter.unwrappedProperties)
            rewritten.append((ported, rewriter))
        }
        return zip(files, rewritten).map { file, result in
            // Notes are found in the ported text, reparsed so that its lines are the file's.
            let text = result.tree.description
            let tree = Parser.parse(source: text)
            let finder = NoteFinder(
                path: file.path, tree: tree, index: index, propertyNotes: result.rewriter.propertyNotes,
                unwrappedProperties: unwrapped, rewroteCombine: result.rewriter.rewroteCombine)
            finder.walk(tree)
            return PortedFile(path: file.path, original: file.text, ported: text, notes: finder.notes)
        }
    }

    /// Ports one file on its own.
    public static func port(_ text: String, path: String = "input.swift") throws(PortError) -> PortedFile {
        try port([(path, text)])[0]
    }
}
