import SwiftParser
import SwiftSyntax

/// A note about a property the rewriter changed, placed once the ported
/// text's lines are known.
struct PropertyNote {
    let className: String
    let property: String
    let message: String
}

/// Rewrites one file: imports, module-qualified names, Objective-C-era
/// declarations in model classes, and `@objc` on `RealmEnum` enums.
final class PortRewriter: SyntaxRewriter {
    private let index: ProjectIndex
    private let facts: ImportFacts
    /// Notes on properties changed in a way a person should check.
    private(set) var propertyNotes: [PropertyNote] = []
    /// Properties that were `RealmOptional` or `RealmProperty`, whose `.value` is gone.
    private(set) var unwrappedProperties: Set<String> = []
    /// Whether `import Combine` was rewritten, so scheduler arguments need a look.
    private(set) var rewroteCombine = false
    private var addedShoalCombine = false

    init(index: ProjectIndex, facts: ImportFacts) {
        self.index = index
        self.facts = facts
        super.init(viewMode: .sourceAccurate)
    }

    // MARK: imports

    override func visit(_ node: CodeBlockItemListSyntax) -> CodeBlockItemListSyntax {
        var items: [CodeBlockItemSyntax] = []
        // The leading trivia of a removed import when it holds comments (a
        // file's licence header often sits before its first import).
        var carried: Trivia?
        func append(_ item: CodeBlockItemSyntax) {
            if let trivia = carried {
                items.append(item.with(\.leadingTrivia, trivia))
                carried = nil
            } else {
                items.append(item)
            }
        }
        for (position, item) in node.enumerated() {
            guard let decl = item.item.as(ImportDeclSyntax.self) else {
                append(visit(item))
                continue
            }
            switch action(for: decl) {
            case .keep:
                append(item)
            case .remove:
                let isLast = position == node.count - 1
                if item.leadingTrivia.hasComment && isLast {
                    append(item)  // nowhere to keep its comments: leave it
                } else if item.leadingTrivia.hasComment {
                    carried = carried ?? item.leadingTrivia
                }
            case .replace(let module, let added):
                append(item.with(\.item, .decl(DeclSyntax(decl.renamingModule(to: module)))))
                let indentation = item.leadingTrivia.indentation
                for extra in added {
                    let addedDecl = ImportDeclSyntax.whole(extra).with(\.leadingTrivia, .newline + indentation)
                    items.append(CodeBlockItemSyntax(item: .decl(DeclSyntax(addedDecl))))
                }
            }
        }
        return CodeBlockItemListSyntax(items)
    }

    private func action(for decl: ImportDeclSyntax) -> ImportAction {
        guard let first = decl.path.first?.name.text else { return .keep }
        let whole = decl.importKindSpecifier == nil && decl.path.count == 1
        let declaration = decl.importKindSpecifier != nil
        switch first {
        case "RealmSwift" where whole:
            if facts.whole.contains("Shoal") { return .remove }
            return .replace(renamedTo: "Shoal", adding: shoalCombineIfNeeded())
        case "RealmSwift" where declaration:
            return .replace(renamedTo: "Shoal", adding: [])
        case "Realm" where whole:
            // The Objective-C framework: beside Realm Swift it adds nothing
            // Shoal needs; alone, the file uses the RLM API (a note says so).
            return facts.any.contains("RealmSwift") || facts.any.contains("Shoal") ? .remove : .keep
        case "Combine" where whole:
            rewroteCombine = true
            var added: [String] = []
            if !facts.any.contains("OpenCombineDispatch") { added.append("OpenCombineDispatch") }
            return .replace(renamedTo: "OpenCombine", adding: added + shoalCombineIfNeeded())
        case "Combine" where declaration:
            rewroteCombine = true
            return .replace(renamedTo: "OpenCombine", adding: [])
        default:
            return .keep
        }
    }

    private func shoalCombineIfNeeded() -> [String] {
        guard facts.needsShoalCombine, !addedShoalCombine else { return [] }
        addedShoalCombine = true
        return ["ShoalCombine"]
    }

    // MARK: module-qualified names

    override func visit(_ node: MemberTypeSyntax) -> TypeSyntax {
        if let base = node.baseType.as(IdentifierTypeSyntax.self), base.name.text == "RealmSwift", base.genericArgumentClause == nil {
            let renamed = base.with(\.name, base.name.with(\.tokenKind, .identifier("Shoal")))
            return super.visit(node.with(\.baseType, TypeSyntax(renamed)))
        }
        return super.visit(node)
    }

    override func visit(_ node: MemberAccessExprSyntax) -> ExprSyntax {
        if let base = node.base?.as(DeclReferenceExprSyntax.self), base.baseName.text == "RealmSwift" {
            let renamed = base.with(\.baseName, base.baseName.with(\.tokenKind, .identifier("Shoal")))
            return super.visit(node.with(\.base, ExprSyntax(renamed)))
        }
        return super.visit(node)
    }

