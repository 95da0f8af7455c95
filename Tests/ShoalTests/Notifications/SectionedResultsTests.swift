import Foundation
import ShoalTestSupport
import Testing
@testable import Shoal

/// Sectioned results: reading, Realm's changeset rules (REALM-SEMANTICS
/// §2.3–2.6) with exact index paths, section observers, and the promise
/// that keys are computed only for new and changed elements.
@Suite struct SectionedResultsTests {
    /// Adam(2) Alice(1) | Bob(3) | Carl(4), sectioned by first letter.
    static func abc() throws -> (Realm, SectionedResults<String, Dog>) {
        let realm = try Fixture.named(["Alice", "Adam", "Bob", "Carl"])
        return (realm, realm.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true))
    }

    /// Observes `sections`, takes the initial callback and returns the recorder.
    static func observed<K>(_ realm: Realm, _ sections: SectionedResults<K, Dog>, keyPaths: [String]? = nil) -> (SectionRecorder, NotificationToken) {
        let recorder = SectionRecorder()
        let token = sections.observe(keyPaths: keyPaths, on: nil) { recorder.handle($0) }
        realm.refresh()
        return (recorder, token)
    }

    @Test("sections follow the sort; keys, sections, index paths and key lookups read them")
    func reading() throws {
        let (_, sections) = try Self.abc()
        #expect(SectionSnapshot(sections) == SectionSnapshot(keys: ["A", "B", "C"], ids: [[2, 1], [3], [4]]))
        #expect(sections.count == 3)
        #expect(sections.allKeys == ["A", "B", "C"])
        #expect(sections[IndexPath(item: 1, section: 0)].id == 1)
        #expect(sections[key: "B"].map(\.id) == [3])
        #expect(sections[1].key == "B" && sections[1].id == "B" && sections[1].count == 1)
        #expect(sections[0] == sections[key: "A"])
        #expect(sections == sections)
        #expect(sections.realm != nil && !sections.isFrozen && !sections.isInvalidated)
    }

    @Test("integer keys: the index subscript and the key lookup stay apart")
    func integerKeys() throws {
        let realm = try Fixture.dogs(1...6, age: { $0 * 10 })
        let sections = realm.objects(Dog.self).sectioned(by: { $0.age / 20 }, sortDescriptors: [SortDescriptor(keyPath: "age")])
        #expect(sections.allKeys == [0, 1, 2, 3])
        #expect(sections[1].key == 1 && sections[1].map(\.id) == [2, 3])
        #expect(sections[key: 3].map(\.id) == [6])
        #expect(sections[key: 0].map(\.id) == [1])
    }

    @Test("keys the sort scatters: sections in the order of first appearance, holding every element of the key")
    func scatteredKeys() throws {
        let realm = try Fixture.dogs(1...4)
        let sections = realm.objects(Dog.self).sectioned(by: { $0.age % 2 }, sortDescriptors: [SortDescriptor(keyPath: "age")])
        #expect(sections.allKeys == [1, 0])
        #expect(sections.map { $0.map(\.id) } == [[1, 3], [2, 4]])
        let (recorder, token) = Self.observed(realm, sections)
        _ = recorder.take()
        try realm.write { Fixture.dog(realm, 1).age = 6 }
        realm.refresh()
        // Dog 1 moves to the end of the sort; key 0 now appears first, so the
        // sections trade places, which Realm's changeset does not describe:
        // as in Realm, only the moved row is reported.
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["0", "1"], ids: [[2, 4, 1], [3]]),
            deletions: [ip(0, 0)], insertions: [ip(0, 2)], modifications: [], sectionsToInsert: [], sectionsToDelete: [])])
        token.invalidate()
    }

    @Test("an insertion into an existing section")
    func insertIntoSection() throws {
        let (realm, sections) = try Self.abc()
        let (recorder, token) = Self.observed(realm, sections)
        #expect(recorder.take() == [.initial(SectionSnapshot(keys: ["A", "B", "C"], ids: [[2, 1], [3], [4]]))])
        try realm.write { realm.create(Dog.self, value: ["id": 5, "name": "Abe"]) }
        realm.refresh()
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["A", "B", "C"], ids: [[5, 2, 1], [3], [4]]),
            deletions: [], insertions: [ip(0, 0)], modifications: [], sectionsToInsert: [], sectionsToDelete: [])])
        token.invalidate()
    }

    @Test("a new section: in sectionsToInsert, with insertions for its rows")
    func newSection() throws {
        let (realm, sections) = try Self.abc()
        let (recorder, token) = Self.observed(realm, sections)
        _ = recorder.take()
        try realm.write {
            realm.create(Dog.self, value: ["id": 5, "name": "Dora"])
            realm.create(Dog.self, value: ["id": 6, "name": "Dan"])
        }
        realm.refresh()
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["A", "B", "C", "D"], ids: [[2, 1], [3], [4], [6, 5]]),
            deletions: [], insertions: [ip(3, 0), ip(3, 1)], modifications: [], sectionsToInsert: [3], sectionsToDelete: [])])
        token.invalidate()
    }

    @Test("an emptied section: in sectionsToDelete, without row deletions")
    func emptiedSection() throws {
        let (realm, sections) = try Self.abc()
        let (recorder, token) = Self.observed(realm, sections)
        _ = recorder.take()
        try realm.write { realm.delete(Fixture.dog(realm, 3)) }
        realm.refresh()
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["A", "C"], ids: [[2, 1], [4]]),
            deletions: [], insertions: [], modifications: [], sectionsToInsert: [], sectionsToDelete: [1])])
        token.invalidate()
    }

    @Test("a changed key moves the object to its new section; its old section, emptied, is deleted")
    func keyChange() throws {
        let (realm, sections) = try Self.abc()
        let (recorder, token) = Self.observed(realm, sections)
        _ = recorder.take()
        try realm.write { Fixture.dog(realm, 4).name = "Abe" }
        realm.refresh()
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["A", "B"], ids: [[4, 2, 1], [3]]),
            deletions: [], insertions: [ip(0, 0)], modifications: [], sectionsToInsert: [], sectionsToDelete: [2])])
        try realm.write { Fixture.dog(realm, 2).name = "Bo" }
        realm.refresh()
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["A", "B"], ids: [[4, 1], [2, 3]]),
            deletions: [ip(0, 1)], insertions: [ip(1, 0)], modifications: [], sectionsToInsert: [], sectionsToDelete: [])])
        token.invalidate()
    }

    @Test("a key that changes without moving in the sort still moves the object between sections")
    func keyChangeInPlace() throws {
        let (realm, sections) = try Self.abc()
        let (recorder, token) = Self.observed(realm, sections)
        _ = recorder.take()
        // "Carl" → "Bzz" keeps its place in the sort (after "Bob") but changes key.
        try realm.write { Fixture.dog(realm, 4).name = "Bzz" }
        realm.refresh()
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["A", "B"], ids: [[2, 1], [3, 4]]),
            deletions: [], insertions: [ip(1, 1)], modifications: [], sectionsToInsert: [], sectionsToDelete: [2])])
        token.invalidate()
    }

    @Test("a modification stays one only if the object keeps its section and row")
    func modifications() throws {
        let (realm, sections) = try Self.abc()
        let (recorder, token) = Self.observed(realm, sections)
        _ = recorder.take()
        try realm.write { Fixture.dog(realm, 3).age = 30 }
        realm.refresh()
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["A", "B", "C"], ids: [[2, 1], [3], [4]]),
            deletions: [], insertions: [], modifications: [ip(1, 0)], sectionsToInsert: [], sectionsToDelete: [])])
        try realm.write {
            realm.create(Dog.self, value: ["id": 5, "name": "Aaron"])
            Fixture.dog(realm, 1).age = 10
        }
        realm.refresh()
        // Alice was row 1 and is row 2: a deletion plus an insertion (Realm's rule).
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["A", "B", "C"], ids: [[5, 2, 1], [3], [4]]),
            deletions: [ip(0, 1)], insertions: [ip(0, 0), ip(0, 2)], modifications: [], sectionsToInsert: [], sectionsToDelete: [])])
        token.invalidate()
    }

    @Test("key-path filters gate modifications only; a change of section notifies whatever the filter")
    func keyPathFilter() throws {
        let (realm, sections) = try Self.abc()
        let (recorder, token) = Self.observed(realm, sections, keyPaths: ["age"])
        _ = recorder.take()
        try realm.write { Fixture.dog(realm, 1).name = "Alicia" }
        realm.refresh()
        #expect(recorder.take() == [])
        try realm.write { Fixture.dog(realm, 1).name = "Zed" }
        realm.refresh()
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["A", "B", "C", "Z"], ids: [[2], [3], [4], [1]]),
            deletions: [ip(0, 1)], insertions: [ip(3, 0)], modifications: [], sectionsToInsert: [3], sectionsToDelete: [])])
        try realm.write { Fixture.dog(realm, 3).age = 9 }
        realm.refresh()
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["A", "B", "C", "Z"], ids: [[2], [3], [4], [1]]),
            deletions: [], insertions: [], modifications: [ip(1, 0)], sectionsToInsert: [], sectionsToDelete: [])])
        token.invalidate()
    }

    @Test("a section's observer hears only its section, including its deletion and return; meanwhile it is invalidated")
    func sectionObserver() throws {
        let (realm, sections) = try Self.abc()
        let section = sections[key: "B"]
        let recorder = SectionRecorder()
        let token = section.observe { recorder.handleSection($0) }
        realm.refresh()
        #expect(recorder.take() == [.initial(SectionSnapshot(keys: ["B"], ids: [[3]]))])
        try realm.write { realm.create(Dog.self, value: ["id": 5, "name": "Abe"]) }
        realm.refresh()
        #expect(recorder.take() == [])
        try realm.write { Fixture.dog(realm, 3).age = 30 }
        realm.refresh()
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["B"], ids: [[3]]),
            deletions: [], insertions: [], modifications: [ip(1, 0)], sectionsToInsert: [], sectionsToDelete: [])])
        try realm.write { realm.delete(Fixture.dog(realm, 3)) }
        realm.refresh()
        #expect(recorder.take() == [.update(SectionSnapshot(keys: [], ids: []),
            deletions: [], insertions: [], modifications: [], sectionsToInsert: [], sectionsToDelete: [1])])
        #expect(section.isInvalidated && section.count == 0)
        try realm.write { realm.create(Dog.self, value: ["id": 6, "name": "Bea"]) }
        realm.refresh()
        #expect(recorder.take() == [.update(SectionSnapshot(keys: ["B"], ids: [[6]]),
            deletions: [], insertions: [ip(1, 0)], modifications: [], sectionsToInsert: [1], sectionsToDelete: [])])
        #expect(!section.isInvalidated && section[0].id == 6)
        token.invalidate()
    }

    @Test("the key is computed only for inserted objects and objects changed in what it reads")
    func keyCallsObserved() throws {
        let (realm, sections) = try Self.abc()
        let (recorder, token) = Self.observed(realm, sections)
        #expect(sections.source.keyCalls == 4)
        try realm.write { Fixture.dog(realm, 2).age = 20 }
        realm.refresh()
        #expect(sections.source.keyCalls == 4)
        try realm.write { Fixture.dog(realm, 2).name = "Bo" }
        realm.refresh()
        #expect(sections.source.keyCalls == 5)
        try realm.write { realm.create(Dog.self, value: ["id": 7, "name": "Cy"]) }
        realm.refresh()
        #expect(sections.source.keyCalls == 6)
        #expect(recorder.take().count == 4)
        #expect(SectionSnapshot(sections) == SectionSnapshot(keys: ["A", "B", "C"], ids: [[1], [2, 3], [4, 7]]))
        token.invalidate()
    }

    @Test("unobserved sections read after commits are brought up to date from the changesets")
    func keyCallsUnobserved() throws {
        let (realm, sections) = try Self.abc()
        #expect(sections.allKeys == ["A", "B", "C"])
        let afterFirstRead = sections.source.keyCalls
        try realm.write { Fixture.dog(realm, 4).name = "Abe" }
        #expect(SectionSnapshot(sections) == SectionSnapshot(keys: ["A", "B"], ids: [[4, 2, 1], [3]]))
        #expect(sections.source.keyCalls == afterFirstRead + 1)
        try realm.write { Fixture.dog(realm, 3).age = 33 }
        #expect(SectionSnapshot(sections) == SectionSnapshot(keys: ["A", "B"], ids: [[4, 2, 1], [3]]))
        #expect(sections.source.keyCalls == afterFirstRead + 1)
        Fixture.writeElsewhere(realm) { other in other.create(Dog.self, value: ["id": 9, "name": "Cleo"]) }
        realm.refresh()
        #expect(SectionSnapshot(sections) == SectionSnapshot(keys: ["A", "B", "C"], ids: [[4, 2, 1], [3], [9]]))
        #expect(sections.source.keyCalls == afterFirstRead + 2)
    }

    @Test("inside a write transaction the sections show its changes")
    func insideWrite() throws {
        let (realm, sections) = try Self.abc()
        _ = sections.count
        realm.beginWrite()
        realm.create(Dog.self, value: ["id": 5, "name": "Dora"])
        #expect(sections.allKeys == ["A", "B", "C", "D"])
        realm.cancelWrite()
        #expect(sections.allKeys == ["A", "B", "C"])
    }

    @Test("frozen sections keep their version and are copied, not keyed again; thawed ones are live")
    func freezeThaw() throws {
        let (realm, sections) = try Self.abc()
        _ = sections.count
        let calls = sections.source.keyCalls
        let frozen = sections.freeze()
        #expect(frozen.isFrozen && frozen.freeze() == frozen)
        #expect(frozen.source.keyCalls == 0 && sections.source.keyCalls == calls)
        try realm.write { realm.create(Dog.self, value: ["id": 5, "name": "Dora"]) }
        #expect(SectionSnapshot(frozen) == SectionSnapshot(keys: ["A", "B", "C"], ids: [[2, 1], [3], [4]]))
        let frozenSection = frozen[0].freeze()
        #expect(frozenSection.isFrozen && frozenSection.map(\.id) == [2, 1])
        let thawed = try #require(frozen.thaw())
        #expect(!thawed.isFrozen && thawed.allKeys == ["A", "B", "C", "D"])
        #expect(sections.thaw() == sections)
    }

    @Test("lists, sets, linking objects, erased collections and primitives are sectioned too")
    func collectionKinds() throws {
        let realm = try makeRealm()
        try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            for (id, name) in [(1, "Rex"), (2, "Bo"), (3, "Ray")] {
                let dog = realm.create(Dog.self, value: ["id": id, "name": name, "owner": ann])
                ann.dogs.append(dog)
            }
            realm.create(Note.self, value: ["id": 1, "tags": ["banana", "apple", "cherry", "avocado"]])
        }
        let ann = try #require(realm.object(ofType: Person.self, forPrimaryKey: 1))
        #expect(SectionSnapshot(ann.dogs.sectioned(by: \.firstLetter)) == SectionSnapshot(keys: ["B", "R"], ids: [[2], [3, 1]]))
        #expect(SectionSnapshot(ann.ownedDogs.sectioned(by: \.firstLetter, ascending: false)) == SectionSnapshot(keys: ["R", "B"], ids: [[1, 3], [2]]))
        #expect(SectionSnapshot(AnyRealmCollection(realm.objects(Dog.self)).sectioned(by: \.firstLetter)).keys == ["B", "R"])
        let dog = Fixture.dog(realm, 1)
        try realm.write { dog.tags.insert(objectsIn: ["zz", "za", "b"]) }
        let tagSections = dog.tags.sectioned(by: { String($0.prefix(1)) })
        #expect(tagSections.allKeys == ["b", "z"] && tagSections[1].map { $0 } == ["za", "zz"])
        let note = try #require(realm.object(ofType: Note.self, forPrimaryKey: 1))
        let byLetter = note.tags.sectioned(by: { String($0.prefix(1)) }, ascending: true)
        #expect(byLetter.allKeys == ["a", "b", "c"] && byLetter[0].map { $0 } == ["apple", "avocado"])
        // Observing a list's sections (filtered: unfiltered, the dogs whose
        // owner's list changed would be modifications too, one link away).
        let recorder = SectionRecorder()
        let token = ann.dogs.sectioned(by: \.firstLetter).observe(keyPaths: ["name"], on: nil) { recorder.handle($0) }
        realm.refresh()
        try realm.write { ann.dogs.append(realm.create(Dog.self, value: ["id": 4, "name": "Al"])) }
        realm.refresh()
        #expect(recorder.take().last == .update(SectionSnapshot(keys: ["A", "B", "R"], ids: [[4], [2], [3, 1]]),
            deletions: [], insertions: [ip(0, 0)], modifications: [], sectionsToInsert: [0], sectionsToDelete: []))
        token.invalidate()
    }

    @Test("typed key paths filter like strings")
    func typedKeyPaths() throws {
        let (realm, sections) = try Self.abc()
        let recorder = SectionRecorder()
        let token = sections.observe(keyPaths: [\Dog.age]) { recorder.handle($0) }
        realm.refresh()
        _ = recorder.take()
        try realm.write { Fixture.dog(realm, 3).breed = "pug" }
        realm.refresh()
        #expect(recorder.take() == [])
        try realm.write { Fixture.dog(realm, 3).age = 8 }
        realm.refresh()
        #expect(recorder.take().count == 1)
        token.invalidate()
    }
}
