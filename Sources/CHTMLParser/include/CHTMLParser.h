#ifndef RECEIPTS_CHTMLPARSER_H
#define RECEIPTS_CHTMLPARSER_H
#include <stddef.h>

/* libxml2's HTML parser behind opaque pointers. libxml2's own headers pull in ICU's, whose
 * definitions clash with Foundation's copy of ICU in Swift's module system: Swift sees only this
 * header, and html_parser.c alone includes libxml2's. Strings returned as `char *` are malloc'd
 * copies (free() them); `const char *` ones belong to the document. */

typedef struct receipts_html_document receipts_html_document;
typedef struct receipts_html_node receipts_html_node;

enum { RECEIPTS_HTML_ELEMENT = 1, RECEIPTS_HTML_TEXT = 3, RECEIPTS_HTML_CDATA = 4 };

/* Parses `length` bytes of UTF-8 HTML: recovering from broken markup, silently, and never touching
 * the network (no DTD, entity or resource is fetched). NULL when nothing could be parsed. */
receipts_html_document *receipts_html_parse(const char *bytes, int length);
void receipts_html_free(receipts_html_document *document);

/* The document's top-level nodes start here (then `next`). */
receipts_html_node *receipts_html_first(receipts_html_document *document);
receipts_html_node *receipts_html_children(receipts_html_node *node);
receipts_html_node *receipts_html_next(receipts_html_node *node);
int receipts_html_type(receipts_html_node *node);
/* The element's name, as written. */
const char *receipts_html_name(receipts_html_node *node);
/* A text or CDATA node's text. */
const char *receipts_html_content(receipts_html_node *node);
/* The attribute's value (malloc'd), or NULL when the element has none. */
char *receipts_html_attribute(receipts_html_node *node, const char *name);
int receipts_html_has_attribute(receipts_html_node *node, const char *name);
/* The text of the node and all it holds (malloc'd). */
char *receipts_html_text(receipts_html_node *node);
#endif
