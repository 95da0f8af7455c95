import SwiftSyntax

/// Reads a ported file for what the port left to a person, with the lines
/// of the ported text.
final class NoteFinder: SyntaxVisitor {
    private let path: String
    private let index: ProjectIndex
    private let converter: SourceLocationConverter
    private let propertyNotes: [PropertyNote]
    private let unwrappedProperties: Set<String>
    private let rewroteCombine: Bool
    private let importsShoal: Bool
    private var classes: [String] = []
    private(set) var notes: [PortNote] = []

    init(
        path: String, tree: SourceFileSyntax, index: ProjectIndex, propertyNotes: [PropertyNote], unwrappedProperties: Set<String>,
        rewroteCombine: Bool
    ) {
        self.path = path
        self.index = index
        self.converter = SourceLocationConverter(fileName: path, tree: tree)
        self.propertyNotes = propertyNotes
        self.unwrappedProperties = unwrappedProperties
        self.rewroteCombine = rewroteCombine
        self.importsShoal = ImportFacts(tree).any.contains("Shoal")
        super.init(viewMode: .sourceAccurate)
    }

    private func note(_ node: some SyntaxProtocol, _ message: String) {
        let line = node.startLocation(converter: converter, afterLeadingTrivia: true).line
        notes.append(PortNote(path: path, line: line, message: message))
    }

    private var inModel: Bool { classes.last.map(index.modelClasses.contains) ?? false }

    override func visit(_ node: ImportDeclSyntax) -> SyntaxVisitorContinueKind {
        let path = node.path.map(\.name.text)
        if path.first == "Realm" {
            note(node, "`import Realm` is Realm's Objective-C framework, which Shoal has no counterpart for: port its `RLM…` calls to the Swift API, then import Shoal instead.")
        } else if path.first == "RealmSwift" {
            note(node, "Shoal has no submodule `\(path.joined(separator: "."))`: import Shoal.")
        }
        return .skipChildren
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        classes.append(node.name.text)
        return .visitChildren
    }

    override func visitPost(_ node: ClassDeclSyntax) {
        classes.removeLast()
    }

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        let objc = node.attributes.contains(where: \.isBareObjC)
        let dynamic = node.modifiers.contains { $0.name.tokenKind == .keyword(.dynamic) }
        if let name = node.singleName, let className = classes.last,
            let found = propertyNotes.first(where: { $0.className == className && $0.property == name })
        {
            note(node, found.message)
        }
        guard objc || dynamic, classes.last != nil else { return .visitChildren }
        if inModel {
            if node.bindings.count > 1 {
                note(node, "Declare each of these properties on a line of its own, then run the port again (or write `@Persisted var` for each).")
            } else if node.bindings.first?.accessorBlock != nil {
                note(node, "A computed or observed property: `@Persisted` takes no accessors. Remove `@objc dynamic` (a computed property is not stored), or move the observer's work to where the property is set.")
            } else if let type = node.bindings.first?.typeAnnotation?.type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
                note(node, "An implicitly unwrapped optional, which `@Persisted` does not take: declare it `@Persisted var \(node.singleName ?? "name"): \(type.wrappedType.trimmedDescription)?` and unwrap it where it is read.")
            } else {
                note(node, "Not rewritten: write `@Persisted var` with the property's type (`@objc` does not compile on Linux).")
            }
        } else if objc && importsShoal {
            note(node, "`@objc` does not compile on Linux. If `\(classes.last!)` is a Realm model (a subclass of `Object` declared outside these files), declare this `@Persisted var`; otherwise remove `@objc dynamic`.")
        }
        return .visitChildren
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        guard inModel, let configuration = ModelPlan.Configuration(node) else { return .visitChildren }
        switch configuration.kind {
        case .primaryKey:
            note(node, "`primaryKey()` was left: mark its property `@Persisted(primaryKey: true)` and remove this override (it is rewritten only when it returns a string literal naming a property declared in this class).")
        case .indexedProperties:
            note(node, "`indexedProperties()` was left: mark each property it names `@Persisted(indexed: true)` and remove this override (it is rewritten only when it returns string literals naming properties declared in this class).")
        case .ignoredProperties:
            note(node, "`ignoredProperties()` was left: Shoal stores only `@Persisted` properties, so declare the ignored ones as plain `var`s and remove this override.")
        }
        return .visitChildren
    }

    override func visit(_ node: MemberAccessExprSyntax) -> SyntaxVisitorContinueKind {
        if node.declName.baseName.text == "value", let base = node.base, let name = Self.lastName(base), unwrappedProperties.contains(name) {
            note(node, "If `\(name)` here is a model's property that was `RealmOptional` or `RealmProperty`, it is `@Persisted` now: drop `.value`.")
        }
        return .visitChildren
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard rewroteCombine else { return .visitChildren }
        let called = node.calledExpression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
        for argument in node.arguments {
            let label = argument.label?.text
            let scheduler = label == "scheduler" || label == "on" && (called == "receive" || called == "subscribe")
            guard scheduler, argument.expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text != "ocombine" else { continue }
            note(argument, "OpenCombine's operators take a queue as a scheduler through `.ocombine` (`DispatchQueue.main.ocombine`); Realm's own publishers' `subscribe(on:)` and `receive(on:)` also take the queue itself.")
        }
        return .visitChildren
    }

    private static func lastName(_ expression: ExprSyntax) -> String? {
        if let reference = expression.as(DeclReferenceExprSyntax.self) { return reference.baseName.text }
        if let member = expression.as(MemberAccessExprSyntax.self) { return member.declName.baseName.text }
        return nil
    }
}
