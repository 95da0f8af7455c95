import Foundation
import Shoal
import Testing

// Realm's quick start model, as its documentation writes it (only the import differs).
class Todo: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String = ""
    @Persisted var status: String = ""
    @Persisted var ownerId: String
    convenience init(name: String, ownerId: String) {
        self.init()
        self.name = name
        self.ownerId = ownerId
    }
}

/// Realm's quick start, run with `import Shoal` and `objectTypes` set.
@Suite struct QuickStartTests {
    @Test("Realm's quick start: two adds, a query, an update, reopened from a file")
    func quickStart() throws {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shoal-quickstart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = Realm.Configuration(fileURL: directory.appendingPathComponent("default.realm"))
        config.objectTypes = [Todo.self]

        var firstId: ObjectId?
        do {
            let realm = try Realm(configuration: config)
            let todo = Todo(name: "Do laundry", ownerId: "user-1")
            try realm.write { realm.add(todo) }
            let other = Todo(name: "Buy milk", ownerId: "user-1")
            try realm.write { realm.add(other) }
            #expect(todo._id != other._id)
            let todos = realm.objects(Todo.self)
            #expect(todos.count == 2)
            let todosInProgress = todos.where { $0.status == "InProgress" }
            #expect(todosInProgress.isEmpty)
            let todoToUpdate = todos[0]
            firstId = todoToUpdate._id
            try realm.write { todoToUpdate.status = "InProgress" }
            #expect(todosInProgress.count == 1)
            #expect(todosInProgress.first?.name == "Do laundry")
        }
        let realm = try Realm(configuration: config)
        let todos = realm.objects(Todo.self)
        #expect(todos.count == 2)
        #expect(Set(todos.map(\._id)).count == 2)
        let inProgress = todos.where { $0.status == "InProgress" }
        #expect(inProgress.map(\._id) == [firstId])
        #expect(realm.object(ofType: Todo.self, forPrimaryKey: firstId)?.name == "Do laundry")
    }

    @Test("an unset non-optional ObjectId or UUID is a new random value for each object, unmanaged or created")
    func freshIdentifiers() throws {
        final class Tagged: Object {
            @Persisted(primaryKey: true) var _id: ObjectId
            @Persisted var token: UUID
            @Persisted var maybe: UUID?
        }
        let a = Tagged(), b = Tagged()
        #expect(a._id != b._id && a.token != b.token)
        #expect(a._id == a._id && a.token == a.token)
        #expect(a.maybe == nil)
        var config = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        config.objectTypes = [Tagged.self]
        let realm = try Realm(configuration: config)
        let token = a.token
        try realm.write {
            realm.add(a)
            realm.add(b)
            realm.create(Tagged.self, value: [:])
            realm.create(Tagged.self, value: [:])
        }
        #expect(a.token == token)
        let all = realm.objects(Tagged.self)
        #expect(Set(all.map(\._id)).count == 4)
        #expect(Set(all.map(\.token)).count == 4)
    }
}
