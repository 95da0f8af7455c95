import SwiftSyntax

/// What the port must know across files: which classes are Realm models.
///
/// A class is a model when it inherits from `Object`, `EmbeddedObject` or
/// `AsymmetricObject` (plain, or qualified by `RealmSwift` or `Shoal`), or
/// from a model class declared in one of the files, at any depth. Only the
/// first inherited type can be a superclass, so only it is looked at.
struct ProjectIndex: Sendable {
    /// The base classes of Realm's models.
    static let modelRoots: Set<String> = ["Object", "EmbeddedObject", "AsymmetricObject"]

    /// The names of the model classes found.
    private(set) var modelClasses: Set<String> = []

    /// Indexes the parsed files.
    init(_ files: [SourceFileSyntax]) {
        let collector = ClassCollector(viewMode: .sourceAccurate)
        for file in files { collector.walk(file) }
        var models: Set<String> = []
        var grew = true
        while grew {
            grew = false
            for (name, superclass) in collector.superclasses where !models.contains(name) {
                if Self.modelRoots.contains(superclass.name) && superclass.module != nil
                    || superclass.module == nil && (Self.modelRoots.contains(superclass.name) || models.contains(superclass.name))
                {
                    models.insert(name)
                    grew = true
                }
            }
        }
        modelClasses = models
    }
}

/// The first inherited type of every class, by class name.
private final class ClassCollector: SyntaxVisitor {
    var superclasses: [(name: String, superclass: (module: String?, name: String))] = []

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        if let first = node.inheritanceClause?.inheritedTypes.first?.type {
            if let type = first.as(IdentifierTypeSyntax.self) {
                superclasses.append((node.name.text, (nil, type.name.text)))
            } else if let type = first.as(MemberTypeSyntax.self),
                let base = type.baseType.as(IdentifierTypeSyntax.self),
                ["RealmSwift", "Shoal"].contains(base.name.text)
            {
                superclasses.append((node.name.text, (base.name.text, type.name.text)))
            }
        }
        return .visitChildren
    }
}
