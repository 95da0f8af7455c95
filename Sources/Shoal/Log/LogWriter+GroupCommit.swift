internal import Dispatch

extension LogWriter {
    private enum SyncStep {
        case done
        case lead(throughVersion: UInt64)
        case follow(DispatchSemaphore)
        case fail(ShoalError)
    }

    /// Leader/follower group commit: returns once `version` is durable.
    ///
    /// The mutex is never held across `fdatasync`, so other threads keep
    /// enqueueing while a sync runs; their records are covered by the next one.
    func syncThrough(version: UInt64) throws(ShoalError) {
        while true {
            let step = state.withLock { state -> SyncStep in
                if state.closed, state.durableVersion < version {
                    return .fail(
                        ShoalError(.fileAccess, "The log writer for \(path) is closed", context: ["path": path]))
                }
                if let poison = state.poison {
                    // Waiters whose record the failed sync covered learn of that failure
                    // itself; everyone else learns the writer is poisoned.
                    if poison.code == .logSyncFailed, version <= state.failedSyncVersion { return .fail(poison) }
                    return .fail(.logPoisoned(path: path, cause: poison))
                }
                if state.durableVersion >= version { return .done }
                if state.syncInProgress {
                    let semaphore = DispatchSemaphore(value: 0)
                    state.followers.append(semaphore)
                    return .follow(semaphore)
                }
                state.syncInProgress = true
                return .lead(throughVersion: state.lastVersion)
            }
            switch step {
            case .done:
                return
            case .fail(let error):
                throw error
            case .follow(let semaphore):
                semaphore.wait()
            case .lead(let target):
                var failure: ShoalError?
                do throws(FileIOError) { try io.syncData(file) } catch { failure = .logSyncFailed(path: path, error) }
                let followers = state.withLock { state in
                    state.syncInProgress = false
                    if let failure {
                        state.poison = failure
                        state.failedSyncVersion = target
                    } else {
                        state.durableVersion = max(state.durableVersion, target)
                        state.lastSync = .now
                    }
                    defer { state.followers = [] }
                    return state.followers
                }
                for follower in followers { follower.signal() }
                if let failure { throw failure }
            }
        }
    }
}
