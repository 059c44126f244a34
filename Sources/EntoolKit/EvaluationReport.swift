import ENCore
import ENEvaluation
import Foundation

/// `entool evaluate --report`: one self-contained HTML page with inline SVG (nothing loaded from the network):
/// the ROC plane with each configuration as a point and its threshold sweep, the chance diagonal, each
/// configuration's value against the true distance, the confusion matrices and the per-encounter table
/// (escaping, formatting and colours from ``HTMLReport``).
enum EvaluationReport {
    static func html(
        set: ENLabelledEncounterSet, platform: String, request: ENEvaluationRequest,
        configurations: [ENEvaluationConfiguration], results: [ENEvaluator.Result], sweeps: [ENThresholdSweep]
    ) -> String {
        let contacts = results.first?.metrics.contacts ?? 0
        let rule = request.contactRule
        var page = """
            <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>\(HTMLReport.escape(set.name)) evaluation</title>
            <style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0}
            td,th{border:1px solid #ccc;padding:3px 7px;text-align:right;font-size:13px}th{background:#f3f3f3}
            td.l,th.l{text-align:left}.yes{background:#e3f4e3}.no{background:#fbe4e4}.und{font-weight:bold;color:#b35c00}
            .grid{display:flex;flex-wrap:wrap;gap:24px}.cm td{width:70px}</style></head><body>
            <h1>\(HTMLReport.escape(set.metadata["title"] ?? set.name))</h1>
            <p>\(set.encounters.count) encounters, \(contacts) contacts (within \(rule.withinMeters) m\
            \(rule.exclusive ? " exclusive" : ""), at least \(rule.minutes) min where the duration is known); platform \
            \(HTMLReport.escape(platform)). Source: \(HTMLReport.escape(set.metadata["source"] ?? "not given")). Licence: \
            \(HTMLReport.escape(set.metadata["licence"] ?? "not given")).</p>
            """
        page += "<h2>Summary</h2><table><tr><th class=l>configuration</th><th>notified</th><th>range</th>"
        page += "<th>undetermined</th><th>TPR</th><th>FPR</th><th>precision</th><th>F1</th><th>chance TPR</th>"
        page += "<th>AUC</th></tr>"
        for (index, result) in results.enumerated() {
            let m = result.metrics
            page +=
                "<tr><td class=l><span style=\"color:\(HTMLReport.colors[index % HTMLReport.colors.count])\">■</span> "
            page += "\(HTMLReport.escape(result.name))</td><td>\(m.notified)</td><td>\(m.notifiedRange.lowerBound)–"
            page +=
                "\(m.notifiedRange.upperBound)</td><td>\(m.undetermined)</td><td>\(HTMLReport.format(m.truePositiveRate))</td>"
            page +=
                "<td>\(HTMLReport.format(m.falsePositiveRate))</td><td>\(HTMLReport.format(m.precision))</td><td>\(HTMLReport.format(m.f1))</td>"
            page +=
                "<td>\(HTMLReport.format(m.chanceTruePositiveRate))</td><td>\(HTMLReport.format(sweeps[index].areaUnderCurve))</td></tr>"
        }
        page += "</table><div class=grid>"
        page += roc(results: results, sweeps: sweeps)
        for (index, result) in results.enumerated() {
            page += scatter(
                set: set, result: result, configuration: configurations[index],
                color: HTMLReport.colors[index % HTMLReport.colors.count])
        }
        page += "</div><h2>Confusion matrices</h2><div class=grid>"
        for result in results {
            let m = result.metrics
            page += """
                <table class=cm><tr><th class=l>\(HTMLReport.escape(result.name))</th><th>notified</th><th>not notified</th></tr>
                <tr><th class=l>contact</th><td class=yes>\(m.truePositives)</td><td class=no>\(m.falseNegatives)</td></tr>
                <tr><th class=l>no contact</th><td class=no>\(m.falsePositives)</td><td class=yes>\(m.trueNegatives)</td></tr>
                </table>
                """
        }
        page += "</div><h2>Encounters</h2><table><tr><th class=l>id</th><th>distance (m)</th><th>contact</th>"
        for result in results { page += "<th>\(HTMLReport.escape(result.name))</th>" }
        page += "</tr>"
        for (row, encounter) in set.encounters.enumerated() {
            let contact = results.first?.decisions[row].contact ?? false
            page +=
                "<tr><td class=l>\(HTMLReport.escape(encounter.id))</td><td>\(HTMLReport.format(encounter.groundTruth.closestMeters, digits: 2))"
            page += "</td><td>\(contact ? "yes" : "no")</td>"
            for result in results {
                let d = result.decisions[row]
                let right = d.notified == d.contact
                page += "<td class=\"\(right ? "yes" : "no")\(d.determinate ? "" : " und")\">"
                page +=
                    "\(d.notified ? "notified" : "–") \(HTMLReport.format(d.value, digits: 2))\(d.determinate ? "" : " ?")</td>"
            }
            page += "</tr>"
        }
        page += "</table><p>Green: the decision agrees with the ground truth; red: it does not. “?” marks an "
        page += "undetermined encounter (its histogram placements disagree); the value is the even spread.</p>"
        page += "</body></html>\n"
        return page
    }

