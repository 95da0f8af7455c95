// Realm's "TableView" example app (examples/ios/swift/TableView in realm-swift)
// as a command-line program: the model and the controller's logic are
// Realm's, with `import RealmSwift` changed to `import Shoal`. UIKit's table
// view is a stand-in that prints each update and checks it adds up; cell
// set-up and bar buttons are left out, and the program plays a user's taps.

import Foundation
import RealmExampleSupport
import Shoal

class DemoObject: Object {
    @Persisted var title: String
    @Persisted var date: Date
}

class TableViewController: TableViewDataSource, ExampleTableController {
    let tableView = UITableView()
    let realm = try! Realm()
    let results = try! Realm().objects(DemoObject.self).sorted(byKeyPath: "date")
    var notificationToken: NotificationToken?
    var updates = 0

    func viewDidLoad() {
        tableView.dataSource = self

        // Set results notification block
        self.notificationToken = results.observe { (changes: RealmCollectionChange) in
            switch changes {
            case .initial:
                // Results are now populated and can be accessed without blocking the UI
                self.tableView.reloadData()
            case .update(_, let deletions, let insertions, let modifications):
                // Query results have changed, so apply them to the TableView
                self.tableView.beginUpdates()
                self.tableView.insertRows(at: insertions.map { IndexPath(row: $0, section: 0) }, with: .automatic)
                self.tableView.deleteRows(at: deletions.map { IndexPath(row: $0, section: 0) }, with: .automatic)
                self.tableView.reloadRows(at: modifications.map { IndexPath(row: $0, section: 0) }, with: .automatic)
                self.tableView.endUpdates()
            case .error(let err):
                // An error occurred while opening the Realm file on the background worker thread
                fatalError("\(err)")
            }
            self.updates += 1
        }
    }

    // Table view data source

    func numberOfSections(in tableView: UITableView) -> Int { 1 }

    func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
        return results.count
    }

    func tableView(_ tableView: UITableView, commitDeleteForRowAt indexPath: IndexPath) {
        realm.beginWrite()
        realm.delete(results[indexPath.row])
        try! realm.commitWrite()
    }

    // Actions

    func backgroundAdd() {
        // Import many items in a background thread
        DispatchQueue.global().async {
            // Get new realm and table since we are in a new thread
            autoreleasepool {
                let realm = try! Realm()
                realm.beginWrite()
                for _ in 0..<5 {
                    // Add row via dictionary. Order is ignored.
                    realm.create(DemoObject.self, value: ["title": TableViewController.randomString(), "date": TableViewController.randomDate()])
                }
                try! realm.commitWrite()
            }
        }
    }

    func add() {
        realm.beginWrite()
        realm.create(DemoObject.self, value: [TableViewController.randomString(), TableViewController.randomDate()])
        try! realm.commitWrite()
    }

    // Helpers

    class func randomString() -> String {
        return "Title \(Int.random(in: 0..<100))"
    }

    class func randomDate() -> NSDate {
        return NSDate(timeIntervalSince1970: TimeInterval.random(in: 0..<TimeInterval.greatestFiniteMagnitude))
    }
}

_ = try! Realm.deleteFiles(for: Realm.Configuration.defaultConfiguration)

let controller = TableViewController()
playTaps(on: controller)
print("\(controller.results.count) rows, sorted by date: \(controller.results.map(\.date) == controller.results.map(\.date).sorted())")
