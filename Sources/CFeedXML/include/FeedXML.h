// A small C face on libxml2's SAX2 parser for the feed parser: streaming from a file descriptor,
// entities declared inside the document expanded (with libxml2's amplification limits), anything
// external (entities, DTDs, the network) refused. libxml2's headers stay inside the .c files, and
// libxml2 itself is opened with dlopen when first needed (XMLLibrary.h).
#ifndef PODQ_FEED_XML_H
#define PODQ_FEED_XML_H

/// The SAX events. `attributes` holds `count` records of five pointers each, as libxml2 gives them:
/// local name, prefix, namespace URI (NUL-terminated or NULL), value start and value end.
/// Names and URIs are interned for the whole parse: equal strings have equal pointers.
/// `start` and `text` return 0 to go on, anything else to stop the parse (`result->stopped` is set).
typedef struct podq_xml_handler {
    void *context;
    int (*start)(void *context, const char *localname, const char *uri, const unsigned char **attributes, int count);
    void (*end)(void *context, const char *localname, const char *uri);
    int (*text)(void *context, const unsigned char *bytes, int length);
} podq_xml_handler;

/// What a parse ended with.
typedef struct podq_xml_result {
    /// 0 when the document was well-formed; else libxml2's error number (xmlParserErrors).
    int code;
    int line;
    int column;
    /// 1 when the document reached for something outside it (an external entity or DTD): refused.
    int external;
    /// 1 when libxml2 stopped an entity loop or amplification (a billion laughs), even while recovering.
    int entity_loop;
    /// 1 when a handler asked to stop.
    int stopped;
    /// In recovery mode: how many errors libxml2 recovered from (the first is in code/line/column).
    int recovered;
    /// 1 when libxml2 itself could not be loaded (`message` says why); nothing was parsed.
    int unavailable;
    /// libxml2's message for `code`, without its trailing newline.
    char message[240];
} podq_xml_result;

/// Whether libxml2 (loaded with dlopen when first needed, not linked) is there: 1, or 0 with
/// dlopen's reason in `reason`.
int podq_xml_available(char *reason, unsigned long size);

/// Parses the document read from `fd` (not closed). Returns `result->code`, or -4 when libxml2
/// could not be loaded (`result->unavailable`).
/// With `recover` nonzero, libxml2 goes on after errors (XML_PARSE_RECOVER), as feed readers do with
/// broken documents; the events then describe what it could make of the rest.
int podq_xml_parse_fd(int fd, const podq_xml_handler *handler, int recover, podq_xml_result *result);

/// Reads the HTML page from `fd` (not closed) with libxml2's forgiving HTML parser and calls `found`
/// for each `<link>`, `<base>` and `<a>` element with an `href` (`element` is the tag's name as
/// written; the other attributes are NULL when absent). `encoding` (NULL: the page's own, else
/// libxml2's default) is how its bytes are read. Returns 0, -1 when nothing could be read, -2 when
/// libxml2 could not be loaded.
int podq_html_links(int fd, const char *encoding, void *context, void (*found)(void *context, const char *element, const char *rel,
                                                          const char *type, const char *href, const char *title));

/// Inflates the gzip or zlib stream read from `in` into `out` (neither closed). Returns the bytes
/// written, -1 when the stream is damaged or cannot be read or written, -2 past `limit` bytes.
long long podq_gunzip(int in, int out, long long limit);

/// The text of an HTML fragment (show notes) through libxml2's HTML parser, without the network:
/// `emit` gets each text run (kind 0), a block boundary (1), a list item (2) and a link's href (3,
/// after the link's text). Script, style and head are skipped. 0, -1 when nothing could be read, -2
/// when libxml2 could not be loaded.
int podq_html_text(const char *html, int length, void *context, void (*emit)(void *context, const char *text, int kind));

#endif
