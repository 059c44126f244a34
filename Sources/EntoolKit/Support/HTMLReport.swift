import Foundation

/// What entool's HTML reports share (`entool evaluate --report`, `entool demo --report`): escaping, number
/// formatting, the series colours, and inline SVG charts. Every page is self-contained: inline CSS and SVG, no
/// script, nothing loaded from anywhere.
enum HTMLReport {
    /// The series colours, in order.
    static let colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]

    /// `text` safe in HTML text and in a double-quoted attribute.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// `value` with `digits` decimals, or "–" when there is none.
    static func format(_ value: Double?, digits: Int = 3) -> String {
        guard let value, value.isFinite else { return "–" }
        return String(format: "%.\(digits)f", value)
    }

    /// One series of a chart: its name, colour and one value per category.
    struct Series {
        var name: String
        var color: String
        var values: [Int]
    }

    /// A legend: a coloured square and the name of each series.
    static func legend(_ series: [Series]) -> String {
        series.map {
            "<span style=\"white-space:nowrap\"><span style=\"color:\($0.color)\">■</span> \(escape($0.name))</span>"
        }.joined(separator: " &nbsp; ")
    }

    /// A line chart of `series` over `labels` (the x axis, one point per label), from 0 to the largest value.
    static func lineChart(caption: String, labels: [String], series: [Series], xTitle: String, yTitle: String)
        -> String
    {
        let (width, height, margin) = (440.0, 220.0, 44.0)
        let top = max(series.flatMap(\.values).max() ?? 1, 1)
        let step = labels.count > 1 ? width / Double(labels.count - 1) : 0
        func x(_ index: Int) -> Double { margin + Double(index) * step }
        func y(_ value: Int) -> Double { margin + (1 - Double(value) / Double(top)) * height }
        var svg = frame(caption: caption, series: series, width: width, height: height, margin: margin)
        svg += axes(top: top, labels: labels, at: x, width: width, height: height, margin: margin)
        svg += titles(xTitle: xTitle, yTitle: yTitle, width: width, height: height, margin: margin)
        for item in series {
            let points = item.values.enumerated().map { "\(x($0.offset)),\(y($0.element))" }.joined(separator: " ")
            svg += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"\(item.color)\" stroke-width=\"2\"/>"
            for (index, value) in item.values.enumerated() {
                svg += "<circle cx=\"\(x(index))\" cy=\"\(y(value))\" r=\"3\" fill=\"\(item.color)\">"
                svg += "<title>\(escape(item.name)), \(escape(labels[index])): \(value)</title></circle>"
            }
        }
        return svg + "</svg></figure>"
    }

    /// A bar chart of `series` side by side in each of the categories `labels`, from 0 to the largest value.
    static func barChart(caption: String, labels: [String], series: [Series], xTitle: String, yTitle: String)
        -> String
    {
        let (width, height, margin) = (440.0, 220.0, 44.0)
        let top = max(series.flatMap(\.values).max() ?? 1, 1)
        let slot = width / Double(max(labels.count, 1))
        let bar = slot * 0.8 / Double(max(series.count, 1))
        func center(_ index: Int) -> Double { margin + (Double(index) + 0.5) * slot }
        var svg = frame(caption: caption, series: series, width: width, height: height, margin: margin)
        svg += axes(top: top, labels: labels, at: center, width: width, height: height, margin: margin)
        svg += titles(xTitle: xTitle, yTitle: yTitle, width: width, height: height, margin: margin)
        for (number, item) in series.enumerated() {
            for (index, value) in item.values.enumerated() where value > 0 {
                let barHeight = Double(value) / Double(top) * height
                let left = margin + Double(index) * slot + slot * 0.1 + Double(number) * bar
                svg += "<rect x=\"\(left)\" y=\"\(margin + height - barHeight)\" width=\"\(bar)\" "
                svg += "height=\"\(barHeight)\" fill=\"\(item.color)\"><title>\(escape(item.name)), "
                svg += "\(escape(labels[index])): \(value)</title></rect>"
            }
        }
        return svg + "</svg></figure>"
    }

    private static func frame(caption: String, series: [Series], width: Double, height: Double, margin: Double)
        -> String
    {
        "<figure><figcaption><b>\(escape(caption))</b><br>\(legend(series))</figcaption>"
            + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width + 2 * margin)\" "
            + "height=\"\(height + 2 * margin + 10)\"><rect x=\"\(margin)\" y=\"\(margin)\" width=\"\(width)\" "
            + "height=\"\(height)\" fill=\"none\" stroke=\"#999\"/>"
    }

    private static func axes(
        top: Int, labels: [String], at x: (Int) -> Double, width: Double, height: Double, margin: Double
    ) -> String {
        var svg = "<text x=\"\(margin - 4)\" y=\"\(margin + 4)\" font-size=\"10\" text-anchor=\"end\">\(top)</text>"
        svg += "<text x=\"\(margin - 4)\" y=\"\(margin + height)\" font-size=\"10\" text-anchor=\"end\">0</text>"
        // At most about 16 labels on the axis, evenly spaced.
        let every = max(1, (labels.count + 15) / 16)
        for (index, label) in labels.enumerated() where index % every == 0 {
            svg += "<text x=\"\(x(index))\" y=\"\(margin + height + 14)\" font-size=\"10\" text-anchor=\"middle\">"
            svg += "\(escape(label))</text>"
        }
        return svg
    }

    private static func titles(xTitle: String, yTitle: String, width: Double, height: Double, margin: Double)
        -> String
    {
        "<text x=\"\(margin + width / 2)\" y=\"\(margin + height + 32)\" font-size=\"12\" text-anchor=\"middle\">"
            + "\(escape(xTitle))</text><text x=\"12\" y=\"\(margin + height / 2)\" font-size=\"12\" "
            + "transform=\"rotate(-90 12 \(margin + height / 2))\" text-anchor=\"middle\">\(escape(yTitle))</text>"
    }
}
