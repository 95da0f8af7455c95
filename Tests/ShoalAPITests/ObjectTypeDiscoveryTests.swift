import Foundation
import Shoal
import ShoalTestSupport
import Testing

// Models named apart from the other suites' (class names are global in a schema).

final class DiscoAuthor: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name = ""
    @Persisted(originProperty: "author") var books: LinkingObjects<DiscoBook>
}

final class DiscoBook: Object {
    @Persisted(primaryKey: true) var isbn = ""
    @Persisted var title = ""
    @Persisted var author: DiscoAuthor?
    @Persisted var cover: DiscoCover?
}

final class DiscoCover: EmbeddedObject {
    @Persisted var colour = "red"
}

final class DiscoShelf: Object {
    @Persisted var label = ""
    @Persisted var books: List<DiscoBook>
}

/// Names no other class, and no class names it.
final class DiscoLoner: Object {
    @Persisted var value = 0
}

/// Version 1 of a stored class "DiscoItem".
final class DiscoItemV1: Object {
    override class func className() -> String { "DiscoItem" }
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name = ""
}

/// Version 2 adds properties.
final class DiscoItemV2: Object {
    override class func className() -> String { "DiscoItem" }
    @Persisted(primaryKey: true) var id: Int
    @Persisted var count = 7
    @Persisted var name = ""
    @Persisted var note: String?
    @Persisted var tags: List<String>
}

/// Version 3 changes the type of a stored property: not additive.
final class DiscoItemV3: Object {
    override class func className() -> String { "DiscoItem" }
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name = 0
}

/// Runs `body` on a thread of its own and waits for it.
private func onOtherThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.start()
    done.wait()
}

private final class Recorder {
    var changes: [String] = []
}

private func classNames(_ realm: Realm) -> Set<String> {
    Set(realm.schema.objectSchema.map(\.className))
}

