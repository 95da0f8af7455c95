import Foundation
import ShoalTestSupport
import Testing

@testable import Shoal

/// Damages copies of the valid fixture at 200 random places, then runs
/// `check` and `repair --salvage` as the built binary, and opens the result.
@Suite struct DamageFuzzTests {
    /// `Class#key=<object JSON>` for every object at every committed version of `valid`.
    static func everyCommittedState(of path: String) throws -> Set<String> {
        var states = objects(in: Snapshot(schema: Schema([])))
        _ = RecoveryWalk.run(try RecoverySource.load(path: path), policy: .stopAtFirstProblem, visit: { step in
            states.formUnion(objects(in: step.after))
        })
        return states
    }

    static func objects(in state: Snapshot) -> Set<String> {
        var out: Set<String> = []
        for (i, os) in state.schema.objectSchema.enumerated() {
            for key in state.tables[i].liveKeys {
                out.insert("\(os.className)#\(key.rawValue)=" + JSON.object(RecoveryRendering.object(TableKey(i), key, in: state)).rendered())
            }
        }
        return out
    }

    enum Damage: CaseIterable { case flip, truncate, zeros, garbage }

    @Test("after any single damage, salvage gives a database that opens, whose every object is a committed state, missing nothing before the damage")
    func salvageAfterRandomDamage() throws {
        let valid = ShoalProcess.fixture("valid")
        let committed = try Self.everyCommittedState(of: valid.path)
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        let original = try Data(contentsOf: valid.appendingPathComponent("log-0000000000000000.wal"))
        var statuses: [Int32: Int] = [:]
        for trial in 0..<200 {
            let copy = try ShoalProcess.copy("valid")
            defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
            let segment = copy.appendingPathComponent("log-0000000000000000.wal")
            var bytes = original
            let damage = Damage.allCases.randomElement(using: &random)!
            let at = Int.random(in: 0..<bytes.count, using: &random)
            let length = min(Int.random(in: 1...64, using: &random), bytes.count - at)
            switch damage {
            case .flip: bytes[at] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
            case .truncate: bytes = bytes.prefix(at)
            case .zeros: bytes.replaceSubrange(at..<(at + length), with: Data(count: length))
            case .garbage:
                bytes.replaceSubrange(at..<(at + length), with: Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }))
            }
            try bytes.write(to: segment)
            let context = Comment(rawValue: "seed \(seed), trial \(trial): \(damage) at \(at), \(length) bytes")

            let check = try ShoalProcess.run(["check", "--json", copy.path])
            let repair = try ShoalProcess.run(["repair", "--salvage", "--json", copy.path])
            if check.status == 3 {
                // The format version field now says "newer": nothing may be touched.
                #expect(repair.status == 3, context)
                #expect(try Data(contentsOf: segment) == bytes, context)
                continue
            }
            statuses[check.status, default: 0] += 1
            #expect([0, 1, 2].contains(check.status), context)
            #expect(repair.status == 0, "\(repair.stderr) \(context)")
            let checked = try ShoalProcess.object(check.stdout)
            let firstBad = ((checked["firstProblem"] as? [String: Any])?["version"] as? Int).map(UInt64.init)

            let salvaged = RecoveryWalk.run(try RecoverySource.load(path: copy.path), policy: .stopAtFirstProblem)
            #expect(salvaged.firstProblem == nil, context)
            for object in Self.objects(in: salvaged.state) {
                #expect(committed.contains(object), "\(object) \(context)")
            }
            if let firstBad {
                // Everything before the first damage is kept.
                #expect(salvaged.state.version >= firstBad - 1, context)
                if check.status != 0, let report = try? ShoalProcess.object(repair.stdout),
                    let lost = report["lostVersions"] as? [[String: Any]]
                {
                    #expect(lost.allSatisfy { ($0["version"] as? Int ?? 0) >= Int(firstBad) }, context)
                }
                let before = RecoveryWalk.run(try RecoverySource.load(path: valid.path), policy: .stopAtFirstProblem,
                    limit: .version(firstBad - 1))
                let keptBefore = RecoveryWalk.run(try RecoverySource.load(path: copy.path), policy: .stopAtFirstProblem,
                    limit: .version(firstBad - 1))
                #expect(Self.objects(in: keptBefore.state) == Self.objects(in: before.state), context)
            }
            let realm = try Realm(configuration: fileConfiguration(copy))
            #expect(realm.objects(Note.self).count == salvaged.state.schema["Note"].map { _ in
                salvaged.state.tables[salvaged.state.schema.tableByName["Note"]!.index].count } ?? 0, context)
        }
        #expect(statuses.count >= 2, "the damage reached more than one outcome: \(statuses)")
    }
}
