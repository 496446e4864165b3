#ifndef RECEIPTS_CLIBXML2_SHIM_H
#define RECEIPTS_CLIBXML2_SHIM_H
/* libxml2's compile and link flags (pkg-config libxml-2.0) for CHTMLParser, which alone includes
 * its headers: Swift never imports them (they pull in ICU, which clashes with Foundation's). */
#include <libxml/xmlversion.h>
#endif
