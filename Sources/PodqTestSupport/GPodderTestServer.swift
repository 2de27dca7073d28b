import Foundation

/// A real gpodder.net-compatible server that no one on the team wrote, for the sync tests:
/// gpodder-fastapi-router (PyPI) under uvicorn on 127.0.0.1, with its own SQLite file in `folder`.
/// "The phone" is mygpoclient, gpodder.net's reference client (``phone(_:)``). `.ci/run` installs
/// both (`pip install --ignore-requires-python gpodder-fastapi-router[sqlite] uvicorn mygpoclient`).
public final class GPodderTestServer: Sendable {
    /// The server's base URL: `http://127.0.0.1:<port>`.
    public let url: URL
    private let process: ChildProcess
    private let folder: String

    private init(url: URL, process: ChildProcess, folder: String) {
        self.url = url
        self.process = process
        self.folder = folder
    }

    /// The Python that has the packages: `PODQ_TEST_PYTHON`, else `python3`.
    static var python: String { ProcessInfo.processInfo.environment["PODQ_TEST_PYTHON"] ?? "python3" }

    public struct NotInstalled: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts a server with `users` registered; throws (the test fails, it is never skipped) when the
    /// packages are not installed.
    /// - Parameter port: 0 for any free one.
    public static func start(in folder: String, users: [(name: String, password: String)], port wanted: Int = 0) async throws -> GPodderTestServer {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try app.write(toFile: folder + "/gpodder_app.py", atomically: true, encoding: .utf8)
        try phoneScript.write(toFile: folder + "/phone.py", atomically: true, encoding: .utf8)
        let check = try ChildProcess(
            executable: python, arguments: ["-c", "import gpodder_router, uvicorn, aiosqlite, mygpoclient"], directory: folder)
        guard check.wait(timeout: 30).code == 0 else {
            throw NotInstalled(
                description: "gpodder-fastapi-router, uvicorn, aiosqlite and mygpoclient are not installed for \(python): "
                    + "\(check.standardError.suffix(400)) — .ci/run installs them (pip install --ignore-requires-python "
                    + "'gpodder-fastapi-router[sqlite]==0.1.3' uvicorn mygpoclient)")
        }
        let process = try ChildProcess(
            executable: python,
            arguments: ["-m", "uvicorn", "gpodder_app:app", "--app-dir", folder, "--host", "127.0.0.1", "--port", "\(wanted)", "--log-level", "info"],
            environment: ["GPODDER_TEST_DB": folder + "/gpodder.db", "PYTHONDONTWRITEBYTECODE": "1"], directory: folder)
        var port: Int?
        _ = await waitUntil(timeout: 30, every: 50) {
            let said = process.standardError
            if said.contains("ERROR:") { return true }  // it will not start: say why at once
            guard let range = said.range(of: #"running on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) else { return false }
            port = Int(said[range].split(separator: ":").last ?? "")
            return true
        }
        guard let port else {
            process.send(SIGKILL)
            throw NotInstalled(description: "the gpodder server did not start: \(process.standardError.suffix(600))")
        }
        let server = GPodderTestServer(url: URL(string: "http://127.0.0.1:\(port)")!, process: process, folder: folder)
        for user in users { _ = try await server.run(["register", server.url.absoluteString, user.name, user.password]) }
        return server
    }

    /// The same server (its database, its port) started again after ``stop()``: a server that was down.
    public func restarted() async throws -> GPodderTestServer {
        try await Self.start(in: folder, users: [], port: url.port ?? 0)
    }

    /// Stops the server.
    public func stop() {
        process.send(SIGTERM)
        if process.wait(timeout: 5).code == nil { process.send(SIGKILL) }
    }

    /// "The phone": mygpoclient as device `device` of `user`. Commands: `subscribe URL…`,
    /// `unsubscribe URL…`, `play FEED EPISODE POSITION TOTAL [GUID [TIMESTAMP]]`, `actions` (JSON),
    /// `subscriptions` (JSON: the device's feeds). Returns what it printed.
    public func phone(user: String, password: String, device: String, _ command: [String]) async throws -> String {
        try await run(["phone", url.absoluteString, user, password, device] + command)
    }

    private func run(_ arguments: [String]) async throws -> String {
        let child = try ChildProcess(executable: Self.python, arguments: [folder + "/phone.py"] + arguments, directory: folder)
        let exit = child.wait(timeout: 60)
        guard exit.code == 0 else {
            throw NotInstalled(description: "phone.py \(arguments.prefix(1)) failed (\(exit)): \(child.standardError.suffix(800))")
        }
        return child.standardOutput
    }

    private static let app = """
        import os
        from fastapi import FastAPI
        from gpodder_router import GPodderConfig, attach

        app = FastAPI()
        attach(app, config=GPodderConfig(database_url="sqlite+aiosqlite:///" + os.environ["GPODDER_TEST_DB"], bcrypt_rounds=4))
        """

    private static let phoneScript = #"""
        import base64, json, sys, urllib.request

        def register(root, user, password):
            # The router's own registration call (an extension of the API, as its README shows).
            request = urllib.request.Request(
                f"{root}/api/2/auth/{user}/register.json", data=json.dumps({"password": password}).encode(),
                headers={"Content-Type": "application/json"}, method="POST")
            urllib.request.urlopen(request).read()

        def client(root, user, password):
            from mygpoclient import json as mjson
            from mygpoclient.api import MygPodderClient
            token = base64.b64encode(f"{user}:{password}".encode()).decode()

            class PhoneClient(mjson.JsonClient):
                # The server's 401 has no realm, which urllib's Basic handler waits for before it sends
                # a login; a phone (AntennaPod) sends it with every request, and so does this one.
                @staticmethod
                def _prepare_request(method, uri, data):
                    request = mjson.JsonClient._prepare_request(method, uri, data)
                    request.add_header("Authorization", "Basic " + token)
                    if data is not None:
                        request.add_header("Content-Type", "application/json")
                    return request

            return MygPodderClient(user, password, root, client_class=PhoneClient)

        def phone(root, user, password, device, command, args):
            from mygpoclient.api import EpisodeAction
            c = client(root, user, password)
            if command == "subscribe":
                c.update_device_settings(device, caption="AntennaPod on the phone", type="mobile")
                print(json.dumps({"timestamp": c.update_subscriptions(device, add_urls=args).since}))
            elif command == "unsubscribe":
                print(json.dumps({"timestamp": c.update_subscriptions(device, remove_urls=args).since}))
            elif command == "play":
                podcast, episode, position, total = args[0], args[1], int(args[2]), int(args[3])
                guid = args[4] if len(args) > 4 and args[4] else None
                timestamp = args[5] if len(args) > 5 else None
                action = EpisodeAction(podcast, episode, "play", device=device, timestamp=timestamp, started=0, position=position, total=total)
                # mygpoclient has no guid field: add it as AntennaPod sends it.
                data = action.to_dictionary()
                if guid:
                    data["guid"] = guid
                c._client.POST(c._locator.upload_episode_actions_uri(), [data])
                print("{}")
            elif command == "actions":
                got = c.download_episode_actions(since=0)
                print(json.dumps([
                    {"podcast": a.podcast, "episode": a.episode, "action": a.action, "device": a.device, "timestamp": a.timestamp,
                     "started": a.started, "position": a.position, "total": a.total} for a in got.actions]))
            elif command == "subscriptions":
                print(json.dumps(c.get_subscriptions(device)))
            else:
                raise SystemExit(f"no such command: {command}")

        if sys.argv[1] == "register":
            register(sys.argv[2], sys.argv[3], sys.argv[4])
        else:
            phone(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7:])
        """#
}
