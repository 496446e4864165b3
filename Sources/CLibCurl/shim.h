#ifndef RECEIPTS_CLIBCURL_SHIM_H
#define RECEIPTS_CLIBCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one function per
 * kind of argument. */
static inline CURLcode receipts_curl_set_long(CURL *c, CURLoption o, long v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode receipts_curl_set_string(CURL *c, CURLoption o, const char *v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode receipts_curl_set_pointer(CURL *c, CURLoption o, void *v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode receipts_curl_set_write(CURL *c, size_t (*f)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, f);
}
static inline CURLcode receipts_curl_set_read(CURL *c, size_t (*f)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(c, CURLOPT_READFUNCTION, f);
}
static inline long receipts_curl_response_code(CURL *c) {
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
#endif
