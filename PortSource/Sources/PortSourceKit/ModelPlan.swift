import SwiftParser
import SwiftSyntax

/// What becomes of one model class's members: which properties turn into
/// `@Persisted` declarations with which arguments, and which of the
/// `primaryKey()`, `indexedProperties()` and `ignoredProperties()` overrides
/// go, their meaning moved onto the properties.
struct ModelPlan {
    /// One of Realm's class-level property configurations.
    struct Configuration {
        enum Kind: String {
            case primaryKey, indexedProperties, ignoredProperties
        }

        let kind: Kind
        /// The property names it returns; `nil` when its body is not a
        /// single string literal (or array of them), so it stays.
        let names: [String]?

        /// `nil` unless `function` is `static` or `class func primaryKey()`,
        /// `indexedProperties()` or `ignoredProperties()`.
        init?(_ function: FunctionDeclSyntax) {
            guard let kind = Kind(rawValue: function.name.text), function.signature.parameterClause.parameters.isEmpty,
                function.modifiers.contains(where: { ["static", "class"].contains($0.name.text) })
            else { return nil }
            self.kind = kind
            guard let statements = function.body?.statements, statements.count == 1, let statement = statements.first else {
                names = nil
                return
            }
            let expression: ExprSyntax?
            if let returned = statement.item.as(ReturnStmtSyntax.self) {
                expression = returned.expression
            } else {
                expression = statement.item.as(ExprSyntax.self)
            }
            guard let expression else {
                names = nil
                return
            }
            if kind == .primaryKey {
                names = expression.stringLiteralValue.map { [$0] }
            } else if let array = expression.as(ArrayExprSyntax.self) {
                let values = array.elements.map(\.expression.stringLiteralValue)
                names = values.contains(nil) ? nil : values.compactMap { $0 }
            } else {
                names = nil
            }
        }
    }

    let className: String
    var configurations: [(id: SyntaxIdentifier, configuration: Configuration)] = []
    var properties: [String: (id: SyntaxIdentifier, property: Property)] = [:]
    private(set) var primaryKey: String?
    private(set) var indexed: Set<String> = []
    private(set) var ignored: Set<String> = []
    /// The configuration overrides that go.
    private(set) var removed: Set<SyntaxIdentifier> = []

    init(className: String) {
        self.className = className
    }

    /// Decides which configurations go: one goes when every name it returns
    /// is a property of this class that the port can declare accordingly
    /// (persisted for a primary key or an index; an `@objc dynamic` or plain
    /// variable for an ignored name). A configuration that stays changes
    /// no property.
    mutating func settle() {
        for (id, configuration) in configurations {
            guard let names = configuration.names else { continue }
            switch configuration.kind {
            case .primaryKey, .indexedProperties:
                guard names.allSatisfy({ properties[$0]?.property.canBePersisted ?? false }) else { continue }
                if configuration.kind == .primaryKey {
                    primaryKey = names.first
                } else {
                    indexed.formUnion(names)
                }
            case .ignoredProperties:
                guard names.allSatisfy({ properties[$0]?.property.canBeIgnored ?? false }) else { continue }
                ignored.formUnion(names)
            }
            removed.insert(id)
        }
    }

    /// The arguments of `@Persisted` for a property: a primary key is indexed already.
    func arguments(for name: String) -> String? {
        if name == primaryKey { return "primaryKey: true" }
        if indexed.contains(name) { return "indexed: true" }
        return nil
    }
}

/// A stored property of a model class that the port understands.
struct Property {
    enum Kind: Equatable {
        /// `@objc dynamic var` (or `dynamic var` under `@objcMembers`).
        case dynamicVariable
        /// `let x = List<T>()`, `MutableSet<T>()` or `Map<K, V>()`.
        case collection
        /// `let x = LinkingObjects(fromType: T.self, property: "p")`.
        case linkingObjects
        /// `let x = RealmOptional<T>()` or `RealmProperty<T>()`.
        case optionalWrapper
        /// `@Persisted var x` already, without arguments.
        case persisted
        /// A variable Realm does not persist (no `@objc dynamic`, no wrapper).
        case plain
    }

    let kind: Kind
    let name: String
    private let declaration: VariableDeclSyntax
    /// The type to declare, for the kinds whose initializer goes.
    private var type: String?
    private var origin: String?

