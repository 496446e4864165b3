/// A character read by a CTC recognizer: its text, the output column (time step) where it was
/// read, and its probability there.
package struct CTCCharacter: Sendable, Equatable {
    package var text: String
    package var column: Int
    package var probability: Float
    /// The highest probability the space class had in the columns between the previous character
    /// and this one: a space the recognizer half saw.
    package var spaceBefore: Float

    package init(_ text: String, column: Int, probability: Float, spaceBefore: Float = 0) {
        self.text = text
        self.column = column
        self.probability = probability
        self.spaceBefore = spaceBefore
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
        var space: Float = 0
        let spaceClass = classes.lastIndex(of: " ")
        for column in 0..<min(columns, validColumns ?? columns) {
            let row = column * count
            var best = 0
            var bestValue = probabilities[row]
            for k in 1..<count where probabilities[row + k] > bestValue {
                best = k
                bestValue = probabilities[row + k]
            }
            if best != 0 && best != previous {
                characters.append(CTCCharacter(classes[best], column: column, probability: bestValue, spaceBefore: space))
                space = 0
            } else if best == 0, let spaceClass {
                space = max(space, probabilities[row + spaceClass])
            }
            previous = best
        }
        return characters
    }

    /// The characters of one line from a post-processed recognizer's output (`rec-top.onnx`, see
    /// scripts/install-neural): `columns × 3` values, column by column — the best class's
    /// probability, the best class (a float), the space class's probability. Decoded exactly as
    /// `decode` decodes the full probabilities those three values were taken from.
    package static func decode(top values: UnsafeBufferPointer<Float>, columns: Int, classes: [String],
                               validColumns: Int? = nil) -> [CTCCharacter] {
        var characters: [CTCCharacter] = []
        var previous = -1
        var space: Float = 0
        let hasSpace = classes.last == " "
        for column in 0..<min(columns, validColumns ?? columns) {
            let row = column * 3
            let best = Int(values[row + 1])
            guard best >= 0 && best < classes.count else { continue }
            if best != 0 && best != previous {
                characters.append(CTCCharacter(classes[best], column: column, probability: values[row], spaceBefore: space))
                space = 0
            } else if best == 0, hasSpace {
                space = max(space, values[row + 2])
            }
            previous = best
        }
        return characters
    }

    /// The line's words: split at spaces the recognizer read, and between two characters where it
    /// half saw one — the space class reached `spaceProbability` in the columns between them, which
    /// are wider apart than the line's usual step — or where the gap is much wider than the usual
    /// step (`gapFactor` times the median step between neighbours, at least `minimumGap` columns).
    /// So a space it did not print still separates `20/03/2018` from `6:41:02PM`.
    ///
    /// Measured on uk-fuel-diesel.png with PP-OCRv4: the 17 spaces it did not print (`KESTRELFUEL`,
    /// `SCREENWASH5L`, `COFFEEREGULAR`, …) had a space probability of 0.04–0.48 in their gap;
    /// no gap inside a word had more than 0.01.
    package static func words(_ characters: [CTCCharacter], spaceProbability: Float = 0.03, gapFactor: Double = 2,
                              minimumGap: Int = 4) -> [[CTCCharacter]] {
        var steps: [Int] = []
        for (a, b) in zip(characters, characters.dropFirst()) where a.text != " " && b.text != " " {
            steps.append(b.column - a.column)
        }
        let typical = steps.isEmpty ? 0 : Double(steps.sorted()[steps.count / 2])
        let wide = max(Double(minimumGap), typical * gapFactor)
        var words: [[CTCCharacter]] = []
        var current: [CTCCharacter] = []
        for character in characters {
            if character.text.allSatisfy(\.isWhitespace) {
                if !current.isEmpty { words.append(current) }
                current = []
                continue
            }
            if let last = current.last {
                let gap = Double(character.column - last.column)
                if gap >= wide || (character.spaceBefore >= spaceProbability && gap > typical) {
                    words.append(current)
                    current = []
                }
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