/// Configurations without `objectTypes`: a class joins the schema when first used.
@Suite struct ObjectTypeDiscoveryTests {
    @Test("without objectTypes an in-memory Realm adds, creates, queries and looks up by primary key")
    func inMemoryWithoutObjectTypes() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        #expect(realm.schema.objectSchema.isEmpty)
        let author = DiscoAuthor()
        author.id = 1
        author.name = "Ann"
        try realm.write {
            realm.add(author)
            realm.create(DiscoBook.self, value: ["isbn": "b1", "title": "One", "author": author])
        }
        #expect(realm.objects(DiscoAuthor.self).count == 1)
        #expect(realm.object(ofType: DiscoBook.self, forPrimaryKey: "b1")?.author?.name == "Ann")
        #expect(realm.object(ofType: DiscoAuthor.self, forPrimaryKey: 1)?.books.count == 1)
        #expect(realm.objects(DiscoBook.self).filter("author.name == 'Ann'").count == 1)
    }

    @Test("without objectTypes a file-backed Realm works, and a reopen reads the data back")
    func fileWithoutObjectTypesReopens() throws {
        let url = temporaryDatabaseURL()
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
            try realm.write {
                let ann = realm.create(DiscoAuthor.self, value: ["id": 1, "name": "Ann"])
                realm.create(DiscoBook.self, value: ["isbn": "b1", "title": "One", "author": ann, "cover": ["colour": "blue"]])
                realm.create(DiscoBook.self, value: ["isbn": "b2", "title": "Two", "author": ann])
            }
        }
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
            // Stored classes are in the schema before any use.
            #expect(classNames(realm) == ["DiscoAuthor", "DiscoBook", "DiscoCover"])
            let books = realm.objects(DiscoBook.self).sorted(byKeyPath: "isbn")
            #expect(books.map(\.title) == ["One", "Two"])
            #expect(books.first?.cover?.colour == "blue")
            #expect(realm.object(ofType: DiscoAuthor.self, forPrimaryKey: 1)?.books.count == 2)
            try realm.write {
                realm.create(DiscoAuthor.self, value: ["id": 2, "name": "Bo"])
                // A new class joins a database with data, linking to stored objects.
                realm.create(DiscoShelf.self, value: ["label": "s", "books": Array(books)])
            }
            #expect(realm.objects(DiscoAuthor.self).count == 2)
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
        #expect(classNames(realm) == ["DiscoAuthor", "DiscoBook", "DiscoCover", "DiscoShelf"])
        #expect(realm.objects(DiscoShelf.self).first?.books.map(\.isbn) == ["b1", "b2"])
        #expect(realm.objects(DiscoAuthor.self).count == 2)
    }

    @Test("a class joins with every class it names, transitively, and no other")
    func linkedClassesJoinWithTheirOwner() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        #expect(realm.objects(DiscoShelf.self).isEmpty)
        #expect(classNames(realm) == ["DiscoShelf", "DiscoBook", "DiscoAuthor", "DiscoCover"])
        #expect(realm.schema["DiscoCover"]?.isEmbedded == true)
        try realm.write {
            realm.create(DiscoShelf.self, value: ["label": "s", "books": [["isbn": "b1", "author": ["id": 3, "name": "Cy"]]]])
        }
        #expect(realm.objects(DiscoAuthor.self).first?.books.first?.isbn == "b1")
        #expect(!classNames(realm).contains("DiscoLoner"))
    }

    @Test("a class first used inside a write with changes already made joins, and the write commits and replays exactly")
    func joinInsideAWrite() throws {
        let url = temporaryDatabaseURL()
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
            try realm.write {
                realm.create(DiscoAuthor.self, value: ["id": 1, "name": "Ann"])
                realm.create(DiscoLoner.self, value: ["value": 5])
                realm.create(DiscoAuthor.self, value: ["id": 2, "name": "Bo"])
            }
            #expect(realm.objects(DiscoLoner.self).map(\.value) == [5])
            try realm.write {
                realm.create(DiscoAuthor.self, value: ["id": 3, "name": "Cy"])
                realm.cancelWrite()
            }
            #expect(realm.objects(DiscoAuthor.self).count == 2)
        }
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
        #expect(realm.objects(DiscoAuthor.self).sorted(byKeyPath: "id").map(\.name) == ["Ann", "Bo"])
        #expect(realm.objects(DiscoLoner.self).map(\.value) == [5])
    }

    @Test("reopened with a class that gained properties, its stored objects migrate additively, and stay so after another reopen")
    func addedPropertyMigratesAdditively() throws {
        let url = temporaryDatabaseURL()
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
            try realm.write {
                realm.create(DiscoItemV1.self, value: ["id": 1, "name": "one"])
                realm.create(DiscoItemV1.self, value: ["id": 2, "name": "two"])
            }
        }
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
            let items = realm.objects(DiscoItemV2.self).sorted(byKeyPath: "id")
            #expect(items.map(\.name) == ["one", "two"])
            #expect(items.map(\.count) == [0, 0])
            #expect(items.allSatisfy { $0.note == nil && $0.tags.isEmpty })
            #expect(realm.schema["DiscoItem"]?.properties.map(\.name) == ["id", "count", "name", "note", "tags"])
            try realm.write {
                items[0].note = "first"
                items[1].tags.append("x")
                realm.create(DiscoItemV2.self, value: ["id": 3, "name": "three"])
            }
        }
        // The recovery tool replays the join record as an open does.
        let report = try LogInspector(path: url.path).check()
        #expect(report.status == .healthy)
        #expect(report.schema.classes.first { $0.name == "DiscoItem" }?.objects == 3)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
        let items = realm.objects(DiscoItemV2.self).sorted(byKeyPath: "id")
        #expect(items.map(\.name) == ["one", "two", "three"])
        #expect(items.map(\.count) == [0, 0, 7])
        #expect(items.map(\.note) == ["first", nil, nil])
        #expect(Array(items[1].tags) == ["x"])
    }

    @Test("a migration block without objectTypes migrates the stored classes as they are, keeping every object")
    func migrationBlockWithoutObjectTypes() throws {
        let url = temporaryDatabaseURL()
        do {
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
            try realm.write {
                realm.create(DiscoAuthor.self, value: ["id": 1, "name": "ann"])
                realm.create(DiscoBook.self, value: ["isbn": "b1", "author": ["id": 2, "name": "bo"]])
            }
        }
        let config = Realm.Configuration(fileURL: url, schemaVersion: 1, migrationBlock: { migration, oldVersion in
            migration.enumerateObjects(ofType: "DiscoAuthor") { old, new in
                new?["name"] = (old?["name"] as? String ?? "").uppercased()
            }
        })
        let realm = try Realm(configuration: config)
        #expect(realm.objects(DiscoAuthor.self).sorted(byKeyPath: "id").map(\.name) == ["ANN", "BO"])
        #expect(realm.object(ofType: DiscoBook.self, forPrimaryKey: "b1")?.author?.name == "BO")
    }

    @Test("a stored class whose property changed type stops with Realm's migration-required message")
    func incompatibleChangeStops() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = temporaryDatabaseURL()
            do {
                let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
                try realm.write { realm.create(DiscoItemV1.self, value: ["id": 1, "name": "one"]) }
            }
            let realm = try Realm(configuration: Realm.Configuration(fileURL: url))
            _ = realm.objects(DiscoItemV3.self)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Migration is required due to the following errors:"))
        #expect(stderr.contains("- Property 'DiscoItem.name' has been changed from 'string' to 'int'."))
    }

    @Test("a class first used on two threads at once joins once, and both threads' objects are kept")
    func concurrentFirstUseJoinsOnce() throws {
        let url = temporaryDatabaseURL()
        let config = Realm.Configuration(fileURL: url)
        let realm = try Realm(configuration: config)
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for t in 0..<2 {
            group.enter()
            Thread {
                start.wait()
                do {
                    let realm = try Realm(configuration: config)
                    _ = realm.objects(DiscoAuthor.self).count
                    try realm.write { realm.create(DiscoAuthor.self, value: ["id": t, "name": "t\(t)"]) }
                } catch { Issue.record(error) }
                group.leave()
            }.start()
        }
        start.signal()
        start.signal()
        group.wait()
        realm.refresh()
        #expect(realm.schema.objectSchema.filter { $0.className == "DiscoAuthor" }.count == 1)
        // DiscoAuthor, and DiscoBook and DiscoCover, which it names through its linking objects.
        #expect(realm.schema.objectSchema.count == 3)
        #expect(realm.objects(DiscoAuthor.self).count == 2)
    }

    @Test("an observer registered before another class joins is told exactly its own changes")
    func observerAcrossAJoin() throws {
        let id = UUID().uuidString
        let config = Realm.Configuration(inMemoryIdentifier: id)
        let realm = try Realm(configuration: config)
        let recorder = Recorder()
        let token = realm.objects(DiscoAuthor.self).observe { change in
            switch change {
            case .initial(let r): recorder.changes.append("initial \(r.count)")
            case .update(_, let d, let i, let m): recorder.changes.append("d\(d) i\(i) m\(m)")
            case .error(let e): recorder.changes.append("error \(e)")
            }
        }
        realm.refresh()
        onOtherThread {
            let realm = try! Realm(configuration: config)
            try! realm.write { realm.create(DiscoLoner.self, value: ["value": 1]) }
            try! realm.write { realm.create(DiscoAuthor.self, value: ["id": 1]) }
        }
        realm.refresh()
        // A class joining inside this thread's write, after a change to the observed class.
        try realm.write {
            realm.create(DiscoAuthor.self, value: ["id": 2])
            realm.create(DiscoShelf.self, value: ["label": "s"])
            realm.objects(DiscoAuthor.self).first!.name = "changed"
        }
        realm.refresh()
        #expect(recorder.changes == ["initial 0", "d[] i[0] m[]", "d[] i[1] m[0]"])
        #expect(classNames(realm) == ["DiscoAuthor", "DiscoBook", "DiscoCover", "DiscoLoner", "DiscoShelf"])
        token.invalidate()
    }

    @Test("with objectTypes the schema is exactly those classes, and an unlisted class still stops")
    func objectTypesStillRestrict() async throws {
        var config = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        config.objectTypes = [DiscoAuthor.self, DiscoBook.self, DiscoCover.self]
        let realm = try Realm(configuration: config)
        #expect(classNames(realm) == ["DiscoAuthor", "DiscoBook", "DiscoCover"])
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var config = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
            config.objectTypes = [DiscoAuthor.self, DiscoBook.self, DiscoCover.self]
            let realm = try Realm(configuration: config)
            _ = realm.objects(DiscoLoner.self)
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Object type 'DiscoLoner' is not managed by the Realm"))
    }
}
