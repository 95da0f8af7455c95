import Foundation

/// What a ported example's table view asks its controller: the counts UIKit
/// asks a data source for.
public protocol TableViewDataSource: AnyObject {
    /// The number of sections.
    func numberOfSections(in tableView: UITableView) -> Int
    /// The number of rows in `section`.
    func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int
}

/// A stand-in for UIKit's table view in Realm's example apps run as
/// command-line programs: it prints each update it is given and, as UIKit
/// does, checks that the rows and sections it was told about add up to what
/// the data source then reports (printing `inconsistent update` otherwise).
public final class UITableView {
    /// How UIKit would animate a change; ignored here.
    public enum RowAnimation { case automatic, fade, none }

    /// The controller whose counts the table checks.
    public weak var dataSource: (any TableViewDataSource)?
    private var rowsPerSection: [Int] = []
    private var batch: Batch?

    private struct Batch {
        var deletions: [IndexPath] = []
        var insertions: [IndexPath] = []
        var modifications: [IndexPath] = []
        var sectionsToDelete = IndexSet()
        var sectionsToInsert = IndexSet()
    }

    public init() {}

    /// Reads every count from the data source again.
    public func reloadData() {
        rowsPerSection = currentCounts()
        print("reloadData: \(rowsPerSection.reduce(0, +)) rows")
    }

    /// Starts a batch of row changes (UIKit's older spelling of a batch).
    public func beginUpdates() { batch = Batch() }

    /// Applies the batch started by `beginUpdates()`.
    public func endUpdates() {
        guard let done = batch else { return }
        batch = nil
        apply(done)
    }

    /// Applies the changes `updates` makes as one batch.
    public func performBatchUpdates(_ updates: () -> Void) {
        beginUpdates()
        updates()
        endUpdates()
    }

    /// Rows inserted, at their indices after the batch.
    public func insertRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
        batch?.insertions += indexPaths
    }

    /// Rows deleted, at their indices before the batch.
    public func deleteRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
        batch?.deletions += indexPaths
    }

    /// Rows changed in place, at their indices before the batch.
    public func reloadRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
        batch?.modifications += indexPaths
    }

    /// Sections inserted, at their indices after the batch.
    public func insertSections(_ sections: IndexSet, with animation: RowAnimation) {
        batch?.sectionsToInsert.formUnion(sections)
    }

    /// Sections deleted, at their indices before the batch.
    public func deleteSections(_ sections: IndexSet, with animation: RowAnimation) {
        batch?.sectionsToDelete.formUnion(sections)
    }

    private func currentCounts() -> [Int] {
        guard let source = dataSource else { return [] }
        return (0..<source.numberOfSections(in: self)).map { source.tableView(self, numberOfRowsInSection: $0) }
    }

    private func apply(_ batch: Batch) {
        let expected = currentCounts()
        // Sections are counted but not printed: which ones a batch adds or
        // removes depends on the example's random names. For the same
        // reason the rows of a deleted section count as deleted rows (Realm
        // reports such a section's deletion, not its rows').
        let sectionRows = batch.sectionsToDelete.reduce(0) { $0 + (rowsPerSection.indices.contains($1) ? rowsPerSection[$1] : 0) }
        let deleted = batch.deletions.filter { !batch.sectionsToDelete.contains($0[0]) }.count + sectionRows
        print("update: \(deleted) deleted, \(batch.insertions.count) inserted, "
            + "\(batch.modifications.count) modified; \(expected.reduce(0, +)) rows")
        let counts = Self.counts(after: batch, from: rowsPerSection)
        if counts != expected {
            print("inconsistent update: expected \(expected) rows per section, got \(counts.map(String.init(describing:)) ?? "indices out of range")")
        }
        rowsPerSection = expected
    }

    /// The rows per section after `batch`: deletions name rows and sections
    /// before it, insertions after it, and a new section's rows are among
    /// the insertions. Nil when an index is out of range.
    private static func counts(after batch: Batch, from before: [Int]) -> [Int]? {
        var counts = before
        for path in batch.deletions where !batch.sectionsToDelete.contains(path[0]) {
            guard counts.indices.contains(path[0]) else { return nil }
            counts[path[0]] -= 1
        }
        for section in batch.sectionsToDelete.reversed() {
            guard counts.indices.contains(section) else { return nil }
            counts.remove(at: section)
        }
        for section in batch.sectionsToInsert {
            guard section <= counts.count else { return nil }
            counts.insert(0, at: section)
        }
        for path in batch.insertions {
            guard counts.indices.contains(path[0]) else { return nil }
            counts[path[0]] += 1
        }
        return counts
    }
}

/// Runs the main run loop (which also runs the main queue) until `done`
/// holds, as an app's main loop would run between events; stops the program
/// if that takes more than ten seconds.
public func runMainLoop(until done: () -> Bool) {
    let deadline = Date().addingTimeInterval(10)
    while !done() {
        guard Date() < deadline else {
            print("timed out waiting for the main run loop")
            exit(1)
        }
        _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.01))
    }
}

extension IndexPath {
    /// UIKit's index path of a row in a section: `[section, row]` (Shoal
    /// gives the section's index as `section` on Linux).
    public init(row: Int, section: Int) { self.init(indexes: [section, row]) }
    /// UIKit's row in the section: the second index.
    public var row: Int { self[1] }
}

/// An example's table view controller as the program drives it: loaded,
/// then tapped and swiped as a user would.
public protocol ExampleTableController: TableViewDataSource {
    /// The controller's table view.
    var tableView: UITableView { get }
    /// How many notifications the controller's observer has handled.
    var updates: Int { get }
    /// Sets up the controller and its observation (UIKit's `viewDidLoad`).
    func viewDidLoad()
    /// The "+" button: adds an object on the main thread.
    func add()
    /// The "BG Add" button: adds objects on a background thread.
    func backgroundAdd()
    /// Swipe to delete: deletes the object shown at `indexPath`.
    func tableView(_ tableView: UITableView, commitDeleteForRowAt indexPath: IndexPath)
}

/// Loads `controller`, then taps "+", taps "BG Add" and deletes the first
/// row, printing each step and running the main loop until the controller's
/// observer has handled the change it makes.
public func playTaps(on controller: some ExampleTableController) {
    controller.viewDidLoad()
    runMainLoop { controller.updates == 1 }
    print("tap +")
    controller.add()
    runMainLoop { controller.updates == 2 }
    print("tap BG Add")
    controller.backgroundAdd()
    runMainLoop { controller.updates == 3 }
    print("swipe to delete the first row")
    controller.tableView(controller.tableView, commitDeleteForRowAt: IndexPath(row: 0, section: 0))
    runMainLoop { controller.updates == 4 }
}
