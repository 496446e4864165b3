import Foundation
import ReceiptModel

/// The neural reader's character list has no `£`: it prints the pound sign it sees as the letter
/// `f` (`TOTAL f3.40`). A word that is `f` and an amount with two decimals is read as `£` and the
/// amount (a sentence's stop may follow it), in the neural reading only (Tesseract prints `£`).
enum NeuralSymbols {
    static func mend(_ ocr: OCRResult) -> OCRResult {
        guard ocr.text.contains("f") else { return ocr }
        var mended = ocr
        mended.lines = ocr.lines.map { line in
            var line = line
            line.words = line.words.map { word in
                var word = word
                if isPound(word.text) { word.text = "£" + word.text.dropFirst() }
                return word
            }
            return line
        }
        mended.text = ocr.text.split(separator: "\n", omittingEmptySubsequences: false).map { row in
            row.split(separator: " ", omittingEmptySubsequences: false)
                .map { isPound(Substring($0)) ? "£" + $0.dropFirst() : String($0) }.joined(separator: " ")
        }.joined(separator: "\n")
        return mended
    }

    private static func isPound<S: StringProtocol>(_ word: S) -> Bool {
        guard word.first == "f", word.count >= 5 else { return false }
        // "Insurance Premium Tax of f67.70.": a sentence's stop or comma after the amount.
        var amount = word.dropFirst()
        if let last = amount.last, ".,;:)".contains(last), amount.dropLast().last?.isNumber == true { amount = amount.dropLast() }
        guard let mark = amount.lastIndex(where: { $0 == "." || $0 == "," }) else { return false }
        let whole = amount[..<mark], cents = amount[amount.index(after: mark)...]
        return !whole.isEmpty && cents.count == 2 && whole.allSatisfy(\.isNumber) && cents.allSatisfy(\.isNumber)
    }
}
