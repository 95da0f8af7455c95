import Foundation
import PortSourceKit
import Testing

/// Objective-C-era models, as Realm's examples and tests declared them before `@Persisted`.
@Suite struct ModelTests {
    @Test("Simple and Backlink examples: @objc dynamic, List and LinkingObjects become @Persisted, comments kept")
    func simpleAndBacklink() throws {
        let ported = try port("""
            import RealmSwift

            class Dog: Object {
                @objc dynamic var name = ""
                @objc dynamic var age = 0
                // Define "owners" as the inverse relationship to Person.dogs
                let owners = LinkingObjects(fromType: Person.self, property: "dogs")
            }

            class Person: Object {
                /// The person's name.
                @objc dynamic var name = "" // never empty
                let dogs = List<Dog>()
            }

            """)
        #expect(ported.ported == """
            import Shoal

            class Dog: Object {
                @Persisted var name = ""
                @Persisted var age = 0
                // Define "owners" as the inverse relationship to Person.dogs
                @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
            }

            class Person: Object {
                /// The person's name.
                @Persisted var name = "" // never empty
                @Persisted var dogs: List<Dog>
            }

            """)
        #expect(ported.notes.isEmpty)
    }

    @Test("Migration example: optional links, embedded objects, typed LinkingObjects and @objc RealmEnum")
    func migration() throws {
        let ported = try port("""
            class Pet: Object {
                @objc enum Kind: Int, RealmEnum {
                    case unspecified
                    case dog
                }

                @objc dynamic var name = ""
                @objc dynamic var kind = Kind.unspecified
            }

            class Person: Object {
                @objc dynamic var address: Address? = nil
                public let pets = List<Pet>()
                let tags = MutableSet<String>()
                let scores = Map<String, Int>()
            }

            class Address: EmbeddedObject {
                @objc dynamic var street = ""
                let residents: LinkingObjects = LinkingObjects(fromType: Person.self, property: "address")
            }

            """)
        #expect(ported.ported == """
            class Pet: Object {
                enum Kind: Int, RealmEnum {
                    case unspecified
                    case dog
                }

                @Persisted var name = ""
                @Persisted var kind = Kind.unspecified
            }

            class Person: Object {
                @Persisted var address: Address?
                @Persisted public var pets: List<Pet>
                @Persisted var tags: MutableSet<String>
                @Persisted var scores: Map<String, Int>
            }

            class Address: EmbeddedObject {
                @Persisted var street = ""
                @Persisted(originProperty: "address") var residents: LinkingObjects<Person>
            }

            """)
    }

    @Test("primaryKey() and indexedProperties() move onto their properties and go")
    func primaryKeyAndIndexes() throws {
        let ported = try port("""
            class SwiftPrimaryStringObject: Object {
                @objc dynamic var stringCol = ""
                @objc dynamic var intCol = 0
                @objc dynamic var dateCol = Date()

                override class func primaryKey() -> String? {
                    return "stringCol"
                }

                override static func indexedProperties() -> [String] { ["stringCol", "intCol"] }
            }

            """)
        #expect(ported.ported == """
            class SwiftPrimaryStringObject: Object {
                @Persisted(primaryKey: true) var stringCol = ""
                @Persisted(indexed: true) var intCol = 0
                @Persisted var dateCol = Date()
            }

            """)
        #expect(ported.notes.isEmpty)
    }

    @Test("RealmOptional and RealmProperty become optional @Persisted properties; their .value uses get notes")
    func optionalWrappers() throws {
        let ported = try port("""
            class SwiftOptionalObject: Object {
                @objc dynamic var optStringCol: String?
                let optIntCol = RealmOptional<Int>()
                let optBoolCol = RealmProperty<Bool?>()
                let anyCol = RealmProperty<AnyRealmValue>()
            }

            class SwiftOptionalPrimaryObject: SwiftOptionalObject {
                let id = RealmOptional<Int>()

                override class func primaryKey() -> String? { return "id" }
            }

            func bump(_ object: SwiftOptionalObject) {
                object.optIntCol.value = (object.optIntCol.value ?? 0) + 1
            }

            """)
        #expect(ported.ported == """
            class SwiftOptionalObject: Object {
                @Persisted var optStringCol: String?
                @Persisted var optIntCol: Int?
                @Persisted var optBoolCol: Bool?
                @Persisted var anyCol: AnyRealmValue
            }

            class SwiftOptionalPrimaryObject: SwiftOptionalObject {
                @Persisted(primaryKey: true) var id: Int?
            }

            func bump(_ object: SwiftOptionalObject) {
                object.optIntCol.value = (object.optIntCol.value ?? 0) + 1
            }

            """)
        #expect(ported.notes.map(\.line) == [13, 13])
        #expect(ported.notes.allSatisfy { $0.message.contains("drop `.value`") })
    }

    @Test("ignoredProperties() leaves its properties plain; a computed @objc dynamic property is left with a note")
    func ignoredProperties() throws {
        let ported = try port("""
            class SwiftIgnoredPropertiesObject: Object {
                @objc dynamic var name = ""
                @objc dynamic var runtimeProperty: AnyObject?
                @objc dynamic var runtimeDefaultProperty = "property"
                @objc dynamic var cachedDate: NSDate?
                @objc dynamic var readOnlyProperty: Int { return 0 }

                override class func ignoredProperties() -> [String] {
                    return ["runtimeProperty", "runtimeDefaultProperty", "cachedDate"]
                }
            }

            """, path: "Ignored.swift")
        #expect(ported.ported == """
            class SwiftIgnoredPropertiesObject: Object {
                @Persisted var name = ""
                var runtimeProperty: AnyObject?
                var runtimeDefaultProperty = "property"
                var cachedDate: NSDate?
                @objc dynamic var readOnlyProperty: Int { return 0 }
            }

            """)
        #expect(ported.notes.map(\.description) == [
            "Ignored.swift:6: note: A computed or observed property: `@Persisted` takes no accessors. Remove `@objc dynamic` (a computed property is not stored), or move the observer's work to where the property is set."
        ])
    }

    @Test("TableView example: NSDate becomes Date, with a note at the property")
    func bridgedTypes() throws {
        let ported = try port("""
            import UIKit
            import RealmSwift

            class DemoObject: Object {
                @objc dynamic var title = ""
                @objc dynamic var date = NSDate()
                @objc dynamic var picture: NSData? = nil
            }

            """, path: "TableViewController.swift")
        #expect(ported.ported == """
            import UIKit
            import Shoal

            class DemoObject: Object {
                @Persisted var title = ""
                @Persisted var date = Date()
                @Persisted var picture: Data?
            }

            """)
        #expect(ported.notes.map(\.line) == [6, 7])
        #expect(ported.notes[0].message.hasPrefix("`date` is a `Date` here, where Realm's was an `NSDate`"))
    }

    @Test("@objcMembers models: dynamic var becomes @Persisted and the attribute goes")
    func objcMembers() throws {
        let ported = try port("""
            /// A dog.
            @objcMembers class Dog: Object {
                dynamic var name = ""
                dynamic private(set) var age = 0
            }

            """)
        #expect(ported.ported == """
            /// A dog.
            class Dog: Object {
                @Persisted var name = ""
                @Persisted private(set) var age = 0
            }

            """)
    }

    @Test("a model may inherit from a model declared in another file")
    func acrossFiles() throws {
        let ported = try SourcePorter.port([
            ("Base.swift", "class Animal: RealmSwift.Object {\n    @objc dynamic var name = \"\"\n}\n"),
            ("Dog.swift", "final class Dog: Animal {\n    @objc dynamic var breed = \"\"\n}\n"),
        ])
        #expect(ported.map(\.ported) == [
            "class Animal: Shoal.Object {\n    @Persisted var name = \"\"\n}\n",
            "final class Dog: Animal {\n    @Persisted var breed = \"\"\n}\n",
        ])
    }

    @Test("what is not mechanical stays as it was, each with a note")
    func leftWithNotes() throws {
        let source = """
            import RealmSwift

            class Account: Object {
                @objc dynamic var first = "", last = ""
                @objc dynamic var balance = 0 {
                    didSet { print(balance) }
                }
                @objc dynamic var owner: Person!

                override static func primaryKey() -> String? {
                    let key = "id"
                    return key
                }

                override static func indexedProperties() -> [String] {
                    return ["missing"]
                }
            }

            class Observed: NSObject {
                @objc dynamic var progress = 0.0
            }

            """
        let ported = try port(source, path: "Account.swift")
        #expect(ported.ported == source.replacingOccurrences(of: "import RealmSwift", with: "import Shoal"))
        #expect(ported.notes.map(\.line) == [4, 5, 8, 10, 15, 21])
        #expect(ported.notes[0].message.hasPrefix("Declare each of these properties on a line of its own"))
        #expect(ported.notes[2].message.contains("declare it `@Persisted var owner: Person?`"))
        #expect(ported.notes[3].message.hasPrefix("`primaryKey()` was left"))
        #expect(ported.notes[4].message.hasPrefix("`indexedProperties()` was left"))
        #expect(ported.notes[5].message.contains("If `Observed` is a Realm model"))
    }

    @Test("classes that are not models keep their List and @objc declarations untouched and unnoted outside Realm files")
    func notModels() throws {
        let source = """
            import Foundation

            class Cache {
                let items = List<Int>()
            }

            class Observed: NSObject {
                @objc dynamic var progress = 0.0
            }

            """
        let ported = try port(source)
        #expect(!ported.changed)
        #expect(ported.notes.isEmpty)
    }
}
