import Foundation
import ShoalTestSupport
import Synchronization
import Testing
@testable import Shoal

@Suite struct ConcurrencyTests {
    @Test("10,000 single-object commits leave a frozen snapshot from the start unchanged while another thread iterates frozen results")
    func frozenReaderDuringCommits() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        try realm.write { for i in 0..<100 { realm.create(Dog.self, value: ["id": i, "name": "d\(i)", "age": i % 16]) } }
        let frozenAtStart = realm.objects(Dog.self).freeze()
        let expectedNames = frozenAtStart.map(\.name)
        let stop = Atomic<Bool>(false)
        let reads = Atomic<Int>(0)
        let mismatches = Atomic<Int>(0)
        let readerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !stop.load(ordering: .acquiring) {
                var names: [String] = []
                for dog in frozenAtStart { names.append(dog.name) }
                if names != expectedNames || frozenAtStart.count != 100 { mismatches.add(1, ordering: .relaxed) }
                reads.add(1, ordering: .relaxed)
            }
            readerDone.signal()
        }
        for i in 0..<10_000 {
            try realm.write {
                if i % 3 == 0 {
                    realm.create(Dog.self, value: ["id": 1000 + i, "name": "n\(i)"])
                } else {
                    realm.objects(Dog.self)[i % 100].name = "changed\(i)"
                }
            }
        }
        stop.store(true, ordering: .releasing)
        readerDone.wait()
        #expect(mismatches.load(ordering: .relaxed) == 0)
        #expect(reads.load(ordering: .relaxed) > 0)
        #expect(frozenAtStart.map(\.name) == expectedNames)
        #expect(realm.objects(Dog.self).count == 100 + 3334)
    }

    @Test("writers on several threads are serialised: every commit lands exactly once")
    func concurrentWriters() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        let threads = 4, perThread = 250
        let group = DispatchGroup()
        for t in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                let local = try! makeRealm(name)
                for i in 0..<perThread {
                    try! local.write {
                        local.create(Dog.self, value: ["id": t * 10_000 + i])
                        let counter = local.object(ofType: Person.self, forPrimaryKey: 0) ?? local.create(Person.self, value: ["id": 0])
                        counter.city = String((Int(counter.city) ?? 0) + 1)
                    }
                }
                group.leave()
            }
        }
        group.wait()
        realm.refresh()
        #expect(realm.objects(Dog.self).count == threads * perThread)
        #expect(realm.object(ofType: Person.self, forPrimaryKey: 0)?.city == String(threads * perThread))
    }

    @Test("a ThreadSafeReference hands an object, results and a list to another thread, and resolves once")
    func threadSafeReference() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        let ann = try realm.write { realm.create(Person.self, value: ["id": 1, "name": "Ann", "dogs": [["id": 1, "name": "Rex"]]]) }
        let personRef = ThreadSafeReference(to: ann)
        let resultsRef = ThreadSafeReference(to: realm.objects(Dog.self))
        let listRef = ThreadSafeReference(to: ann.dogs)
        let outcome = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let other = try! makeRealm(name)
            let person = other.resolve(personRef)
            let dogs = other.resolve(resultsRef)
            let list = other.resolve(listRef)
            let again = other.resolve(personRef)
            outcome.withLock { $0 = [person?.name ?? "nil", "\(dogs?.count ?? -1)", list?.first?.name ?? "nil", again == nil ? "once" : "twice"] }
            done.signal()
        }
        done.wait()
        #expect(outcome.withLock { $0 } == ["Ann", "1", "Rex", "once"])
    }

    @Test("a ThreadSafeReference keeps a query's filter and sort, and hands over sets, linking objects, erased collections and maps")
    func threadSafeReferenceCollections() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        let ann = try realm.write {
            let ann = realm.create(Person.self, value: ["id": 1, "name": "Ann"])
            for (id, age) in [(1, 5), (2, 2), (3, 9)] {
                let dog = realm.create(Dog.self, value: ["id": id, "name": "d\(id)", "age": age, "owner": ann, "tags": ["t\(id)"], "scores": ["a": Double(id)]])
                ann.dogs.append(dog)
            }
            return ann
        }
        let rex = Fixture.dog(realm, 1)
        let sortedRef = ThreadSafeReference(to: realm.objects(Dog.self).filter("age > 3").sorted(byKeyPath: "age", ascending: false))
        let setRef = ThreadSafeReference(to: rex.tags)
        let ownedRef = ThreadSafeReference(to: ann.ownedDogs)
        let erasedRef = ThreadSafeReference(to: AnyRealmCollection(ann.dogs))
        let mapRef = ThreadSafeReference(to: rex.scores)
        let outcome = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let other = try! makeRealm(name)
            let sorted = other.resolve(sortedRef).map { $0.map(\.id) } ?? []
            let set = other.resolve(setRef).map { Array($0) } ?? []
            let owned = other.resolve(ownedRef)?.count ?? -1
            let erased = other.resolve(erasedRef)?.map(\.id) ?? []
            let map = other.resolve(mapRef)?["a"] ?? nil
            outcome.withLock { $0 = ["\(sorted)", "\(set)", "\(owned)", "\(erased)", "\(map.map { "\($0)" } ?? "nil")"] }
            done.signal()
        }
        done.wait()
        #expect(outcome.withLock { $0 } == ["[3, 1]", "[\"t1\"]", "3", "[1, 2, 3]", "1.0"])
    }

    @Test("a reader on another thread never blocks on, or sees part of, an open write transaction")
    func readersSeeCommittedStateOnly() throws {
        let name = UUID().uuidString
        let realm = try makeRealm(name)
        realm.beginWrite()
        realm.create(Dog.self, value: ["id": 1])
        let seen = Locked<Int>(-1)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let other = try! makeRealm(name)
            seen.withLock { $0 = other.objects(Dog.self).count }
            done.signal()
        }
        done.wait()
        try realm.commitWrite()
        #expect(seen.withLock { $0 } == 0)
    }

    @Test("a Realm released inside a write transaction cancels it, as Realm does: the write lock is free and nothing it wrote stays")
    func releasedInsideWrite() throws {
        let name = UUID().uuidString
        // A frozen Realm keeps the in-memory store open while the live one goes.
        let keep = try makeRealm(name).freeze()
        do {
            let realm = try makeRealm(name)
            realm.beginWrite()
            realm.create(Dog.self, value: ["id": 1])
        }
        // Another thread's write waits for the store's write lock.
        let wrote = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let other = try! makeRealm(name)
            try! other.write { other.create(Dog.self, value: ["id": 2]) }
            wrote.signal()
        }
        #expect(wrote.wait(timeout: .now() + 10) == .success)
        #expect(try makeRealm(name).objects(Dog.self).map(\.id) == [2])
        #expect(keep.isFrozen)
    }
}