    static func roc(results: [ENEvaluator.Result], sweeps: [ENThresholdSweep]) -> String {
        let size = 320.0
        let margin = 40.0
        func x(_ v: Double) -> Double { margin + v * size }
        func y(_ v: Double) -> Double { margin + (1 - v) * size }
        var svg = "<figure><figcaption><b>ROC</b>: configurations (dots), their threshold sweeps (lines), "
        svg += "chance (dashed)</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(size + 2 * margin)\" "
        svg += "height=\"\(size + 2 * margin)\"><rect x=\"\(margin)\" y=\"\(margin)\" width=\"\(size)\" "
        svg += "height=\"\(size)\" fill=\"none\" stroke=\"#999\"/>"
        svg +=
            "<line x1=\"\(x(0))\" y1=\"\(y(0))\" x2=\"\(x(1))\" y2=\"\(y(1))\" stroke=\"#999\" stroke-dasharray=\"5,4\"/>"
        svg += "<text x=\"\(margin + size / 2)\" y=\"\(size + margin + 30)\" text-anchor=\"middle\" font-size=\"12\">"
        svg += "false-positive rate</text><text x=\"12\" y=\"\(margin + size / 2)\" font-size=\"12\" "
        svg += "transform=\"rotate(-90 12 \(margin + size / 2))\" text-anchor=\"middle\">true-positive rate</text>"
        for tick in [0.0, 0.5, 1.0] {
            svg +=
                "<text x=\"\(x(tick))\" y=\"\(size + margin + 14)\" font-size=\"10\" text-anchor=\"middle\">\(tick)</text>"
            svg += "<text x=\"\(margin - 4)\" y=\"\(y(tick) + 3)\" font-size=\"10\" text-anchor=\"end\">\(tick)</text>"
        }
        for (index, result) in results.enumerated() {
            let color = HTMLReport.colors[index % HTMLReport.colors.count]
            let points = sweeps[index].points
            if !points.isEmpty {
                let path = points.map { "\(x($0.falsePositiveRate)),\(y($0.truePositiveRate))" }.joined(separator: " ")
                svg += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(color)\" stroke-opacity=\"0.5\"/>"
            }
            let m = result.metrics
            if let tpr = m.truePositiveRate {
                let fpr = m.falsePositiveRate ?? 0
                svg += "<circle cx=\"\(x(fpr))\" cy=\"\(y(tpr))\" r=\"5\" fill=\"\(color)\">"
                svg += "<title>\(HTMLReport.escape(result.name))</title></circle>"
            }
        }
        if results.first?.metrics.falsePositiveRate == nil {
            svg += "<text x=\"\(x(0.5))\" y=\"\(y(0.5) - 10)\" font-size=\"11\" text-anchor=\"middle\">"
            svg += "no non-contacts: FPR undefined, dots at FPR 0</text>"
        }
        return svg + "</svg></figure>"
    }

    static func scatter(
        set: ENLabelledEncounterSet, result: ENEvaluator.Result, configuration: ENEvaluationConfiguration,
        color: String
    ) -> String {
        let width = 320.0
        let height = 200.0
        let margin = 40.0
        let distances = set.encounters.map(\.groundTruth.closestMeters).filter(\.isFinite)
        let maxDistance = max(distances.max() ?? 1, 0.1) * 1.05
        let threshold = configuration.rule.threshold
        let values = result.decisions.map(\.value).filter(\.isFinite)
        let maxValue = max(values.max() ?? 1, threshold.isFinite ? threshold : 0, 1e-9) * 1.1
        func x(_ v: Double) -> Double { margin + v / maxDistance * width }
        func y(_ v: Double) -> Double { margin + (1 - v / maxValue) * height }
        var svg = "<figure><figcaption><b>\(HTMLReport.escape(result.name))</b>: value against true distance "
        svg +=
            "(threshold \(HTMLReport.format(threshold, digits: 2)))</figcaption><svg xmlns=\"http://www.w3.org/2000/svg\" "
        svg +=
            "width=\"\(width + 2 * margin)\" height=\"\(height + 2 * margin)\"><rect x=\"\(margin)\" y=\"\(margin)\" "
        svg += "width=\"\(width)\" height=\"\(height)\" fill=\"none\" stroke=\"#999\"/>"
        if threshold.isFinite {
            svg += "<line x1=\"\(x(0))\" y1=\"\(y(threshold))\" x2=\"\(x(maxDistance))\" y2=\"\(y(threshold))\" "
            svg += "stroke=\"#555\" stroke-dasharray=\"4,3\"/>"
        }
        svg +=
            "<text x=\"\(margin + width / 2)\" y=\"\(height + margin + 30)\" font-size=\"12\" text-anchor=\"middle\">"
        svg += "true distance (m), max \(HTMLReport.format(maxDistance / 1.05, digits: 1))</text>"
        svg += "<text x=\"\(margin - 4)\" y=\"\(margin + 4)\" font-size=\"10\" text-anchor=\"end\">"
        svg +=
            "\(HTMLReport.format(maxValue / 1.1, digits: 1))</text><text x=\"\(margin - 4)\" y=\"\(margin + height)\" "
        svg += "font-size=\"10\" text-anchor=\"end\">0</text>"
        for (encounter, decision) in zip(set.encounters, result.decisions) {
            let distance = encounter.groundTruth.closestMeters
            guard distance.isFinite, decision.value.isFinite else { continue }
            let fill = decision.notified ? color : "none"
            svg +=
                "<circle cx=\"\(x(distance))\" cy=\"\(y(decision.value))\" r=\"4\" fill=\"\(fill)\" stroke=\"\(color)\">"
            svg +=
                "<title>\(HTMLReport.escape(encounter.id)): \(HTMLReport.format(decision.value, digits: 2))</title></circle>"
        }
        return svg + "</svg></figure>"
    }
}
