/// Seeded data shared by both engines: the same dogs and people, byte for
/// byte, in Shoal and in SQLite.
///
/// Names come from a fixed word list, ages are 0...15, breeds one of 20,
/// and each person owns ten consecutive dogs (dog `i` belongs to person
/// `i / 10`).
public struct Dataset: Sendable {
    public struct DogRow: Sendable {
        public var id: Int
        public var name: String
        public var age: Int
        public var breed: String
        public var ownerId: Int
    }

    public struct PersonRow: Sendable {
        public var id: Int
        public var name: String
        public var city: String
    }

    public static let words = [
        "alder", "amber", "aspen", "basil", "birch", "bramble", "brook", "cedar", "clover", "coral",
        "cricket", "dahlia", "dusty", "ember", "fennel", "fern", "finch", "flint", "hazel", "heath",
        "holly", "indigo", "ivy", "jasper", "juniper", "kestrel", "laurel", "linden", "maple", "meadow",
        "moss", "nutmeg", "oak", "olive", "onyx", "pebble", "pepper", "pine", "poppy", "quill",
        "raven", "reed", "river", "rowan", "saffron", "sage", "slate", "sorrel", "sparrow", "spruce",
        "storm", "sumac", "thistle", "thyme", "tulip", "willow", "wren", "yarrow", "zephyr", "zinnia",
    ]

    public static let breeds = [
        "Akita", "Basenji", "Beagle", "Borzoi", "Boxer", "Briard", "Collie", "Corgi", "Dachshund", "Dalmatian",
        "Greyhound", "Husky", "Keeshond", "Kuvasz", "Labrador", "Mastiff", "Poodle", "Pug", "Samoyed", "Whippet",
    ]

    public static let cities = ["Lyon", "Oslo", "Porto", "Quito", "Riga", "Turin", "Utrecht", "Zagreb"]

    /// Dogs per owner.
    public static let dogsPerOwner = 10

    public let dogs: [DogRow]
    public let people: [PersonRow]

    /// Generates `count` dogs and `ceil(count / 10)` people from `seed`.
    public init(dogs count: Int, seed: UInt64 = 42) {
        var rng = SplitMix64(seed: seed)
        let ownerCount = (count + Self.dogsPerOwner - 1) / Self.dogsPerOwner
        var people: [PersonRow] = []
        people.reserveCapacity(ownerCount)
        for id in 0..<ownerCount {
            people.append(PersonRow(id: id, name: Self.name(&rng), city: Self.cities[rng.next(below: Self.cities.count)]))
        }
        var dogs: [DogRow] = []
        dogs.reserveCapacity(count)
        for id in 0..<count {
            dogs.append(DogRow(
                id: id, name: Self.name(&rng), age: rng.next(below: 16),
                breed: Self.breeds[rng.next(below: Self.breeds.count)], ownerId: id / Self.dogsPerOwner))
        }
        self.dogs = dogs
        self.people = people
    }

    /// Two words, for example "Maple Sorrel": 3,600 distinct names.
    private static func name(_ rng: inout SplitMix64) -> String {
        let first = words[rng.next(below: words.count)]
        let second = words[rng.next(below: words.count)]
        return first.prefix(1).uppercased() + first.dropFirst() + " " + second.prefix(1).uppercased() + second.dropFirst()
    }

    /// The dogs per primary-key range of W3.pk-range.
    public static let pkRangeWidth = 1_000

    /// `count` first keys of W3.pk-range's ranges `x...x + 999`, uniformly
    /// drawn so that every range lies within the dogs' ids.
    public func pkRangeStarts(_ count: Int, seed: UInt64 = 11) -> [Int] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in rng.next(below: max(1, dogs.count - Self.pkRangeWidth + 1)) }
    }

    /// `count` primary keys to look up, uniformly drawn from the dogs' ids.
    public func lookupKeys(_ count: Int, seed: UInt64 = 7) -> [Int] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in rng.next(below: dogs.count) }
    }
}

/// A small, fast, seedable generator (Steele, Lea, Flood 2014), so the data
/// does not depend on the platform's random number generator.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
