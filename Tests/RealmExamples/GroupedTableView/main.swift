// Realm's "GroupedTableView" example app (examples/ios/swift/GroupedTableView
// in realm-swift) as a command-line program: the model and the controller's
// logic are Realm's, with `import RealmSwift` changed to `import Shoal`; its
// exhaustive `switch` over `SectionedResultsChange` compiles as it does with
// Realm. UIKit's table view is a stand-in that prints each update and checks
// it adds up; cell set-up and bar buttons are left out, and the program plays
// a user's taps.

import Foundation
import RealmExampleSupport
import Shoal

class DemoObject: Object {
    @Persisted var phoneNumber: String
    @Persisted var date: Date
    @Persisted var contactName: String
    var firstLetter: String {
        guard let char = contactName.first else {
            return ""
        }
        return String(char)
    }
}

class TableViewController: TableViewDataSource, ExampleTableController {
    let tableView = UITableView()
    var notificationToken: NotificationToken?
    var realm: Realm!
    var sectionedResults: SectionedResults<String, DemoObject>!
    var updates = 0

    func viewDidLoad() {
        tableView.dataSource = self
        realm = try! Realm()
        sectionedResults = realm.objects(DemoObject.self)
            .sectioned(by: \.firstLetter, ascending: true)

        // Set realm notification block
        notificationToken = sectionedResults.observe { change in
            switch change {
            case .initial:
                break
            case let .update(_,
                             deletions: deletions,
                             insertions: insertions,
                             modifications: modifications,
                             sectionsToInsert: sectionsToInsert,
                             sectionsToDelete: sectionsToDelete):
                self.tableView.performBatchUpdates {
                    self.tableView.deleteRows(at: deletions, with: .automatic)
                    self.tableView.insertRows(at: insertions, with: .automatic)
                    self.tableView.reloadRows(at: modifications, with: .automatic)
                    self.tableView.insertSections(sectionsToInsert, with: .automatic)
                    self.tableView.deleteSections(sectionsToDelete, with: .automatic)
                }
            }
            self.updates += 1
        }
        tableView.reloadData()
    }

    // Table view data source

    func numberOfSections(in tableView: UITableView) -> Int {
        return sectionedResults.count
    }

    func sectionIndexTitles(for tableView: UITableView) -> [String]? {
        return sectionedResults.allKeys
    }

    func tableView(_ tableView: UITableView, titleForHeaderInSection section: Int) -> String? {
        return sectionedResults[section].key
    }

    func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
        return sectionedResults[section].count
    }

    func tableView(_ tableView: UITableView, commitDeleteForRowAt indexPath: IndexPath) {
        try! realm.write {
            realm.delete(sectionedResults[indexPath])
        }
    }

    // MARK: Actions

    func backgroundAdd() {
        // Import many items in a background thread
        DispatchQueue.global().async {
            // Get new realm and table since we are in a new thread
            autoreleasepool {
                let realm = try! Realm()
                realm.beginWrite()
                for _ in 0..<5 {
                    // Add row via dictionary. Order is ignored.
                    realm.create(DemoObject.self, value: ["contactName": randomName(), "date": NSDate(), "phoneNumber": randomPhoneNumber()])
                }
                try! realm.commitWrite()
            }
        }
    }

    func add() {
        try! realm.write {
            realm.create(DemoObject.self, value: ["contactName": randomName(), "date": NSDate(), "phoneNumber": randomPhoneNumber()])
        }
    }
}

// MARK: Helpers

func randomPhoneNumber() -> String {
    return "555-55\(Int.random(in: 0...9))5-55\(Int.random(in: 0...9))"
}

func randomName() -> String {
    return ["John", "Jane", "Mary", "Eric", "Sarah", "Sally"].randomElement()!
}

_ = try! Realm.deleteFiles(for: Realm.Configuration.defaultConfiguration)

let controller = TableViewController()
playTaps(on: controller)
let titles = controller.sectionIndexTitles(for: controller.tableView) ?? []
print("\(controller.sectionedResults.map(\.count).reduce(0, +)) rows in sections titled by their first letter: "
    + "\(titles == titles.sorted() && controller.sectionedResults.allSatisfy { section in section.allSatisfy { $0.firstLetter == section.key } })")