    var canBePersisted: Bool { kind != .plain && kind != .linkingObjects }
    var canBeIgnored: Bool { kind == .dynamicVariable || kind == .plain }

    init?(_ declaration: VariableDeclSyntax, objcMembers: Bool) {
        guard let name = declaration.singleName else { return nil }
        self.name = name
        self.declaration = declaration
        let attributes = declaration.attributes
        let isDynamic = declaration.modifiers.contains { $0.name.tokenKind == .keyword(.dynamic) }
        let hasObjC = attributes.contains(where: \.isBareObjC)
        if isDynamic && (hasObjC || objcMembers) && declaration.bindingSpecifier.tokenKind == .keyword(.var) {
            guard attributes.allSatisfy({ $0.isBareObjC || !$0.isNamed("Persisted") }),
                declaration.bindings.first?.typeAnnotation?.type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) != true
            else { return nil }
            kind = .dynamicVariable
            return
        }
        if attributes.count == 1, case .attribute(let persisted) = attributes.first, persisted.attributeName.trimmedDescription == "Persisted",
            persisted.arguments == nil, !isDynamic
        {
            kind = .persisted
            return
        }
        guard attributes.isEmpty, !isDynamic else { return nil }
        guard let call = declaration.bindings.first?.initializer?.value.as(FunctionCallExprSyntax.self), call.trailingClosure == nil else {
            kind = .plain
            return
        }
        let callee = Callee(call.calledExpression)
        switch callee?.name {
        case "List", "MutableSet", "Map":
            guard let callee, let generics = callee.genericArguments, call.arguments.isEmpty else { return nil }
            kind = .collection
            type = callee.qualifiedName + generics.trimmedDescription
        case "RealmOptional":
            guard let argument = callee?.genericArguments?.arguments.first, callee?.genericArguments?.arguments.count == 1,
                call.arguments.isEmpty
            else { return nil }
            kind = .optionalWrapper
            type = argument.argument.trimmedDescription + "?"
        case "RealmProperty":
            guard let argument = callee?.genericArguments?.arguments.first, callee?.genericArguments?.arguments.count == 1,
                call.arguments.isEmpty
            else { return nil }
            kind = .optionalWrapper
            type = argument.argument.trimmedDescription
        case "LinkingObjects":
            let arguments = Array(call.arguments)
            guard arguments.count == 2, arguments[0].label?.text == "fromType", arguments[1].label?.text == "property",
                let target = arguments[0].expression.as(MemberAccessExprSyntax.self), target.declName.baseName.text == "self",
                let base = target.base, let property = arguments[1].expression.stringLiteralValue
            else { return nil }
            kind = .linkingObjects
            type = "\(callee?.qualifiedName ?? "LinkingObjects")<\(base.trimmedDescription)>"
            origin = property
        default:
            kind = .plain
        }
    }

    /// The declaration for Shoal and a note for a person on what changed
    /// beyond the declaration's form (`NSDate` to `Date`), or `nil` when it
    /// stays as it is.
    func rewritten(_ arguments: String?, ignored: Bool) -> (decl: DeclSyntax, note: String?)? {
        var note: String?
        let binding = declaration.bindings.first!
        var typeText = binding.typeAnnotation?.type.trimmedDescription
        var initializer = binding.initializer?.value.trimmedDescription
        var attribute = "@Persisted"
        switch kind {
        case .plain:
            return nil
        case .persisted:
            guard let arguments else { return nil }
            attribute = "@Persisted(\(arguments))"
        case .dynamicVariable:
            if ignored {
                attribute = ""
            } else if let arguments {
                attribute = "@Persisted(\(arguments))"
            }
            if let value = binding.initializer?.value, value.is(NilLiteralExprSyntax.self), typeText != nil {
                initializer = nil
            }
            // An ignored property stays what it was, less `@objc dynamic`: Foundation's classes are there on Linux.
            if !ignored, let type = binding.typeAnnotation?.type, let bridged = Self.swiftType(for: type) {
                typeText = bridged
                note = "`\(name)` is declared `\(bridged)` here, where Realm's was `\(type.trimmedDescription)`: code that uses the Foundation class's own API on it needs `as` casts."
            }
            if !ignored, let value = binding.initializer?.value, let bridged = Self.swiftInitializer(for: value) {
                initializer = bridged.text
                note = "`\(name)` is a `\(bridged.type)` here, where Realm's was an `NS\(bridged.type)`: code that uses the Foundation class's own API on it needs `as` casts."
            }
        case .collection, .optionalWrapper:
            guard !ignored else { return nil }
            typeText = type
            initializer = nil
            if let arguments { attribute = "@Persisted(\(arguments))" }
        case .linkingObjects:
            guard !ignored else { return nil }
            typeText = type
            initializer = nil
            attribute = "@Persisted(originProperty: \"\(origin!)\")"
        }
        let keptAttributes = declaration.attributes.filter { !$0.isBareObjC && !$0.isNamed("Persisted") }.map(\.trimmedDescription)
        let keptModifiers = declaration.modifiers.filter { $0.name.tokenKind != .keyword(.dynamic) }.map(\.trimmedDescription)
        var text = ([attribute] + keptAttributes + keptModifiers).filter { !$0.isEmpty }.joined(separator: " ")
        text += text.isEmpty ? "var \(name)" : " var \(name)"
        if let typeText { text += ": \(typeText)" }
        if let initializer { text += " = \(initializer)" }
        guard let item = Parser.parse(source: text).statements.first, let decl = item.item.as(DeclSyntax.self), !decl.hasError else {
            return nil
        }
        return (decl, note)
    }

    /// `Date`, `Data` or `String` (optional as given) for Foundation's `NSDate`, `NSData` or `NSString`, which `@Persisted` does not take.
    private static func swiftType(for type: TypeSyntax) -> String? {
        if let optional = type.as(OptionalTypeSyntax.self) {
            return swiftType(for: optional.wrappedType).map { $0 + "?" }
        }
        guard let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil else { return nil }
        switch identifier.name.text {
        case "NSDate": return "Date"
        case "NSData": return "Data"
        case "NSString": return "String"
        default: return nil
        }
    }

    /// `Date(…)` for `NSDate(…)` (their initializers share labels) and `Data()` for `NSData()`.
    private static func swiftInitializer(for value: ExprSyntax) -> (text: String, type: String)? {
        guard let call = value.as(FunctionCallExprSyntax.self), let callee = call.calledExpression.as(DeclReferenceExprSyntax.self),
            call.trailingClosure == nil
        else { return nil }
        switch callee.baseName.text {
        case "NSDate":
            let renamed = call.with(\.calledExpression, ExprSyntax(callee.with(\.baseName, callee.baseName.with(\.tokenKind, .identifier("Date")))))
            return (renamed.trimmedDescription, "Date")
        case "NSData" where call.arguments.isEmpty:
            return ("Data()", "Data")
        default:
            return nil
        }
    }
}

