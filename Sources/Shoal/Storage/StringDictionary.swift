internal import CXXHash
import Foundation

/// The distinct strings of a dictionary-encoded string column
/// (``Column/Kind/codedString``), numbered (their codes) in the order they
/// were first stored.
///
/// Both halves are persistent structures (copy-on-write leaves of 4,096),
/// so that a copy is O(1) and adding a string to a dictionary a snapshot
/// still shares copies one leaf of the strings and one of the hash table,
/// never the whole dictionary: a commit that brings one new string pays
/// for that string only, however many the column holds. The hash table is
/// open-addressed (XXH3 of the UTF-8 bytes, linear probing, at most half
/// full) and compares bytes, so that canonically equivalent strings ("é"
/// and "e\u{301}") stay different, as Shoal and Realm compare strings.
///
/// A code, once given, names its string for good: strings are never
/// removed, so an older snapshot's codes read the same strings from a
/// newer copy. Strings no slot holds any more stay until the column turns
/// plain (see ``capacity``).
struct StringDictionary: Sendable {
    /// The most distinct strings a column holds dictionary-encoded; the
    /// next one turns it into plain UTF-8 (``Column/Kind/string``).
    static let capacity = 1 << 16

    /// The strings by code.
    private(set) var strings = Chunks<String>()
    /// Each slot's code + 1 (0: empty); a power of two of slots, or none.
    private var slots = Chunks<Int32>()
    /// The rank of each code in string order, made on the first sort that
    /// asks for it and shared by every copy of this version.
    private var order = OrderCache()
    /// The dictionaries that agree on every code they share: those grown
    /// from one dictionary, each new code claimed once (see ``isPrefix(of:)``).
    private var lineage = Lineage()

    var count: Int { strings.count }

    /// Whether a read may copy a string's bits (``StringCopy/knowsLayout``),
    /// kept here so that a read checks a field beside the strings rather
    /// than a lazily made global.
    let copiesBits = StringCopy.knowsLayout

    /// The code of `string`, if the dictionary holds it.
    func code(of string: String) -> Int32? {
        find(hash: Self.hash(string)) { Self.equal($0, string) }.code
    }

    /// The code of `string`, added if new; `nil` when the dictionary is full.
    ///
    /// (The probe runs here, not inside `withUTF8`'s closure: a closure
    /// reading `self` copied the dictionary, four retains and releases a
    /// look-up.)
    mutating func code(adding string: String) -> Int32? {
        let (found, slot) = find(hash: Self.hash(string)) { Self.equal($0, string) }
        if let found { return found }
        return add(string, at: slot)
    }

    /// The code of the string whose UTF-8 (valid) is `bytes`, added if new:
    /// a `String` is made only for a new one. `nil` when the dictionary is full.
    mutating func code(addingUTF8 bytes: UnsafeRawBufferPointer) -> Int32? {
        let (found, slot) = find(hash: Self.hash(bytes)) { Self.equal($0, bytes) }
        if let found { return found }
        return add(String(decoding: bytes, as: UTF8.self), at: slot)
    }

    /// Gives `new`, strings the dictionary does not hold, the next codes
    /// in their order, at once: the hash table grown once, the codes
    /// claimed and the ranks dropped once (a loaded column's dictionary
    /// comes as leaves of new strings; adding them one by one made a rank
    /// cache and took a lock per string).
    ///
    /// - Returns: the index in `new` of the first string the dictionary
    ///   already holds (those before it are added, it and those after it
    ///   not), or `nil` when every one was new.
    /// - Precondition: the dictionary has room for all of `new`.
    mutating func addNew(_ new: [String]) -> Int? {
        precondition(new.count <= Self.capacity - strings.count, "\(new.count) new strings past the dictionary's capacity")
        guard !new.isEmpty else { return nil }
        let first = strings.count
        defer { if strings.count > first { noteAdded(first..<strings.count) } }
        var size = Swift.max(64, slots.count)
        while size < 2 * (first + new.count) { size *= 2 }
        if size != slots.count { rehash(slots: size) }
        for (j, string) in new.enumerated() {
            let (found, slot) = find(hash: Self.hash(string)) { Self.equal($0, string) }
            if found != nil { return j }
            slots[slot] = Int32(strings.count) + 1
            strings.append(string, reservingLeaf: false)
        }
        return nil
    }

    /// Gives `string`, which the dictionary does not hold, the next code;
    /// `slot` is where its probe ended.
    private mutating func add(_ string: String, at slot: Int) -> Int32? {
        guard strings.count < Self.capacity else { return nil }
        let code = Int32(strings.count)
        strings.append(string, reservingLeaf: false)
        if strings.count * 2 > slots.count {
            rehash(slots: Swift.max(64, slots.count * 2))
        } else {
            slots[slot] = code + 1
        }
        noteAdded(Int(code)..<Int(code) + 1)
        return code
    }

