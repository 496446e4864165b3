import Foundation

/// How two spellings of a shop's name are compared: letters and digits only, lower case
/// (`MR. D.I.Y. (M) SDN BHD` and `mr diy m sdn bhd` are the same name). Used by the analyzers
/// (is a close-up the same name?) and by scoring against ground truth.
public enum NameMatching {
    public static func normalized(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }
}
