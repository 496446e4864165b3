import ArgumentParser
import Foundation
import ReceiptKit

/// `--taxonomy FILE` of the commands that check a category without reading receipts.
struct TaxonomyOption: ParsableArguments {
    @Option(help: ArgumentHelp("The taxonomy file the server or pipeline uses (default: the built-in one).", valueName: "file"))
    var taxonomy: String?

    func load() throws -> Taxonomy { try loadTaxonomy(taxonomy) }
}