    /// `#if canImport(Combine)` and `canImport(RealmSwift)` test for the
    /// modules their imports become (Linux has no Combine, so the guarded
    /// code would never compile otherwise).
    override func visit(_ node: FunctionCallExprSyntax) -> ExprSyntax {
        guard let callee = node.calledExpression.as(DeclReferenceExprSyntax.self), callee.baseName.text == "canImport",
            node.arguments.count == 1, let argument = node.arguments.first,
            let module = argument.expression.as(DeclReferenceExprSyntax.self),
            let renamed = ["Combine": "OpenCombine", "RealmSwift": "Shoal"][module.baseName.text]
        else { return super.visit(node) }
        let expression = module.with(\.baseName, module.baseName.with(\.tokenKind, .identifier(renamed)))
        return ExprSyntax(node.with(\.arguments, LabeledExprListSyntax([argument.with(\.expression, ExprSyntax(expression))])))
    }

    // MARK: enums

    override func visit(_ node: EnumDeclSyntax) -> DeclSyntax {
        let conformsToRealmEnum = node.inheritanceClause?.inheritedTypes.contains {
            $0.type.trimmedDescription == "RealmEnum" || $0.type.trimmedDescription == "RealmSwift.RealmEnum"
        } ?? false
        guard conformsToRealmEnum, node.attributes.contains(where: \.isBareObjC),
            let visited = super.visit(node).as(EnumDeclSyntax.self)
        else { return super.visit(node) }
        let leading = node.leadingTrivia
        return DeclSyntax(visited.with(\.attributes, visited.attributes.filter { !$0.isBareObjC }).with(\.leadingTrivia, leading))
    }

    // MARK: model classes

    override func visit(_ node: ClassDeclSyntax) -> DeclSyntax {
        let visited = super.visit(node)
        guard index.modelClasses.contains(node.name.text), node.attributes.contains(where: { $0.isNamed("objcMembers") }),
            let decl = visited.as(ClassDeclSyntax.self)
        else { return visited }
        // `@objcMembers` does not compile on Linux; the properties it exposed are `@Persisted` now.
        let leading = node.leadingTrivia
        return DeclSyntax(decl.with(\.attributes, decl.attributes.filter { !$0.isNamed("objcMembers") }).with(\.leadingTrivia, leading))
    }

    override func visit(_ node: MemberBlockItemListSyntax) -> MemberBlockItemListSyntax {
        guard let model = node.parent?.parent?.as(ClassDeclSyntax.self), index.modelClasses.contains(model.name.text) else {
            return super.visit(node)
        }
        let objcMembers = model.attributes.contains { $0.isNamed("objcMembers") }
        var plan = ModelPlan(className: model.name.text)
        for item in node {
            if let function = item.decl.as(FunctionDeclSyntax.self), let config = ModelPlan.Configuration(function) {
                plan.configurations.append((item.id, config))
            } else if let variable = item.decl.as(VariableDeclSyntax.self), let property = Property(variable, objcMembers: objcMembers) {
                plan.properties[property.name] = (item.id, property)
            }
        }
        plan.settle()
        var items: [MemberBlockItemSyntax] = []
        for item in node {
            if plan.removed.contains(item.id) { continue }
            if let variable = item.decl.as(VariableDeclSyntax.self), let name = variable.singleName,
                let (id, property) = plan.properties[name], id == item.id,
                let (replacement, note) = property.rewritten(plan.arguments(for: name), ignored: plan.ignored.contains(name))
            {
                if let note { propertyNotes.append(PropertyNote(className: plan.className, property: name, message: note)) }
                if property.kind == .optionalWrapper { unwrappedProperties.insert(name) }
                let decl = visit(replacement).with(\.leadingTrivia, variable.leadingTrivia).with(\.trailingTrivia, variable.trailingTrivia)
                items.append(item.with(\.decl, decl))
            } else {
                items.append(visit(item))
            }
        }
        return MemberBlockItemListSyntax(items)
    }
}

extension AttributeListSyntax.Element {
    /// `@objc` without a name in parentheses.
    var isBareObjC: Bool {
        guard case .attribute(let attribute) = self else { return false }
        return attribute.attributeName.trimmedDescription == "objc" && attribute.arguments == nil
    }

    /// An attribute of this name, with or without arguments.
    func isNamed(_ name: String) -> Bool {
        guard case .attribute(let attribute) = self else { return false }
        return attribute.attributeName.trimmedDescription == name
    }
}

extension VariableDeclSyntax {
    /// The name of a declaration of one plainly named stored variable.
    var singleName: String? {
        guard bindings.count == 1, let binding = bindings.first, binding.accessorBlock == nil,
            let pattern = binding.pattern.as(IdentifierPatternSyntax.self)
        else { return nil }
        return pattern.identifier.text
    }
}
