import Foundation
import PortSourceKit
import Testing

/// Ports one file and checks that porting the result again changes nothing.
func port(_ text: String, path: String = "Model.swift") throws -> PortedFile {
    let ported = try SourcePorter.port(text, path: path)
    let again = try SourcePorter.port(ported.ported, path: path)
    #expect(again.ported == ported.ported, "a second port changed the file again")
    return ported
}

@Suite struct ImportTests {
    @Test("import RealmSwift becomes import Shoal, keeping the licence header and the other imports")
    func realmSwift() throws {
        let source = """
            ////////////////////////////////////////////////////////////////////////////
            //
            // Copyright 2014 Realm Inc.
            //
            ////////////////////////////////////////////////////////////////////////////

            import UIKit
            import RealmSwift

            """
        let ported = try port(source)
        #expect(ported.ported == source.replacingOccurrences(of: "import RealmSwift", with: "import Shoal"))
        #expect(ported.notes.isEmpty)
    }

    @Test("the header comment stays when the import it sits on is removed")
    func headerOnRemovedImport() throws {
        let ported = try port("""
            // Copyright 2015 Realm Inc.

            import Realm
            import RealmSwift

            """)
        #expect(ported.ported == """
            // Copyright 2015 Realm Inc.

            import Shoal

            """)
    }

    @Test("attributes and declaration imports keep their form; module-qualified names follow the import")
    func qualified() throws {
        let ported = try port("""
            @testable import RealmSwift
            import class RealmSwift.Object

            let list = RealmSwift.List<Int>()
            func open() throws -> RealmSwift.Realm { try RealmSwift.Realm() }

            """)
        #expect(ported.ported == """
            @testable import Shoal
            import class Shoal.Object

            let list = Shoal.List<Int>()
            func open() throws -> Shoal.Realm { try Shoal.Realm() }

            """)
    }

    @Test("import Realm alone is Realm's Objective-C API: left, with a note")
    func objectiveCRealm() throws {
        let source = "import Foundation\nimport Realm\n\nlet realm = RLMRealm.default()\n"
        let ported = try port(source, path: "Legacy.swift")
        #expect(!ported.changed)
        #expect(ported.notes.map(\.description) == [
            "Legacy.swift:2: note: `import Realm` is Realm's Objective-C framework, which Shoal has no counterpart for: port its `RLM…` calls to the Swift API, then import Shoal instead."
        ])
    }

    @Test("import Combine becomes OpenCombine and OpenCombineDispatch, plus ShoalCombine beside Realm Swift")
    func combine() throws {
        let ported = try port("""
            import Combine
            import RealmSwift

            final class DogList {
                var cancellables = Set<AnyCancellable>()
                init(dogs: Results<Dog>) {
                    dogs.collectionPublisher
                        .receive(on: DispatchQueue.main)
                        .sink(receiveCompletion: { _ in }, receiveValue: { print($0.count) })
                        .store(in: &cancellables)
                }
            }

            """)
        #expect(ported.ported.hasPrefix("""
            import OpenCombine
            import OpenCombineDispatch
            import ShoalCombine
            import Shoal

            """))
        #expect(ported.notes.map(\.line) == [10])
        #expect(ported.notes.first?.message.contains("`.ocombine`") == true)
    }

    @Test("a file that imports Combine without Realm gets no ShoalCombine; indented imports stay indented; canImport follows")
    func combineWithoutRealm() throws {
        let ported = try port("""
            #if canImport(Combine)
                import Combine
            #endif
            let subject = PassthroughSubject<Int, Never>()

            """)
        #expect(ported.ported == """
            #if canImport(OpenCombine)
                import OpenCombine
                import OpenCombineDispatch
            #endif
            let subject = PassthroughSubject<Int, Never>()

            """)
    }

    @Test("a file already ported halfway gets only what it lacks")
    func partlyPorted() throws {
        let ported = try port("import Shoal\nimport RealmSwift\nimport OpenCombineDispatch\nimport Combine\n")
        #expect(ported.ported == "import Shoal\nimport OpenCombineDispatch\nimport OpenCombine\nimport ShoalCombine\n")
    }

    @Test("a file that does not parse is an error naming it and the line")
    func unparsable() throws {
        let error = #expect(throws: PortError.self) {
            try SourcePorter.port([("Good.swift", "import RealmSwift\n"), ("Sources/Bad.swift", "import RealmSwift\nclass Dog: Object {\n")])
        }
        #expect(error?.path == "Sources/Bad.swift")
        #expect(error?.description.hasPrefix("Sources/Bad.swift: cannot parse (line 2") == true)
    }
}
