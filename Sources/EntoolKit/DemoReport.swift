import ENSimulator
import Foundation

/// `entool demo --report`: one self-contained HTML page of a run (inline CSS and SVG, no script, nothing loaded
/// from the network), holding the figures `--json` prints: per day the phones exposed in truth, notified, true
/// and false positives and the missed ones (a chart and a table), and the attenuation and duration of the
/// exposures by group (notified and missed contacts, notified and quiet non-contacts: charts and tables).
///
/// The tables' cells carry ids (`day-N-exposed`, `attenuation-B-notifiedContacts`, `minutes-B-missedContacts`,
/// …) so that a reader, or a test, can find each figure.
enum DemoReport {
    /// The per-day figures, in the order of the table's columns: the id suffix, the heading, the value.
    static let dayColumns: [(id: String, heading: String, value: @Sendable (ENSimulationTruth.Day) -> Int)] = [
        ("exposed", "exposed in truth", \.exposed), ("notified", "notified", \.notified),
        ("truePositives", "true positives", \.truePositives), ("falsePositives", "false positives", \.falsePositives),
        ("falseNegatives", "missed (false negatives)", \.falseNegatives),
    ]

    /// How each group is named on the page.
    static func title(_ group: ENSimulationTruth.Group) -> String {
        switch group {
        case .notifiedContacts: "notified contacts"
        case .missedContacts: "missed contacts"
        case .notifiedNonContacts: "notified non-contacts"
        case .quietNonContacts: "quiet non-contacts"
        }
    }

    /// The labels of the buckets of `edges` (see ``ENSimulationTruth``): "< e0", "e0–e1", …, "≥ eN".
    static func bucketLabels(_ edges: [String]) -> [String] {
        guard let first = edges.first, let last = edges.last else { return ["all"] }
        return ["< \(first)"] + zip(edges, edges.dropFirst()).map { "\($0)–\($1)" } + ["≥ \(last)"]
    }

