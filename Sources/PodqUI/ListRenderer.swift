import PodqCore

/// The tables of the Episodes and Podcasts views: column titles on line `y`, rows below. Columns drop
/// out at narrow widths; the title takes what is left.
enum ListRenderer {
    /// A column: its title, width, and the text of a row.
    struct Column<Row> {
        var title: String
        var width: Int
        var text: (Row) -> String
    }

    static func episodes(_ rows: [EpisodeRow], into grid: inout Grid, y: Int, selected: Int?) {
        let columns: [Column<EpisodeRow>] = [
            // An episode begun (here or on the phone) says where it stopped: `▸ 12:30`.
            Column(title: "STATE", width: 11) { row in row.state == .new && (row.heardTo ?? 0) > 0 ? "▸ " + Format.duration(row.heardTo) : row.state.rawValue },
            Column(title: "DATE", width: 10) { Format.day($0.published) },
            Column(title: "LENGTH", width: 8) { Format.duration($0.duration) },
            Column(title: "SIZE", width: 9) { $0.length.map(Format.bytes) ?? "" },
            Column(title: "PODCAST", width: grid.width >= 200 ? 36 : grid.width >= 140 ? 28 : 20) { $0.podcast },
        ]
        table(rows, columns: columns, title: ("EPISODE", { $0.title }), dropOrder: [3, 2, 4, 1], into: &grid, y: y, selected: selected) {
            switch $0.state {
            case .completed: .success
            case .failed: .failure
            case .downloading: .accent
            case .new: .normal
            default: .dim
            }
        }
    }

    static func podcasts(_ rows: [PodcastRow], into grid: inout Grid, y: Int, selected: Int?) {
        let columns: [Column<PodcastRow>] = [
            Column(title: "EPISODES", width: 8) { String($0.episodes) },
            Column(title: "NEW", width: 5) { $0.newEpisodes.map(String.init) ?? "" },
            Column(title: "DONE", width: 5) { $0.downloaded.map(String.init) ?? "" },
            Column(title: "REFRESHED", width: 10) { Format.day($0.lastRefresh) },
            Column(title: "AUTO", width: 4) { $0.autoQueue ? "auto" : "" },
            Column(title: "FEED", width: 8) { $0.error != nil ? "failed" : $0.repairs != nil ? "repaired" : "ok" },
        ]
        table(
            rows, columns: columns, title: ("PODCAST", { $0.title }), dropOrder: [5, 4, 3, 2, 0],
            into: &grid, y: y, selected: selected
        ) { $0.error == nil ? .normal : .failure }
    }

    /// Lays out `columns` then the title column; drops columns in `dropOrder` until the title has at
    /// least 16 cells.
    private static func table<Row>(
        _ rows: [Row], columns: [Column<Row>], title: (String, (Row) -> String), dropOrder: [Int],
        into grid: inout Grid, y: Int, selected: Int?, style: (Row) -> CellStyle
    ) {
        var kept = Array(columns.indices)
        func titleWidth() -> Int { grid.width - kept.reduce(0) { $0 + columns[$1].width + 1 } }
        for index in dropOrder where titleWidth() < 16 { kept.removeAll { $0 == index } }
        let titleCells = max(0, titleWidth())
        var x = 0
        for index in kept { x = grid.put(columns[index].title, x: x, y: y, style: .dim, cells: columns[index].width) + 1 }
        grid.put(title.0, x: x, y: y, style: .dim, cells: titleCells)
        for (i, row) in rows.enumerated() {
            let line = y + 1 + i
            guard line < grid.height else { break }
            x = 0
            for (n, index) in kept.enumerated() {
                x = grid.put(columns[index].text(row), x: x, y: line, style: n == 0 ? style(row) : .normal, cells: columns[index].width) + 1
            }
            grid.put(title.1(row), x: x, y: line, cells: titleCells)
            if selected == i { grid.style(x: 0, y: line, count: grid.width, .selected) }
        }
    }
}
