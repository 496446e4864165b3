import Foundation

/// What a terminal `columns` wide shows for some output: the lines on screen, as a user sees
/// them. Enough of a terminal for what `receipts` writes: printable characters (wrapping at the
/// right margin, deferred as xterm does), `\r`, `\n` (line feed only; the pty turns `\n` into
/// `\r\n`) and `ESC [ K` (erase to the end of the line); other escape sequences are skipped.
struct TerminalScreen {
    private(set) var lines: [String] = []

    init(_ output: String, columns: Int) {
        var screen: [[Character]] = [[]]
        var row = 0, column = 0
        var wrapPending = false
        var characters = Array(output)[...]
        func lineFeed() {
            row += 1
            if row == screen.count { screen.append([]) }
        }
        while let c = characters.popFirst() {
            switch c {
            case "\r":
                column = 0
                wrapPending = false
            case "\n":
                lineFeed()
                wrapPending = false
            case "\r\n":                     // one Character in Swift
                column = 0
                lineFeed()
                wrapPending = false
            case "\u{1B}":
                guard characters.first == "[" else { _ = characters.popFirst(); continue }
                characters.removeFirst()
                var final: Character = " "
                while let next = characters.popFirst() {
                    if next.isLetter || next == "@" || next == "~" { final = next; break }
                }
                if final == "K", column < screen[row].count { screen[row].removeSubrange(column...) }
            default:
                guard !c.isASCII || c.asciiValue! >= 0x20 else { continue }
                if wrapPending {
                    lineFeed()
                    column = 0
                    wrapPending = false
                }
                while screen[row].count < column { screen[row].append(" ") }
                if column < screen[row].count { screen[row][column] = c } else { screen[row].append(c) }
                if column == columns - 1 { wrapPending = true } else { column += 1 }
            }
        }
        lines = screen.map { String($0) }
    }
}