/// The called name of `List<T>()`, `RealmSwift.List<T>()` or `LinkingObjects(…)`.
private struct Callee {
    let module: String?
    let name: String
    let genericArguments: GenericArgumentClauseSyntax?

    var qualifiedName: String {
        guard let module else { return name }
        return (module == "RealmSwift" ? "Shoal" : module) + "." + name
    }

    init?(_ expression: ExprSyntax) {
        var expression = expression
        if let specialized = expression.as(GenericSpecializationExprSyntax.self) {
            genericArguments = specialized.genericArgumentClause
            expression = specialized.expression
        } else {
            genericArguments = nil
        }
        if let reference = expression.as(DeclReferenceExprSyntax.self) {
            module = nil
            name = reference.baseName.text
        } else if let member = expression.as(MemberAccessExprSyntax.self), let base = member.base?.as(DeclReferenceExprSyntax.self),
            ["RealmSwift", "Shoal"].contains(base.baseName.text)
        {
            module = base.baseName.text
            name = member.declName.baseName.text
        } else {
            return nil
        }
    }
}

extension ExprSyntax {
    /// The value of a string literal without interpolation.
    var stringLiteralValue: String? {
        guard let literal = self.as(StringLiteralExprSyntax.self), literal.segments.count == 1,
            case .stringSegment(let segment) = literal.segments.first
        else { return nil }
        return segment.content.text
    }
}
