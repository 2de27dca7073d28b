import PodqCore
import XCTest

final class RetryPolicyTests: XCTestCase {
    func testExponentialWithJitterAndACap() {
        let policy = RetryPolicy(base: 2, max: 60)
        XCTAssertEqual(policy.delay(afterAttempt: 1, jitter: 1), 2)
        XCTAssertEqual(policy.delay(afterAttempt: 3, jitter: 1), 8)
        XCTAssertEqual(policy.delay(afterAttempt: 20, jitter: 1), 60)
        XCTAssertEqual(policy.delay(afterAttempt: 3, jitter: 0.5), 4)
        for _ in 0..<100 {
            XCTAssertTrue((4...12).contains(policy.delay(afterAttempt: 3)), "jitter stays within 0.5x to 1.5x")
        }
    }

    func testRetryAfterWins() {
        let policy = RetryPolicy(base: 2, max: 60)
        XCTAssertEqual(policy.delay(afterAttempt: 1, retryAfter: 120), 120)
        XCTAssertEqual(policy.delay(afterAttempt: 1, retryAfter: 1e9), 3600)
    }
}
