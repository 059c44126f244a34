import Foundation
import Metrics
package import Prometheus

/// The server's metrics, kept in a Prometheus registry of its own (not the process-wide `MetricsSystem`, so that
/// several servers, in tests, do not share counters) and served as Prometheus text at `GET /metrics`.
package struct EnserverMetrics: Sendable {
    /// The registry the metrics live in.
    package let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory

    /// The latency timers of the two routes every request takes, made once: making a timer looks it up in the
    /// registry under its lock, which cost a file download about 1 % of its time.
    private let publishTimer: Metrics.Timer
    private let filesTimer: Metrics.Timer

    package init() {
        registry = PrometheusCollectorRegistry()
        factory = PrometheusMetricsFactory(registry: registry)
        publishTimer = Self.timer(route: "publish", factory: factory)
        filesTimer = Self.timer(route: "files", factory: factory)
    }

    private static func timer(route: String, factory: PrometheusMetricsFactory) -> Metrics.Timer {
        Metrics.Timer(
            label: "enserver_request_duration_seconds", dimensions: [("route", route)],
            preferredDisplayUnit: .seconds, factory: factory)
    }

    /// Counts a publish request by its HTTP status, and the keys it stored.
    package func publish(status: Int, insertedKeys: Int) {
        Counter(label: "enserver_publish_requests_total", dimensions: [("status", String(status))], factory: factory)
            .increment()
        if insertedKeys > 0 {
            Counter(label: "enserver_keys_published_total", factory: factory).increment(by: insertedKeys)
        }
    }

    /// Counts a chaff request.
    package func chaff() {
        Counter(label: "enserver_chaff_requests_total", factory: factory).increment()
    }

    /// Counts a publish request refused by the rate limit.
    package func rateLimited() {
        Counter(label: "enserver_publish_rate_limited_total", factory: factory).increment()
    }

    /// Counts exported files.
    package func exported(files: Int) {
        Counter(label: "enserver_files_exported_total", factory: factory).increment(by: files)
    }

    /// Records one request's latency, by route.
    package func latency(route: String, seconds: Double) {
        switch route {
        case "publish": publishTimer.recordSeconds(seconds)
        case "files": filesTimer.recordSeconds(seconds)
        default: Self.timer(route: route, factory: factory).recordSeconds(seconds)
        }
    }

    /// The metrics as Prometheus text.
    package func prometheusText() -> String { registry.emitToString() }
}
