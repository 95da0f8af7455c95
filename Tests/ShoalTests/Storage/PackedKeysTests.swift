import ShoalTestSupport
import Testing

@testable import Shoal

@Suite struct PackedKeysTests {
    @Test("random appends and removals of keys of every spread read back as an array of the same keys does", arguments: [1, 2, 3])
    func randomModel(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var keys = PackedKeys()
        var model: [Int64] = []
        for step in 0..<2_000 {
            if model.isEmpty || Int.random(in: 0..<4, using: &rng) > 0 {
                let last = model.last ?? 0
                let key: Int64 =
                    switch Int.random(in: 0..<6, using: &rng) {
                    case 0: last &+ 1
                    case 1: last &+ Int64.random(in: -100...100, using: &rng)
                    case 2: last &+ Int64.random(in: -30_000...30_000, using: &rng)
                    case 3: Int64.random(in: 0...Int64(Int32.max), using: &rng)
                    case 4: [Int64.min, Int64.max, 0, -1].randomElement(using: &rng)!
                    default: Int64.random(in: Int64.min...Int64.max, using: &rng)
                    }
                keys.append(key)
                model.append(key)
            } else {
                let i = Int.random(in: 0..<model.count, using: &rng)
                #expect(keys.remove(at: i) == model.remove(at: i))
            }
            #expect(keys.count == model.count, "step \(step)")
            if step % 97 == 0 { #expect(Array(keys) == model, "seed \(seed) step \(step)") }
        }
        #expect(Array(keys) == model)
    }

    @Test("keys close together take one byte each; a far key widens them all; equal keys compare and hash equal whatever their history")
    func widthsAndEquality() {
        let dogs = PackedKeys((1_000_000..<1_000_010).map { Int64($0) })
        #expect(dogs.width == 1 && Array(dogs) == (1_000_000..<1_000_010).map { Int64($0) })
        var widened = dogs
        widened.append(1_000_000 + 40_000)
        #expect(widened.width == 4 && widened.last == 1_040_000 && widened.first == 1_000_000)
        widened.append(Int64.min)
        #expect(widened.width == 8 && widened.last == Int64.min && Array(widened.prefix(10)) == Array(dogs))
        // The same keys, reached by removing a first key far from them.
        var history: PackedKeys = [Int64.max, 5, 6]
        history.remove(at: 0)
        let direct: PackedKeys = [5, 6]
        #expect(history == direct && history.hashValue == direct.hashValue && history.width != direct.width)
        #expect(history != [6, 5] && history != [5])
    }
}
