import PodqBase
import PodqCore
import PodqSession

/// The ids commands take (``ItemReference``: `p3`, `e12`, `d7`), each read into the kind the command
/// works on. A bare number is the command's own kind (its help says which); a letter names the kind, and
/// an id of another kind that leads to one is followed (`podq play e12` plays episode 12's download).
enum IdArguments {
    /// The download `text` names: `d7` (or a bare `7`), or `e12`: episode 12's download.
    static func download(_ text: String, in store: QueueStore) async throws -> Int64 {
        guard let reference = ItemReference(text) else {
            throw CommandError(
                "'\(SafeText.clean(text))' is not a download: give its id as `podq queue` shows it (d7), or an episode's (e12)", code: ExitCodes.usage)
        }
        return try await download(reference, in: store)
    }

    static func download(_ reference: ItemReference, in store: QueueStore) async throws -> Int64 {
        switch reference.kind(or: .download) {
        case .download:
            return reference.id
        case .episode:
            let (episode, _) = try await store.library.episode(id: reference.id)
            guard let id = episode.downloadId, try await store.queue.download(id: id) != nil else {
                throw CommandError("\(reference) is not in the queue: `podq queue add \(reference)` queues it", code: ExitCodes.usage)
            }
            return id
        case .podcast:
            throw CommandError(
                "\(reference) is a podcast; give a download (d7, as `podq queue` shows it) or an episode (e12, as `podq episodes` shows it)",
                code: ExitCodes.usage)
        }
    }

    /// The episode `reference` names: `e12` (or a bare `12`), or `d7`: the episode download 7 is of.
    static func episode(_ reference: ItemReference, in store: QueueStore) async throws -> Int64 {
        switch reference.kind(or: .episode) {
        case .episode:
            _ = try await store.library.episode(id: reference.id)
            return reference.id
        case .download:
            guard let row = try await store.queue.download(id: reference.id) else { throw StoreError.noSuchDownload(reference.id) }
            guard let id = row.episodeId else {
                throw CommandError("\(reference) was added by its URL: it is no podcast's episode", code: ExitCodes.usage)
            }
            return id
        case .podcast:
            throw CommandError("\(reference) is a podcast; give an episode (e12, as `podq episodes` shows it)", code: ExitCodes.usage)
        }
    }

    /// The podcast `text` names: `p3` (or a bare `3`), its title or its feed URL. An episode's or a
    /// download's id is refused in words, not read as a title.
    static func podcast(_ text: String, in store: QueueStore) async throws -> PodcastRecord {
        if let reference = ItemReference(text) {
            switch reference.kind(or: .podcast) {
            case .podcast:
                if let found = try? await store.library.podcast(matching: String(reference.id)), found.id == reference.id { return found }
                // No podcast has that id: a show may be called "p3" or "1984".
                if let found = try? await store.library.podcast(matching: text) { return found }
                throw StoreError.noSuchPodcast(text)
            case .episode, .download:
                if let found = try? await store.library.podcast(matching: text) { return found }  // a show called "e12"
                throw CommandError(
                    "\(reference) is \(reference.kind == .episode ? "an episode" : "a download"); give a podcast: p3, its title or its feed URL (`podq feeds` lists them)",
                    code: ExitCodes.usage)
            }
        }
        return try await store.library.podcast(matching: text)
    }

    /// The downloads `items` name, in order, each once.
    static func downloads(_ items: [String], in store: QueueStore) async throws -> [Int64] {
        var ids: [Int64] = []
        for item in items { ids.append(try await download(item, in: store)) }
        return QueuePlanning.distinct(ids, by: \.self).kept
    }

    /// The episodes `items` name (`mark-played`, `mark-downloaded`): an episode (`e12`, or a bare 12), a
    /// download's episode (`d7`), or a podcast (`p3`, its title or feed URL): all of its episodes.
    static func episodes(_ items: [String], in store: QueueStore) async throws -> [Int64] {
        var ids: [Int64] = []
        for item in items {
            guard let reference = ItemReference(item) else {
                ids += try await store.library.episodeIds(podcastId: await podcast(item, in: store).id)
                continue
            }
            switch reference.kind(or: .episode) {
            case .podcast:
                ids += try await store.library.episodeIds(podcastId: await podcast(item, in: store).id)
            case .episode where reference.kind == nil:
                // A bare number is an episode; said so when it is not one but a podcast's id.
                do {
                    ids.append(try await episode(reference, in: store))
                } catch StoreError.noSuchEpisode(let id) {
                    if let found = try? await store.library.podcast(matching: item), found.id == id {
                        throw CommandError(
                            "There is no episode e\(id); for the podcast \(found.title), say p\(id) (a bare number is an episode)", code: ExitCodes.usage)
                    }
                    throw StoreError.noSuchEpisode(id)
                }
            case .episode, .download:
                ids.append(try await episode(reference, in: store))
            }
        }
        return QueuePlanning.distinct(ids, by: \.self).kept
    }
}
