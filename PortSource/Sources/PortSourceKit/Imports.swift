import SwiftSyntax

/// The modules a file imports, read before it is rewritten.
struct ImportFacts {
    /// Modules imported whole (`import X`, with any attributes).
    var whole: Set<String> = []
    /// The first path component of every import, whole or of one declaration.
    var any: Set<String> = []

    init(_ file: SourceFileSyntax) {
        let collector = ImportCollector(viewMode: .sourceAccurate)
        collector.walk(file)
        whole = collector.whole
        any = collector.any
    }

    /// Whether the file's Combine code works on Realm's publishers, which
    /// are in `ShoalCombine`: it imports Combine and Realm Swift (or Shoal).
    var needsShoalCombine: Bool {
        any.contains("Combine") && (any.contains("RealmSwift") || any.contains("Shoal")) && !any.contains("ShoalCombine")
    }
}

private final class ImportCollector: SyntaxVisitor {
    var whole: Set<String> = []
    var any: Set<String> = []

    override func visit(_ node: ImportDeclSyntax) -> SyntaxVisitorContinueKind {
        guard let first = node.path.first?.name.text else { return .skipChildren }
        any.insert(first)
        if node.importKindSpecifier == nil && node.path.count == 1 { whole.insert(first) }
        return .skipChildren
    }
}

/// What becomes of one import declaration.
enum ImportAction {
    case keep
    case remove
    /// The declaration with its first path component renamed, then whole
    /// imports of the added modules, one a line.
    case replace(renamedTo: String, adding: [String])
}

extension ImportDeclSyntax {
    /// The declaration with its first path component renamed, keeping trivia.
    func renamingModule(to module: String) -> ImportDeclSyntax {
        var components = Array(path)
        components[0] = components[0].with(\.name, components[0].name.with(\.tokenKind, .identifier(module)))
        return with(\.path, ImportPathComponentListSyntax(components))
    }

    /// `import module`, with no trivia around it.
    static func whole(_ module: String) -> ImportDeclSyntax {
        ImportDeclSyntax(
            importKeyword: .keyword(.import, trailingTrivia: .space),
            path: ImportPathComponentListSyntax([ImportPathComponentSyntax(name: .identifier(module))]))
    }
}

extension Trivia {
    /// Whether any piece is a comment.
    var hasComment: Bool {
        contains { piece in
            switch piece {
            case .lineComment, .blockComment, .docLineComment, .docBlockComment: true
            default: false
            }
        }
    }

    /// The spaces and tabs after the last newline: a line's indentation.
    var indentation: Trivia {
        var pieces: [TriviaPiece] = []
        for piece in self.pieces.reversed() {
            switch piece {
            case .spaces, .tabs: pieces.insert(piece, at: 0)
            default: return Trivia(pieces: pieces)
            }
        }
        return Trivia(pieces: pieces)
    }
}
