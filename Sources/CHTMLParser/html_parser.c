#include "CHTMLParser.h"
#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <libxml/xmlmemory.h>
#include <stdlib.h>
#include <string.h>

static char *copy(xmlChar *text) {
    if (text == NULL) return NULL;
    char *out = strdup((const char *)text);
    xmlFree(text);
    return out;
}

receipts_html_document *receipts_html_parse(const char *bytes, int length) {
    int options = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET | HTML_PARSE_NOIMPLIED;
    return (receipts_html_document *)htmlReadMemory(bytes, length, NULL, "UTF-8", options);
}

void receipts_html_free(receipts_html_document *document) { xmlFreeDoc((xmlDocPtr)document); }

receipts_html_node *receipts_html_first(receipts_html_document *document) {
    return (receipts_html_node *)((xmlDocPtr)document)->children;
}

receipts_html_node *receipts_html_children(receipts_html_node *node) { return (receipts_html_node *)((xmlNodePtr)node)->children; }
receipts_html_node *receipts_html_next(receipts_html_node *node) { return (receipts_html_node *)((xmlNodePtr)node)->next; }

int receipts_html_type(receipts_html_node *node) {
    switch (((xmlNodePtr)node)->type) {
    case XML_ELEMENT_NODE: return RECEIPTS_HTML_ELEMENT;
    case XML_TEXT_NODE: return RECEIPTS_HTML_TEXT;
    case XML_CDATA_SECTION_NODE: return RECEIPTS_HTML_CDATA;
    default: return 0;
    }
}

const char *receipts_html_name(receipts_html_node *node) { return (const char *)((xmlNodePtr)node)->name; }
const char *receipts_html_content(receipts_html_node *node) { return (const char *)((xmlNodePtr)node)->content; }

char *receipts_html_attribute(receipts_html_node *node, const char *name) {
    return copy(xmlGetProp((xmlNodePtr)node, (const xmlChar *)name));
}

int receipts_html_has_attribute(receipts_html_node *node, const char *name) {
    return xmlHasProp((xmlNodePtr)node, (const xmlChar *)name) != NULL;
}

char *receipts_html_text(receipts_html_node *node) { return copy(xmlNodeGetContent((xmlNodePtr)node)); }