    /// Drops the ranks and claims `codes`, just given out.
    private mutating func noteAdded(_ codes: Range<Int>) {
        order = OrderCache()
        // A copy that already took these codes for other strings: this one
        // starts a lineage of its own.
        if !lineage.claim(codes) { lineage = Lineage(claimed: codes.upperBound) }
    }

    /// Whether `other` holds this dictionary's strings under the same
    /// codes (and perhaps more after them): both grew from one dictionary
    /// and `other` is at least as long. A column whose dictionary `other`
    /// extends can take `other`'s codes as they are.
    func isPrefix(of other: StringDictionary) -> Bool {
        lineage === other.lineage && count <= other.count
    }

    /// Whether ``ranks()`` is made for this version (a sort of a few
    /// elements may rather compare their strings than rank them all).
    var hasRanks: Bool { order.isMade }

    /// The rank of each code when the strings are sorted as
    /// `Value.compareStrings` sorts them (UTF-8 bytes, then length): equal
    /// ranks never occur, since the strings are distinct.
    func ranks() -> [Int32] {
        order.ranks { [strings] in
            var sorted = Array(0..<Int32(strings.count))
            sorted.sort { Value.compareStrings(strings[Int($0)], strings[Int($1)]) == .orderedAscending }
            var ranks = [Int32](repeating: 0, count: sorted.count)
            for (rank, code) in sorted.enumerated() { ranks[Int(code)] = Int32(rank) }
            return ranks
        }
    }

    /// The code of the string `isWanted` picks among those whose hash is
    /// `hash`, if held, and the slot where the probe ended (its own, or the
    /// empty one it would take).
    @inline(__always)
    private func find(hash: UInt64, _ isWanted: (String) -> Bool) -> (code: Int32?, slot: Int) {
        guard !slots.isEmpty else { return (nil, -1) }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return (nil, slot) }
            if isWanted(strings[Int(entry - 1)]) { return (entry - 1, slot) }
            slot = (slot + 1) & mask
        }
    }

    /// Rebuilds the hash table with `count` slots (a power of two).
    private mutating func rehash(slots count: Int) {
        var table = Chunks<Int32>(repeating: 0, count: count)
        let mask = count - 1
        for code in 0..<strings.count {
            var slot = Int(truncatingIfNeeded: Self.hash(strings[code])) & mask
            while table[slot] != 0 { slot = (slot + 1) & mask }
            table[slot] = Int32(code + 1)
        }
        slots = table
    }

    /// XXH3 with a seed drawn once a process, so that strings cannot be
    /// chosen ahead (a hostile snapshot's, say) to collide in the table:
    /// the hashes are never stored.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        XXH3_64bits_withSeed(bytes.baseAddress, bytes.count, seed)
    }

    private static let seed = UInt64.random(in: .min ... .max)

    private static func hash(_ string: String) -> UInt64 {
        var string = string
        return string.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }

    private static func equal(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var b = b
        return b.withUTF8 { equal(a, UnsafeRawBufferPointer($0)) }
    }

    private static func equal(_ string: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var string = string
        return string.withUTF8 { $0.count == bytes.count && ($0.isEmpty || memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0) }
    }

    /// Whether `matches` holds for each code's string, by code: what a scan
    /// tests once per distinct string rather than once per slot.
    func passing(_ matches: (Value) -> Bool) -> [Bool] {
        (0..<strings.count).map { matches(.string(strings[$0])) }
    }
}

/// The dictionaries grown from one: how many codes they have given out,
/// together, each given once (``claim(_:)``). Two members agree on every
/// code both hold, since each got it from its one claimer or a copy of it.
private final class Lineage: @unchecked Sendable {
    // Safe because: `claimed` is only reached under `lock`.
    private let lock = NSLock()
    private var claimed: Int

    init(claimed: Int = 0) { self.claimed = claimed }

    /// Takes `codes` for the caller, when no member has given out any of them.
    func claim(_ codes: Range<Int>) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard claimed == codes.lowerBound else { return false }
        claimed = codes.upperBound
        return true
    }
}

/// A dictionary version's ranks, computed once under a lock (snapshots
/// sharing the version may sort on several threads).
private final class OrderCache: @unchecked Sendable {
    // Safe because: `cached` is only reached under `lock`.
    private let lock = NSLock()
    private var cached: [Int32]?

    var isMade: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cached != nil
    }

    func ranks(_ make: () -> [Int32]) -> [Int32] {
        lock.lock()
        defer { lock.unlock() }
        if let cached { return cached }
        let ranks = make()
        cached = ranks
        return ranks
    }
}
