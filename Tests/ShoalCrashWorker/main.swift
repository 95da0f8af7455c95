// Commits transactions to a file-backed Realm until killed, printing the
// number of each transaction after `write` returns. The crash test kills it
// with SIGKILL at a random moment and checks what reopening finds.
//
// Usage: ShoalCrashWorker PATH durable|relaxed
//        ShoalCrashWorker PATH scenario KEY=VALUE…   (see CrashScenario)
import Foundation
import Shoal
import ShoalTestSupport

let arguments = CommandLine.arguments
if arguments.count >= 3, arguments[2] == "scenario" {
    guard let scenario = CrashScenario(arguments: Array(arguments.dropFirst(3))) else {
        FileHandle.standardError.write(Data("usage: ShoalCrashWorker PATH scenario \(arguments.dropFirst(3))\n".utf8))
        exit(2)
    }
    do { try ScenarioWorker.run(arguments[1], scenario) } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: ShoalCrashWorker PATH durable|relaxed\n".utf8))
    exit(2)
}
var config = fileConfiguration(URL(fileURLWithPath: arguments[1]), durability: arguments[2] == "relaxed" ? .relaxed(maxDelay: .milliseconds(20)) : .durable)
config.objectTypes = [Person.self, Dog.self, Kennel.self, Puppy.self, AllTypes.self, Note.self]
let realm = try Realm(configuration: config)
var next = realm.objects(Dog.self).count
while true {
    try realm.write {
        // Two changes per transaction: a new dog, and the counter that must
        // always equal the number of dogs if transactions are atomic.
        realm.create(Dog.self, value: ["id": next, "name": "dog \(next)", "tags": ["t\(next % 5)"]])
        let counter = realm.object(ofType: Person.self, forPrimaryKey: 0) ?? realm.create(Person.self, value: ["id": 0])
        counter.city = String(next + 1)
    }
    let line = "\(next)\n"
    line.withCString { _ = write(1, $0, strlen($0)) }
    next += 1
}
