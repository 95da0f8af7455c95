import Foundation
import Shoal
import Testing

// Realm's Projections example app (examples/ios/swift/Projections), its
// model and logic with `import RealmSwift` changed to `import Shoal`, the
// module qualifier `RealmSwift.List` to `Shoal.List`, and its SwiftUI views
// turned into prints of the texts they show.

class Series: Object {
    @Persisted var title: String
    @Persisted var episodes: Shoal.List<Movie>
}

class Movie: Object {
    @Persisted var title: String
    @Persisted var episodeNumber: Int
    @Persisted var length: Int
    @Persisted(originProperty: "episodes")
    var series: LinkingObjects<Series>
}

class SeriesModel: Projection<Series> {
    @Projected(\Series.title) var title
    @Projected(\Series.episodes.count) var epCount
    @Projected(\Series.episodes.first?.title.quoted) var firstEpisode
    @Projected(\Series.episodes) var episodes
}

extension String {
    var quoted: String {
        "\"\(self)\""
    }
}

/// The app's views, as prints: what each `Text` shows, in order.
struct ProjectionsExampleApp {
    let realm: Realm
    var printed: [String] = []

    mutating func print(_ line: String) { printed.append(line) }

    // SeriesCellView
    mutating func seriesCell(_ series: SeriesModel) {
        print(series.title)
        print("\(series.epCount) \(series.epCount == 1 ? "episode" : "episodes")")
        if let firstTitle = series.firstEpisode, !firstTitle.isEmpty {
            print("start watch from " + firstTitle)
        }
    }

    // EpisodeCellView
    mutating func episodeCell(_ episode: Movie) {
        print(episode.title)
    }

    // SeriesView
    mutating func seriesView(_ series: SeriesModel) {
        print("Episodes")
        for episode in series.episodes {
            episodeCell(episode)
        }
    }

    // ContentView: @ObservedResults(SeriesModel.self) var series
    mutating func contentView() {
        fillData()
        for series in realm.objects(SeriesModel.self) {
            seriesCell(series)
            seriesView(series)   // the NavigationLink's destination
        }
    }

    // Add records to display in the view
    func fillData() {
        if realm.objects(Movie.self).count == 0 {
            let sw = Series(value: ["Space Shooter",
                                    [["Revived Beliefs", 4],
                                     ["The Tyrany Evens the Score", 5],
                                     ["Comeback of Magician", 6],
                                     ["The Mirage Hazard", 1],
                                     ["Offence of Siblings", 2],
                                     ["Vendetta of Bad Guys", 3]]])
            try! realm.write {
                realm.add(sw)
            }
        }
    }
}

@Suite struct ProjectionsExampleTests {
    @Test("Realm's Projections example shows the series through its projection, as the app does")
    func projectionsExample() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
            objectTypes: [Series.self, Movie.self]))
        var app = ProjectionsExampleApp(realm: realm)
        app.contentView()
        #expect(app.printed == [
            "Space Shooter",
            "6 episodes",
            "start watch from \"Revived Beliefs\"",
            "Episodes",
            "Revived Beliefs",
            "The Tyrany Evens the Score",
            "Comeback of Magician",
            "The Mirage Hazard",
            "Offence of Siblings",
            "Vendetta of Bad Guys",
        ])

        // The views observe the projection (@ObservedRealmObject): a new
        // episode changes epCount and the episodes shown.
        let series = realm.objects(SeriesModel.self).first!
        var changed: [String] = []
        let token = series.observe { change in
            if case .change(_, let properties) = change { changed = properties.map(\.name) }
        }
        try realm.write { series.episodes.append(Movie(value: ["Sequel", 7])) }
        realm.refresh()
        #expect(changed == ["epCount", "firstEpisode", "episodes"])
        app.printed = []
        app.contentView()   // fillData adds nothing the second time
        #expect(app.printed.prefix(2) == ["Space Shooter", "7 episodes"])
        #expect(app.printed.last == "Sequel")
        #expect(realm.objects(Series.self).count == 1)
        token.invalidate()
    }
}