    static func html(report: ENSimulationReport, truth: ENSimulationTruth) -> String {
        let escape = HTMLReport.escape
        let colors = HTMLReport.colors
        let notified = report.devices.filter(\.notified).count
        let last = truth.days.last
        var page = """
            <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>\(escape(report.scenario)): entool demo</title>
            <style>body{font-family:sans-serif;margin:24px;color:#222;max-width:1200px}table{border-collapse:collapse;margin:8px 0}
            td,th{border:1px solid #ccc;padding:3px 7px;text-align:right;font-size:13px}th{background:#f3f3f3}
            td.l,th.l{text-align:left}.grid{display:flex;flex-wrap:wrap;gap:24px}figure{margin:0;width:min-content}
            p,li{max-width:60em;line-height:1.4}</style></head><body>
            <h1>\(escape(report.scenario))</h1>
            <p id="summary">\(truth.phones) phones over \(report.daysCompleted) days, seed \(report.seed). \
            \(report.keysAccepted) keys accepted, \(report.filesPublished) signed files published. \
            <b>\(notified)</b> phones notified; <b>\(last?.exposed ?? 0)</b> exposed in truth \
            (\(last?.truePositives ?? 0) true positives, \(last?.falsePositives ?? 0) false positives, \
            \(last?.falseNegatives ?? 0) missed).</p>
            <h2>Each day</h2>
            <p>Cumulative at the end of each day. A phone is <i>exposed in truth</i> from its first contact: an \
            encounter within \(HTMLReport.format(truth.contactWithinMeters, digits: 1)) m for at least \
            \(truth.contactMinutes) minutes with a phone that tests positive, on the day of its result (before the \
            result) or one of the \(ENSimulationTruth.keyDays - 1) days before. True positives: notified and \
            exposed; false positives: notified, not exposed; missed: exposed, not notified.</p>
            """
        let dayLabels = truth.days.map { "\($0.day + 1)" }
        let daySeries = dayColumns.enumerated().map { index, column in
            HTMLReport.Series(
                name: column.heading, color: colors[index % colors.count], values: truth.days.map(column.value))
        }
        page += "<div class=\"grid\">"
        page += HTMLReport.lineChart(
            caption: "Phones by day", labels: dayLabels, series: daySeries, xTitle: "day", yTitle: "phones")
        page += "</div><table id=\"days\"><tr><th>day</th><th class=\"l\">date</th>"
        for column in dayColumns { page += "<th>\(escape(column.heading))</th>" }
        page += "</tr>"
        for day in truth.days {
            page += "<tr><td>\(day.day + 1)</td><td class=\"l\">"
            page += "\(escape(day.date))</td>"
            for column in dayColumns { page += "<td id=\"day-\(day.day)-\(column.id)\">\(column.value(day))</td>" }
            page += "</tr>"
        }
        page += "</table>"

        page += """
            <h2>Contacts and other exposures</h2>
            <p>An <i>exposure</i> is an encounter with a phone that tests positive, on the days its shared keys \
            cover; each is counted from the receiving phone. Contacts are the exposures that meet the contact rule \
            above. <i>Notified</i>: the receiving phone notified its user during the run; <i>missed</i> or \
            <i>quiet</i>: it never did. Attenuation: the mean, over the receiving phone's scans during the \
            exposure, of the attenuation its framework computed (exposures without a scan are counted apart). \
            Buckets include their lower edge.</p>
            """
        let groupSeries = { (values: (ENSimulationTruth.Distribution) -> [Int]) in
            truth.distributions.enumerated().map { index, distribution in
                HTMLReport.Series(
                    name: "\(title(distribution.group)) (\(distribution.exposures))",
                    color: colors[index % colors.count],
                    values: values(distribution))
            }
        }
        let attenuationLabels = bucketLabels(truth.attenuationEdges.map { HTMLReport.format($0, digits: 0) })
        let minutesLabels = bucketLabels(truth.minutesEdges.map(String.init))
        page += "<div class=\"grid\">"
        page += HTMLReport.barChart(
            caption: "Attenuation of exposures", labels: attenuationLabels, series: groupSeries(\.attenuation),
            xTitle: "mean attenuation (dB)", yTitle: "exposures")
        page += HTMLReport.barChart(
            caption: "Duration of exposures", labels: minutesLabels, series: groupSeries(\.minutes),
            xTitle: "duration (minutes)", yTitle: "exposures")
        page += "</div><div class=\"grid\">"
        page += table(
            id: "attenuation", heading: "attenuation (dB)", labels: attenuationLabels, truth: truth,
            values: \.attenuation,
            extra: ("unscanned", "no scan", \.unscanned))
        page += table(id: "minutes", heading: "duration (min)", labels: minutesLabels, truth: truth, values: \.minutes)
        page += "</div></body></html>\n"
        return page
    }

    /// A table of one histogram per group: a row per bucket (and `extra`'s row), a column per group, and the
    /// groups' totals.
    static func table(
        id: String, heading: String, labels: [String], truth: ENSimulationTruth,
        values: (ENSimulationTruth.Distribution) -> [Int],
        extra: (id: String, label: String, value: (ENSimulationTruth.Distribution) -> Int)? = nil
    ) -> String {
        var html = "<table id=\"\(id)\"><tr><th class=\"l\">\(HTMLReport.escape(heading))</th>"
        for distribution in truth.distributions { html += "<th>\(HTMLReport.escape(title(distribution.group)))</th>" }
        html += "</tr>"
        for (bucket, label) in labels.enumerated() {
            html += "<tr><td class=\"l\">\(HTMLReport.escape(label))</td>"
            for distribution in truth.distributions {
                let cell = "\(id)-\(bucket)-\(distribution.group.rawValue)"
                html += "<td id=\"\(cell)\">\(values(distribution)[bucket])</td>"
            }
            html += "</tr>"
        }
        if let extra {
            html += "<tr><td class=\"l\">\(HTMLReport.escape(extra.label))</td>"
            for distribution in truth.distributions {
                html += "<td id=\"\(id)-\(extra.id)-\(distribution.group.rawValue)\">\(extra.value(distribution))</td>"
            }
            html += "</tr>"
        }
        html += "<tr><th class=\"l\">exposures</th>"
        for distribution in truth.distributions {
            html += "<th id=\"\(id)-total-\(distribution.group.rawValue)\">\(distribution.exposures)</th>"
        }
        return html + "</tr></table>"
    }
}
