#ifndef RECEIPTS_CGMIME_SHIM_H
#define RECEIPTS_CGMIME_SHIM_H
#include <gmime/gmime.h>
#include <stdlib.h>
#include <string.h>

/* GMime's type checks and casts are macros over GObject's type system, which Swift cannot import:
 * these small functions stand for them. Nothing here allocates unless it says so. */

static inline int receipts_gmime_is_multipart(GMimeObject *o) { return GMIME_IS_MULTIPART(o); }
static inline int receipts_gmime_is_message_part(GMimeObject *o) { return GMIME_IS_MESSAGE_PART(o); }
static inline int receipts_gmime_is_part(GMimeObject *o) { return GMIME_IS_PART(o); }
static inline int receipts_gmime_is_text_part(GMimeObject *o) { return GMIME_IS_TEXT_PART(o); }
static inline int receipts_internet_address_is_mailbox(InternetAddress *a) { return INTERNET_ADDRESS_IS_MAILBOX(a); }

static inline GMimeMultipart *receipts_gmime_as_multipart(GMimeObject *o) { return GMIME_MULTIPART(o); }
static inline GMimeMessagePart *receipts_gmime_as_message_part(GMimeObject *o) { return GMIME_MESSAGE_PART(o); }
static inline GMimePart *receipts_gmime_as_part(GMimeObject *o) { return GMIME_PART(o); }
static inline GMimeTextPart *receipts_gmime_as_text_part(GMimeObject *o) { return GMIME_TEXT_PART(o); }
static inline InternetAddressMailbox *receipts_internet_address_as_mailbox(InternetAddress *a) { return INTERNET_ADDRESS_MAILBOX(a); }
static inline void receipts_g_object_unref(void *object) { g_object_unref(object); }

/* The part's content, transfer-decoded (base64, quoted-printable): a malloc'd copy (free() it) of
 * *length bytes, or NULL when the part has no content. */
static inline unsigned char *receipts_gmime_part_bytes(GMimePart *part, size_t *length) {
    *length = 0;
    GMimeDataWrapper *content = g_mime_part_get_content(part);
    if (content == NULL) return NULL;
    GMimeStream *memory = g_mime_stream_mem_new();
    if (g_mime_data_wrapper_write_to_stream(content, memory) < 0) { g_object_unref(memory); return NULL; }
    GByteArray *array = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(memory));
    size_t n = array ? array->len : 0;
    unsigned char *copy = malloc(n > 0 ? n : 1);
    if (copy != NULL && n > 0) memcpy(copy, array->data, n);
    g_object_unref(memory);
    *length = copy ? n : 0;
    return copy;
}

/* A message parsed from `length` bytes (g_object_unref it), or NULL when GMime finds no message. */
static inline GMimeMessage *receipts_gmime_parse(const unsigned char *bytes, size_t length) {
    GMimeStream *stream = g_mime_stream_mem_new_with_buffer((const char *)bytes, length);
    GMimeParser *parser = g_mime_parser_new_with_stream(stream);
    GMimeMessage *message = g_mime_parser_construct_message(parser, NULL);
    g_object_unref(parser);
    g_object_unref(stream);
    return message;
}
#endif
