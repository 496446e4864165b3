/// A character read by a CTC recognizer: its text, the output column (time step) where it was
/// read, and its probability there.
package struct CTCCharacter: Sendable, Equatable {
    package var text: String
    package var column: Int
    package var probability: Float

    package init(_ text: String, column: Int, probability: Float) {
        self.text = text
        self.column = column
        self.probability = probability
    }
}

/// Greedy CTC decoding and splitting a line's characters into words.
package enum CTCDecoder {
    /// The characters of one line from a recognizer's probabilities: `columns × classes` values,
    /// column by column. Per column the most probable class; repeats of a class in consecutive
    /// columns are one character (at the first of them); class 0, the blank, is dropped. Only the
    /// first `validColumns` columns are read (the rest cover a batch's padding).
    package static func decode(_ probabilities: UnsafeBufferPointer<Float>, columns: Int, classes: [String],
                               validColumns: Int? = nil) -> [CTCCharacter] {
        let count = classes.count
        var characters: [CTCCharacter] = []
        var previous = -1
        for column in 0..<min(columns, validColumns ?? columns) {
            let row = column * count
            var best = 0
            var bestValue = probabilities[row]
            for k in 1..<count where probabilities[row + k] > bestValue {
                best = k
                bestValue = probabilities[row + k]
            }
            if best != 0 && best != previous {
                characters.append(CTCCharacter(classes[best], column: column, probability: bestValue))
            }
            previous = best
        }
        return characters
    }

    /// The line's words: split at spaces the recognizer read and at gaps between two characters
    /// that are much wider than the line's usual spacing (`gapFactor` times the median step
    /// between neighbours, and at least `minimumGap` columns) — a space it did not print still
    /// separates `20/03/2018` from `6:41:02PM`.
    package static func words(_ characters: [CTCCharacter], gapFactor: Double = 2, minimumGap: Int = 4) -> [[CTCCharacter]] {
        var steps: [Int] = []
        for (a, b) in zip(characters, characters.dropFirst()) where a.text != " " && b.text != " " {
            steps.append(b.column - a.column)
        }
        let typical = steps.isEmpty ? 0 : Double(steps.sorted()[steps.count / 2])
        let wide = max(Double(minimumGap), typical * gapFactor)
        var words: [[CTCCharacter]] = []
        var current: [CTCCharacter] = []
        for character in characters {
            if character.text == " " || character.text.allSatisfy(\.isWhitespace) {
                if !current.isEmpty { words.append(current) }
                current = []
                continue
            }
            if let last = current.last, Double(character.column - last.column) >= wide {
                words.append(current)
                current = []
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
